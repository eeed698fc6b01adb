"""The files and folders of a work tree, as links and code paths in docs may name them.

In a git repository: what git lists (tracked and untracked files, deleted ones left out) and
the folders it ignores, taken whole (a build folder, a virtual environment), plus submodule
folders. Outside git: a walk of the folder, ignored folders taken whole as well.
"""

from __future__ import annotations

import os
import re

from kenso_git.repo.gitrun import run_git
from kenso_git.repo.workspace import DB_DIRNAME
from kenso_git.repo.workspace import Workspace

MAX_WALKED = 200_000  # entries walked outside git; past this the listing stops
_SUBMODULE_PATH = re.compile(r"^\s*path\s*=\s*(.+?)\s*$", re.MULTILINE)


class Listing:
    """The work tree's files and the folders that exist with everything under them."""

    __slots__ = ("files", "whole")

    def __init__(self, files: list[str], whole: list[str]) -> None:
        self.files = files
        self.whole = whole


def list_tree(ws: Workspace) -> Listing:
    """List the work tree of `ws`.

    Raises:
        GitError: git failed on the repository.
    """
    if not ws.is_git:
        return _walk(str(ws.root))
    out = run_git(
        ws, "ls-files", "-z", "-t", "--cached", "--others", "--deleted", "--exclude-standard"
    )
    files: set[str] = set()
    deleted: set[str] = set()
    for entry in filter(None, out.split("\0")):
        tag, _, path = entry.partition(" ")
        (deleted if tag == "R" else files).add(path)
    files -= deleted
    ignored = run_git(
        ws, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"
    )
    whole = [p.rstrip("/") for p in ignored.split("\0") if p.endswith("/")]
    files.update(p for p in ignored.split("\0") if p and not p.endswith("/"))
    if ".gitmodules" in files:
        whole.extend(_submodules(os.path.join(ws.root, ".gitmodules")))
    return Listing(sorted(files), whole)


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
    """`list_tree` started on a thread, so git lists the tree while the caller parses the
    docs (git runs on another core; the thread waits in `select`, holding no lock)."""

    __slots__ = ("_error", "_listing", "_thread")

    def __init__(self, ws: Workspace) -> None:
        import threading

        self._listing: Listing | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(ws,), daemon=True)
        self._thread.start()

    def _run(self, ws: Workspace) -> None:
        try:
            self._listing = list_tree(ws)
        except BaseException as exc:  # handed to the caller of `result`
            self._error = exc

    def result(self) -> Listing:
        """The listing, once git is done.

        Raises:
            GitError: git failed on the repository.
        """
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._listing is not None
        return self._listing
