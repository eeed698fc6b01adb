"""Everything kenso-git asks git: working-tree blob ids, HEAD, rebase state, hooks folder.

This is the only module that imports pygit2, and it does so inside the functions that need it
(importing pygit2 costs ~0.1 s), so `import kenso_git.repo.git` stays cheap for the hook path.
libgit2 runs no external filter drivers, which keeps an untrusted repository from running
commands through us; `Repository.hashfile` still applies the CRLF and ident filters.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.errors import GitError
from kenso_git.records import NamedTuple
from kenso_git.repo import prestart
from kenso_git.repo import statusindex
from kenso_git.repo.gitconfig import is_false
from kenso_git.repo.gitconfig import is_true
from kenso_git.repo.gitconfig import read_config
from kenso_git.repo.prestart import scrubbed_env
from kenso_git.repo.workspace import Workspace

if TYPE_CHECKING:
    import pygit2

GITLINK_MODE = 0o160000
SYMLINK_MODE = 0o120000
ZERO_OID = "0" * 40
_SIGKILL = 9  # the same on every POSIX system; `signal` is not imported for them
_SIGTERM = 15


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
    if len(data) < _SMALL_BLOB:
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


def run_git(ws: Workspace, *args: str, timeout: float = 30.0) -> str:
    """Run `git ARGS` in the work tree with a scrubbed environment; return its stdout.

    Raises:
        GitError: git is missing, timed out or failed.
    """
    return _finish(args, lambda: capture(_git_argv(ws, args), scrubbed_env(), timeout))


def _git_argv(ws: Workspace, args: Sequence[str]) -> list[str]:
    return ["git", "-C", str(ws.root), *args]


def _finish(args: Sequence[str], run: Callable[[], tuple[int, bytes, bytes]]) -> str:
    """git's stdout from `run`, or the GitError that names what failed."""
    try:
        status, out, err = run()
    except (OSError, TimeoutError) as exc:
        raise GitError(f"cannot run git {' '.join(args)}: {exc}", hint="is git installed?") from exc
    if status != 0:
        detail = err.decode("utf-8", "replace").strip().splitlines()
        raise GitError(
            f"git {' '.join(args)} failed: {detail[-1] if detail else status}",
            hint="check `git status` works here",
        )
    return out.decode("utf-8", "surrogateescape")


def capture(argv: list[str], env: Mapping[str, str], timeout: float) -> tuple[int, bytes, bytes]:
    """Run `argv` with stdin from /dev/null; return (exit status, stdout, stderr).

    `posix_spawn` and two pipes rather than `subprocess`: every hook call runs git once, and
    importing `subprocess` (with `signal`, `threading`, `selectors`) costs more than the call.

    Raises:
        OSError: the program cannot be started.
        TimeoutError: it ran longer than `timeout` seconds (it is killed).
    """
    return Spawned(argv, env).collect(timeout)


class Spawned:
    """A program started with stdin from /dev/null and its output piped back, to `collect`
    once: a caller can start git, do other work, then read the answer."""

    __slots__ = ("_err", "_out", "argv", "pid")

    def __init__(self, argv: list[str], env: Mapping[str, str]) -> None:
        """Start `argv`.

        Raises:
            OSError: the program cannot be started.
        """
        self.argv = argv
        self.pid: int | None
        self.pid, self._out, self._err = prestart.spawn(argv, env)

    @classmethod
    def adopt(cls, started: prestart.Started) -> Spawned:
        """The program `prestart.start` started, to collect here."""
        run = cls.__new__(cls)
        run.argv, run.pid, run._out, run._err = started.argv, started.pid, started.out, started.err
        return run

    def stop(self) -> None:
        """Kill the program unless collected already, and reap it (idempotent)."""
        pid, self.pid = self.pid, None
        if pid is None:
            return
        # SIGTERM first: git then removes its lock files (the status copy's, see
        # repo/statusindex.py) on the way out; SIGKILL if it has not gone within a second.
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, _SIGTERM)
        for fd in (self._out, self._err):
            with contextlib.suppress(OSError):
                os.close(fd)
        deadline = time.monotonic() + 1.0
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(pid, os.WNOHANG) == (0, 0):
                if time.monotonic() > deadline:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, _SIGKILL)
                    os.waitpid(pid, 0)
                    break
                time.sleep(0.0005)

    def collect(self, timeout: float) -> tuple[int, bytes, bytes]:
        """Wait for the program; (exit status, stdout, stderr).

        Raises:
            TimeoutError: it ran longer than `timeout` seconds from now (it is killed).
        """
        import select

        pid, out_r, err_r = self.pid, self._out, self._err
        assert pid is not None, "collected or discarded already"
        self.pid = None
        received: dict[int, list[bytes]] = {out_r: [], err_r: []}
        deadline = time.monotonic() + timeout
        try:
            pending = [out_r, err_r]
            while pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    os.kill(pid, _SIGKILL)
                    os.waitpid(pid, 0)
                    raise TimeoutError(f"{self.argv[0]} did not finish within {timeout:g} s")
                ready, _, _ = select.select(pending, [], [], left)
                for fd in ready:
                    data = os.read(fd, 1 << 16)
                    if data:
                        received[fd].append(data)
                    else:
                        pending.remove(fd)
        finally:
            os.close(out_r)
            os.close(err_r)
        _, wait_status = os.waitpid(pid, 0)
        return (
            os.waitstatus_to_exitcode(wait_status),
            b"".join(received[out_r]),
            b"".join(received[err_r]),
        )


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


def head_blob_ids(ws: Workspace) -> dict[str, str] | None:
    """Path -> blob id of every file in HEAD's tree; {} on an unborn branch, None on failure."""
    if ws.git_dir is None:
        return None
    try:
        out = run_git(ws, "ls-tree", "-r", "-z", "--full-tree", "HEAD")
    except GitError:
        return {} if head_state(ws).unborn else None
    ids: dict[str, str] = {}
    for entry in out.split("\0"):
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob":
            ids[path] = parts[2]
    return ids


class EarlyStatus:
    """A `git status` of the whole tree started before the caller needs it (`start_status`):
    git's parallel lstat of every tracked file runs while the caller opens its index.

    It never takes git's `index.lock`, even for a command the user ran: its output is read
    later, and git blocked on a full pipe must not hold that lock meanwhile (the user's next
    git command would fail on it). It runs on kenso-git's copy of the index where it can
    (`private`, repo/statusindex.py), whose lock only other kenso-git statuses want. Used
    only while `usable`: the same HEAD, within `MAX_AGE_NS` of its start (a sync that
    waited for the write lock asks git again).
    """

    MAX_AGE_NS = 2_000_000_000
    __slots__ = ("head", "private", "run", "started_ns")

    def __init__(
        self, run: Spawned, head: str | None, started_ns: int, private: str | None
    ) -> None:
        """The status `run` (git with `prestart.STATUS_ARGS`), started at `started_ns` with
        HEAD at `head` on the index copy `private` (None: git's own): see `start_status`
        and `adopt`."""
        self.run, self.head, self.started_ns, self.private = run, head, started_ns, private

    @classmethod
    def adopt(cls, started: prestart.Started) -> EarlyStatus:
        """The status `prestart.start` started before the workspace was found."""
        return cls(Spawned.adopt(started), started.head, started.started_ns, started.private)

    def answer(self) -> list[str]:
        """The paths git listed (`_status`'s records).

        Raises:
            GitError: git failed or timed out.
        """
        return _records(_finish(prestart.STATUS_ARGS, lambda: self.run.collect(30.0)))

    def usable(self, head: str | None) -> bool:
        """Whether it can answer a status asked now, at `head`."""
        fresh = time.time_ns() - self.started_ns <= self.MAX_AGE_NS
        return self.run.pid is not None and fresh and head == self.head

    def discard(self) -> None:
        """Stop git and drop its answer, unless it was taken (idempotent). A status holds no
        lock of git's and writes nothing git reads (at most kenso-git's copy of the index,
        whose lock git removes as it stops), so stopping it leaves nothing behind, and a
        command that does not need its answer (query-sync off in the settings, HEAD moved)
        does not wait for git's whole scan of the tree."""
        self.run.stop()


def adopt_status(ws: Workspace, started: prestart.Started) -> EarlyStatus | None:
    """`started` as the `EarlyStatus` of `ws`, when it looked at `ws`'s work tree; else it
    is stopped, and None returned."""
    early = EarlyStatus.adopt(started)
    if started.root == str(ws.root) and ws.git_dir is not None:
        return early
    early.discard()
    return None


def start_status(ws: Workspace, *, head: str | None) -> EarlyStatus | None:
    """Start the first `git status` of `status_paths` for the whole tree now; None when git
    cannot be started (the caller then asks as usual). The caller must `discard` it."""
    if ws.git_dir is None:
        return None
    started_ns = time.time_ns()
    command = _status_command(ws, _status_args("normal", ()))
    try:
        run = Spawned(command.argv, command.env)
    except OSError:
        return None
    return EarlyStatus(run, head, started_ns, command.private)


def status_paths(
    ws: Workspace,
    pathspecs: Sequence[str],
    *,
    refresh: bool = False,
    early: EarlyStatus | None = None,
) -> list[str] | None:
    """Every path under `pathspecs` whose work-tree or staged state differs from HEAD.

    One `git status` (C, parallel lstat; with the untracked cache, and fsmonitor where the
    repository enabled it), on kenso-git's copy of the index (repo/statusindex.py), which
    git may update: git's own index is never written. Where no copy can be made, git's
    own index is read without optional locks, so git never holds `index.lock` when the
    user's next git command wants it; with `refresh` (a command the user ran) git may then
    rewrite its index's stat data, so that files it had to re-read (written in the same
    second as the index) are not re-read by every later status. Untracked files are
    listed one by one, ignored files not at all. None when git cannot tell (not a
    repository, git missing or failing). `early`: that first status, already started for
    the whole tree (`start_status`, without `refresh`; the caller checked it is `usable`),
    is taken when `pathspecs` is the whole tree.

    git is asked for untracked directories as such (`-unormal`), then, only when it named
    some, for the files in them: `-uall` over the whole scope made git read every
    directory's entries in full (at 48,600 docs: 83 ms of its 260, against 14).
    """
    if ws.git_dir is None:
        return None
    try:
        if early is not None and not pathspecs:
            listed = _early_answer(ws, early, refresh)
        else:
            listed = _status(ws, "normal", pathspecs, refresh=refresh)
        folders = [path for path in listed if path.endswith("/")]
        if folders:
            # The second status lists the tracked changes under those folders again (a
            # staged deletion beside the untracked files): each path once.
            inside = _status(ws, "all", folders, refresh=refresh, literal=True)
            listed = list(dict.fromkeys([p for p in listed if not p.endswith("/")] + inside))
    except GitError:
        return None
    return listed


def _early_answer(ws: Workspace, early: EarlyStatus, refresh: bool) -> list[str]:
    try:
        return early.answer()
    except GitError:
        if early.private is None:
            raise
    _forget_copy(ws)  # as `_ask` does
    return _ask(ws, _status_args("normal", ()), refresh, use_copy=False)


class _StatusCommand(NamedTuple):
    argv: list[str]
    env: dict[str, str]
    private: str | None  # the copy of git's index it runs on; None: git's own


def _status_command(
    ws: Workspace, args: Sequence[str], *, refresh: bool = False, use_copy: bool = True
) -> _StatusCommand:
    """git with the status `args`, on kenso-git's copy of the index where it can be made."""
    assert ws.git_dir is not None and ws.common_dir is not None
    flags, env, private = statusindex.status_setup(
        str(ws.git_dir), str(ws.common_dir), scrubbed_env(), refresh=refresh, use_copy=use_copy
    )
    return _StatusCommand(_git_argv(ws, [*flags, *args]), env, private)


def _status(
    ws: Workspace,
    untracked: str,
    pathspecs: Sequence[str],
    *,
    refresh: bool = False,
    literal: bool = False,
) -> list[str]:
    literal_flag = ("--literal-pathspecs",) if literal else ()
    return _ask(ws, [*literal_flag, *_status_args(untracked, pathspecs)], refresh)


def _ask(ws: Workspace, args: Sequence[str], refresh: bool, *, use_copy: bool = True) -> list[str]:
    """The records of one status; one that fails on kenso-git's copy of the index (a copy
    git cannot read, say after a crash) drops the copy and asks git's own index instead."""
    command = _status_command(ws, args, refresh=refresh, use_copy=use_copy)
    try:
        return _records(_finish(args, lambda: capture(command.argv, command.env, 30.0)))
    except GitError:
        if command.private is None:
            raise
    _forget_copy(ws)
    return _ask(ws, args, refresh, use_copy=False)


def _forget_copy(ws: Workspace) -> None:
    assert ws.git_dir is not None
    statusindex.forget(str(ws.git_dir))


def _status_args(untracked: str, pathspecs: Sequence[str]) -> list[str]:
    return [
        "status",
        "--porcelain=v1",
        "-z",
        f"--untracked-files={untracked}",
        "--no-renames",
        "--ignore-submodules=all",
        "--",
        *pathspecs,
    ]


def _records(out: str) -> list[str]:
    # Each record is "XY path"; with --no-renames no record carries a second path.
    return [record[3:] for record in out.split("\0") if len(record) > 3]
