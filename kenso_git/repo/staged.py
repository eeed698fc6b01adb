"""What a commit made now would change: the staged changes, as git's rename detection reads
them (`git diff-index --cached -M`). The commit gate lints the files it adds or changes, and
the pages that link to the files it renames away or deletes: those pages are not in the
commit, yet it breaks their links.

Run from a commit hook, the changes are those of the index git named there: `git commit -a`
(`-i`, `-o`, `commit -- paths`) stages into an index of its own, and `.git/index` lacks what
it staged (`prestart.hook_index_env`).
"""

from __future__ import annotations

from kenso_git.errors import GitError
from kenso_git.records import NamedTuple
from kenso_git.repo.gitrun import run_git
from kenso_git.repo.prestart import hook_index_env
from kenso_git.repo.workspace import Workspace

# plumbing: reads the index and writes nothing (git holds a hook's index locked)
_STAGED = ("diff-index", "--cached", "-M", "-z", "--name-status", "--no-ext-diff")


class StagedChanges(NamedTuple):
    """The paths a commit now would add or change (a rename's new path among them), and
    those it would delete or rename away, in git's order."""

    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


def staged_changes(ws: Workspace) -> StagedChanges:
    """The staged changes of `ws`; none outside git.

    Raises:
        GitError: git failed on the repository.
    """
    if not ws.is_git:
        return StagedChanges()
    env = hook_index_env(str(ws.root))
    try:
        return _read(run_git(ws, *_STAGED, "HEAD", "--", env=env))
    except GitError:
        if _has_head(ws):
            raise
    # no commit yet: everything staged is added (the empty tree, in the repository's hash)
    empty = run_git(ws, "hash-object", "-t", "tree", "/dev/null").strip()
    return _read(run_git(ws, *_STAGED, empty, "--", env=env))


def _has_head(ws: Workspace) -> bool:
    try:
        run_git(ws, "rev-parse", "-q", "--verify", "HEAD^{commit}")
    except GitError:
        return False
    return True


def _read(out: str) -> StagedChanges:
    """`--name-status -z` output: a status, then one path (two for a rename or a copy)."""
    fields = out.split("\0")
    changed: list[str] = []
    removed: list[str] = []
    at = 0
    while at < len(fields):
        status = fields[at].strip()
        if not status:
            at += 1
            continue
        if status[0] in "RC" and at + 2 < len(fields):
            if status[0] == "R":
                removed.append(fields[at + 1])
            changed.append(fields[at + 2])
            at += 3
            continue
        if at + 1 < len(fields):
            (removed if status[0] == "D" else changed).append(fields[at + 1])
        at += 2
    return StagedChanges(tuple(changed), tuple(removed))


def unstaged(ws: Workspace) -> frozenset[str]:
    """The tracked files whose text in the work tree is not what is staged (`git diff`, on
    a commit hook's index; GIT_OPTIONAL_LOCKS=0: nothing written): a commit would not hold
    what a lint of the work tree reads there. None outside git."""
    if not ws.is_git:
        return frozenset()
    env = hook_index_env(str(ws.root))
    out = run_git(ws, "diff", "--no-ext-diff", "--no-renames", "--name-only", "-z", env=env)
    return frozenset(path for path in out.split("\0") if path)
