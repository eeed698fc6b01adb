"""Everything kenso-git asks git: working-tree blob ids, HEAD, rebase state, hooks folder.

This is the only module that imports pygit2, and it does so inside the functions that need it
(importing pygit2 costs ~0.1 s), so `import kenso_git.repo.git` stays cheap for the hook path.
libgit2 runs no external filter drivers, which keeps an untrusted repository from running
commands through us; `Repository.hashfile` still applies the CRLF and ident filters. Nor
does kenso-git ask git to run one for it (no `hash-object --path`, no `cat-file --filters`):
a page under a clean/smudge filter (git-lfs) is dated by git's `git status` verdict
(index/commits.py) and read at a revision as its stored blob, the pointer. The `git status`
a sync runs re-reads a file whose stat data changed through its driver, as the user's own
`git status` in that work tree does.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.errors import GitError
from kenso_git.records import NamedTuple
from kenso_git.repo.gitconfig import is_false
from kenso_git.repo.gitconfig import is_true
from kenso_git.repo.gitconfig import read_config
from kenso_git.repo.gitrun import run_git
from kenso_git.repo.workspace import Workspace

if TYPE_CHECKING:
    import pygit2

GITLINK_MODE = 0o160000
SYMLINK_MODE = 0o120000
ZERO_OID = "0" * 40


class HeadState(NamedTuple):
    """Where HEAD points: a commit id (None when unborn) and the branch (None when detached)."""

    commit: str | None
    branch: str | None
    detached: bool
    unborn: bool


_SMALL_BLOB = 1 << 20  # bytes; above, hashlib's OpenSSL SHA-1 is worth its import


def blob_id(data: bytes) -> str:
    """The SHA-1 id git gives `data` as a blob, with no filters applied."""
    header = b"blob %d\0" % len(data)
    # OpenSSL's SHA-1 is 6x CPython's (39 -> 7 ms over the docs corpus): used once hashlib
    # is loaded (a parse worker loads it for its many files, index/prepare.py)
    if len(data) < _SMALL_BLOB and "hashlib" not in sys.modules:
        try:  # CPython's own SHA-1: no OpenSSL to load (~5 ms) for the one doc a query syncs
            from _sha1 import sha1  # type: ignore[import-not-found]  # no stubs: CPython's own
        except ImportError:
            pass
        else:
            small = sha1(header)
            small.update(data)
            return str(small.hexdigest())
    import hashlib  # OpenSSL's SHA-1 is faster on big files

    digest = hashlib.sha1(header, usedforsecurity=False)
    digest.update(data)
    return digest.hexdigest()


def _open(ws: Workspace) -> pygit2.Repository:
    import pygit2

    if ws.git_dir is None:
        raise GitError(
            f"not a git work tree: {ws.root}",
            hint="run this inside a git repository, or `git init` first",
        )
    try:
        return pygit2.Repository(str(ws.root), pygit2.enums.RepositoryOpenFlag.NO_SEARCH)
    except pygit2.GitError as err:
        raise GitError(
            f"cannot open the git repository at {ws.git_dir}: {err}",
            hint="check `git status` works here",
        ) from err


# --- working-tree blob ids ---------------------------------------------------------------


def worktree_blob_ids(ws: Workspace, paths: Sequence[str]) -> dict[str, str]:
    """The blob id git would give each working-tree file in `paths` (repo-relative POSIX).

    Tracked files that `git status` would call unchanged take the index entry's id without
    being read; modified, untracked and other files are hashed with the repository's filters.
    Gitlinks (submodules) and missing files are left out of the result. On any libgit2 error
    (an unsupported index extension, say) every path is hashed instead; without a usable
    repository, plain unfiltered blob ids are returned.
    """
    if not paths:
        return {}
    if ws.git_dir is None:
        return plain_blob_ids(ws.root, paths)
    import pygit2

    try:
        repo = _open(ws)
    except GitError:
        return plain_blob_ids(ws.root, paths)
    try:
        return _cheap_ids(repo, ws.root, paths)
    except (pygit2.GitError, OSError, ValueError, KeyError, IndexError):
        pass
    try:
        return _hashed_ids(repo, ws.root, paths)
    except (pygit2.GitError, OSError, ValueError):
        return plain_blob_ids(ws.root, paths)


_CHANGED_FLAGS = (
    256  # WT_MODIFIED
    | 512  # WT_DELETED
    | 1024  # WT_TYPECHANGE
    | 2048  # WT_RENAMED
    | 4096  # WT_UNREADABLE
    | 32768  # CONFLICTED
)


def _cheap_ids(repo: pygit2.Repository, root: Path, paths: Sequence[str]) -> dict[str, str]:
    status = repo.status(untracked_files="all", ignored=False)
    index = repo.index
    out: dict[str, str] = {}
    to_hash: list[str] = []
    for path in paths:
        flags = int(status.get(path, 0))
        entry = None if flags & (_CHANGED_FLAGS | 128) else _index_entry(index, path)
        if entry is None:
            to_hash.append(path)
            continue
        mode = int(entry.mode)
        if mode == GITLINK_MODE:
            continue
        if mode == SYMLINK_MODE:
            to_hash.append(path)  # the index holds the link text; we index the target's content
            continue
        out[path] = str(entry.id)
    out.update(_hashed_ids(repo, root, to_hash))
    return out


def _index_entry(index: pygit2.Index, path: str) -> pygit2.IndexEntry | None:
    try:
        return index[path]
    except KeyError:
        return None


def _hashed_ids(repo: pygit2.Repository, root: Path, paths: Iterable[str]) -> dict[str, str]:
    import pygit2

    out: dict[str, str] = {}
    for path in paths:
        full = root / path
        if not full.is_file():  # missing, a folder, a submodule checkout
            continue
        try:
            out[path] = str(repo.hashfile(str(full), as_path=path))
        except pygit2.GitError:
            data = _read(full)
            if data is not None:
                out[path] = blob_id(data)
    return out


_repos: dict[tuple[int, str], pygit2.Repository] = {}  # by (process, root): workers fork


def filtered_blob_id(root: str, as_path: str, data: bytes) -> str:
    """The blob id git gives `data` as the content of `as_path` (its CRLF and ident clean
    filters applied): the id of the very bytes a sync parsed (#26), which a second read of
    the file (`hashfile`) cannot promise."""
    if b"\r" not in data and b"$Id" not in data:
        return blob_id(data)  # neither filter changes such bytes
    import pygit2

    try:
        repo = _repos.get((os.getpid(), root))
        if repo is None:
            repo = _repos[os.getpid(), root] = pygit2.Repository(
                root, pygit2.enums.RepositoryOpenFlag.NO_SEARCH
            )
        return _hash_bytes_as(repo, as_path, data)
    except (pygit2.GitError, OSError):
        return blob_id(data)  # as `_hashed_ids` does when libgit2 cannot hash


def is_indexed_bytes(root: Path | str, rel: str, data: bytes, blob: str) -> bool:
    """Whether `data`, read from `rel`, are the bytes whose text a row with blob id `blob`
    holds: that id is of the bytes parsed, with git's clean filters when they may apply."""
    return blob_id(data) == blob or filtered_blob_id(str(root), rel, data) == blob


def _hash_bytes_as(repo: pygit2.Repository, as_path: str, data: bytes) -> str:
    # libgit2 filters files, not buffers: the bytes go to an anonymous file in memory
    # (Linux), else a temporary one
    if hasattr(os, "memfd_create") and os.path.isdir("/proc/self/fd"):
        fd = os.memfd_create("kenso-blob")
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            return str(repo.hashfile(f"/proc/self/fd/{fd}", as_path=as_path))
        finally:
            os.close(fd)
    import tempfile

    with tempfile.NamedTemporaryFile(prefix="kenso-blob-") as held:
        held.write(data)
        held.flush()
        return str(repo.hashfile(held.name, as_path=as_path))


def plain_blob_ids(root: Path, paths: Iterable[str]) -> dict[str, str]:
    """Unfiltered blob ids of the readable files among `paths` (relative to `root`)."""
    out: dict[str, str] = {}
    for path in paths:
        data = _read(root / path)
        if data is not None:
            out[path] = blob_id(data)
    return out


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


# --- HEAD, rebase, hooks folder ----------------------------------------------------------


def head_state(ws: Workspace) -> HeadState:
    """Where HEAD of this work tree points; works with no commits and on a detached HEAD.

    Raises:
        GitError: `ws` is not a git work tree, or its HEAD cannot be read.
    """
    import pygit2

    repo = _open(ws)
    try:
        detached = bool(repo.head_is_detached)
        if repo.head_is_unborn:
            target = repo.references["HEAD"].target
            branch = target.removeprefix("refs/heads/") if isinstance(target, str) else None
            return HeadState(commit=None, branch=branch, detached=False, unborn=True)
        commit = str(repo.head.target)
        branch = None if detached else repo.head.shorthand
    except (pygit2.GitError, KeyError) as err:
        raise GitError(
            f"cannot read HEAD of {ws.root}: {err}", hint="check `git status` works here"
        ) from err
    return HeadState(commit=commit, branch=branch, detached=detached, unborn=False)


# The rebase todo verbs that replay a commit; the hook shim template gets the same list.
# fmt: off
REWRITING_VERBS = (
    "p", "pick", "r", "reword", "e", "edit", "s", "squash", "f", "fixup", "m", "merge",
)
# fmt: on
_REWRITING = frozenset(REWRITING_VERBS)


def rebase_will_rewrite(ws: Workspace) -> bool:
    """True while a rebase is replaying commits that post-rewrite will report at the end.

    A rebase whose todo list rewrites nothing (a fast-forward: only `noop`) fires no
    post-rewrite, so hooks must not wait for one.
    """
    if ws.git_dir is None:
        return False
    if (ws.git_dir / "rebase-apply").is_dir():
        return True
    merge = ws.git_dir / "rebase-merge"
    if not merge.is_dir():
        return False
    for name in ("git-rebase-todo", "done"):
        try:
            lines = (merge / name).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        if lines and lines[0].split(" ", 1)[0] in _REWRITING:  # the shim reads the first line too
            return True
    return False


def hooks_dir(ws: Workspace) -> Path:
    """The hooks folder git really uses (`git rev-parse --git-path hooks`), absolute.

    Honours `core.hooksPath` (a relative value is relative to the work-tree root); linked
    worktrees share the common directory's hooks.

    Raises:
        GitError: `ws` is not a git work tree.
    """
    if ws.common_dir is None:
        raise GitError(
            f"not a git work tree: {ws.root}",
            hint="run `kenso-git hooks install` inside a git repository",
        )
    try:
        out = run_git(ws, "rev-parse", "--git-path", "hooks").strip()
    except GitError:
        return ws.common_dir / "hooks"
    path = Path(os.path.expanduser(out))
    return path if path.is_absolute() else (ws.root / path).resolve()


def hooks_path_setting(ws: Workspace) -> str | None:
    """The value of `core.hooksPath` when set (any config level), else None."""
    try:
        out = run_git(ws, "config", "--get", "core.hooksPath").strip()
    except GitError:
        return None
    return out or None


def tracks_files_in(ws: Workspace, folder: Path) -> bool:
    """Whether `folder` lies in the work tree and git tracks a file in it (a team's hooks
    folder named by `core.hooksPath`, committed with the code)."""
    try:
        rel = folder.resolve().relative_to(ws.root.resolve())
    except (OSError, ValueError):
        return False
    try:
        out = run_git(ws, "ls-files", "-z", "--", rel.as_posix() or ".")
    except GitError:
        return False
    return bool(out.strip("\0"))


# Past this many tracked files, git's untracked cache is worth recommending (#16).
MANY_FILES = 10_000


def index_entries(ws: Workspace) -> int | None:
    """How many entries git's index holds (its header's count; no git call), or None."""
    if ws.git_dir is None:
        return None
    try:
        with open(ws.git_dir / "index", "rb") as index:
            header = index.read(12)
    except OSError:
        return None
    if len(header) < 12 or header[:4] != b"DIRC":
        return None
    return int.from_bytes(header[8:12], "big")


def untracked_cache_tip(ws: Workspace) -> str | None:
    """One line recommending git's untracked cache for a large work tree that does not use
    it, else None. With it, the user's own `git status` rereads only the folders whose mtime
    changed: at 48,600 files ~100 of its ~230 ms. (kenso-git's statuses have it either way,
    in their copy of the index: repo/statusindex.py.)"""
    entries = index_entries(ws)
    if entries is None or entries < MANY_FILES:
        return None
    config = read_config(ws)
    cache = config.get("core.untrackedcache", "")  # `keep` (git's default) decides nothing
    if is_true(cache) or is_false(cache) or is_true(config.get("feature.manyfiles", "")):
        return None  # set either way: the user decided
    return (
        f"tip: {entries:,} files are tracked here; `git config core.untrackedCache true` "
        "lets your own git status skip the folders that did not change (kenso-git's "
        "checks do so already, on their copy of git's index)"
    )


def diff_names(ws: Workspace, old: str, new: str) -> list[str] | None:
    """Every path that differs between commits `old` and `new` (renames as delete + add).

    None when it cannot be told (an all-zero or unknown commit, a git failure).
    """
    if not old or not new or old == ZERO_OID or new == ZERO_OID:
        return None
    if old == new:
        return []
    try:
        out = run_git(ws, "diff", "--name-only", "-z", "--no-renames", old, new, "--")
    except GitError:
        return None
    return [name for name in out.split("\0") if name]


def missing_from_head(ws: Workspace, paths: Iterable[str]) -> set[str] | None:
    """The paths of `paths` that HEAD's tree does not hold (all of them on an unborn
    branch), None on failure. Git's listing is read one name at a time against a set of the
    paths asked: no dictionary of every file of HEAD (~50 MB with its pieces at 100,000
    docs, the peak of a cold ingest, #32)."""
    if ws.git_dir is None:
        return None
    missing = set(paths)
    if not missing:
        return missing
    try:  # names only: a third smaller than the listing with modes and blob ids
        out = run_git(ws, "ls-tree", "-r", "-z", "--name-only", "--full-tree", "HEAD")
    except GitError:
        return missing if head_state(ws).unborn else None
    start, find, discard = 0, out.find, missing.discard
    while (end := find("\0", start)) >= 0:
        discard(out[start:end])
        start = end + 1
    return missing


def head_blob_ids(ws: Workspace) -> dict[str, str] | None:
    """Path -> blob id of every file in HEAD's tree; {} on an unborn branch, None on failure."""
    listing = head_listing(ws)
    return None if listing is None else dict(listed_blobs(listing))


def head_listing(ws: Workspace) -> str | None:
    """`git ls-tree -r -z` of HEAD's whole tree; "" on an unborn branch, None on failure."""
    if ws.git_dir is None:
        return None
    try:
        return run_git(ws, "ls-tree", "-r", "-z", "--full-tree", "HEAD")
    except GitError:
        return "" if head_state(ws).unborn else None


def listed_blobs(listing: str, *, links: bool = True) -> Iterator[tuple[str, str]]:
    """(path, blob id) of each file of a `git ls-tree -z` listing (symbolic links too unless
    `links` is false), one entry at a time: no list of every entry (100,000 at the scale
    point, #32)."""
    start, find = 0, listing.find
    while (end := find("\0", start)) >= 0:
        meta, _, path = listing[start:end].partition("\t")
        start = end + 1
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob" and (links or parts[0] != "120000"):
            yield path, parts[2]
