"""`get_related` on a dense link graph: an answer past the result cap said nothing in its
text (a bare JSON array cut at ~48,000 characters; only the structured copy carried
`truncated`) and offered no way to the rest. A cut answer is now an object saying so, with
a keyset cursor (as `changed_docs` pages) that lists the rest; a whole list is still
kenso's array."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.caps import MAX_RESULT_CHARS
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import doc
from tests.helpers import init_repo

pytestmark = pytest.mark.anyio

DOCS = 160
FOLDER = "docs/" + "a-long-folder-name-" * 8  # long paths: a few hundred rows pass the cap


def _name(i: int) -> str:
    return f"{FOLDER}/page-{i:03d}.md"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = random.Random(7)
    files: dict[str, str | bytes] = {}
    for i in range(DOCS):
        links = " ".join(f"[p{j}](page-{j:03d}.md)" for j in rng.sample(range(DOCS), 12))
        related = [_name(j) for j in rng.sample(range(DOCS), 4)]
        files[_name(i)] = doc(f"Page {i}", f"Graph page {i}. {links}", relates_to=related)
    root = init_repo(tmp_path_factory.mktemp("related") / "repo", files)
    KnowledgeBase.open(root).ingest()
    return root


async def _call(client: Client, args: dict[str, Any]) -> tuple[bool, str, Any]:
    result = await client.call_tool("get_related", args)
    text = result.content[0].text  # type: ignore[union-attr]
    return bool(result.is_error), text, result.structured_content


async def test_a_list_past_the_cap_says_so_in_its_text_and_pages_on(repo: Path) -> None:
    whole = KnowledgeBase.open(repo).get_related(_name(0), depth=2)  # the library: no cap
    assert len(json.dumps(whole, indent=2)) > 2 * MAX_RESULT_CHARS
    args: dict[str, Any] = {"path": _name(0), "depth": 2}
    rows: list[Any] = []
    pages = 0
    async with Client(build_server(Service(repo))) as client:
        while True:
            failed, text, structured = await _call(client, args)
            assert not failed, text
            assert len(text) <= MAX_RESULT_CHARS
            body = json.loads(text)
            # before: a bare array of the first ~100 rows, and no cursor
            assert isinstance(body, dict), text[:200]
            assert body == structured
            assert body["total"] == len(whole)
            rows += body["results"]
            pages += 1
            if body["next_cursor"] is None:
                assert body["truncated"] is False
                break
            assert body["truncated"] is True
            args["cursor"] = body["next_cursor"]
    assert pages >= 3
    assert rows == whole  # every row once, in order


async def test_a_whole_list_is_still_kensos_array(repo: Path) -> None:
    async with Client(build_server(Service(repo))) as client:
        failed, text, structured = await _call(client, {"path": _name(0)})
    body = json.loads(text)
    assert not failed and isinstance(body, list) and body
    assert structured == {"results": body}


async def test_a_cursor_of_another_request_is_refused(repo: Path) -> None:
    async with Client(build_server(Service(repo))) as client:
        _, text, _ = await _call(client, {"path": _name(0), "depth": 2})
        cursor = json.loads(text)["next_cursor"]
        for args in (
            {"path": _name(0), "depth": 3, "cursor": cursor},
            {"path": _name(1), "depth": 2, "cursor": cursor},
            {"path": _name(0), "depth": 2, "cursor": "k2-7a7a-00000000"},
        ):
            failed, text, _ = await _call(client, args)
            assert failed, args
            body = json.loads(text)
            assert body["error"].endswith(
                "is not a next_cursor of get_related for this path, depth and relation_type"
            )
            assert body["hint"].startswith("pass next_cursor of the previous answer")
