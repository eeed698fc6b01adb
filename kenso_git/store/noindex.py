"""What to say when an index file is not there: which command makes it, and another index
beside it that the user may have meant."""

from __future__ import annotations

import os
from pathlib import Path

from kenso_git.store.stamp import SUFFIX as STAMP_SUFFIX

_NO_INDEX_HINT = (
    "run `kenso-git ingest` once; `kenso-git hooks install` keeps it current after that"
)
# outside git there are no hooks to install: `hooks install` would fail
_NO_INDEX_HINT_PLAIN = "run `kenso-git ingest` once; `kenso-git sync` (or `watch`) keeps it current"


def no_index_hint(db_path: Path) -> str:
    """What to run when `db_path` holds no index: the git hooks only inside a work tree;
    first, when its folder holds another index (`--db .kenso/kenso.db` beside
    `.kenso/docs.db`), that one's name."""
    beside = _indexes_beside(db_path)
    lead = f"{db_path.parent} holds {beside}: pass its path to `--db`, or " if beside else ""
    for folder in (db_path.parent, *db_path.parent.parents):
        if os.path.lexists(folder / ".git"):
            return lead + _NO_INDEX_HINT
    return lead + _NO_INDEX_HINT_PLAIN


BESIDE_SCAN = 200  # entries of the folder read for another index: the hint costs no more


def _indexes_beside(db_path: Path) -> str:
    """The first index file (a `.db` with kenso-git's stamp beside it: `store.stamp`) in
    `db_path`'s folder other than `db_path`, by name; "" when none is among its first
    `BESIDE_SCAN` entries or the folder cannot be read."""
    names: list[str] = []
    try:
        with os.scandir(db_path.parent) as entries:
            for count, entry in enumerate(entries):
                if count == BESIDE_SCAN:
                    break
                names.append(entry.name)
    except OSError:
        return ""
    held = set(names)
    found = sorted(
        n for n in names if n.endswith(".db") and n != db_path.name and n + STAMP_SUFFIX in held
    )
    return found[0] if found else ""
