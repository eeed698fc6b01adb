"""`changed_docs` past one answer's worth of docs: a commit adding 300 docs gave a text cut
at 48,000 characters mid-string (invalid JSON) with `isError` false and `truncated` false,
and no way to the docs past the cut. Now an answer drops whole results, says `truncated`,
and its `next_cursor` lists the rest, through the SDK's client over stdio and in memory."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from kenso_git.repo.history import MAX_HEADER_CHARS
from kenso_git.serve.caps import MAX_RESULT_CHARS
from kenso_git.serve.mcp.answer import answer
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write
from tests.serve.conftest import KENSO_EXE

pytestmark = pytest.mark.anyio

MANY = 300


def _page_text(i: int) -> str:
    return f"# Page {i}\n\n## Section {i}\n\nThe word dugong number {i} is in this page here.\n"


@pytest.fixture
def many(tmp_path: Path) -> Path:
    """A tag `base`, then one commit adding 300 docs in scope and 3 outside it."""
    root = init_repo(
        tmp_path / "repo",
        {"docs/start.md": _page_text(0), ".kenso.toml": 'agent-scoped-roots = ["docs"]\n'},
    )
    git(root, "tag", "base")
    files: dict[str, str | bytes] = {
        f"docs/page-with-a-longish-name-{i}.md": _page_text(i) for i in range(1, MANY + 1)
    }
    files.update({f"private/hidden-{i}.md": _page_text(i) for i in range(3)})
    write(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "add 300 docs")
    return root


def _answer(result: Any) -> dict[str, Any]:
    """The text of a successful answer, checked to be whole JSON equal to the structured copy."""
    assert not result.is_error, result.content[0].text
    text = result.content[0].text
    assert len(text) <= MAX_RESULT_CHARS
    body: dict[str, Any] = json.loads(text)  # a cut text fails here
    assert body == result.structured_content
    return body


async def _every_page(client: Client, args: dict[str, Any]) -> list[dict[str, Any]]:
    pages = [_answer(await client.call_tool("changed_docs", args))]
    while pages[-1]["next_cursor"] is not None:
        assert len(pages) <= MANY, "the cursor must move on"
        cursor = pages[-1]["next_cursor"]
        pages.append(_answer(await client.call_tool("changed_docs", {**args, "cursor": cursor})))
    return pages


def _check_pages(pages: list[dict[str, Any]]) -> None:
    paths = [item["path"] for page in pages for item in page["results"]]
    expected = sorted(f"docs/page-with-a-longish-name-{i}.md" for i in range(1, MANY + 1))
    assert paths == expected  # every change once, in path order; private/ never
    assert len(pages) > 1
    for page in pages:
        assert page["total"] == MANY
        assert page["truncated"] is (page["next_cursor"] is not None)
    assert all(page["truncated"] for page in pages[:-1])


def _env() -> dict[str, str]:
    keep = ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "PATH")
    return {k: os.environ[k] for k in keep if k in os.environ}


async def test_300_changed_docs_over_stdio_come_as_whole_json_pages(many: Path) -> None:
    # `kenso-git serve` as a client starts it: the SDK-free stdio loop, its cached schemas
    params = StdioServerParameters(command=str(KENSO_EXE), args=["serve"], cwd=many, env=_env())
    async with Client(params) as client:
        pages = await _every_page(client, {"since": "base"})
        asked_for_all = _answer(
            await client.call_tool("changed_docs", {"since": "base", "limit": MANY})
        )
    _check_pages(pages)
    assert asked_for_all["truncated"] is True and asked_for_all["next_cursor"]
    assert asked_for_all["results"] == pages[0]["results"]


async def test_changed_docs_pages_in_memory_and_limit_is_clamped(many: Path) -> None:
    async with Client(build_server(Service(many))) as client:
        _check_pages(await _every_page(client, {"since": "base", "until": "HEAD"}))
        small = await _every_page(client, {"since": "base", "limit": 120})
        zero = await client.call_tool("changed_docs", {"since": "base", "limit": 0})
        negative = await client.call_tool("changed_docs", {"since": "base", "limit": -5})
        over = _answer(await client.call_tool("changed_docs", {"since": "base", "limit": 5000}))
    _check_pages(small)
    assert [len(p["results"]) for p in small] == [120, 120, 60]
    for refused in (zero, negative):  # documented: limit is 1-1000, more is read as 1000
        assert refused.is_error
        assert "limit should be 1 to 1,000" in refused.content[0].text  # type: ignore[union-attr]
    assert 1 < len(over["results"]) < MANY and over["truncated"] is True


async def test_a_cursor_of_another_range_is_refused_with_a_hint(many: Path) -> None:
    async with Client(build_server(Service(many))) as client:
        first = _answer(await client.call_tool("changed_docs", {"since": "base", "limit": 1}))
        other = await client.call_tool(
            "changed_docs", {"since": "HEAD", "cursor": first["next_cursor"]}
        )
        garbage = await client.call_tool("changed_docs", {"since": "base", "cursor": "k2-zz-x"})
    for refused in (other, garbage):
        assert refused.is_error
        body = json.loads(refused.content[0].text)
        assert "not a next_cursor of changed_docs" in body["error"]
        assert "omit cursor" in body["hint"]


async def test_a_cursor_resumes_after_its_path_when_the_work_tree_changed(many: Path) -> None:
    async with Client(build_server(Service(many))) as client:
        first = _answer(await client.call_tool("changed_docs", {"since": "base", "limit": 2}))
        write(many, {"docs/aaa-new.md": _page_text(999)})  # sorts before the cursor's path
        second = _answer(
            await client.call_tool(
                "changed_docs", {"since": "base", "limit": 2, "cursor": first["next_cursor"]}
            )
        )
    assert [i["path"] for i in first["results"]] == [
        "docs/page-with-a-longish-name-1.md",
        "docs/page-with-a-longish-name-10.md",
    ]
    assert [i["path"] for i in second["results"]] == [
        "docs/page-with-a-longish-name-100.md",
        "docs/page-with-a-longish-name-101.md",
    ]
    assert second["total"] == MANY + 1


async def test_a_commit_subject_of_60000_characters_is_cut_and_served(tmp_path: Path) -> None:
    """The one change naming such a commit could fit no answer (the text was cut at the
    cap: invalid JSON, `isError` false); its subject is cut to MAX_HEADER_CHARS instead."""
    root = init_repo(tmp_path / "repo", {"docs/a.md": _page_text(1)})
    git(root, "tag", "base")
    write(root, {"docs/a.md": _page_text(2)})
    git(root, "commit", "-qam", "long " * 12_000)
    params = StdioServerParameters(command=str(KENSO_EXE), args=["serve"], cwd=root, env=_env())
    async with Client(params) as client:
        found = await client.call_tool("changed_docs", {"since": "base"})
    assert not found.is_error
    (change,) = json.loads(found.content[0].text)["results"]
    subject = change["last_commit"]["subject"]
    assert (
        len(subject) == MAX_HEADER_CHARS and subject.startswith("long long") and subject[-1] == "…"
    )


def test_an_answer_past_the_cap_is_an_error_not_a_cut_text() -> None:
    """What no tool's trimming brought under the cap is refused whole, as JSON that says
    why and what to do (the text was cut at the cap: invalid JSON, `isError` false)."""
    body = {"results": ["x" * (MAX_RESULT_CHARS + 10)]}
    refused = answer(lambda: (body, body))
    assert refused["isError"] is True
    said = json.loads(refused["content"][0]["text"])
    assert "more than the 48,000" in said["error"]
    assert "kenso-git command line" in said["hint"]
