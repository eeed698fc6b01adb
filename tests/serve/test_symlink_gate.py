"""One rule for every door: symlinks inside the scope never carry hidden text to an agent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.serve.conftest import make_repo

pytestmark = pytest.mark.anyio

SECRET_ENV = "API_TOKEN=zebracorn-credential-value\n" * 4
SECRET_CONFIG_LINE = "\turl = https://user:gryphonpass@example.com/repo.git\n"
HIDDEN_WORDS = ("zebracorn", "gryphonpass", "payment roadmap", "kept out of the index")


def plant(root: Path) -> None:
    """In-scope (docs/) links to a dotfile, .git/config, an ignored doc and an out-of-scope doc."""
    (root / ".env").write_text(SECRET_ENV, encoding="utf-8")
    with (root / ".git" / "config").open("a", encoding="utf-8") as handle:
        handle.write('[remote "origin"]\n' + SECRET_CONFIG_LINE + "# padding " * 10 + "\n")
    docs = root / "docs"
    (docs / "to-env.md").symlink_to("../.env")
    (docs / "to-git.md").symlink_to("../.git/config")
    (docs / "to-ignored.md").symlink_to("../ignored/notes.md")
    (docs / "to-private.md").symlink_to("../private/plan.md")
    (docs / "alias.md").symlink_to("billing.md")
    (docs / "loop.md").symlink_to("loop.md")


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo", scoped=("docs",))
    (root / "ignored" / "notes.md").write_text(
        "# Ignored Notes\n\nPayment notes kept out of the index on purpose, long enough.\n",
        encoding="utf-8",
    )
    plant(root)
    KnowledgeBase.open(root).ingest()
    return root


def indexed_paths(root: Path) -> set[str]:
    kb = KnowledgeBase.open(root)
    rows = kb.read(lambda conn: conn.execute("SELECT DISTINCT file_path FROM chunks").fetchall())
    return {r[0] for r in rows}


def test_ingest_skips_links_to_ignored_internal_and_looping_targets(planted: Path) -> None:
    paths = indexed_paths(planted)
    assert not {"docs/to-env.md", "docs/to-git.md", "docs/to-ignored.md", "docs/loop.md"} & paths
    # links whose targets are indexable stay: the serving gate decides about the scope
    assert {"docs/alias.md", "docs/to-private.md"} <= paths


def test_ingest_survives_a_symlink_loop(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    (root / "docs" / "loop.md").symlink_to("loop.md")
    (root / "docs" / "a.md").symlink_to("b.md")
    (root / "docs" / "b.md").symlink_to("a.md")
    warnings: list[str] = []
    KnowledgeBase.open(root).ingest(warn=warnings.append)
    assert "docs/deploy.md" in indexed_paths(root)
    assert any("docs/loop.md" in w for w in warnings)


async def _answers(root: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    out = []
    async with Client(build_server(Service(root))) as client:
        for name, args in calls:
            result = await client.call_tool(name, args)
            out.append((result.is_error, json.loads(result.content[0].text)))
    return out


REVEALING: list[tuple[str, dict[str, Any]]] = [
    *(("search_docs", {"query": word, "limit": 20}) for word in HIDDEN_WORDS),
    ("search_docs", {"query": "payment", "limit": 20}),
    ("search_docs", {"query": "zebracorm"}),  # a typo of a hidden word
    ("search_multi", {"queries": list(HIDDEN_WORDS), "limit": 20}),
    ("search_docs", {"query": "to-private.md"}),
    ("search_docs", {"query": "docs/to"}),
    ("get_related", {"path": "docs/deploy.md", "depth": 3}),
    ("get_related", {"path": "docs/alias.md", "depth": 3}),
    ("index_state", {}),
    ("health_check", {}),
]
HIDDEN_PATHS = ("to-private.md", "to-env.md", "to-git.md", "to-ignored.md", "private/", "ignored/")


async def test_no_tool_reveals_text_or_paths_behind_in_scope_links(planted: Path) -> None:
    answers = json.dumps(await _answers(planted, REVEALING))
    for word in (*HIDDEN_WORDS, *HIDDEN_PATHS):
        assert word not in answers, word
    assert "docs/alias.md" in answers  # a link to an in-scope doc is served


async def test_regex_search_reads_a_link_to_an_in_scope_doc_and_no_other(planted: Path) -> None:
    """`search_docs` serves `docs/alias.md` (a link to billing.md), so `regex_search`
    matches its lines too; links to hidden targets stay unread."""
    calls: list[tuple[str, dict[str, Any]]] = [("regex_search", {"pattern": "Retries happen"})]
    calls += [("regex_search", {"pattern": "zebracorn|gryphonpass|roadmap|kept out"})]
    (error, found), (hidden_error, hidden) = await _answers(planted, calls)
    assert not error and not hidden_error
    assert [h["path"] for h in found["results"]] == ["docs/alias.md", "docs/billing.md"]
    assert hidden["results"] == []
    answers = json.dumps([found, hidden])
    for word in (*HIDDEN_WORDS, *HIDDEN_PATHS):
        assert word not in answers, word


async def test_path_tools_refuse_links_to_hidden_targets(planted: Path) -> None:
    calls: list[tuple[str, dict[str, Any]]] = []
    for name in ("to-private.md", "to-env.md", "to-git.md", "to-ignored.md", "loop.md"):
        calls += [("get_doc", {"path": f"docs/{name}"})]
        calls += [("read_snippet", {"path": f"docs/{name}", "query": ""})]
    for is_error, body in await _answers(planted, calls):
        assert is_error or "error" in body
        assert not any(word in json.dumps(body) for word in HIDDEN_WORDS)


async def test_typo_correction_never_offers_a_word_of_a_hidden_doc(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", scoped=("docs",))
    (root / "private" / "vault.md").write_text(
        "# Zanzibar Vault\n\nThe hidden vault document, with words enough to be indexed.\n",
        encoding="utf-8",
    )
    KnowledgeBase.open(root).ingest()
    calls: list[tuple[str, dict[str, Any]]] = [
        ("search_docs", {"query": "zanzibat deplyo"}),
        ("search_multi", {"queries": ["zanzibat deplyo", "vaullt"]}),
    ]
    (_, single), (_, multi) = await _answers(root, calls)
    assert single["corrected_query"] == "zanzibat deploy"  # visible words are still corrected
    assert "zanzibar" not in json.dumps([single, multi]).lower()
    assert "vault" not in json.dumps(multi["corrections"]).lower()


async def test_related_count_counts_only_documents_the_agent_may_see(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", scoped=("docs",))
    (root / "docs" / "hub.md").write_text(
        "---\nrelates_to: [docs/billing.md, private/plan.md, ignored/notes.md]\n---\n"
        "# Quokka Hub\n\nThe quokka hub relates to billing, the plan and the notes.\n",
        encoding="utf-8",
    )
    KnowledgeBase.open(root).ingest()
    calls: list[tuple[str, dict[str, Any]]] = [
        ("search_docs", {"query": "quokka"}),
        ("get_related", {"path": "docs/hub.md"}),
    ]
    (_, hits), (_, related) = await _answers(root, calls)
    assert [r["related_path"] for r in related] == ["docs/billing.md"]
    assert hits[0]["file_path"] == "docs/hub.md" and hits[0]["related_count"] == 1
