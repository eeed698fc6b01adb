"""`relates_to` entries -> rows of the `links` table, resolved against the indexed files.

A target is resolved like this, first hit wins: `./x.md` and `../x.md` are relative to the
source's folder; a bare `x.md` is tried root-relative, then relative to the source's
folder, then as the unique indexed path ending in `/x.md` (kenso users wrote targets
relative to the folder they ingested, often `docs/`). Unresolved targets are kept in their
root-relative normal form, so a link starts working as soon as its target appears.

The raw entries of every file live in `files.relations`, so the whole links table is a
pure function of (raw entries, indexed paths) and is rebuilt whenever either changes.
"""

from __future__ import annotations

import json
import posixpath
import sqlite3
from collections.abc import Collection
from collections.abc import Mapping

from kenso_git.parse import Document
from kenso_git.parse import normalise_target
from kenso_git.store import db
from kenso_git.store import schema

GLOB_CHARS = ("*", "?")


def is_glob(target: str) -> bool:
    return any(ch in target for ch in GLOB_CHARS)


def raw_relations(doc: Document) -> str | None:
    """The document's usable relations (globs and empty targets dropped) as JSON, or None."""
    pairs = [
        [rel.target.strip(), rel.relation]
        for rel in doc.relations
        if rel.target.strip() and not is_glob(rel.target)
    ]
    return json.dumps(pairs, ensure_ascii=False) if pairs else None


class Resolver:
    """Resolves link targets against a fixed set of known paths."""

    def __init__(self, known: Collection[str]) -> None:
        self.known = set(known)
        by_suffix: dict[str, list[str]] = {}
        for path in self.known:
            parts = path.split("/")
            for i in range(1, len(parts)):
                by_suffix.setdefault("/".join(parts[i:]), []).append(path)
        self.by_suffix: Mapping[str, list[str]] = by_suffix

    def resolve(self, source: str, raw: str) -> str | None:
        """The known path `raw` (written in `source`) points at, else None."""
        norm = normalise_target(source, raw)
        if norm in self.known:
            return norm
        if raw.startswith(("./", "../", "/")):
            return None
        folder = posixpath.dirname(source)
        local = posixpath.normpath(posixpath.join(folder, raw)) if folder else norm
        if local in self.known:
            return local
        matches = self.by_suffix.get(norm, [])
        return matches[0] if len(matches) == 1 else None

    def target(self, source: str, raw: str) -> str:
        return self.resolve(source, raw) or normalise_target(source, raw)


def indexed_paths(conn: sqlite3.Connection) -> list[str]:
    return [
        r[0] for r in conn.execute("SELECT path FROM files WHERE status = ?", (schema.INDEXED,))
    ]


def rebuild_links(conn: sqlite3.Connection) -> None:
    """Recompute the links table from every file's raw entries (inside the caller's txn)."""
    resolver = Resolver(indexed_paths(conn))
    db.clear_links(conn)
    for source, relations in db.stored_relations(conn):
        pairs = json.loads(relations)
        db.replace_links(
            conn,
            source,
            [db.LinkRow(resolver.target(source, raw), relation, raw) for raw, relation in pairs],
        )
