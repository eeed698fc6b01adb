"""The read side's SQL over the indexed paths themselves: which documents a path that names
none may have meant (`get_doc`'s and `related`'s "did you mean", #31 round 14)."""

from __future__ import annotations

import sqlite3

from kenso_git.store.chunkreads import PATH_FUNCTION
from kenso_git.store.chunkreads import escape_like

NEAR_PATHS_MAX = 5
"""The most near paths one answer names."""


def near_paths(
    conn: sqlite3.Connection, path: str, *, gated: bool, limit: int = NEAR_PATHS_MAX
) -> list[str]:
    """The indexed documents (with chunks) that `path`, which names none, may have meant:
    the same path in another case, or one that ends with it after a folder (`site/a/x.md`
    for `a/x.md`, a path written from the docs folder rather than the checkout's root),
    with `.md` added when `path` has no suffix; shortest first, at most `limit`. With
    `gated`, only those the connection's path filter allows (`install_path_filter`).

    One scan of the `files` table (a row per indexed file), linear in the documents."""
    wanted = [path] if "." in path.rsplit("/", 1)[-1] else [path, f"{path}.md"]
    clauses = " OR ".join("path = ? COLLATE NOCASE OR path LIKE ? ESCAPE '\\'" for _ in wanted)
    params: list[object] = []
    for text in wanted:
        params += [text, f"%/{escape_like(text)}"]
    gate = f" AND {PATH_FUNCTION}(path)" if gated else ""
    rows = conn.execute(
        f"SELECT path FROM files WHERE chunks > 0 AND path != ? AND ({clauses}){gate} "
        "ORDER BY length(path), path LIMIT ?",
        [path, *params, limit],
    )
    return [row[0] for row in rows]
