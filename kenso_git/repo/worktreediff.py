"""What the work tree changed: git's diffs from a commit to it, untracked docs included.

git's diffs see no untracked file, so a doc moved without `git mv` (a deleted file and an
untracked one) would be a delete and an add. When both kinds are there, the diffs are run
again on a copy of git's index where the untracked docs are added with intent to add
(`git add -N`): git's rename detection then pairs them as it would after `git mv`. git's
own index is never written.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence

from kenso_git.errors import GitError
from kenso_git.records import NamedTuple
from kenso_git.repo.gitrun import run_git
from kenso_git.repo.prestart import scrubbed_env
from kenso_git.repo.workspace import MARKDOWN_SUFFIXES
from kenso_git.repo.workspace import Workspace

# Every Markdown file, in any folder and any case (what `workspace.is_markdown` accepts).
DOC_PATHSPECS = tuple(f":(glob,icase)**/*{suffix}" for suffix in MARKDOWN_SUFFIXES)
DIFF = ("diff", "--name-status", "-M", "-z", "--no-ext-diff", "--ignore-submodules=all")
Entry = tuple[str, str | None, str]  # a name-status line: (code, old path or None, path)


class Worktree(NamedTuple):
    """What the work tree changed from HEAD."""

    at_head: dict[str, str]  # a doc the work tree renamed -> its path at HEAD
    dirty: set[str]  # docs whose work-tree file differs from HEAD's (untracked ones included)
    gone: set[str]  # HEAD's docs the work tree deleted or renamed


def worktree_entries(ws: Workspace, since: str, head: str | None) -> tuple[list[Entry], Worktree]:
    """The name-status entries of the docs from commit `since` to the work tree, untracked
    docs included, and what the work tree changed from commit `head` (None: unborn).

    Raises:
        GitError: git failed.
    """
    untracked = listed = untracked_docs(ws)

    def diffs(env: Mapping[str, str] | None) -> tuple[list[Entry], list[Entry]]:
        spec = ("--", *DOC_PATHSPECS)
        entries = list(name_status(run_git(ws, *DIFF, since, *spec, env=env)))
        at_head = (
            [] if head is None else list(name_status(run_git(ws, *DIFF, head, *spec, env=env)))
        )
        return entries, at_head

    entries, from_head = diffs(None)
    if untracked and any(e[0] == "D" for e in (*entries, *from_head)):
        import tempfile  # here: the hooks' and searches' start-up never needs it

        with tempfile.TemporaryDirectory(prefix="kenso-git-changed-") as tmp:
            env = _intent_index(ws, untracked, tmp)
            if env is not None:
                entries, from_head = diffs(env)
                listed = []  # by the diffs now
    entries += [("A", None, p) for p in listed]
    dirty = {p for _code, before, after in from_head for p in (before, after) if p is not None}
    at_head = {after: before for code, before, after in from_head if code[:1] == "R" and before}
    gone = {before or after for code, before, after in from_head if code[:1] in "DR"}
    return entries, Worktree(at_head, dirty | set(untracked), gone)


def _intent_index(ws: Workspace, paths: Sequence[str], folder: str) -> dict[str, str] | None:
    """git's environment for a copy of its index, made in `folder`, where the untracked
    `paths` are added with intent to add; None when the copy cannot be made."""
    import shutil

    if ws.git_dir is None:
        return None
    copy = os.path.join(folder, "index")
    listed = os.path.join(folder, "paths")
    try:
        shutil.copyfile(ws.git_dir / "index", copy)
        with open(listed, "wb") as out:  # a file: the paths may pass the command line's limit
            out.write(b"\0".join(p.encode("utf-8", "surrogateescape") for p in paths))
    except OSError:
        return None
    env = {**scrubbed_env(), "GIT_INDEX_FILE": copy}
    add = ("add", "--intent-to-add", f"--pathspec-from-file={listed}", "--pathspec-file-nul")
    # a whole index written (never a split one's shared file beside git's own), and no hook
    # run: writing an index runs post-index-change, and a read runs none of the user's hooks
    quiet = ("-c", "core.splitIndex=false", "-c", f"core.hooksPath={os.devnull}")
    try:
        run_git(ws, *quiet, "--literal-pathspecs", *add, env=env)
    except GitError:
        return None
    return env


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
