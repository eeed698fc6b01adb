"""Which file systems hold a folder: local ones report every change to inotify, network
and FUSE ones do not report changes made elsewhere (another machine, the host of a VM)."""

from __future__ import annotations

import os
import re

# File systems whose every change passes through this kernel, so inotify reports it.
LOCAL_TYPES = frozenset(
    {
        "ext2",
        "ext3",
        "ext4",
        "xfs",
        "btrfs",
        "tmpfs",
        "overlay",
        "zfs",
        "f2fs",
        "bcachefs",
        "jfs",
        "reiserfs",
        "ramfs",
    }
)
MOUNTINFO = "/proc/self/mountinfo"


def _unescape(field: str) -> str:
    # mountinfo writes space, tab, newline and backslash as \040, \011, \012, \134
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), field)


def parse(text: str) -> list[tuple[str, str]]:
    """(mount point, file system type) of each line of a mountinfo text."""
    mounts = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields, rest = left.split(), right.split()
        if not sep or len(fields) < 5 or not rest:
            continue
        mounts.append((_unescape(fields[4]), rest[0]))
    return mounts


def _under(path: str, folder: str) -> bool:
    return path == folder or folder == "/" or path.startswith(folder.rstrip("/") + "/")


def all_local(root: str, mountinfo: str | None = None) -> bool:
    """Whether `root` and every mount below it are on a local file system (`LOCAL_TYPES`);
    False when that cannot be told (no mountinfo: not Linux, or /proc not mounted)."""
    if mountinfo is None:
        try:
            with open(MOUNTINFO, encoding="utf-8", errors="surrogateescape") as fh:
                mountinfo = fh.read()
        except OSError:
            return False
    real = os.path.realpath(root)
    mounts = parse(mountinfo)
    holding = [m for m in mounts if _under(real, m[0])]
    if not holding:
        return False
    longest = max(len(point) for point, _ in holding)
    # mounts stacked on one point: the last one listed is the one seen
    if [kind for point, kind in holding if len(point) == longest][-1] not in LOCAL_TYPES:
        return False
    return all(kind in LOCAL_TYPES for point, kind in mounts if _under(point, real))
