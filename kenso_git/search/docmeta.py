"""What the agent tools know of each indexed document: path, size, time, title, tags.

Read from the `files` table and each document's first chunk, and cached per database file
and write generation (as the fuzzy dictionary is), so a page of `search` does not re-read
thousands of rows while another process's sync is still seen at once.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import dataclass

from kenso_git.store import budget
from kenso_git.store import chunkreads
from kenso_git.store import files
from kenso_git.store import meta
from kenso_git.store import schema

TITLE_CHARS = 200


@dataclass(frozen=True, slots=True)
class Doc:
    """One indexed document's metadata."""

    path: str
    size: int
    modified: int  # Unix seconds: the file's mtime in the work tree at the last sync
    title: str | None
    category: str | None
    tags: frozenset[str]  # case-folded
    first_chunk: int
    folded_path: str  # `path` case-folded, for the filename match of every query


_cache: dict[str, tuple[str, dict[str, Doc]]] = {}
_lock = threading.Lock()
# 40 concurrent first calls each read every row before (#27: a cold server's first round)
_building = threading.Lock()


def generation(conn: sqlite3.Connection) -> tuple[str, str] | None:
    """(database file, write generation) of the index: a key that changes with every
    write, or None for an in-memory or generation-less database (nothing may be cached)."""
    file = chunkreads.database_file(conn)
    written = meta.read_value(conn, schema.META_GENERATION)
    if file is None or written is None:
        return None
    return file, written


def _tags(raw: str | None) -> frozenset[str]:
    if not raw:
        return frozenset()
    try:
        value = json.loads(raw)
    except ValueError:
        return frozenset()
    return frozenset(str(t).casefold() for t in value) if isinstance(value, list) else frozenset()


def _read(conn: sqlite3.Connection) -> dict[str, Doc]:
    firsts = chunkreads.first_chunk_tags(conn)
    docs: dict[str, Doc] = {}
    for path, size, mtime_ns, title, category in files.indexed_documents(conn):
        first = firsts.get(path)
        if first is None:
            continue  # no chunks: nothing to search or show
        docs[path] = Doc(
            path=path,
            size=int(size),
            modified=int(mtime_ns) // 1_000_000_000,
            title=title[:TITLE_CHARS] if title else None,
            category=category,
            tags=_tags(first[1]),
            first_chunk=int(first[0]),
            folded_path=path.casefold(),
        )
    return docs


def load(conn: sqlite3.Connection) -> dict[str, Doc]:
    """path -> `Doc` for every indexed document (do not mutate: it is shared)."""
    key = generation(conn)
    if key is None:
        with budget.exempt():
            return _read(conn)
    with _building:  # one thread reads; the calls that arrive meanwhile wait for its answer
        with _lock:
            cached = _cache.get(key[0])
        if cached is not None and cached[0] == key[1]:
            return cached[1]
        with budget.exempt():  # once per index generation, for every later call
            docs = _read(conn)
        with _lock:
            _cache[key[0]] = (key[1], docs)
    return docs


def texts(conn: sqlite3.Connection, paths: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(path, indexed text) of `paths`: the chunks joined in order, in batches."""
    for start in range(0, len(paths), 500):
        yield from chunkreads.joined_texts(conn, paths[start : start + 500])


def synced_at(conn: sqlite3.Connection) -> int | None:
    """Unix seconds of the index's last sync, or None."""
    value = meta.read_value(conn, schema.META_SYNCED_AT)
    try:
        return int(float(value)) if value is not None else None
    except ValueError:
        return None
