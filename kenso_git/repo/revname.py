"""A revision named from outside, as the commit it names, or an error that says why not.

A revision comes from outside (a CLI flag, an agent's tool argument): it is checked with
`rev-parse --verify --end-of-options`, so it can never be read as an option, and only a
commit is accepted. When it names none, the error says what git's history tells of why:
another kind of object, a shallow clone, no commit yet, or steps back past the first commit.
"""

from __future__ import annotations

import re

from kenso_git.errors import GitError
from kenso_git.errors import UsageError
from kenso_git.errors import shown
from kenso_git.repo.gitrun import run_git
from kenso_git.repo.workspace import Workspace

MAX_REV_CHARS = 256


def resolve_revision(ws: Workspace, rev: str) -> str:
    """The commit id `rev` names (a branch, tag, id, `HEAD~3`, `origin/main`, `:/words`
    of a commit message...).

    Raises:
        UsageError: not a git work tree, or `rev` names no commit here (nothing, or a
            tree or a file).
    """
    if ws.git_dir is None:
        raise UsageError(
            f"this folder is not in a git repository, so it has no revision {shown(rev)}",
            hint="history commands need git: run them inside a clone",
        )
    text = rev.strip()
    if not text or len(text) > MAX_REV_CHARS or "\0" in text or "\n" in text:
        raise UsageError(
            f"not a revision: {shown(rev)}",
            hint="name a commit: a branch, a tag, a commit id, HEAD~3 or origin/main",
        )
    try:
        return _commit_named(ws, text)
    except GitError:
        kind = _object_kind(ws, text)
    if kind is not None:
        tagged = "a tag of a commit" if kind.startswith("tag of") else "a tag"
        raise UsageError(
            f"not a commit: {shown(text)} names a {kind}",
            hint=f"name a commit: a branch, {tagged}, a commit id, HEAD~3 or :/message words "
            "(REV:path and REV^{tree} name a file or a folder)",
        )
    no_upstream = _why_no_upstream(ws, text)
    if no_upstream is not None:
        raise UsageError(f"unknown revision {shown(text)}: {no_upstream[0]}", hint=no_upstream[1])
    shallow = any(d is not None and (d / "shallow").is_file() for d in (ws.git_dir, ws.common_dir))
    why = None if shallow else _why_unknown(ws, text)
    if why is not None:
        raise UsageError(f"unknown revision {shown(text)}: {why[0]}", hint=why[1])
    raise UsageError(
        f"unknown revision {shown(text)}: no commit of this repository has that name"
        + (" (this clone is shallow: older commits are not here)" if shallow else ""),
        hint="`git fetch --deepen=50` (or `--unshallow`) brings older commits"
        if shallow
        else "check it with `git log -1 REV`; a remote branch needs a `git fetch` first",
    )


# `REV~N`, `REV^`, `REV^1`, `REV~` in any sequence: steps back along first parents
_FIRST_PARENT_STEPS = re.compile(r"(?P<base>.+?)(?P<steps>(?:~[0-9]*|\^[01]?)+)")
_STEP = re.compile(r"~([0-9]*)|\^([01]?)")


def _why_unknown(ws: Workspace, text: str) -> tuple[str, str] | None:
    """(what is wrong, what to do) when `text` names no commit for a reason git's history
    tells: the repository (or the current branch) has no commit yet, or `text` steps back
    along first parents (`HEAD~20`) past the first commit. None otherwise."""
    if _has_commit(ws, "HEAD"):
        return _too_deep(ws, text)
    if not run_git(ws, "for-each-ref", "--count=1", "--format=%(refname)").strip():
        return (
            "this repository has no commits yet",
            "commit the docs first (`git add` and `git commit`): a revision names a commit",
        )
    if text.startswith(("HEAD", "@")):
        branch = run_git(ws, "symbolic-ref", "--quiet", "--short", "HEAD").strip()
        return (
            f"the current branch {shown(branch)} has no commits yet",
            "commit on it first, or name another branch (`git branch` lists them)",
        )
    return _too_deep(ws, text)


def _has_commit(ws: Workspace, text: str) -> bool:
    try:
        _commit_named(ws, text)
    except GitError:
        return False
    return True


def _too_deep(ws: Workspace, text: str) -> tuple[str, str] | None:
    """Why `text`, a commit `BASE` then first-parent steps, names none: its history is
    shorter than the steps (None when `text` is no such name, or that is not why)."""
    found = None if text.startswith(":") else _FIRST_PARENT_STEPS.fullmatch(text)
    if found is None or not _has_commit(ws, found["base"]):
        return None
    base = found["base"]
    steps = sum(int(m[1] or m[2] or 1) for m in _STEP.finditer(found["steps"]))
    depth = int(run_git(ws, "rev-list", "--first-parent", "--count", "--end-of-options", base))
    if steps < depth:
        return None
    commits = f"{depth} commit{'' if depth == 1 else 's'}"
    oldest = base if depth == 1 else f"{base}~{depth - 1}"
    return (
        f"the history of {base} is only {commits} deep ({oldest} is its first commit)",
        f"name a commit it holds: {oldest} at the oldest, or one `git log --oneline` lists",
    )


def _commit_named(ws: Workspace, text: str) -> str:
    """The commit id `text` names, a tag peeled to its commit.

    Raises:
        GitError: `text` names no commit.
    """
    if text.startswith(":/"):
        # `:/words` (the youngest commit whose message matches) takes all that follows as
        # its pattern, so a `^{commit}` appended would be searched for: named alone, it
        # always names a commit
        return run_git(ws, "rev-parse", "--verify", "--quiet", "--end-of-options", text).strip()
    return run_git(
        ws, "rev-parse", "--verify", "--quiet", "--end-of-options", text + "^{commit}"
    ).strip()


def _object_kind(ws: Workspace, text: str) -> str | None:
    """The type of the object `text` names (a tree, a blob...; an annotated tag said with
    what it is a tag of, `tag of a tree`), None when it names none."""
    try:
        oid = run_git(ws, "rev-parse", "--verify", "--quiet", "--end-of-options", text).strip()
        kind = run_git(ws, "cat-file", "-t", oid).strip()
        if kind == "tag":
            peeled = run_git(ws, "rev-parse", "--verify", "--quiet", f"{oid}^{{}}").strip()
            return f"tag of a {run_git(ws, 'cat-file', '-t', peeled).strip()}"
        return kind or None
    except GitError:
        return None


# `@{u}`, `@{upstream}`, `BRANCH@{upstream}`, any case, and steps after it (`@{u}~2`)
_UPSTREAM = re.compile(r"(?P<branch>[^@]*)@\{(?:u|upstream)\}", re.IGNORECASE)


def _why_no_upstream(ws: Workspace, text: str) -> tuple[str, str] | None:
    """(what is wrong, what to do) when `text` names a branch's upstream and the branch has
    none (git: "no upstream configured for branch"), or HEAD is detached; None otherwise
    (an upstream not fetched yet is the usual unknown revision)."""
    found = _UPSTREAM.match(text)
    if found is None:
        return None
    branch = found["branch"]
    if branch in ("", "HEAD"):
        try:
            branch = run_git(ws, "symbolic-ref", "--quiet", "--short", "HEAD").strip()
        except GitError:
            return (
                "HEAD is detached, so it has no upstream",
                "name a branch's upstream (`main@{upstream}`) or a remote branch (origin/main)",
            )
    if not _has_commit(ws, f"refs/heads/{branch}"):
        return None
    try:
        run_git(ws, "config", "--get", f"branch.{branch}.merge")
    except GitError:
        return (
            f"no upstream configured for branch {shown(branch)}",
            f"`git branch --set-upstream-to=origin/{branch} {branch}` sets one, "
            "or name the remote branch itself (origin/main)",
        )
    return None
