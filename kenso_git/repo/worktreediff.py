"""What the work tree changed: git's diffs from a commit to it, untracked docs included.

`git diff REV` against the work tree refreshes the stat data of the index it reads and
writes that index back (even with `--no-optional-locks`, git 2.39), so on git's own index
a read would take `index.lock` from under the user's next git command. The diffs run on a
copy instead (`GIT_INDEX_FILE`): kenso-git's copy for its statuses (repo/statusindex.py,
in the index's folder; the stat data git refreshes there serves the next status and diff
too), else a copy made for this one call in a temporary folder. git's own index is never
written, and the answers are those git's own index gives (the same entries, `git add -N`
ones included; git re-reads a file whose stat data changed, as it would there).

git's diffs see no untracked file, so a doc moved without `git mv` (a deleted file and an
untracked one) would be a delete and an add. When both kinds are there, the diffs are run
again on a copy where the untracked docs are entries git reads from the work tree, as it
reads those added with intent to add (`git add -N`, which would write into `.git/objects`):
git's rename detection then pairs them as it would after `git mv`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from collections.abc import Sequence

from kenso_git.errors import GitError
from kenso_git.records import NamedTuple
from kenso_git.repo import statusindex
from kenso_git.repo.gitrun import GitTimeoutError
from kenso_git.repo.gitrun import feed_git
from kenso_git.repo.gitrun import run_git
from kenso_git.repo.prestart import scrubbed_env
from kenso_git.repo.workspace import MARKDOWN_SUFFIXES
from kenso_git.repo.workspace import Workspace

# Every Markdown file, in any folder and any case (what `workspace.is_markdown` accepts).
DOC_PATHSPECS = tuple(f":(glob,icase)**/*{suffix}" for suffix in MARKDOWN_SUFFIXES)
DIFF = ("diff", "--name-status", "-M", "-z", "--no-ext-diff", "--ignore-submodules=all")
Entry = tuple[str, str | None, str]  # a name-status line: (code, old path or None, path)
# A copy is written whole (never a split index's shared file beside git's own), and with no
# hook: writing an index runs post-index-change, and a read runs none of the user's hooks.
_ON_A_COPY = statusindex.COPY_FLAGS  # no split index, no user hooks


class Worktree(NamedTuple):
    """What the work tree changed from HEAD."""

    at_head: dict[str, str]  # a doc the work tree renamed -> its path at HEAD
    dirty: set[str]  # docs whose work-tree file differs from HEAD's (untracked ones included)
    gone: set[str]  # HEAD's docs the work tree deleted or renamed


class _Index(NamedTuple):
    """A copy of git's index the diffs run on: git's options, its environment, its path."""

    flags: tuple[str, ...]
    env: dict[str, str]
    path: str


def worktree_entries(ws: Workspace, since: str, head: str | None) -> tuple[list[Entry], Worktree]:
    """The name-status entries of the docs from commit `since` to the work tree, untracked
    docs included, and what the work tree changed from commit `head` (None: unborn).

    Raises:
        GitError: git failed.
    """
    untracked = listed = untracked_docs(ws)
    with _Scratch() as scratch:
        index, (entries, from_head) = _diffs_on_a_copy(ws, since, head, scratch)
        if untracked and any(e[0] == "D" for e in (*entries, *from_head)):
            intent = _intent_index(ws, untracked, index, scratch.folder(), since)
            if intent is not None:
                entries, from_head = _diffs(ws, since, head, intent)
                listed = []  # by the diffs now
    entries += [("A", None, p) for p in listed]
    dirty = {p for _code, before, after in from_head for p in (before, after) if p is not None}
    at_head = {after: before for code, before, after in from_head if code[:1] == "R" and before}
    gone = {before or after for code, before, after in from_head if code[:1] in "DR"}
    return entries, Worktree(at_head, dirty | set(untracked), gone)


def _diffs_on_a_copy(
    ws: Workspace, since: str, head: str | None, scratch: _Scratch
) -> tuple[_Index, tuple[list[Entry], list[Entry]]]:
    """`_diffs` on kenso-git's kept copy of git's index, else on one made for this call.

    Raises:
        GitError: git failed.
    """
    kept = _kept_copy(ws)
    if kept is not None:
        try:
            return kept, _diffs(ws, since, head, kept)
        except GitTimeoutError:
            raise  # a copy of the same index would keep git as long
        except GitError:  # a copy git cannot read (say after a crash): made again next time
            _forget_kept_copy(ws)
    index = _call_copy(ws, scratch.folder())
    return index, _diffs(ws, since, head, index)


def _diffs(
    ws: Workspace, since: str, head: str | None, index: _Index
) -> tuple[list[Entry], list[Entry]]:
    """The entries from `since` to the work tree, and from `head` (none when unborn)."""

    def diff(rev: str) -> list[Entry]:
        args = (*index.flags, *DIFF, rev, "--", *DOC_PATHSPECS)
        return list(name_status(run_git(ws, *args, env=index.env)))

    return diff(since), [] if head is None else diff(head)


def _kept_copy(ws: Workspace) -> _Index | None:
    """kenso-git's copy of git's index in the index's folder (made again first if git's
    index changed), as its statuses use it; None where there is none to be had (no index
    folder, a read-only one, no git index yet)."""
    if ws.git_dir is None or ws.common_dir is None:
        return None
    git_dir = str(ws.git_dir)
    flags, env, private = statusindex.status_setup(
        git_dir,
        str(ws.common_dir),
        scrubbed_env(),
        folder=statusindex.folder_for(git_dir, str(ws.root)),
    )
    if private is None:
        return None
    path = os.path.abspath(private)  # git runs in the work tree (`-C`)
    return _Index(flags, {**env, "GIT_INDEX_FILE": path}, path)  # COPY_FLAGS: hooks off


def _forget_kept_copy(ws: Workspace) -> None:
    assert ws.git_dir is not None
    git_dir = str(ws.git_dir)
    folder = statusindex.folder_for(git_dir, str(ws.root))
    if folder is not None:
        statusindex.forget(git_dir, folder)


def _call_copy(ws: Workspace, folder: str) -> _Index:
    """A copy of git's index in `folder`, for this call alone.

    Raises:
        GitError: git's index exists but cannot be read.
    """
    copy = os.path.join(folder, "index")
    if ws.git_dir is not None:
        try:
            _copy_index(str(ws.git_dir / "index"), copy)
        except FileNotFoundError:
            pass  # no index yet: git reads the missing copy as the empty index it would read
        except OSError as err:
            raise GitError(
                f"cannot read git's index ({err.strerror or err}): {ws.git_dir / 'index'}",
                hint="check the file's permissions; `git status` says what git makes of it",
            ) from None
    return _Index(_ON_A_COPY, {**scrubbed_env(), "GIT_INDEX_FILE": copy}, copy)


def _copy_index(source: str, copy: str) -> None:
    """Copy an index with its mtime: git re-reads by content the entries written as late as
    its index (racily clean), and a later mtime on the copy would hide them."""
    import shutil

    shutil.copy2(source, copy)


def _intent_index(
    ws: Workspace, paths: Sequence[str], index: _Index, folder: str, since: str
) -> _Index | None:
    """A copy of `index`, made in `folder`, where the untracked `paths` are entries that
    git takes from the work tree, as it takes those added with intent to add; None when the
    copy cannot be made.

    Not `git add -N`: it writes the empty blob into git's object store (or refreshes its
    file's mtime), a write into `.git/`. Each entry names instead an object id no file's
    content has (the commit `since`'s; git never reads the object), so git never takes it
    as up to date and reads the file: a new file to its diffs.
    """
    copy = os.path.join(folder, "intent-index")
    try:
        _copy_index(index.path, copy)
    except FileNotFoundError:
        pass  # no index yet: the entries make one
    except OSError:
        return None
    intent = _Index(_ON_A_COPY, {**scrubbed_env(), "GIT_INDEX_FILE": copy}, copy)
    # One run for every entry: each run of update-index writes the whole index again, so
    # runs in batches of arguments cost the index's size over and over.
    oid = since.encode("ascii")
    lines = b"".join(b"100644 %s\t%s\0" % (oid, _as_bytes(path)) for path in paths)
    args = (*intent.flags, "update-index", "--add", "-z", "--index-info")
    try:
        feed_git(ws, args, lines, env=intent.env)
    except GitError:  # a path git refuses as an entry: the untracked docs are listed as added
        return None
    return intent


def _as_bytes(path: str) -> bytes:
    """The path as git wrote it (`run_git` decodes git's output with `surrogateescape`)."""
    return path.encode("utf-8", "surrogateescape")


class _Scratch(contextlib.AbstractContextManager["_Scratch"]):
    """A temporary folder made only when asked for (`folder`), removed on exit."""

    def __init__(self) -> None:
        self._made: str | None = None
        self._remove: contextlib.ExitStack = contextlib.ExitStack()

    def folder(self) -> str:
        if self._made is None:
            import tempfile  # here: the hooks' and searches' start-up never needs it

            made = tempfile.TemporaryDirectory(prefix="kenso-git-changed-")
            self._made = self._remove.enter_context(made)
        return self._made

    def __exit__(self, *exc: object) -> None:
        self._remove.close()


def name_status(out: str) -> Iterator[Entry]:
    """(status code, old path or None, path) of `git diff --name-status -z` output."""
    fields = out.split("\0")
    i = 0
    while i < len(fields) and fields[i]:
        code = fields[i]
        if code[:1] in "RC" and i + 2 < len(fields):
            yield code, fields[i + 1], fields[i + 2]
            i += 3
        elif i + 1 < len(fields):
            yield code, None, fields[i + 1]
            i += 2
        else:
            break


def untracked_docs(ws: Workspace) -> list[str]:
    """The untracked docs git does not ignore, as `git ls-files --others` lists them.

    Raises:
        GitError: git failed.
    """
    out = run_git(ws, "ls-files", "-z", "--others", "--exclude-standard", "--", *DOC_PATHSPECS)
    return [p for p in out.split("\0") if p]


def head_commit(ws: Workspace) -> str | None:
    """HEAD's commit id; None when HEAD has no commit yet."""
    try:
        return run_git(ws, "rev-parse", "--verify", "--quiet", "HEAD^{commit}").strip() or None
    except GitError:
        return None
