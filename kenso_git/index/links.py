"""Rebuild the `links` table from the files' raw `relates_to` entries.

Unresolved targets are kept in their root-relative normal form, so a link starts working as
soon as its target appears. The raw entries of every file live in `files.relations`, so the
whole links table is a pure function of (raw entries, indexed paths) and is rebuilt whenever
either changes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection

from kenso_git.store.files import indexed_paths
from kenso_git.store.files import stored_relations
from kenso_git.store.links import LinkRow
from kenso_git.store.links import clear_links
from kenso_git.store.links import replace_links
from kenso_git.text.links import Resolver


def rebuild_links(conn: sqlite3.Connection, sources: Collection[str] | None = None) -> None:
    """Recompute links from the files' raw entries (inside the caller's transaction).

    With `sources`, only those files' links are rewritten: right when the set of indexed
    paths is unchanged, since then no other file's targets can resolve differently.
    """
    if sources is None:
        clear_links(conn)
        rows = stored_relations(conn)
    else:
        rows = stored_relations(conn, sources)
        for source in sources:
            replace_links(conn, source, [])
    if not rows:  # most corpora declare no relations: no path index to build
        return
    resolver = Resolver(indexed_paths(conn), lookup_index=sources is None or len(sources) > 50)
    for source, relations in rows:
        pairs = json.loads(relations)
        replace_links(
            conn,
            source,
            [LinkRow(resolver.target(source, raw), relation, raw) for raw, relation in pairs],
        )
