"""What the index file looked like when a kenso-git writer last left it, kept beside it.

A sync with nothing to do reads a few rows: pages overwritten elsewhere in the file (a
disk fault, another program) would go unseen, and it would call the index "unchanged".
Reading every page (`PRAGMA quick_check`) costs ~60 ms for 25 MB, too much for every git
hook. So each writer records the file's stat data once it is done (`record`), and the next
writer checks every page only when the file changed since (`matches` is False): after
another program wrote it, a crash, or damage (#26). Stdlib only: the detached WAL settler
(`wal.settle_now`), which runs with nothing else of the package, records it too.

The file's modification time is the kernel's coarse clock: a write landing within the same
tick as a writer's last one keeps it. Damage that close to a write goes unseen here.
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path

SUFFIX = ".verified"


def stamp_path(db_path: Path | str) -> str:
    """The file beside the index that holds its stamp."""
    return f"{db_path}{SUFFIX}"


def _now(db_path: Path | str) -> str | None:
    try:
        st = os.stat(db_path)
    except OSError:
        return None
    return f"{st.st_dev} {st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns}"


def matches(db_path: Path | str) -> bool:
    """Is the index file as the last kenso-git writer left it (no stamp: unknown, False)?"""
    try:
        with open(stamp_path(db_path), encoding="ascii") as held:
            recorded = held.read().strip()
    except (OSError, UnicodeDecodeError):
        return False
    return recorded != "" and recorded == _now(db_path)


def record(db_path: Path | str) -> None:
    """Remember the index file as it is now; best effort (no stamp: the next writer checks)."""
    now = _now(db_path)
    if now is None:
        return
    path = stamp_path(db_path)
    with suppress(OSError):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(now + "\n")


def forget(db_path: Path | str) -> None:
    """Drop the stamp: the next writer checks every page."""
    with suppress(OSError):
        os.unlink(stamp_path(db_path))
