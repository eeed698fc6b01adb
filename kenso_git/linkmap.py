"""`relates_to` entries -> rows of the `links` table, resolved against the indexed files.

Targets resolve with `kenso_git.lint.links.resolve_link` (the rules KS002 uses), so the
stored graph and the linter agree. Unresolved targets are kept in their root-relative
normal form, so a link starts working as soon as its target appears.

The raw entries of every file live in `files.relations`, so the whole links table is a
pure function of (raw entries, indexed paths) and is rebuilt whenever either changes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection

from kenso_git.lint.links import PathIndex
from kenso_git.lint.links import resolve_link
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
    """Resolves link targets against a fixed set of known paths (lint's rules, shared)."""

    def __init__(self, known: Collection[str]) -> None:
        self.index = PathIndex(known)

    def target(self, source: str, raw: str) -> str:
        """The resolved path, else the target's root-relative normal form."""
        return resolve_link(source, raw, self.index) or normalise_target(source, raw)


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
