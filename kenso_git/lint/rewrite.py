"""Writing a fixed file only over the bytes its fix was worked out from.

`lint --fix` reads a file, works out its fixes, and writes the fixed text whole. A write
landing in between (an editor's autosave, a formatter, an appended line) was undone by
that write. So the bytes read and the file they came from (device, inode) are kept as a
`Snapshot`, and the file is read again and compared right before it is written: a file
that changed is left as it is now, and the caller says so.

No file system offers a compare-and-rename, so a write landing between that last read and
the rename (or the write in place) is still lost. That window is one read of the file, a
compare and one system call: microseconds, where it was the whole lint (about a second
for 1,600 documents).

The temporary file is named `.NAME.PID.XXXXXXXX.kenso.tmp`, by the process writing it. A
process killed while writing (kill -9, a power cut) leaves it behind, a copy `git add -A`
would commit; the next process to write in that folder removes it once it is ten minutes
old and its process is gone, or an hour old whatever its pid says (the pid was reused). A
fresh one is never removed: its pid may be of another PID namespace (a container sharing the
folder) or another machine (NFS), where a live writer looks gone. A writer whose temporary
file is removed all the same writes once more through a new one, then in place. Files of
any other name are never touched.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
import time
from pathlib import Path

from kenso_git.records import NamedTuple

_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
_SUFFIX = ".kenso.tmp"
# `tempfile.mkstemp`'s names: prefix, 8 of `[a-z0-9_]`, suffix
_OURS = re.compile(r"\..+\.(?P<pid>[1-9][0-9]*)\.[a-z0-9_]{8}" + re.escape(_SUFFIX))
STALE_AFTER = 3600.0  # seconds: a temporary file this old is left over, whatever its pid says
# seconds: a temporary file of a gone pid is left over once this old (a write takes well under
# one); a fresh one may be a live writer's in another PID namespace or on another machine
DEAD_AFTER = 600.0
_swept: set[str] = set()  # the folders this process cleared of left-over temporary files


class Snapshot(NamedTuple):
    """A file's bytes as read, and which file (device, inode) they were read from."""

    data: bytes
    ident: tuple[int, int] | None = None  # None: any regular file holding `data` will do

    def is_of(self, st: os.stat_result) -> bool:
        return stat.S_ISREG(st.st_mode) and self.ident in (None, (st.st_dev, st.st_ino))


def read_snapshot(path: Path) -> Snapshot:
    """`path`'s bytes and identity, read through one descriptor, never through a symbolic link.

    Raises:
        OSError: the file could not be read (ELOOP: `path` is a symbolic link).
    """
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    try:
        st = os.fstat(fd)
        return Snapshot(_read_all(fd), (st.st_dev, st.st_ino))
    finally:
        os.close(fd)


def rewrite(target: Path, was: Snapshot, data: bytes) -> bool:
    """Make `data` the content of `target` if it still is the file `was` read and holds
    those bytes; True when it holds `data` now (written, or already: another name of a
    file just fixed), False when it changed (or went) since and was left as it is.

    The file is written whole through a temporary file beside it, flushed to disk and
    renamed over it (`os.replace`), so a reader or a crash sees the old text or the new,
    never half of one; its mode, owner and group are kept. A file with other hard links,
    or whose owner could not be kept (only root may give a file away), is rewritten in
    place instead: a new inode would leave its other names with the old text, or change
    who owns it.

    Raises:
        OSError: the file could not be written.
    """
    try:
        st = target.lstat()
    except FileNotFoundError:
        return False
    if not was.is_of(st):
        return False
    if st.st_nlink == 1:
        for _ in range(2):  # its temporary file removed under it: once more with a new one
            try:
                done = _replace(target, was, data, st)
            except _VanishedError:
                continue
            if done is not None:
                return done
            break
    return _overwrite(target, was, data)


class _VanishedError(Exception):
    """The temporary file went before its rename (another machine's or namespace's sweep)."""


def _replace(target: Path, was: Snapshot, data: bytes, st: os.stat_result) -> bool | None:
    """`rewrite` through a new file renamed over `target`, with its mode and owner; None
    (nothing changed) when that file could not be made there or given `target`'s owner."""
    _sweep(target.parent)
    prefix = f".{target.name}.{os.getpid()}."
    try:
        handle, tmp = tempfile.mkstemp(suffix=_SUFFIX, prefix=prefix, dir=target.parent)
    except PermissionError:  # a folder the user may not create files in: the file itself
        return None
    except OSError as err:
        if err.errno == errno.ENAMETOOLONG:  # a name near the limit: the file itself
            return None
        raise
    try:
        with os.fdopen(handle, "wb") as stream:
            made = os.fstat(stream.fileno())
            if (made.st_uid, made.st_gid) != (st.st_uid, st.st_gid):
                try:
                    os.fchown(stream.fileno(), st.st_uid, st.st_gid)
                except PermissionError:
                    Path(tmp).unlink()
                    return None
            os.fchmod(stream.fileno(), stat.S_IMODE(st.st_mode))  # fchown clears setuid
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        # the slow part (writing, flushing) is done: compare and rename back to back
        verdict = _swap(tmp, target, was, data)
        if verdict is not None:
            Path(tmp).unlink()
            return verdict
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True


def _swap(tmp: str, target: Path, was: Snapshot, data: bytes) -> bool | None:
    """Rename `tmp` over `target` if it is still what `was` read (None: renamed); else
    whether it holds `data` already."""
    fd = _open(target, os.O_RDONLY)
    if fd is None:
        return False
    try:
        verdict = _verdict(fd, was, data)
        if verdict is None:
            # the unavoidable window: a write landing after the read `_verdict` just made
            # and before this rename is lost (microseconds: a compare and one system call)
            try:
                os.replace(tmp, target)
            except FileNotFoundError as err:  # `target` is open here: `tmp` is what went
                raise _VanishedError(tmp) from err
        return verdict
    finally:
        os.close(fd)


def _overwrite(target: Path, was: Snapshot, data: bytes) -> bool:
    """`rewrite` over `target`'s own bytes (its inode, links, owner and mode kept), never
    through a symbolic link swapped in since."""
    fd = _open(target, os.O_RDWR)
    if fd is None:
        return False
    try:
        verdict = _verdict(fd, was, data)
        if verdict is not None:
            return verdict
        # the unavoidable window, as in `_replace`: from the read just made to the last byte
        # written and the truncation (microseconds for a page)
        view = memoryview(data)
        done = 0
        while done < len(data):
            done += os.pwrite(fd, view[done:], done)
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)
    return True


def _open(target: Path, flags: int) -> int | None:
    """A descriptor of `target` itself, or None when it went or a symbolic link stands there."""
    try:
        return os.open(target, flags | _NOFOLLOW)
    except OSError as err:
        if err.errno in (errno.ENOENT, errno.ELOOP):
            return None
        raise


def _verdict(fd: int, was: Snapshot, data: bytes) -> bool | None:
    """None when the file open at `fd` is still what `was` read (write it); else whether
    it holds `data` already (True) or changed (False). Reads it whole: an edit keeps the
    size and a save can keep the mtime, so only the bytes tell."""
    st = os.fstat(fd)
    now = _read_all(fd)
    if now == data:
        return True
    return None if was.is_of(st) and now == was.data else False


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _sweep(folder: Path) -> None:
    """Remove the temporary files `_replace` left in `folder` when the process writing them
    was killed: of our name only, made ten minutes ago or more by a process that is gone, or
    an hour ago or more by any (a fresh one is never removed: see the module). Once per
    folder and process; a folder that cannot be read or a file that cannot be removed is
    left as it is (the write goes ahead)."""
    key = os.fspath(folder)
    if key in _swept:
        return
    _swept.add(key)
    try:
        entries = os.scandir(folder)
    except OSError:
        return
    now = time.time()
    with entries:
        for entry in entries:
            found = _OURS.fullmatch(entry.name)
            if found is None or not entry.is_file(follow_symlinks=False):
                continue
            try:
                age = now - entry.stat(follow_symlinks=False).st_mtime
                if age >= STALE_AFTER or (age >= DEAD_AFTER and not _alive(int(found["pid"]))):
                    os.unlink(entry.path)
            except OSError:
                continue


def _alive(pid: int) -> bool:
    """Whether a process `pid` runs on this machine (one of another user's counts)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True
