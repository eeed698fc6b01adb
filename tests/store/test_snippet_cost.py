"""A hit's highlight costs linear time whatever the number of hits in its chunk (finding
t48b-1): FTS5's snippet() costs (hits in the row)^2 in one SQLite step, where no call
budget can stop it, so it is asked only about rows of at most SNIPPET_MAX_ROW_TOKENS
tokens; a larger chunk is highlighted from its content, around its densest hits."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.search.preview import HIGHLIGHT_WORDS
from kenso_git.search.preview import _densest_hit
from kenso_git.search.preview import clean_highlight
from kenso_git.search.ranked.cascade import search
from kenso_git.store import chunkreads
from kenso_git.store.connection import open_reader
from tests.helpers import doc
from tests.helpers import init_repo

# Every H2 section is too short to stand alone: the whole body is one chunk of 3000 hits.
WALL = "Intro paragraph text here long enough.\n\n" + "## Hi\n\nx\n\n" * 3000
NOTE = "A short note: the x axis and the y axis of the chart.\n"


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    root = init_repo(
        tmp_path / "repo",
        {"docs/wall.md": doc("Word wall", WALL), "docs/note.md": doc("Note", NOTE)},
    )
    KnowledgeBase.open(root).ingest()
    reader = open_reader(root / ".kenso" / "docs.db")
    yield reader
    reader.close()


def _chunk_id(conn: sqlite3.Connection, path: str) -> int:
    (chunk_id,) = conn.execute("SELECT id FROM chunks WHERE file_path = ?", (path,)).fetchone()
    return int(chunk_id)


def _snippeted(statements: list[str]) -> set[int]:
    """The chunk ids the traced statements asked FTS5's snippet() about."""
    ids: set[int] = set()
    for sql in statements:
        if "snippet(chunks_fts" in sql:
            for listed in re.findall(r"json_each\('(\[[^']*\])'\)", sql):
                ids.update(json.loads(listed))
    return ids


def test_snippet_is_never_asked_about_a_chunk_of_thousands_of_hits(
    conn: sqlite3.Connection,
) -> None:
    wall, note = _chunk_id(conn, "docs/wall.md"), _chunk_id(conn, "docs/note.md")
    statements: list[str] = []
    conn.set_trace_callback(statements.append)  # the SQL as run, parameters bound
    hits = {h.file_path: h for h in search(conn, "x", limit=5).hits}
    conn.set_trace_callback(None)
    assert set(hits) == {"docs/wall.md", "docs/note.md"}
    asked = _snippeted(statements)
    assert note in asked  # an ordinary chunk keeps FTS5's snippet
    assert wall not in asked  # 3000 hits: 9 million steps of snippet() saved
    shown = hits["docs/wall.md"].highlight
    assert "<mark>x</mark>" in shown
    assert len(shown.removesuffix("...").split()) == HIGHLIGHT_WORDS


def test_an_ordinary_chunk_keeps_the_fts5_snippet_text(conn: sqlite3.Connection) -> None:
    note = _chunk_id(conn, "docs/note.md")
    (fts5,) = conn.execute(
        "SELECT snippet(chunks_fts, 4, '<mark>', '</mark>', '...', 32) FROM chunks_fts "
        "WHERE chunks_fts MATCH '\"x\"' AND rowid = ?",
        (note,),
    ).fetchone()
    assert dict(chunkreads.snippets(conn, '"x"', [note])) == {note: fts5}
    hit = next(h for h in search(conn, "x", limit=5).hits if h.file_path == "docs/note.md")
    assert "<mark>x</mark>" in hit.highlight
    assert fts5.startswith(hit.highlight.removesuffix("..."))  # cut before "Source:" only


def test_row_tokens_counts_every_token_of_the_fts_entry(conn: sqlite3.Connection) -> None:
    wall, note = _chunk_id(conn, "docs/wall.md"), _chunk_id(conn, "docs/note.md")
    tokens = chunkreads.row_tokens(conn, [wall, note])
    assert tokens[wall] > 6000 > chunkreads.SNIPPET_MAX_ROW_TOKENS  # "Hi" and "x", 3000 times
    assert 12 <= tokens[note] < 100
    assert dict(chunkreads.snippets(conn, '"x"', [wall])) == {wall: chunkreads.UNSNIPPETED}


def test_a_large_chunk_is_highlighted_around_its_densest_hits() -> None:
    content = "alpha " + "filler " * 100 + "alpha beta gamma " + "filler " * 100
    shown = clean_highlight(chunkreads.UNSNIPPETED, content, ["alpha", "beta", "gamma"])
    assert "<mark>alpha</mark> <mark>beta</mark> <mark>gamma</mark>" in shown
    assert shown.startswith("...") and shown.endswith("...")
    assert len(shown.strip(".").split()) == HIGHLIGHT_WORDS


class _Counted(list[str]):
    """Words that count how many of them a scan reads."""

    read = 0

    def __iter__(self) -> Iterator[str]:
        for word in super().__iter__():
            self.read += 1
            yield word


def test_the_densest_window_reads_a_bounded_span_after_the_first_hit() -> None:
    words = _Counted(["lead"] * 500 + ["x"] * 1_000_000)
    assert _densest_hit(words, ("x",)) == 500
    assert words.read <= 500 + 2050  # not the million hits after it
