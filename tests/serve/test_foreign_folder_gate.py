"""A folder whose docs were indexed and that later becomes a nested repository (`git init
a`) or an environment folder (`a/pyvenv.cfg`, `a/conda-meta/`) is one ingest would not look
at: every door hides its docs as `get_doc` refuses them, from the next call on, whether the
marker was made before the server started or while it serves; the query-time sync drops
them from the index, so the counts agree; and a marker removed again brings them back
(tester's report t47b, defects 2 and 3). At a `ref`, the revision's docs in a folder that is
a nested repository in the work tree are left out as those of an environment folder are,
and a `path` filter naming one is refused as it is without `ref` (defect 4).

Over the in-memory SDK client against the real server object, real git repositories."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.serve.conftest import KENSO_EXE
from tests.serve.conftest import structured_call as call
from tests.serve.rpc import server_env

pytestmark = pytest.mark.anyio

WORD = "hubcanary"
HIDDEN = ("a/a.md", "a/deep/d.md")  # the docs of the folder that becomes foreign
MARKERS = ("nested", "pyvenv.cfg", "conda-meta")
RULE = {"nested": "nested-repo", "pyvenv.cfg": "environment", "conda-meta": "environment"}
FILL = "These words make the page long enough to be indexed as a document of its own. " * 3


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = init_repo(
        tmp_path / "repo",
        {
            "docs/start.md": doc("Start", f"The start page.\n\n{FILL}\n\n[hub](../a/a.md)\n"),
            "a/a.md": doc("Hidden hub", f"The {WORD} hub.\n\n{FILL}\n\n[leaf](../b/b.md)\n"),
            "a/deep/d.md": doc("Deep page", f"A deep {WORD} page.\n\n{FILL}\n\n[b](/b/b.md)\n"),
            "b/b.md": doc("Leaf", f"The leaf page, linked from the hub.\n\n{FILL}\n"),
        },
    )
    KnowledgeBase.open(root).ingest()
    return root


def _mark(root: Path, marker: str) -> None:
    if marker == "nested":
        subprocess.run(["git", "init", "-q", str(root / "a")], check=True)
    elif marker == "conda-meta":
        (root / "a" / "conda-meta").mkdir()
        (root / "a" / "conda-meta" / "history").write_text("==> init <==\n", encoding="utf-8")
    else:
        (root / "a" / marker).write_text("home = /usr/bin\n", encoding="utf-8")


def _unmark(root: Path, marker: str) -> None:
    target = root / "a" / (".git" if marker == "nested" else marker)
    if target.is_dir():
        shutil.rmtree(target)
    else:
        target.unlink()


def _body(result: Any) -> Any:
    return json.loads(result.content[0].text)


def _rows(body: Any) -> list[dict[str, Any]]:
    return body if isinstance(body, list) else body["results"]


async def _revealed(client: Client) -> tuple[set[str], str]:
    """Every path the search and graph doors give, and all their text."""
    answers = []
    for tool, args, key in (
        ("search_docs", {"query": f"{WORD} hub", "limit": 20}, "file_path"),
        ("search_multi", {"queries": [WORD, "hub", "deep page"], "limit": 20}, "file_path"),
        ("search", {"query": WORD, "page_size": 50}, "path"),
        ("search", {"query": "hub", "page_size": 50}, "path"),
        ("regex_search", {"pattern": WORD, "page_size": 50}, "path"),
        ("get_related", {"path": "docs/start.md", "depth": 3}, "related_path"),
        ("get_related", {"path": "b/b.md", "depth": 3}, "related_path"),
        ("find_related", {"path": "docs/start.md"}, "path"),
        ("find_related", {"path": "b/b.md"}, "path"),
    ):
        result = await client.call_tool(tool, args)
        assert not result.is_error, (tool, result.content)
        answers.append((_body(result), key))
    paths = {row[key] for body, key in answers for row in _rows(body)}
    paths |= {row["via"] for body, _ in answers for row in _rows(body) if row.get("via")}
    return paths, json.dumps([body for body, _ in answers])


async def _refusals(client: Client, ref: str | None = None) -> dict[str, str | None]:
    """The rule each door naming a hidden doc or its folder refuses it by (None: served)."""
    at = {} if ref is None else {"ref": ref}
    calls: list[tuple[str, dict[str, Any]]] = [
        *(("get_doc", {"path": path, **at}) for path in HIDDEN),
        *(("read_snippet", {"path": path, "query": "", **at}) for path in HIDDEN),
        ("search", {"query": WORD, "path": "a", **at}),
        ("search", {"query": f"in:a/deep {WORD}", **at}),
    ]
    if ref is None:
        calls += [
            ("find_related", {"path": "a/a.md"}),
            ("get_related", {"path": "a/deep/d.md"}),
            ("regex_search", {"pattern": WORD, "path": "a"}),
        ]
    rules: dict[str, str | None] = {}
    for tool, args in calls:
        result = await client.call_tool(tool, args)
        body = _body(result)
        rules[f"{tool} {args}"] = body.get("rule") if result.is_error else None
    return rules


async def _counts(client: Client) -> tuple[int, int]:
    state = _body(await client.call_tool("index_state", {}))
    health = _body(await client.call_tool("health_check", {}))
    assert not health["worktree_differs"], health  # HEAD's docs there are not ingest's either
    return state["documents"], health["documents"]


@pytest.mark.parametrize("marker", MARKERS)
async def test_a_folder_turned_foreign_before_the_server_started_is_hidden_everywhere(
    repo: Path, marker: str
) -> None:
    _mark(repo, marker)
    async with Client(build_server(Service(repo))) as client:
        paths, text = await _revealed(client)
        assert not paths & set(HIDDEN) and WORD not in text, paths
        assert set((await _refusals(client)).values()) == {RULE[marker]}
        assert await _counts(client) == (2, 2)  # docs/start.md and b/b.md


@pytest.mark.parametrize("marker", MARKERS)
async def test_a_marker_made_while_serving_hides_the_folder_from_the_next_call(
    repo: Path, marker: str
) -> None:
    async with Client(build_server(Service(repo))) as client:
        paths, text = await _revealed(client)  # every verdict of the gate is warm now
        assert set(HIDDEN) <= paths and WORD in text
        assert set((await _refusals(client)).values()) == {None}
        assert await _counts(client) == (4, 4)
        _mark(repo, marker)
        paths, text = await _revealed(client)
        assert not paths & set(HIDDEN) and WORD not in text, paths
        assert set((await _refusals(client)).values()) == {RULE[marker]}
        assert await _counts(client) == (2, 2)
        _unmark(repo, marker)  # the folder is the project's again: so are its docs
        paths, text = await _revealed(client)
        assert set(HIDDEN) <= paths and WORD in text
        assert set((await _refusals(client)).values()) == {None}
        assert await _counts(client) == (4, 4)


@pytest.mark.parametrize("marker", MARKERS)
async def test_with_query_sync_off_the_gate_alone_hides_them(repo: Path, marker: str) -> None:
    (repo / ".kenso.toml").write_text("query-sync = false\n", encoding="utf-8")
    async with Client(build_server(Service(repo))) as client:
        paths, _ = await _revealed(client)
        assert set(HIDDEN) <= paths
        _mark(repo, marker)
        paths, text = await _revealed(client)
        assert not paths & set(HIDDEN) and WORD not in text, paths
        assert set((await _refusals(client)).values()) == {RULE[marker]}
        assert await _counts(client) == (2, 2)  # the scope's counts: the index keeps them


async def _revealed_at(client: Client, ref: str) -> set[str]:
    paths: set[str] = set()
    for tool, args, key in (
        ("search_docs", {"query": f"{WORD} hub", "limit": 20, "ref": ref}, "file_path"),
        ("search", {"query": WORD, "page_size": 50, "ref": ref}, "path"),
    ):
        result = await client.call_tool(tool, args)
        assert not result.is_error, (tool, result.content)
        paths |= {row[key] for row in _rows(_body(result))}
    return paths


@pytest.mark.parametrize("marker", MARKERS)
async def test_at_a_ref_a_marker_made_while_serving_hides_the_folder_too(
    repo: Path, marker: str
) -> None:
    """The copy of the revision's docs kept from an earlier call (and the rankings kept for
    it) was chosen before the marker existed: it is not served after."""
    async with Client(build_server(Service(repo))) as client:
        assert set(HIDDEN) <= await _revealed_at(client, "HEAD")
        _mark(repo, marker)
        assert not set(HIDDEN) & await _revealed_at(client, "HEAD")
        assert set((await _refusals(client, "HEAD")).values()) == {RULE[marker]}
        _unmark(repo, marker)
        assert set(HIDDEN) <= await _revealed_at(client, "HEAD")


@pytest.mark.parametrize("sdk", ["0", "1"])
async def test_a_real_server_process_hides_a_folder_made_a_repository_while_it_serves(
    repo: Path, sdk: str
) -> None:
    """`kenso-git serve` over stdio, its own loop and the SDK's server (KENSO_MCP_SDK=1)."""
    params = StdioServerParameters(
        command=str(KENSO_EXE),
        args=["serve", "--no-watch"],
        cwd=repo,
        env=server_env(KENSO_MCP_SDK=sdk),
    )
    async with Client(params) as client:
        paths, _ = await _revealed(client)
        assert set(HIDDEN) <= paths
        _mark(repo, "nested")
        paths, text = await _revealed(client)
        assert not paths & set(HIDDEN) and WORD not in text, paths
        assert set((await _refusals(client)).values()) == {"nested-repo"}
        assert await _counts(client) == (2, 2)


@pytest.fixture
def at_ref(tmp_path: Path) -> Path:
    """Committed docs in nest/ (a nested repository in the work tree since) and envf/ (a
    virtualenv), and an untracked nested repository vendor/sub."""
    root = init_repo(tmp_path / "repo", {"docs/guide.md": doc("Guide", f"The guide.\n\n{FILL}")})
    base = git(root, "rev-parse", "HEAD").strip()
    for folder in ("nest", "envf", "vendor"):
        path = root / folder / "v.md"
        path.parent.mkdir(parents=True)
        path.write_text(doc(f"{folder} page", f"The {folder}canary.\n\n{FILL}"), encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "folders")
    init_repo(root / "nest")
    (root / "envf" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    init_repo(root / "vendor" / "sub", {"s.md": doc("Sub", f"The subcanary.\n\n{FILL}")})
    (root / "base").write_text(base, encoding="utf-8")
    KnowledgeBase.open(root).ingest()
    return root


@pytest.mark.parametrize("ref", [None, "HEAD"])
async def test_at_a_ref_a_nested_repository_of_the_work_tree_is_left_out(
    at_ref: Path, ref: str | None
) -> None:
    at = {} if ref is None else {"ref": ref}
    for folder, rule in (("nest", "nested-repo"), ("envf", "environment")):
        for tool, args in (
            ("get_doc", {"path": f"{folder}/v.md"}),
            ("read_snippet", {"path": f"{folder}/v.md", "query": ""}),
            ("search", {"query": "canary", "path": folder}),
            ("search", {"query": f"in:{folder} canary"}),
        ):
            failed, body = await call(at_ref, tool, {**args, **at})
            assert failed and body["rule"] == rule, (tool, args, at, body)
        for tool, args in (
            ("search_docs", {"query": f"{folder}canary"}),
            ("search", {"query": f"{folder}canary"}),
        ):
            failed, body = await call(at_ref, tool, {**args, **at})
            assert not failed and f"{folder}/" not in json.dumps(body), (tool, at, body)
    # a path filter naming an untracked nested repository: the same refusal at a ref
    failed, body = await call(at_ref, "search", {"query": "canary", "path": "vendor/sub", **at})
    assert failed and body["rule"] == "nested-repo", body


async def test_changed_docs_names_no_doc_of_a_nested_repository(at_ref: Path) -> None:
    base = (at_ref / "base").read_text(encoding="utf-8")
    for until in (None, "HEAD"):
        failed, body = await call(at_ref, "changed_docs", {"since": base, "until": until})
        assert not failed, body
        assert [r["path"] for r in body["results"]] == ["vendor/v.md"], (until, body)
