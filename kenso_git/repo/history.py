"""What git's history says about the docs: revisions, what changed between two, and when.

Everything here asks the `git` program (no pygit2): `rev-parse` to name a revision, `diff`
with git's own rename detection (`-M`, its similarity index) for what changed, and `log`
for the commits behind each change. A revision comes from outside (a CLI flag, an agent's
tool argument): it is checked with `rev-parse --verify --end-of-options`, so it can never
be read as an option, and only a commit is accepted.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence

from kenso_git.errors import GitError
from kenso_git.errors import UsageError
from kenso_git.errors import shown
from kenso_git.records import NamedTuple
from kenso_git.repo import prestart
from kenso_git.repo.git import listed_blobs
from kenso_git.repo.gitrun import run_git
from kenso_git.repo.prestart import scrubbed_env
from kenso_git.repo.workspace import MARKDOWN_SUFFIXES
from kenso_git.repo.workspace import Workspace
from kenso_git.repo.workspace import is_markdown

# Every Markdown file, in any folder and any case (what `workspace.is_markdown` accepts).
DOC_PATHSPECS = tuple(f":(glob,icase)**/*{suffix}" for suffix in MARKDOWN_SUFFIXES)
MAX_REV_CHARS = 256
MAX_LISTED_PATHS = 500  # above, one listing of the whole tree is cheaper than the arguments
_RECORD = "\x1e"
_FIELD = "\x1f"
# id, committer time, author, subject: one commit's header in `git log --format`
_FORMAT = f"--format={_RECORD}%H{_FIELD}%ct{_FIELD}%an{_FIELD}%s"
_STATUS = {"A": "added", "C": "added", "M": "modified", "T": "modified", "D": "deleted"}
_SIGKILL = 9


class Commit(NamedTuple):
    """One commit, as a doc's history shows it."""

    id: str
    time: int  # committer time, Unix seconds
    author: str
    subject: str

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "time": self.time, "author": self.author, "subject": self.subject}


class Change(NamedTuple):
    """One doc that differs between two revisions (or a revision and the work tree)."""

    path: str  # as at the newer side
    status: str  # added, modified, deleted or renamed
    old_path: str | None  # renamed: the path at the older side
    commits: int  # commits of the range that changed it (under any of its names)
    last_commit: Commit | None  # the newest of them; None when only the work tree changed it
    uncommitted: bool  # the work tree differs from HEAD for it (work-tree comparisons only)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"path": self.path, "status": self.status}
        if self.old_path is not None:
            out["old_path"] = self.old_path
        out["commits"] = self.commits
        out["last_commit"] = None if self.last_commit is None else self.last_commit.to_dict()
        if self.uncommitted:
            out["uncommitted"] = True
        return out


def resolve_revision(ws: Workspace, rev: str) -> str:
    """The commit id `rev` names (a branch, tag, id, `HEAD~3`, `origin/main`...).

    Raises:
        UsageError: not a git work tree, or `rev` names no commit here.
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
        out = run_git(
            ws, "rev-parse", "--verify", "--quiet", "--end-of-options", text + "^{commit}"
        )
    except GitError:
        shallow = any(
            d is not None and (d / "shallow").is_file() for d in (ws.git_dir, ws.common_dir)
        )
        raise UsageError(
            f"unknown revision {shown(text)}: no commit of this repository has that name"
            + (" (this clone is shallow: older commits are not here)" if shallow else ""),
            hint="`git fetch --deepen=50` (or `--unshallow`) brings older commits"
            if shallow
            else "check it with `git log -1 REV`; a remote branch needs a `git fetch` first",
        ) from None
    return out.strip()


def changes(
    ws: Workspace,
    since: str,
    until: str | None = None,
    *,
    is_doc: Callable[[str], bool],
) -> list[Change]:
    """Each doc added, modified, deleted or renamed from commit `since` to commit `until`, or
    to the work tree when `until` is None (both commit ids, see `resolve_revision`); renames
    found by git's similarity detection. `is_doc` says which paths count.

    Raises:
        GitError: git failed.
    """
    old, new = since, until
    diff_args = ["diff", "--name-status", "-M", "-z", "--no-ext-diff", "--ignore-submodules=all"]
    diff_args += [old] if new is None else [old, new]
    entries = list(_name_status(run_git(ws, *diff_args, "--", *DOC_PATHSPECS)))
    dirty: set[str] = set()
    head = _head(ws) if new is None else new
    if new is None:
        untracked = _untracked_docs(ws)
        entries += [("A", None, p) for p in untracked]
        dirty = _worktree_dirty(ws, head, untracked)
    head_or_new = head
    counts, last = _commits_by_path(ws, old, head_or_new)
    out: list[Change] = []
    for code, before, after in entries:
        change = _change(code, before, after, is_doc)
        if change is None:
            continue
        status, path, old_path = change
        out.append(
            Change(
                path=path,
                status=status,
                old_path=old_path,
                commits=counts.get(path, 0),
                last_commit=last.get(path),
                uncommitted=path in dirty or (old_path is not None and old_path in dirty),
            )
        )
    out.sort(key=lambda c: c.path)
    return out


def _change(
    code: str, before: str | None, after: str, is_doc: Callable[[str], bool]
) -> tuple[str, str, str | None] | None:
    """(status, path, old_path) of one diff entry as the docs see it, or None."""
    kind = code[:1]
    if kind == "R" and before is not None:
        was, now = is_doc(before), is_doc(after)
        if was and now:
            return "renamed", after, before
        if now:
            return "added", after, None
        return ("deleted", before, None) if was else None
    if not is_doc(after):
        return None
    return _STATUS.get(kind, "modified"), after, None


def _name_status(out: str) -> Iterator[tuple[str, str | None, str]]:
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


def _untracked_docs(ws: Workspace) -> list[str]:
    out = run_git(ws, "ls-files", "-z", "--others", "--exclude-standard", "--", *DOC_PATHSPECS)
    return [p for p in out.split("\0") if p]


def _worktree_dirty(ws: Workspace, head: str | None, untracked: list[str]) -> set[str]:
    """Docs whose work-tree file differs from `head`'s (untracked ones included)."""
    if head is None:
        return set(untracked)
    out = run_git(ws, "diff", "--name-only", "-z", "--no-renames", head, "--", *DOC_PATHSPECS)
    return {p for p in out.split("\0") if p} | set(untracked)


def _head(ws: Workspace) -> str | None:
    try:
        return run_git(ws, "rev-parse", "--verify", "--quiet", "HEAD^{commit}").strip() or None
    except GitError:
        return None


def _commits_by_path(
    ws: Workspace, old: str, new: str | None
) -> tuple[dict[str, int], dict[str, Commit]]:
    """For each doc path as at `new`: how many commits of `old..new` changed it, and the
    newest of them. A rename carries the commits before it over to the new name."""
    counts: dict[str, int] = {}
    last: dict[str, Commit] = {}
    if new is None or new == old:
        return counts, last
    # No pathspec: git's glob and icase magic cost 10x the walk itself (0.56 against 0.04 s
    # over 1,000 commits); what is not a doc is passed over here.
    out = run_git(ws, "log", _FORMAT, "--name-status", "-M", "-z", f"{old}..{new}")
    later: dict[str, str] = {}  # a name in older commits -> the path it has at `new`
    for commit, files in _log_records(out):
        touched: set[str] = set()
        for _code, before, after in files:
            if not is_markdown(after) and (before is None or not is_markdown(before)):
                continue
            final = later.get(after, after)
            touched.add(final)
            if before is not None:
                later[before] = final
        for path in touched:
            counts[path] = counts.get(path, 0) + 1
            last.setdefault(path, commit)
    return counts, last


def _log_records(out: str) -> Iterator[tuple[Commit, list[tuple[str, str | None, str]]]]:
    """(commit, name-status entries) of `git log _FORMAT --name-status -z` output, newest first."""
    fields = out.split("\0")
    i = 0
    commit: Commit | None = None
    files: list[tuple[str, str | None, str]] = []
    while i < len(fields):
        token = fields[i].lstrip("\n")
        if token.startswith(_RECORD):
            if commit is not None:
                yield commit, files
            commit, files = _header(token), []
            i += 1
        elif not token:
            i += 1
        elif token[:1] in "RC" and i + 2 < len(fields):
            files.append((token, fields[i + 1], fields[i + 2]))
            i += 3
        elif i + 1 < len(fields):
            files.append((token, None, fields[i + 1]))
            i += 2
        else:
            break
    if commit is not None:
        yield commit, files


def _header(token: str) -> Commit:
    sha, stamp, author, subject = [*token[1:].split(_FIELD, 3), "", "", ""][:4]
    try:
        when = int(stamp)
    except ValueError:
        when = 0
    return Commit(sha, when, author, subject)


def last_commits(
    ws: Workspace, wanted: Mapping[str, str], *, rev: str = "HEAD", timeout: float = 60.0
) -> dict[str, Commit]:
    """For each path -> blob id of `wanted` (as at `rev`): the newest commit that made the
    path that blob (its last change). One `git log --raw` walk, newest first, stopped as
    soon as every path is found; paths not found within `timeout` seconds are left out.

    Raises:
        GitError: git cannot be started.
    """
    pending = dict(wanted)
    found: dict[str, Commit] = {}
    if not pending or ws.git_dir is None:
        return found
    argv = [
        "git", "-C", str(ws.root), "log", _FORMAT, "--raw", "--no-abbrev", "--no-renames",
        "-z", "--end-of-options", rev, "--", *DOC_PATHSPECS,
    ]  # fmt: skip
    commit: Commit | None = None
    expect_path: str | None = None  # the new blob id of the raw entry whose path comes next
    for token in _stream_fields(argv, timeout, lambda: not pending):
        token = token.lstrip("\n")
        if expect_path is not None:
            blob, expect_path = expect_path, None
            if commit is not None and pending.get(token) == blob:
                found[token] = commit
                del pending[token]
        elif token.startswith(_RECORD):
            commit = _header(token)
        elif token.startswith(":"):
            parts = token.split()
            if len(parts) >= 5:
                expect_path = parts[3]
    return found


def _stream_fields(argv: list[str], timeout: float, done: Callable[[], bool]) -> Iterator[str]:
    """The NUL-separated fields `argv` prints, as they come; the program is stopped once
    `done()` says so (checked after each read) or `timeout` seconds have passed.

    Raises:
        GitError: the program cannot be started.
    """
    try:
        pid, out_r, err_r = prestart.spawn(argv, scrubbed_env())
    except OSError as exc:
        raise GitError(f"cannot run git log: {exc}", hint="is git installed?") from exc
    os.close(err_r)  # nothing of stderr is read: a full pipe would only block git, so close
    deadline = time.monotonic() + timeout
    rest = b""
    try:
        while not done() and time.monotonic() < deadline:
            data = os.read(out_r, 1 << 16)
            if not data:
                break
            *fields, rest = (rest + data).split(b"\0")
            for field in fields:
                yield field.decode("utf-8", "surrogateescape")
                if done():
                    return
        if rest and not done():
            yield rest.decode("utf-8", "surrogateescape")
    finally:
        os.close(out_r)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, _SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def paths_at(ws: Workspace, commit: str, paths: Sequence[str] | None = None) -> dict[str, str]:
    """Path -> blob id of every Markdown file in `commit`'s tree (gitlinks and links left
    out), or of those of `paths` (a few: each is a command-line argument).

    Raises:
        GitError: git failed.
    """
    if paths is not None and not paths:
        return {}
    out = _ls_tree(ws, commit, paths)
    wanted = None if paths is None else set(paths)
    return {path: blob for path, blob in _markdown_blobs(out) if wanted is None or path in wanted}


def same_blobs(ws: Workspace, commit: str, blobs: Mapping[str, str]) -> dict[str, str]:
    """The entries of `blobs` (path -> blob id) whose path holds that very blob in `commit`'s
    tree: `paths_at` compared with `blobs` entry by entry, without a dictionary of every
    file of the listing (100,000 at the scale point, #32).

    Raises:
        GitError: git failed.
    """
    if not blobs:
        return {}
    listed = _markdown_blobs(_ls_tree(ws, commit, blobs))
    return {path: blob for path, blob in listed if blobs.get(path) == blob}


def _ls_tree(ws: Workspace, commit: str, paths: Collection[str] | None) -> str:
    """`git ls-tree -z` of `paths` in `commit` (a few: each a command-line argument), or of
    its whole tree when there are more (or None)."""
    if paths is not None and len(paths) <= MAX_LISTED_PATHS:
        return run_git(
            ws, "--literal-pathspecs", "ls-tree", "-z", "--full-tree", commit, "--", *paths
        )
    return run_git(ws, "ls-tree", "-r", "-z", "--full-tree", commit)  # no pathspec magic here


def _markdown_blobs(listing: str) -> Iterator[tuple[str, str]]:
    """(path, blob id) of each Markdown file `git ls-tree -z` lists (gitlinks and links left
    out), one entry at a time: no list of every entry."""
    return ((path, blob) for path, blob in listed_blobs(listing, links=False) if is_markdown(path))


def literal(paths: Iterable[str]) -> list[str]:
    """`paths` as pathspecs that mean just that path (a name may start with `:`)."""
    return [f":(literal){p}" for p in paths]


def log_first_commits(ws: Workspace, revisions: str, paths: list[str]) -> dict[str, Commit]:
    """For each of `paths`, the newest commit of `revisions` (a `git log` range) that
    changed it; paths no commit of the range changed are left out.

    Raises:
        GitError: git failed.
    """
    if not paths:
        return {}
    out = run_git(
        ws, "log", _FORMAT, "--name-only", "-z", "--no-renames", revisions, "--", *literal(paths)
    )
    found: dict[str, Commit] = {}
    commit: Commit | None = None
    for token in out.split("\0"):
        token = token.lstrip("\n")
        if token.startswith(_RECORD):
            commit = _header(token)
        elif token and commit is not None:
            found.setdefault(token, commit)
    return found
