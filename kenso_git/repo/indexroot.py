"""Outside git, the root is the nearest folder holding an index, found upward as git finds
a work tree.

In a git work tree the root is the top of the checkout from any folder in it. Outside git,
`cd guide && kenso-git search` looked for guide/.kenso/docs.db only, though `ingest` made
the index one folder up. A folder with no `.kenso` of its own now takes the nearest folder
above it whose `.kenso/docs.db` is this user's: `.kenso` a real folder (not a link) that
this user owns. Another user's `.kenso` (planted in /tmp, say) is passed over, as git
refuses a repository another user owns.

The walk stops where git's does: at the root of the filesystem, at a mount point (git
without GIT_DISCOVERY_ACROSS_FILESYSTEM), and before a folder this user cannot read; and
below $HOME, like a GIT_CEILING_DIRECTORIES entry: an index of the home folder itself is
used from the home folder only, never from every project under it. Nothing found: the
folder itself is the root, as before.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from kenso_git.repo.workspace import DB_DIRNAME
from kenso_git.repo.workspace import DB_FILENAME
from kenso_git.repo.workspace import Workspace


def root_with_index(here: Workspace) -> Workspace:
    """`here`, or outside git the nearest folder above its root that holds this user's
    index (`nearest_index_folder`) when its root holds no `.kenso` of its own."""
    if here.is_git:
        return here
    found = nearest_index_folder(here.root)
    return here if found is None else Workspace(root=found, git_dir=None, common_dir=None)


def nearest_index_folder(start: Path) -> Path | None:
    """The nearest folder above `start` (absolute, resolved) holding this user's index, or
    None: `start` has a `.kenso` (an index or not, it stays the root), or the walk met
    none before a mount point, an unreadable folder, $HOME or the filesystem's root."""
    try:
        if os.path.lexists(start / DB_DIRNAME):
            return None
        device = os.stat(start).st_dev
    except OSError:
        return None
    ceiling = _home()
    if start == ceiling:
        return None  # nothing above the home folder is looked at
    for folder in start.parents:
        if folder == ceiling:
            return None
        try:
            if os.stat(folder).st_dev != device:
                return None
        except OSError:
            return None
        if not os.access(folder, os.R_OK | os.X_OK):
            return None
        if _holds_own_index(folder):
            return folder
    return None


def holds_index(folder: Path) -> bool:
    """Whether `folder` holds an index of the default rule's (`.kenso/docs.db`)."""
    return os.path.isfile(folder / DB_DIRNAME / DB_FILENAME)


def _holds_own_index(folder: Path) -> bool:
    home = folder / DB_DIRNAME
    try:
        info = os.lstat(home)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or not _is_own(info):
        return False
    return holds_index(folder)


def _is_own(info: os.stat_result) -> bool:
    uid = getattr(os, "geteuid", None)  # Windows has no owners to compare
    return uid is None or bool(info.st_uid == uid())


def _home() -> Path | None:
    try:
        return Path(os.path.realpath(Path.home()))
    except (RuntimeError, OSError):  # no HOME and no password entry: no ceiling
        return None
