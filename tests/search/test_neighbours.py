"""find_related over a real indexed repository: links both ways, then same stem and folder."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from kenso_git.errors import DocumentNotFoundError
from kenso_git.kb import KnowledgeBase
from kenso_git.search.pagination import MAX_ANSWER_CHARS
from kenso_git.search.ranked.hits import INLINE_LINK
from kenso_git.text.links import LINKS_TO
from tests.helpers import doc
from tests.helpers import init_repo

PAD = "These pages carry enough ordinary words for the indexer to keep every one of them.\n"


def _body(title: str, text: str = "") -> str:
    return f"# {title}\n\n{text}\n\n{PAD}"


FILES = {
    "docs/api/auth.md": "---\nrelates_to:\n  - path: guides/auth.md\n    relation: feeds_into\n"
    "---\n"
    + _body(
        "API auth",
        "See [login](login.md#tokens), [gone](missing.md) and\n"
        "```\n[fenced](billing.md)\n```\n`[code](billing.md)` [up](../../README.md).",
    ),
    "docs/api/login.md": _body("Login"),
    "docs/api/billing.md": _body("Billing"),
    "guides/auth.md": _body("Auth guide"),
    "README.md": _body("Readme", "Start with [the API auth page](docs/api/auth.md)."),
    "notes/plain.md": doc("Plain", tags=["x"]),
    "notes/other.md": doc("Other"),
}


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    init_repo(tmp_path / "repo", dict(FILES))
    kb = KnowledgeBase.open(tmp_path / "repo")
    kb.ingest()
    return kb


def _why(kb: KnowledgeBase, path: str, **kw: object) -> list[tuple[str, list[str]]]:
    page = kb.find_related(path, page_size=50, **kw)  # type: ignore[arg-type]
    return [(item["path"], item["why"]) for item in page["results"]]


def test_links_both_ways_then_same_stem_then_same_folder(kb: KnowledgeBase) -> None:
    assert _why(kb, "docs/api/auth.md") == [
        ("README.md", ["links_to", "linked_from"]),
        ("docs/api/login.md", ["links_to", "same_folder"]),
        ("guides/auth.md", ["relates_to", "same_stem"]),
        ("docs/api/billing.md", ["same_folder"]),  # links in code are no links
    ]
    page = kb.find_related("guides/auth.md")
    assert page["results"][0]["why"] == ["related_from", "same_stem"]
    assert page["results"][0]["relation_types"] == ["feeds_into"]
    assert page["results"][0]["title"] == "API auth"
    assert _why(kb, "notes/plain.md") == [("notes/other.md", ["same_folder"])]


def test_inline_links_are_get_related_edges_and_docs_without_them_keep_their_answer(
    kb: KnowledgeBase,
) -> None:
    rows = kb.get_related("docs/api/auth.md")
    assert [(r["related_path"], r["relation_type"]) for r in rows] == [
        ("README.md", "links_to"),  # both ways: one row per (document, relation type)
        ("docs/api/login.md", "links_to"),
        ("guides/auth.md", "feeds_into"),
    ]  # the broken link to missing.md is no edge
    assert kb.get_related("guides/auth.md") == [
        {
            "related_path": "docs/api/auth.md",
            "relation_type": "feeds_into",
            "direction": "incoming",
            "depth": 1,
        }
    ]
    assert kb.get_related("notes/plain.md") == []


def test_a_broken_link_becomes_an_edge_when_its_target_appears(kb: KnowledgeBase) -> None:
    (kb.workspace.root / "docs" / "api" / "missing.md").write_text(_body("Missing"))
    kb.sync()
    assert ("docs/api/auth.md", ["linked_from", "same_folder"]) in _why(kb, "docs/api/missing.md")


def test_pages_walk_every_related_doc_once_and_the_scope_hides_the_rest(tmp_path: Path) -> None:
    files = {f"many/n{i:02}.md": _body(f"Note {i}") for i in range(23)}
    files["secret/n00.md"] = _body("Secret", "[n01](../many/n01.md)")
    init_repo(tmp_path / "repo", files)
    kb = KnowledgeBase.open(tmp_path / "repo")
    kb.ingest()
    seen: list[str] = []
    cursor = None
    for _ in range(10):
        page = kb.find_related("many/n01.md", page_size=5, cursor=cursor)
        seen += [item["path"] for item in page["results"]]
        assert page["total"] == 23 and page["token_budget"] > 0
        if not page["has_more"]:
            break
        cursor = page["next_cursor"]
    assert seen[0] == "secret/n00.md" and len(seen) == len(set(seen)) == 23
    gated = kb.find_related("many/n01.md", page_size=50, path_filter=lambda p: "secret" not in p)
    assert "secret/n00.md" not in [item["path"] for item in gated["results"]]
    assert gated["total"] == 22
    with pytest.raises(DocumentNotFoundError):
        kb.find_related("secret/n00.md", path_filter=lambda p: "secret" not in p)
    with pytest.raises(DocumentNotFoundError):
        kb.find_related("many/none.md")


def test_every_page_fits_the_answer_budget(tmp_path: Path) -> None:
    folder = "/".join(["a-very-long-folder-name-for-paths"] * 20)
    files = {f"{folder}/{'x' * 200}-{i}.md": _body("T" * 150 + f" {i}") for i in range(60)}
    init_repo(tmp_path / "repo", files)
    kb = KnowledgeBase.open(tmp_path / "repo")
    kb.ingest()
    start = next(iter(files))
    seen: list[str] = []
    cursor = None
    returned = []
    for _ in range(10):
        page = kb.find_related(start, page_size=50, cursor=cursor)
        returned.append(page["returned"])
        size = len(json.dumps(page, indent=2, ensure_ascii=False))
        assert size <= MAX_ANSWER_CHARS and page["token_budget"] * 4 >= size
        seen += [item["path"] for item in page["results"]]
        if not page["has_more"]:
            break
        cursor = page["next_cursor"]
    assert len(seen) == len(set(seen)) == 59
    assert returned[0] < 50  # the first page was cut to the budget, the cursor resumed after it


def test_an_index_made_before_inline_links_finds_them_at_the_next_sync(kb: KnowledgeBase) -> None:
    def downgrade(conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE files SET relations = NULL WHERE path = 'README.md'")
        conn.execute("DELETE FROM links WHERE relation_type = 'links_to'")
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'settings'",
            (
                json.dumps(
                    {"chunk_size": kb.settings.chunk_size, "overlap": kb.settings.chunk_overlap}
                ),
            ),
        )

    with sqlite3.connect(kb.db_path) as conn:
        downgrade(conn)
    kb.sync()
    assert ("docs/api/auth.md", "links_to") in {
        (r["related_path"], r["relation_type"]) for r in kb.get_related("README.md")
    }


def test_deleting_a_linked_doc_drops_only_its_edges(kb: KnowledgeBase) -> None:
    (kb.workspace.root / "docs" / "api" / "login.md").unlink()
    kb.sync()
    assert [
        (r["related_path"], r["relation_type"]) for r in kb.get_related("docs/api/auth.md")
    ] == [
        ("README.md", "links_to"),
        ("guides/auth.md", "feeds_into"),
    ]
    with sqlite3.connect(kb.db_path) as conn:
        rows = conn.execute("SELECT source_path, target_path FROM links ORDER BY 1, 2").fetchall()
    assert rows == [
        ("README.md", "docs/api/auth.md"),
        ("docs/api/auth.md", "README.md"),
        ("docs/api/auth.md", "guides/auth.md"),
    ]


def test_inline_links_do_not_change_search_scores(tmp_path: Path) -> None:
    """kenso's link boost rests on declared relations: the same two hits score the same
    whether or not one links to the other in prose."""
    text = "Rotating the signing keys of the gateway every quarter keeps tokens short-lived."
    other = _body("Billing", "Invoices are sent on the first working day of each month.")
    # the same words and lengths; only the first tree's link names a Markdown file
    plain = {"a.md": _body("Keys", text + " See [the gateway](b.mx)."), "c.md": other}
    linked = {"a.md": _body("Keys", text + " See [the gateway](b.md)."), "c.md": other}
    for files in (plain, linked):
        files["b.md"] = _body("Gateway", text)
    scores = []
    for name, files in (("plain", plain), ("linked", linked)):
        init_repo(tmp_path / name, dict(files))
        kb = KnowledgeBase.open(tmp_path / name)
        kb.ingest()
        hits = kb.search("rotating signing keys gateway").hits
        scores.append({h.file_path: h.score for h in hits})
    assert scores[0] and scores[0] == scores[1]


def test_the_cascade_names_inline_links_as_the_parser_does() -> None:
    assert INLINE_LINK == LINKS_TO
