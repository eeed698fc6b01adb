"""What the index file looked like when a kenso-git writer last left it, kept beside it.

A sync with nothing to do reads a few rows: pages overwritten elsewhere in the file (a
disk fault, another program) would go unseen, and it would call the index "unchanged".
Reading every page (`PRAGMA quick_check`) costs ~60 ms for 25 MB, too much for every git
hook. So each writer records the file's stat data once it is done (`record`), and the next
writer checks every page only when the file changed since (`matches` is False): after
another program wrote it, a crash, or damage (#26). Stdlib only: the detached WAL settler
(`wal.settle_now`), which runs with nothing else of the package, records it too.

Readers ask too (`integrity.check_if_changed`: `stats`, `health_check`, `index_state`), so
damage a sync with nothing to do would name is not reported as a healthy index. What this
process found (every page read fine, or the damage a read met: `faults`) is kept per file
as it was then: a server reads the pages once per change of the file, not per call.

The file's modification time is the kernel's coarse clock: a write landing within the same
tick as a writer's last one keeps it. Damage that close to a write goes unseen here.
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path

SUFFIX = ".verified"
# what this process found of each index file: its stat data then, and the damage a read
# met (None: every page was read and found sound)
_found: dict[str, tuple[str, str | None]] = {}


def stamp_path(db_path: Path | str) -> str:
    """The file beside the index that holds its stamp."""
    return f"{db_path}{SUFFIX}"


def now(db_path: Path | str) -> str | None:
    """The file's stat data as the stamp records it (None: there is no file)."""
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
    return recorded != "" and recorded == now(db_path)


def record(db_path: Path | str, *, seen: str | None = None) -> None:
    """Remember the index file as it is now; best effort (no stamp: the next writer checks).
    With `seen`: only when the file is still as `seen` (a reader that read every page)."""
    current = now(db_path)
    if current is None or (seen is not None and current != seen):
        return
    path = stamp_path(db_path)
    with suppress(OSError):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(current + "\n")


def forget(db_path: Path | str) -> None:
    """Drop the stamp: the next writer checks every page."""
    with suppress(OSError):
        os.unlink(stamp_path(db_path))


def note_damage(db_path: Path | str, problem: str) -> None:
    """Remember that a read of the file as it is now met damage (`problem`, SQLite's words)."""
    current = now(db_path)
    if current is not None:
        _found[str(db_path)] = (current, problem)


def note_sound(db_path: Path | str, seen: str) -> None:
    """Remember that every page of the file as `seen` was read and found sound."""
    _found[str(db_path)] = (seen, None)


def found(db_path: Path | str, seen: str) -> tuple[bool, str | None]:
    """Whether this process looked at the file as `seen`, and the damage it met (None: none)."""
    held = _found.get(str(db_path))
    if held is None or held[0] != seen:
        return False, None
    return True, held[1]
