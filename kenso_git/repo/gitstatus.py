"""The first `git status` of a sync or a query, and asking git which docs may differ.

`start_status` starts git before the caller needs its answer (`EarlyStatus`); `status_paths`
asks (or reads the early answer) for the paths that differ from the index, on kenso-git's own
copy of git's index where it can (`statusindex`), so git's `index.lock` is never held.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from kenso_git.errors import GitError
from kenso_git.records import NamedTuple
from kenso_git.repo import prestart
from kenso_git.repo import statusindex
from kenso_git.repo.gitrun import GitTimeoutError
from kenso_git.repo.gitrun import Spawned
from kenso_git.repo.gitrun import capture
from kenso_git.repo.gitrun import finish
from kenso_git.repo.gitrun import git_argv
from kenso_git.repo.prestart import scrubbed_env
from kenso_git.repo.workspace import Workspace


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
        return _records(finish(prestart.STATUS_ARGS, lambda: self.run.collect(30.0)))

    def usable(self, head: str | None) -> bool:
        """Whether it can answer a status asked now, at `head`."""
        fresh = time.time_ns() - self.started_ns <= self.MAX_AGE_NS
        return self.run.pid is not None and fresh and head == self.head

    def discard(self) -> None:
        """Stop git and drop its answer, unless it was taken (idempotent). A status holds no
        lock of git's and writes nothing git reads (at most kenso-git's copy of the index,
        whose lock git removes as it stops, or `statusindex.drop_orphaned_lock` when git
        was stopped before it could), so stopping it leaves nothing behind, and a command
        that does not need its answer (query-sync off in the settings, HEAD moved) does not
        wait for git's whole scan of the tree."""
        if self.run.pid is None:
            return
        self.run.stop()
        if self.private is not None:
            statusindex.drop_orphaned_lock(self.private)


def stop_unread(started: prestart.Started | None) -> None:
    """Stop a `git status` `prestart.start` began that no one will read (as
    `EarlyStatus.discard`); None: nothing was started."""
    if started is not None:
        EarlyStatus.adopt(started).discard()


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
    except GitTimeoutError:
        raise  # git's own index keeps git as long (the same patterns): no second wait
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
    git_dir = str(ws.git_dir)
    flags, env, private = statusindex.status_setup(
        git_dir,
        str(ws.common_dir),
        scrubbed_env(),
        folder=statusindex.folder_for(git_dir, str(ws.root)),
        refresh=refresh,
        use_copy=use_copy,
    )
    return _StatusCommand(git_argv(ws, [*flags, *args]), env, private)


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
    git cannot read, say after a crash) drops the copy and asks git's own index instead,
    unless it ran past its time limit."""
    command = _status_command(ws, args, refresh=refresh, use_copy=use_copy)
    try:
        return _records(finish(args, lambda: capture(command.argv, command.env, 30.0)))
    except GitTimeoutError:
        raise  # as in `_early_answer`
    except GitError:
        if command.private is None:
            raise
    _forget_copy(ws)
    return _ask(ws, args, refresh, use_copy=False)


def _forget_copy(ws: Workspace) -> None:
    assert ws.git_dir is not None
    git_dir = str(ws.git_dir)
    folder = statusindex.folder_for(git_dir, str(ws.root))
    if folder is not None:
        statusindex.forget(git_dir, folder)


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
