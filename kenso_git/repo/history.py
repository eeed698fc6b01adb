"""What git's history says about the docs: revisions, what changed between two, and when.

Everything here asks the `git` program (no pygit2): `rev-parse` to name a revision, `diff`
with git's own rename detection (`-M`, its similarity index) for what changed (the work
tree's side in `worktreediff`), and `log` for the commits behind each change, which follow
a doc through its renames. A revision comes from outside (a CLI flag, an agent's
tool argument): `revname.resolve_revision` (kept here as `resolve_revision`) checks it,
so it can never be read as an option, and only a commit is accepted.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence

from kenso_git.records import NamedTuple
from kenso_git.repo.git import listed_blobs
from kenso_git.repo.gitrun import GitTimeoutError
from kenso_git.repo.gitrun import capture
from kenso_git.repo.gitrun import finish
from kenso_git.repo.gitrun import git_argv
from kenso_git.repo.gitrun import run_git
from kenso_git.repo.gitrun import stream_git
from kenso_git.repo.gitstatus import status_paths
from kenso_git.repo.logwalk import LOG_ARGS
from kenso_git.repo.logwalk import MAX_HEADER_CHARS as MAX_HEADER_CHARS
from kenso_git.repo.logwalk import Commit as Commit
from kenso_git.repo.logwalk import Reach
from kenso_git.repo.logwalk import capped
from kenso_git.repo.logwalk import walk
from kenso_git.repo.prestart import scrubbed_env
from kenso_git.repo.revname import resolve_revision as resolve_revision
from kenso_git.repo.workspace import Workspace
from kenso_git.repo.workspace import is_markdown
from kenso_git.repo.worktreediff import DIFF
from kenso_git.repo.worktreediff import DOC_PATHSPECS
from kenso_git.repo.worktreediff import Entry
from kenso_git.repo.worktreediff import Worktree
from kenso_git.repo.worktreediff import head_commit
from kenso_git.repo.worktreediff import name_status
from kenso_git.repo.worktreediff import worktree_entries

MAX_LISTED_PATHS = 500  # above, one listing of the whole tree is cheaper than the arguments
_RECORD = "\x1e"
_FIELD = "\x1f"
# id, committer time, author, subject: one commit's header in `git log --format`
_FORMAT = f"--format={_RECORD}%H{_FIELD}%ct{_FIELD}%an{_FIELD}%s"
_STATUS = {"A": "added", "C": "added", "M": "modified", "T": "modified", "D": "deleted"}


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


HiddenLinks = Callable[[str | None, list[str]], set[str]]
"""Of some doc paths at one side of a diff (a commit id; None: the work tree), the symbolic
links there that lead to nothing the caller may see."""


def kinship(ws: Workspace, old: str, new: str) -> str:
    """How commit `old` stands to commit `new` (`git merge-base`): `older` (in `new`'s
    history), `newer` (`new` is in its history), `diverged` (they share older commits) or
    `unrelated` (no commit in common: an orphan branch, another project's history).

    Raises:
        GitError: git failed.
    """
    args = ("merge-base", "--all", "--end-of-options", old, new)

    def run() -> tuple[int, bytes, bytes]:
        status, out, err = capture(git_argv(ws, args), scrubbed_env(), 30.0)
        if status == 1 and not out.strip() and not err.strip():
            return 0, b"", b""  # no common commit: git says so by its exit status alone
        return status, out, err

    bases = finish(args, run).split()
    if not bases:
        return "unrelated"
    if old in bases:
        return "older"
    return "newer" if new in bases else "diverged"


def changes(
    ws: Workspace,
    since: str,
    until: str | None = None,
    *,
    is_doc: Callable[[str], bool],
    hidden_links: HiddenLinks | None = None,
) -> list[Change]:
    """Each doc added, modified, deleted or renamed from commit `since` to commit `until`, or
    to the work tree when `until` is None (both commit ids, see `resolve_revision`); renames
    found by git's similarity detection. `is_doc` says which paths count, and `hidden_links`
    which links among them do not at a side: a doc is listed as it is at the sides it counts
    at (a link made to lead elsewhere: added or deleted), and its `commits` are those that
    left it under a name that counts.

    Raises:
        GitError: git failed.
    """
    if until is None:
        head = head_commit(ws)
        entries, worktree = worktree_entries(ws, since, head)
    else:
        head, worktree = until, Worktree({}, set(), set())
        entries = list(name_status(run_git(ws, *DIFF, since, until, "--", *DOC_PATHSPECS)))
    commits = _commits_by_path(ws, since, head, is_doc)
    was_doc, now_doc = _sides(entries, is_doc, (since, until), hidden_links)
    out: list[Change] = []
    for code, before, after in entries:
        change = _change(code, before, after, was_doc, now_doc)
        if change is None:
            continue
        status, path, old_path = change
        dirty = worktree.dirty
        uncommitted = path in dirty or (old_path is not None and old_path in dirty)
        uncommitted = uncommitted or (until is None and head is None)  # no commit yet
        if status == "deleted":  # the commits know it by its last name (at `head`, if any)
            key = commits.named.get(path, path)
            uncommitted = uncommitted or key in worktree.gone
        else:  # by its name at `head`, before a rename in the work tree
            key = worktree.at_head.get(path, path)
        out.append(
            Change(
                path=path,
                status=status,
                old_path=old_path,
                commits=commits.counts.get(key, 0),
                last_commit=commits.last.get(key),
                uncommitted=uncommitted,
            )
        )
    out.sort(key=lambda c: c.path)
    return out


def worktree_signature(ws: Workspace) -> tuple[object, ...] | None:
    """What `changes(ws, since)` to the work tree reads beyond the commits: one `git status`
    of the docs (each path whose staged or work-tree state differs from HEAD, untracked ones
    included) with the lstat of each and of git's index. Equal signatures (at the same HEAD)
    give the same changes; None when git cannot tell."""
    listed = status_paths(ws, DOC_PATHSPECS)
    if listed is None or ws.git_dir is None:
        return None
    index = _stat_of(str(ws.git_dir / "index"))
    return (index, *((p, _stat_of(os.path.join(ws.root, p))) for p in listed))


def _stat_of(path: str) -> tuple[int, ...] | None:
    """A file's lstat data; a symbolic link's with its target's too (where it leads)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISLNK(st.st_mode):
        return _signed(st)
    try:
        return (*_signed(st), *_signed(os.stat(path)))
    except OSError:  # it leads nowhere
        return _signed(st)


def _signed(st: os.stat_result) -> tuple[int, ...]:
    return st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _sides(
    entries: list[Entry],
    is_doc: Callable[[str], bool],
    sides: tuple[str, str | None],
    hidden_links: HiddenLinks | None,
) -> tuple[Callable[[str], bool], Callable[[str], bool]]:
    """Which paths are docs at the older side of `entries` and at the newer one: `is_doc`,
    less the links `hidden_links` names there."""
    if hidden_links is None:
        return is_doc, is_doc
    olds = {_old_path(code, before, after) for code, before, after in entries}
    news = {after for code, _before, after in entries if code[:1] != "D"}
    hidden = [
        hidden_links(side, sorted(p for p in paths if is_doc(p))) if paths else set()
        for side, paths in zip(sides, (olds, news), strict=True)
    ]
    return (
        lambda path: is_doc(path) and path not in hidden[0],
        lambda path: is_doc(path) and path not in hidden[1],
    )


def _old_path(code: str, before: str | None, after: str) -> str:
    return before if code[:1] == "R" and before is not None else after


def _change(
    code: str,
    before: str | None,
    after: str,
    was_doc: Callable[[str], bool],
    is_doc: Callable[[str], bool],
) -> tuple[str, str, str | None] | None:
    """(status, path, old_path) of one diff entry as the docs see it, or None: a doc at one
    side only was added or deleted (`was_doc` judges the older side, `is_doc` the newer)."""
    kind = code[:1]
    old = _old_path(code, before, after)
    was = kind not in ("A", "C") and was_doc(old)
    now = kind != "D" and is_doc(after)
    if was and now:
        return (
            ("renamed", after, before)
            if kind == "R"
            else (_STATUS.get(kind, "modified"), after, None)
        )
    if now:
        return "added", after, None
    return ("deleted", old, None) if was else None


class _RangeCommits(NamedTuple):
    """The commits of a range, by the name each doc has at its end (or last had)."""

    counts: dict[str, int]  # how many commits changed the doc
    last: dict[str, Commit]  # the newest of them
    named: dict[str, str]  # a doc's name at the range's start -> its name here, if renamed


def _commits_by_path(
    ws: Workspace, old: str, new: str | None, is_doc: Callable[[str], bool]
) -> _RangeCommits:
    """For each doc path as at `new` (a deleted doc: its last path): how many commits of
    `old..new` changed it while `is_doc` let its name through (the name the commit left it
    under, deleted it from, or moved it from to a name that does not: the commit that took
    it out of view), and the newest of them. A rename carries the commits
    before it over to the new name; those made under a name that does not count, count
    for no name (a hidden doc's commits are not told by a later rename into view). The
    commits of each name are those `git log old..new -- NAME` shows (`logwalk`): a merge
    that left the doc unlike every parent counts, a branch whose change a merge left out
    does not."""
    found = _RangeCommits({}, {}, {})
    if new is None or new == old:
        return found
    counts, last, later = found
    # No pathspec: git's glob and icase magic cost 10x the walk itself (0.56 against 0.04 s
    # over 1,000 commits); what is not a doc is passed over here.
    out = run_git(ws, "log", *LOG_ARGS, "--end-of-options", f"{old}..{new}")
    # `later`: a name as the commits walked so far (newest first) left it -> the doc's path
    # at `new`; a name a commit added named nothing before it (a deleted doc may have had it)
    for commit, files, reach in walk(out, old, is_markdown):
        docs = [
            (code, before, after, later.get(after, after))
            for code, before, after in files
            if is_markdown(after) or (before is not None and is_markdown(before))
        ]
        for code, _before, after, _final in docs:
            if code[:1] in "AR":
                later.pop(after, None)
        for _code, before, _after, final in docs:
            if before is not None:
                later[before] = final
        for path in {
            final
            for code, before, after, final in docs
            if _counts(code, before, after, is_doc, reach)
        }:
            counts[path] = counts.get(path, 0) + 1
            last.setdefault(path, commit)
    return found


def _counts(
    code: str, before: str | None, after: str, is_doc: Callable[[str], bool], reach: Reach
) -> bool:
    """Whether a commit's change (`code` `before` -> `after`) is one of the doc's: it left
    the doc under a name that counts, or deleted it from one, or moved it from one to a
    name that does not (out of view: the commit that removed it there, as a deletion)."""
    if is_doc(after) and reach.has(after):
        return True
    return code[:1] == "R" and before is not None and is_doc(before) and reach.has(before)


def _header(token: str) -> Commit:
    sha, stamp, author, subject = [*token[1:].split(_FIELD, 3), "", "", ""][:4]
    try:
        when = int(stamp)
    except ValueError:
        when = 0
    return Commit(sha, when, capped(author), capped(subject))


def last_commits(
    ws: Workspace, wanted: Mapping[str, str], *, rev: str = "HEAD", timeout: float = 30.0
) -> dict[str, Commit]:
    """For each path -> blob id of `wanted` (as at `rev`): the newest commit that made the
    path that blob (its last change). One `git log --raw` walk, newest first, stopped as
    soon as every path is found; paths not found within git's time limit (`timeout`
    seconds, or `KENSO_GIT_TIMEOUT`'s, for the whole walk) are left out, and a walk stopped
    there is said on stderr (`gitrun.stream_git`). A merge made the blob when it differs
    from every parent there (a conflict resolved: its combined diff lists the path), as
    `git log -1 -- PATH` names it.

    Raises:
        GitError: git cannot be started.
    """
    pending = dict(wanted)
    found: dict[str, Commit] = {}
    if not pending or ws.git_dir is None:
        return found
    args = (
        "log", _FORMAT, "--raw", "--no-abbrev", "--no-renames", "--diff-merges=combined",
        "--root", "-z", "--end-of-options", rev, "--", *DOC_PATHSPECS,
    )  # fmt: skip
    commit: Commit | None = None
    expect_path: str | None = None  # the new blob id of the raw entry whose path comes next
    try:
        for token in _stream_fields(ws, args, timeout, lambda: not pending):
            token = token.lstrip("\n")
            if expect_path is not None:
                blob, expect_path = expect_path, None
                if commit is not None and pending.get(token) == blob:
                    found[token] = commit
                    del pending[token]
            elif token.startswith(_RECORD):
                commit = _header(token)
            elif token.startswith(":"):
                # `:MODE MODE OLD NEW S`; a merge's, one MODE and OLD per parent:
                # `::M M M A B NEW SS`
                parts = token.split()
                parents = len(token) - len(token.lstrip(":"))
                if len(parts) >= 2 * parents + 3:
                    expect_path = parts[2 * parents + 1]
    except GitTimeoutError:
        pass  # said on stderr; what was found before the limit stands
    return found


def _stream_fields(
    ws: Workspace, args: Sequence[str], timeout: float, done: Callable[[], bool]
) -> Iterator[str]:
    """The NUL-separated fields `git ARGS` prints, as they come; git is stopped once
    `done()` says so (checked after each field) or at its time limit.

    Raises:
        GitTimeoutError: git ran past its time limit (it was stopped).
        GitError: git cannot be started.
    """
    rest = b""
    with contextlib.closing(stream_git(ws, args, timeout)) as pieces:
        for data in pieces:
            *fields, rest = (rest + data).split(b"\0")
            for field in fields:
                yield field.decode("utf-8", "surrogateescape")
                if done():
                    return
        if rest and not done():
            yield rest.decode("utf-8", "surrogateescape")


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


def links_at(ws: Workspace, commit: str, paths: Sequence[str]) -> list[str]:
    """Those of `paths` that are symbolic links in `commit`'s tree.

    Raises:
        GitError: git failed.
    """
    if not paths:
        return []
    wanted = set(paths)
    out: list[str] = []
    for entry in _ls_tree(ws, commit, paths).split("\0"):
        meta, _, path = entry.partition("\t")
        if meta.startswith("120000 ") and path in wanted:
            out.append(path)
    return out


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
