"""The tools through the SDK's in-process client against the real server object."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest
from mcp import Client

from kenso_git.serve import caps as service_module
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.search.helpers import ITEM_KEYS
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo

if TYPE_CHECKING:
    from kenso_git.serve.caps import SearchReply

pytestmark = pytest.mark.anyio

READ_TOOLS = {
    "search_docs",
    "search_multi",
    "get_doc",
    "get_related",
    "read_snippet",
    "health_check",
    "index_state",
    "search",
    "regex_search",
    "find_related",
    "changed_docs",
}


async def call(root: Path, tool: str, args: dict[str, Any] | None = None) -> tuple[Any, Any]:
    async with Client(build_server(Service(root))) as client:
        result = await client.call_tool(tool, args or {})
    text = json.loads(result.content[0].text)
    return result, text


async def test_read_only_tools_are_listed_with_annotations_and_output_schemas(repo: Path) -> None:
    async with Client(build_server(Service(repo))) as client:
        tools = (await client.list_tools()).tools
    assert {t.name for t in tools} == READ_TOOLS
    for tool in tools:
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is True
        assert tool.annotations.open_world_hint is False
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert tool.description and len(tool.description) > 80


async def test_search_docs_returns_kensos_array_and_the_same_hits_structured(repo: Path) -> None:
    result, hits = await call(repo, "search_docs", {"query": "payment service deploy"})
    assert not result.is_error
    assert isinstance(hits, list) and hits
    assert list(hits[0])[:8] == ITEM_KEYS
    assert result.structured_content == {"results": hits}


async def test_empty_query_is_a_tool_error_with_kensos_message(repo: Path) -> None:
    result, body = await call(repo, "search_docs", {"query": "   "})
    assert result.is_error
    assert body["error"] == "Empty query."


async def test_search_multi_without_queries_is_kensos_error(repo: Path) -> None:
    for queries in (None, []):
        result, body = await call(repo, "search_multi", {"queries": queries})
        assert result.is_error
        assert body["error"] == "No queries provided."


async def test_kensos_error_payloads_are_exact_on_the_wire(tmp_path: Path) -> None:
    """The library raises; the service answers with kenso's contract payloads, nothing more."""
    root = make_repo(tmp_path / "repo")
    async with Client(build_server(Service(root))) as client:
        blank = await client.call_tool("search_docs", {"query": ""})  # checked before the index
        ingest(root)
        replies = [
            blank,
            await client.call_tool("search_multi", {"queries": []}),
            await client.call_tool("get_doc", {"path": "docs/missing.md"}),
        ]
    expected = [
        "Empty query.",
        "No queries provided.",
        "No document found at path: docs/missing.md",
    ]
    for result, error in zip(replies, expected, strict=True):
        assert result.is_error
        assert result.content[0].text == json.dumps({"error": error}, indent=2)
        assert result.structured_content is None  # it would have to match the output schema


def test_the_service_returns_the_error_payload_as_text_and_structured(repo: Path) -> None:
    service = Service(repo)
    assert service.search_docs("   ", None, 5) == (
        {"error": "Empty query."},
        {"error": "Empty query."},
    )
    assert service.search_multi(None, None, 5)[0] == {"error": "No queries provided."}
    assert service.get_doc("docs/nope.md", None)[1] == {
        "error": "No document found at path: docs/nope.md"
    }


async def test_a_corrected_query_keeps_kensos_object_in_text_and_structured(repo: Path) -> None:
    result, body = await call(repo, "search_docs", {"query": "deploymnt"})
    assert list(body) == ["corrected_query", "original_query", "results"]
    assert body["corrected_query"] == "deploy" and body["results"]
    assert result.structured_content == body
    result, body = await call(repo, "search_multi", {"queries": ["billng", "deploy"]})
    assert list(body) == ["corrections", "results"]
    assert body["corrections"] == {"billng": "billing"}
    assert result.structured_content == body


async def test_search_multi_answers_its_first_five_queries_and_says_it_dropped_the_rest(
    repo: Path,
) -> None:
    """#26: a sixth query vanished without a word; the first five answer, and `truncated`
    says the answer does not cover every query (kenso's text shape has no room for it)."""
    five = ["zz1", "zz2", "zz3", "zz4", "zz5"]
    result, hits = await call(repo, "search_multi", {"queries": [*five, "billing"]})
    assert not result.is_error
    assert hits == []  # billing, the sixth, is not run: the cap stays kenso's
    assert result.structured_content == {"results": [], "truncated": True}
    result, hits = await call(repo, "search_multi", {"queries": ["billing", *five[1:]]})
    assert hits and result.structured_content == {"results": hits}  # five: no flag
    result, hits = await call(repo, "search_multi", {"queries": [*five, " ", ""]})
    assert result.structured_content == {"results": []}  # blank ones are not queries


def _hits(payload: object) -> list[Any]:
    """The hits of a search text payload, in whichever of kenso's shapes it came."""
    assert isinstance(payload, list | dict)
    return payload if isinstance(payload, list) else payload["results"]


def test_cut_results_are_flagged_only_in_the_structured_copy(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = Service(repo)
    cap = service_module.MAX_RESULT_CHARS
    calls: list[Callable[[], SearchReply]] = [
        lambda: service.search_docs("deploymnt", None, 5),  # the corrected-query object
        lambda: service.search_multi(["billng", "deploy"], None, 5),  # the corrections object
        lambda: service.search_docs("payment", None, 5),  # a bare array
    ]
    for run in calls:
        monkeypatch.setattr(service_module, "MAX_RESULT_CHARS", cap)
        full, _ = run()
        full_hits = _hits(full)
        assert len(full_hits) >= 2
        one_hit = len(json.dumps(full_hits[:1], indent=2, ensure_ascii=False))
        monkeypatch.setattr(service_module, "MAX_RESULT_CHARS", one_hit)
        text, structured = run()
        if isinstance(text, list):
            assert text == full_hits[:1]
            assert structured == {"results": text, "truncated": True}
        else:
            assert list(text) == list(full) and _hits(text) == full_hits[:1]
            assert structured == {**text, "truncated": True}


async def test_search_results_stay_inside_the_agent_scope(scoped_repo: Path) -> None:
    _, hits = await call(scoped_repo, "search_docs", {"query": "payment", "limit": 20})
    assert hits and {h["file_path"] for h in hits} <= {"docs/deploy.md", "docs/billing.md"}
    _, multi = await call(scoped_repo, "search_multi", {"queries": ["roadmap", "payment vault"]})
    assert all(h["file_path"].startswith("docs/") for h in multi)


async def test_get_doc_reads_a_document_and_refuses_hostile_paths(repo: Path) -> None:
    result, doc = await call(repo, "get_doc", {"path": "docs/deploy.md"})
    assert not result.is_error
    assert list(doc)[:5] == ["title", "content", "category", "audience", "tags"]  # kenso's
    assert list(doc)[5:] == ["last_commit"]  # and how old it is (#29)
    assert set(doc["last_commit"]) == {"id", "time", "subject"}
    assert "canary marker alpha" in doc["content"]
    result, body = await call(repo, "get_doc", {"path": "../../etc/passwd"})
    assert result.is_error and body["rule"] == "parent-traversal"
    result, body = await call(repo, "get_doc", {"path": "docs/missing.md"})
    assert result.is_error and body["error"] == "No document found at path: docs/missing.md"


async def test_get_doc_max_length_truncates_with_a_flag(repo: Path) -> None:
    _, doc = await call(repo, "get_doc", {"path": "docs/deploy.md", "max_length": 10})
    assert doc["truncated"] is True
    assert len(doc["content"]) <= 13


async def test_get_related_hides_documents_outside_the_scope(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", scoped=("docs",))
    (root / "docs" / "billing.md").write_text(
        "---\nrelates_to: private/plan.md\n---\n# Billing Retries\n\n"
        "Billing retries and settlement for the payment service.\n",
        encoding="utf-8",
    )
    ingest(root)
    _, related = await call(root, "get_related", {"path": "docs/billing.md", "depth": 3})
    paths = {r["related_path"] for r in related}
    assert "docs/deploy.md" in paths
    assert "private/plan.md" not in paths
    result, body = await call(root, "get_related", {"path": "private/plan.md"})
    assert result.is_error and body["rule"] == "outside-scope"


async def test_read_snippet_returns_the_lines_around_the_first_match(repo: Path) -> None:
    args = {"path": "docs/deploy.md", "query": "canary marker", "max_tokens": 32}
    result, snip = await call(repo, "read_snippet", args)
    assert not result.is_error
    assert list(snip) == ["path", "line_start", "line_end", "text", "truncated", "token_budget"]
    assert "canary marker alpha" in snip["text"]
    assert snip["token_budget"] == 32 and len(snip["text"]) <= 128
    assert result.structured_content == snip


async def test_read_snippet_refuses_non_markdown_and_ignored_files(repo: Path) -> None:
    (repo / "docs" / "key.pem").write_text("secret\n", encoding="utf-8")
    result, body = await call(repo, "read_snippet", {"path": "docs/key.pem", "query": "s"})
    assert result.is_error and body["rule"] == "not-markdown"
    result, body = await call(repo, "read_snippet", {"path": "ignored/notes.md", "query": "p"})
    assert result.is_error and body["rule"] == "ignored"
    result, body = await call(repo, "read_snippet", {"path": "docs/deploy.md", "query": "zzzq"})
    assert result.is_error and "no line" in body["error"] and body["hint"]


async def test_without_an_index_every_tool_reports_a_clear_error(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    calls = {
        "search_docs": {"query": "payment"},
        "search_multi": {"queries": ["payment"]},
        "get_doc": {"path": "docs/deploy.md"},
        "get_related": {"path": "docs/deploy.md"},
        "read_snippet": {"path": "docs/deploy.md", "query": "payment"},
        "index_state": {},
    }
    async with Client(build_server(Service(root))) as client:
        for tool, args in calls.items():
            result = await client.call_tool(tool, args)
            body = json.loads(result.content[0].text)
            assert result.is_error, tool
            assert "no search index" in body["error"], (tool, body)
            assert "kenso-git ingest" in body["hint"]
        health = await client.call_tool("health_check", {})
    assert not health.is_error
    assert health.structured_content is not None
    assert health.structured_content["ok"] is False
    assert "kenso-git ingest" in health.structured_content["reason"]
    assert not (root / ".kenso" / "docs.db").exists()


async def test_index_state_reports_counts_and_scoped_roots(scoped_repo: Path) -> None:
    result, state = await call(scoped_repo, "index_state")
    assert not result.is_error
    # docs/ holds two of the three indexed docs: private/plan.md is neither counted (#27)
    assert state["documents"] == 2 and state["chunks"] >= state["documents"]
    assert state["db_bytes"] > 0 and state["schema_version"] >= 1
    assert len(state["as_of"]) == 40 and state["stale"] is False
    assert state["scoped_roots"] == ["docs"]


async def test_reindex_exists_only_when_enabled_and_never_over_http(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", extra="allow-reindex = true\n")
    ingest(root)
    service = Service(root)
    async with Client(build_server(service, http=True)) as client:
        assert "reindex" not in {t.name for t in (await client.list_tools()).tools}
    (root / "docs" / "new.md").write_text(
        "# Fresh Page\n\nA brand new page about quokka migrations.\n", encoding="utf-8"
    )
    async with Client(build_server(service)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["reindex"].annotations is not None
        assert tools["reindex"].annotations.read_only_hint is False
        result = await client.call_tool("reindex", {})
        assert not result.is_error
        found = await client.call_tool("search_docs", {"query": "quokka"})
    assert json.loads(found.content[0].text)[0]["file_path"] == "docs/new.md"


async def test_a_long_running_server_sees_a_later_ingest(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    async with Client(build_server(Service(root))) as client:
        before = await client.call_tool("search_docs", {"query": "payment"})
        assert before.is_error
        ingest(root)
        after = await client.call_tool("search_docs", {"query": "payment"})
        assert not after.is_error
        (root / "docs" / "zebra.md").write_text(
            "# Zebra Crossing\n\nZebra stripes guide the payment walkers.\n", encoding="utf-8"
        )
        ingest(root)
        again = await client.call_tool("search_docs", {"query": "zebra"})
    assert json.loads(again.content[0].text)[0]["file_path"] == "docs/zebra.md"


async def test_results_stay_well_under_the_client_token_limit(tmp_path: Path) -> None:
    big = "\n\n".join(f"## Part {i}\n\n" + "payment words " * 300 for i in range(60))
    root = make_repo(tmp_path / "repo")
    (root / "docs" / "huge.md").write_text("# Huge\n\n" + big, encoding="utf-8")
    ingest(root)
    result, doc = await call(root, "get_doc", {"path": "docs/huge.md"})
    assert doc["truncated"] is True
    assert len(result.content[0].text) <= 48_000
    result, snip = await call(root, "read_snippet", {"path": "docs/huge.md", "query": "part 30"})
    assert len(snip["text"]) <= 1024 and snip["truncated"] is True
