"""Linux inotify, read without a thread: has anything under these folders changed?

The kernel queues a folder's event before the write, rename or unlink that caused it
returns to its caller, so reading the queue (non-blocking) after a save has returned always
finds that save's event: no debounce, no thread, no delay. That makes it a sound "nothing
changed" test for the query-time check (`index/quiet.py`), which the watcher (watchfiles,
events delivered by a thread after a debounce) cannot be.

What inotify does not report: writes through a shared `mmap` (no editor saves that way),
a file written through a hard link that lives in an unwatched folder, and changes made
on another machine to a network file system (`mounts.all_local` keeps those out).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import struct
import sys

from kenso_git.records import NamedTuple

# <sys/inotify.h>
IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_CLOSE_WRITE = 0x8
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_UNMOUNT = 0x2000
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_ISDIR = 0x40000000
# every change to a folder's entries or to the files in it
CHANGES = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
)
# the folder itself went away, moved or lost its watch: the watched set no longer holds
LOST = IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_Q_OVERFLOW | IN_IGNORED
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then len bytes of name)


class Event(NamedTuple):
    """One queued event: the watch it came from, its mask and the entry's name."""

    wd: int
    mask: int
    name: str


@functools.cache
def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        lib.inotify_init1.argtypes = [ctypes.c_int]
        lib.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    except (OSError, AttributeError):
        return None
    return lib


class Inotify:
    """One non-blocking inotify queue (close-on-exec); `add` folders, `read` what is queued.

    Raises OSError from the constructor where inotify is unavailable (not Linux, no
    descriptors or instances left)."""

    def __init__(self) -> None:
        lib = _libc()
        if lib is None:
            raise OSError("inotify is not available on this system")
        fd = lib.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
        self._lib, self.fd = lib, fd
        self.paths: dict[int, str] = {}  # watch descriptor -> folder (as added)

    def add(self, folder: str) -> int:
        """Watch `folder` (not a symlink); returns its watch descriptor.

        Raises:
            OSError: ENOSPC when the user's watch limit is reached, ENOENT, EACCES...
        """
        wd = int(
            self._lib.inotify_add_watch(
                self.fd, os.fsencode(folder), CHANGES | IN_ONLYDIR | IN_DONT_FOLLOW
            )
        )
        if wd < 0:
            err = ctypes.get_errno()
            raise OSError(err, f"{os.strerror(err)}: {folder}")
        self.paths[wd] = folder
        return wd

    def read(self) -> list[Event]:
        """Every event queued now (empty when none); never blocks."""
        events: list[Event] = []
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return events
            if not data:
                return events
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
                offset += _EVENT.size
                raw = data[offset : offset + length].rstrip(b"\0")
                offset += length
                events.append(Event(wd, mask, os.fsdecode(raw)))

    def close(self) -> None:
        """Drop every watch (idempotent)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
            self.paths.clear()


def max_watches() -> int | None:
    """The user's watch limit (`fs.inotify.max_user_watches`), None when unreadable."""
    try:
        with open("/proc/sys/fs/inotify/max_user_watches", encoding="ascii") as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):
        return None
