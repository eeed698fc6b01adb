"""Keep `doc_commits` (store/doccommits.py) in step with the index, in the writer's transaction.

After a sync writes its documents, the rows of the documents it touched, of a new table,
and of documents left open at another HEAD are worked out again: the HEAD tree's blob of
each (one `git ls-tree`), then, for those whose file is HEAD's blob (or that the sync's
own `git status` calls unchanged: a page under a clean/smudge filter, git-lfs's, whose
blob is the filter's output, not the file), the commit that made it so (one
`git log --raw` walk, stopped when all are found). A history rewritten under
the index (amend, rebase, reset to another line) makes every row be worked out again.
History that grows under the index (`git fetch --unshallow` or `--deepen` of a shallow
clone) makes the rows dated by a former shallow boundary be worked out again: such a commit
looked as if it made every file older than it. What is left costs a sync nothing: no walk
of the tree, no git call.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Collection
from collections.abc import Iterator

from kenso_git.errors import GitError
from kenso_git.index.gitprobe import CLOCK_SLACK_NS
from kenso_git.index.gitprobe import Probe
from kenso_git.repo import history
from kenso_git.repo.git import is_indexed_bytes
from kenso_git.repo.gitrun import run_git
from kenso_git.repo.workspace import Workspace
from kenso_git.store import doccommits
from kenso_git.store.files import indexed_blob_ids
from kenso_git.store.meta import read_meta
from kenso_git.store.meta import write_meta

META_HEAD = "commits_head"  # the HEAD the rows were last brought up to
# the shallow boundary the rows were dated under: the commit ids of `.git/shallow`, sorted
# and space-separated ('' for a complete history), or `HASHED` and a digest when long
META_SHALLOW = "commits_shallow"
MAX_SHALLOW_KEPT = 1000  # boundary commits kept by id; past it, a change redates every row
HASHED = "sha1:"


def refresh(
    conn: sqlite3.Connection,
    ws: Workspace,
    head: str | None,
    touched: Collection[str],
    probe: Probe | None = None,
) -> None:
    """Work out the last commit of the documents that need it (see the module docstring).

    `probe`, the sync's own `git status` (when it ran one at `head`), already says which
    docs differ from HEAD: the others hold HEAD's blob, and no `git ls-tree` is needed. A
    query's sync after an edit so asks git nothing more. Git failing leaves the rows as
    they are: a hit then carries no age rather than a wrong one.
    """
    if ws.git_dir is None:
        return
    if probe is not None and probe.head is not None:
        head = probe.head
    created = doccommits.ensure(conn)
    meta = read_meta(conn)
    before = meta.get(META_HEAD)
    shallow = _shallow_boundary(ws)
    done = {META_HEAD: head or "", META_SHALLOW: shallow}
    try:
        # HEAD rewritten, or born or unborn (an orphan branch) since: every document
        moved = before is not None and (before or None) != head
        if created or (moved and not (before and head and _descends(ws, before, head))):
            paths: Collection[str] | None = None  # every document
        else:
            paths = set(touched) | set(doccommits.open_paths(conn, head))
            if before and head and before != head:
                # a doc a commit changed and a later one changed back holds the blob it
                # held, so no sync touched it: its last commit is still the newer one
                paths |= _changed_between(ws, before, head)
            grown = _dated_by_former_boundary(conn, meta.get(META_SHALLOW), shallow)
            if grown is None:
                paths = None
            else:
                paths |= grown
        if paths is not None and not paths:
            if any(meta.get(key) != value for key, value in done.items()):
                write_meta(conn, done)
            return
        status = None if probe is None or probe.head != head else probe
        _work_out(conn, ws, head, paths, status)
    except GitError:
        return
    write_meta(conn, done)


def _committed_per_status(
    ws: Workspace, head: str, rest: dict[str, str], status: Probe | None
) -> tuple[dict[str, str], set[str]]:
    """The entries of `rest` (path -> indexed blob id, not HEAD's) git's own verdict calls
    committed: tracked at HEAD, not listed by the sync's `git status` (`status`, run at
    `head`: index and work tree both HEAD's, as git compares them, clean/smudge filters
    included), the file written before that status started and holding the bytes the index
    read. A git-lfs page is one: its file holds the text, HEAD the pointer. Path -> HEAD's
    blob id, and the paths left undecided (written too close to the status, which may
    have looked before), or all of `rest` when the sync ran no status (a hook's targeted
    sync): their row stays uncommitted, open for the next sync to decide. kenso-git runs
    no filter driver to tell (libgit2 hashed the file for the index without one).

    Raises:
        GitError: git failed.
    """
    if status is None:
        return {}, set(rest)  # no verdict of git's (a hook's targeted sync): open
    recent = status.started_ns - CLOCK_SLACK_NS
    listed = set(status.docs)
    maybe: list[str] = []
    undecided: set[str] = set()
    for path in sorted(p for p in rest if p not in listed):
        try:
            st = os.lstat(ws.root / path)
        except OSError:
            continue  # gone: git calls it changed
        if not stat.S_ISREG(st.st_mode):
            continue  # a link: as before, its own blob is not the page's
        if st.st_mtime_ns >= recent:
            undecided.add(path)  # maybe written after git looked
        else:
            maybe.append(path)
    out: dict[str, str] = {}
    for path, blob in history.paths_at(ws, head, maybe).items():
        try:
            data = (ws.root / path).read_bytes()
        except OSError:
            continue
        if is_indexed_bytes(ws.root, path, data, rest[path]):
            out[path] = blob  # else the file holds other bytes than the index read
    return out, undecided


def _shallow_boundary(ws: Workspace) -> str:
    """The commits where this clone's history is cut (`.git/shallow`), as `META_SHALLOW`
    keeps them; '' for a complete history."""
    folder = ws.common_dir or ws.git_dir
    try:
        text = "" if folder is None else (folder / "shallow").read_text("ascii", "replace")
    except FileNotFoundError:
        return ""
    except OSError:
        text = "unreadable"  # another value than any list of ids: compared, it redates
    ids = sorted(set(text.split()))
    if len(ids) <= MAX_SHALLOW_KEPT:
        return " ".join(ids)
    import hashlib  # not at the top: the hook path loads no OpenSSL

    return HASHED + hashlib.sha1(" ".join(ids).encode(), usedforsecurity=False).hexdigest()


def _dated_by_former_boundary(
    conn: sqlite3.Connection, before: str | None, now: str
) -> set[str] | None:
    """The documents whose row names a commit that was a shallow boundary (`before`) and is
    no longer one (`now`): git dated every file older than the cut by it, and the history
    behind it has come since. None: every row (the former boundary was kept as a digest).
    An index that recorded no boundary (made before it was kept) redates nothing."""
    if before is None or before == now:
        return set()
    if before.startswith(HASHED):
        return None
    former = set(before.split()) - set(now.split())
    if not former:
        return set()  # the history was cut further back only where no row is dated
    dated = doccommits.read(conn, doccommits.all_paths(conn))
    return {path for path, age in dated.items() if age.commit_id in former}


def _changed_between(ws: Workspace, old: str, new: str) -> set[str]:
    """Every path a commit of `old..new` changed (one `git log`; a path changed and changed
    back is in it, unlike in the range's diff)."""
    out = run_git(ws, "log", "--format=", "--name-only", "--no-renames", "-z", f"{old}..{new}")
    return {name.strip("\n") for name in out.split("\0") if name.strip("\n")}


def _descends(ws: Workspace, old: str, new: str) -> bool:
    """Whether `new` has `old` in its history (HEAD moved on rather than rewrote it)."""
    try:
        run_git(ws, "merge-base", "--is-ancestor", old, new)
    except GitError:
        return False
    return True


def _work_out(
    conn: sqlite3.Connection,
    ws: Workspace,
    head: str | None,
    paths: Collection[str] | None,
    status: Probe | None,
) -> None:
    indexed = indexed_blob_ids(conn, None if paths is None else list(paths))
    gone = (set(doccommits.all_paths(conn)) if paths is None else set(paths)) - set(indexed)
    doccommits.forget(conn, gone)
    if not indexed:
        return
    committed = history.same_blobs(ws, head, indexed) if head else {}
    undecided: set[str] = set()
    if head:
        rest = {path: blob for path, blob in indexed.items() if path not in committed}
        told, undecided = _committed_per_status(ws, head, rest, status)
        committed.update(told)
    # git's time limit bounds the walk (`KENSO_GIT_TIMEOUT`): a history this slow to search
    # leaves the rows not reached '' (no age, not "uncommitted") until HEAD moves
    found = history.last_commits(ws, committed, rev=head) if head else {}

    def rows() -> Iterator[tuple[str, str, str | None, int | None, str | None, str | None]]:
        for path, blob in indexed.items():  # streamed: no list of every row (#32)
            commit = found.get(path)
            if commit is not None:
                yield (path, blob, commit.id, commit.time, commit.subject, head)
            elif path in committed:
                yield (path, blob, "", None, None, head)  # not found in time
            elif path in undecided:
                yield (path, blob, None, None, None, None)  # open: the next sync decides
            else:
                yield (path, blob, None, None, None, head)  # uncommitted

    doccommits.write(conn, rows())
