"""The files and folders of a work tree, as links and code paths in docs may name them.

In a git repository: what git lists (tracked and untracked files, deleted ones left out) and
the folders it ignores, taken whole (a build folder, a virtual environment), plus the files
of each submodule checked out, as its own git lists them; a submodule not checked out is
`absent` (nothing under it can be judged). Outside git: a walk of the folder, ignored
folders taken whole as well.
"""

from __future__ import annotations

import os
import re

from kenso_git.errors import GitError
from kenso_git.repo.gitrun import EarlyGit
from kenso_git.repo.gitrun import run_git
from kenso_git.repo.moves import STAGED_RENAMES
from kenso_git.repo.prestart import commit_index_env
from kenso_git.repo.workspace import DB_DIRNAME
from kenso_git.repo.workspace import Workspace

MAX_WALKED = 200_000  # entries walked outside git; past this the listing stops
_SUBMODULE_PATH = re.compile(r"^\s*path\s*=\s*(.+?)\s*$", re.MULTILINE)


class Listing:
    """The work tree's files, the folders that exist with everything under them, the
    submodules not checked out, and the files git does not track (nor ignore): what a
    commit leaves out."""

    __slots__ = ("absent", "files", "untracked", "whole")

    def __init__(
        self,
        files: list[str],
        whole: list[str],
        absent: list[str] | None = None,
        untracked: list[str] | None = None,
    ):
        self.files = files
        self.whole = whole
        self.absent = absent or []
        self.untracked = untracked or []


_TRACKED = ("ls-files", "-z", "-t", "--cached", "--others", "--deleted", "--exclude-standard")
_IGNORED = ("ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")


def list_tree(ws: Workspace) -> Listing:
    """List the work tree of `ws`.

    Raises:
        GitError: git failed on the repository.
    """
    if not ws.is_git:
        return _walk(str(ws.root))
    tracked = run_git(ws, *_TRACKED, env=commit_index_env(str(ws.root)))
    return _listing(ws, tracked, run_git(ws, *_IGNORED))


def _listing(ws: Workspace, out: str, ignored: str) -> Listing:
    files: set[str] = set()
    deleted: set[str] = set()
    untracked: list[str] = []
    for entry in filter(None, out.split("\0")):
        tag, _, path = entry.partition(" ")
        (deleted if tag == "R" else files).add(path)
        if tag == "?":
            untracked.append(path)
    files -= deleted
    whole = [p.rstrip("/") for p in ignored.split("\0") if p.endswith("/")]
    files.update(p for p in ignored.split("\0") if p and not p.endswith("/"))
    absent: list[str] = []
    if ".gitmodules" in files:
        for sub in _submodules(os.path.join(ws.root, ".gitmodules")):
            inside = _submodule_files(ws, sub)
            if inside is None:
                absent.append(sub)
            else:
                files.update(inside)
    return Listing(sorted(files), whole, absent, untracked)


def _submodule_files(ws: Workspace, sub: str) -> list[str] | None:
    """The files of the submodule at `sub` as its git lists them (tracked and untracked,
    ignored ones left out), repo-relative; None when it is not checked out."""
    if not os.path.lexists(os.path.join(ws.root, sub, ".git")):
        return None
    try:
        out = run_git(ws, "-C", sub, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    except GitError:
        return None
    return [f"{sub}/{path}" for path in out.split("\0") if path]


def _submodules(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(1_000_000)
    except OSError:
        return []
    return [m.strip("/") for m in _SUBMODULE_PATH.findall(text)]


def _walk(root: str) -> Listing:
    files: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", DB_DIRNAME)]
        rel = os.path.relpath(folder, root)
        prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        files.extend(prefix + name for name in names)
        if len(files) > MAX_WALKED:
            break
    return Listing(files, [])


class EarlyListing:
    """`list_tree` started now and read later: both git listings run on other cores while
    the caller parses the docs (no thread: nothing takes turns at the interpreter lock);
    with `renames`, git's staged renames too (`repo.moves.find_moves` reads them)."""

    __slots__ = ("_ignored", "_tracked", "_ws", "staged")

    def __init__(self, ws: Workspace, *, renames: bool = False) -> None:
        self._ws = ws
        self._tracked: EarlyGit | None = None
        self._ignored: EarlyGit | None = None
        self.staged: EarlyGit | None = None
        if ws.is_git:
            env = commit_index_env(str(ws.root))
            self._tracked = EarlyGit(ws, *_TRACKED, env=env)
            self._ignored = EarlyGit(ws, *_IGNORED)
            if renames:
                self.staged = EarlyGit(ws, *STAGED_RENAMES, env=env)

    def result(self) -> Listing:
        """The listing, once git is done.

        Raises:
            GitError: git failed on the repository.
        """
        if self._tracked is None or self._ignored is None:
            return _walk(str(self._ws.root))
        return _listing(self._ws, self._tracked.result(), self._ignored.result())

    def discard(self) -> None:
        """Stop the listings unless read (idempotent)."""
        for early in (self._tracked, self._ignored, self.staged):
            if early is not None:
                early.discard()
