"""Build small real index databases for the search-side tests."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from kenso_git.kb import KnowledgeBase
from kenso_git.store.schema import DDL
from kenso_git.text.terms import content_expansion
from tests.helpers import connect_raw
from tests.helpers import docs_kb

# enough unrelated pages that BM25's IDF is not clamped for the words under test
TOPICS = {f"topic{i}.md": f"# Topic {i}\n\nNotes on subject {i} only.\n\n" for i in range(12)}


def topics_kb(root: Path, files: dict[str, str]) -> KnowledgeBase:
    """A git repository of `files` under docs/ beside `TOPICS`, indexed."""
    return docs_kb(root, {**files, **TOPICS})


def ranked_paths(kb: KnowledgeBase, query: str, limit: int = 10) -> list[str]:
    """The paths `kb.search` ranks for `query`, best first."""
    return [h.file_path for h in kb.search(query, limit=limit).hits]


# The keys every search_docs item starts with, in kenso's order (spec §5.3).
ITEM_KEYS = [
    "file_path",
    "title",
    "category",
    "content_preview",
    "match_source",
    "score",
    "cascade_stage",
    "relevance",
]


def searchable(
    content: str, path: str, tags: Sequence[str] = (), aliases: Sequence[str] = ()
) -> str:
    """searchable_content laid out as spec §3.7 describes."""
    parts = [content]
    if aliases:
        parts.append("Also known as: " + ", ".join(aliases))
    if tags:
        parts.append("Keywords: " + ", ".join(tags))
    parts.append(f"Source: {path}")
    expanded = content_expansion(content)
    if expanded:
        parts.append("Expanded terms: " + " ".join(expanded))
    return "\n\n".join(parts)


class IndexBuilder:
    """Writes chunks, links and files rows straight into a fresh index file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn = connect_raw(path)
        self.conn.execute("PRAGMA synchronous=OFF")
        for statement in DDL:
            self.conn.execute(statement)
        self.generation = 0
        self.bump()

    def doc(
        self,
        path: str,
        sections: Sequence[tuple[str, str]] | str,
        *,
        category: str = "general",
        tags: Sequence[str] = (),
        doc_title: str | None = None,
        aliases: Sequence[str] = (),
        file_title: str | None = None,
    ) -> IndexBuilder:
        """Add a document; `sections` is the content, or (chunk title, content) pairs."""
        if isinstance(sections, str):
            stem = Path(path).stem.replace("-", " ").title()
            sections = [(stem, sections)]
        tags_json = json.dumps(list(tags)) if tags else None
        for index, (title, content) in enumerate(sections):
            self.conn.execute(
                "INSERT INTO chunks(file_path, chunk_index, title, section_path, content, "
                "search_extra, category, tags, doc_title) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    path,
                    index,
                    title,
                    title,
                    content,
                    searchable(content, path, tags, aliases)[len(content) + 2 :],
                    category,
                    tags_json,
                    doc_title,
                ),
            )
        self.conn.execute(
            "INSERT OR REPLACE INTO files(path, blob_id, status, size, mtime_ns, ctime_ns, inode,"
            " seen_ns, title, category, chunks) VALUES (?, 'x', 'indexed', 1, 1, 1, 1, 1, ?, ?, ?)",
            (path, file_title, category, len(sections)),
        )
        return self

    def link(self, source: str, target: str, relation: str = "related") -> IndexBuilder:
        self.conn.execute(
            "INSERT INTO links(source_path, target_path, relation_type) VALUES (?, ?, ?)",
            (source, target, relation),
        )
        return self

    def bump(self) -> None:
        self.generation += 1
        self.conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('generation', ?)",
            (str(self.generation),),
        )

    def commit(self) -> None:
        self.bump()
        self.conn.commit()

    def reader(self) -> sqlite3.Connection:
        """Commit and open a read-only connection like the real reader."""
        self.commit()
        conn = connect_raw(f"{self.path.as_uri()}?mode=ro", uri=True, isolation_level=None)
        conn.row_factory = sqlite3.Row
        return conn
