"""What `kenso-git hook NAME ARGS...` does when a git hook shim calls it.

Each call decides whether to sync the index now, in a detached background process, or not at
all (a rebase is replaying commits; the hook says nothing changed). Concurrent runs coalesce on
the write lock beside the database (`index.lock`): a run that finds it held for more than a
second marks the index "dirty, rerun" and leaves, so git never waits longer; the holder syncs
once more before releasing. This module imports nothing heavy: the index code (and pygit2)
loads only when a sync really runs.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path

from kenso_git.api.git import GIT_REPO_VARS
from kenso_git.api.git import diff_names
from kenso_git.api.git import head_commit
from kenso_git.api.git import rebase_will_rewrite
from kenso_git.api.git import scrubbed_env
from kenso_git.api.index import DIRTY_FILE
from kenso_git.api.index import HOOK_WAIT_S
from kenso_git.api.index import LOCK_FILE
from kenso_git.api.index import coalesced
from kenso_git.api.index import file_failure
from kenso_git.api.index import holder
from kenso_git.api.index import try_lock
from kenso_git.api.workspace import Workspace
from kenso_git.api.workspace import ensure_private_dir
from kenso_git.api.workspace import find_workspace
from kenso_git.api.workspace import is_markdown
from kenso_git.api.workspace import resolve_db_path
from kenso_git.errors import CorruptIndexError
from kenso_git.errors import IndexLockedError
from kenso_git.errors import KensoError
from kenso_git.errors import UsageError
from kenso_git.records import NamedTuple
from kenso_git.triggers.githooks.replay import git_ancestor
from kenso_git.triggers.githooks.replay import leaving_command
from kenso_git.triggers.githooks.shim import HOOK_NAMES
from kenso_git.triggers.githooks.shim import RETIRED_HOOKS

PRE_COMMIT_HOOK = "pre-commit-framework"
NO_INDEX_REASON = "no index here yet (run `kenso-git ingest` once)"
THRESHOLD_ENV = "KENSO_HOOK_BACKGROUND_THRESHOLD"
# Set by the shim when it ran this hook detached from git (a checkout, merge or rebase).
DETACHED_ENV = "KENSO_HOOK_DETACHED"
DEFAULT_THRESHOLD = 50  # changed Markdown paths above which the sync runs in the background
UNKNOWN_SIZE = 10_000  # what an unknown change counts as
LOG_FILE = "sync.log"
LOG_LIMIT = 1_000_000  # bytes; the log restarts when larger


class Mode(StrEnum):
    """How a hook call syncs the index (the word `KENSO_HOOK_VERBOSE` prints)."""

    SKIP = "skip"
    FOREGROUND = "foreground"
    BACKGROUND = "background"


class HookCall(NamedTuple):
    """A git hook invocation: its name and git's arguments."""

    name: str
    args: tuple[str, ...]


class Plan(NamedTuple):
    """What a hook call will do, and why (for the log and the tests)."""

    action: Mode
    reason: str
    paths: tuple[str, ...] | None = None  # a foreground sync needs to look only at these
    head: str | None = None  # ... while HEAD is this commit, the one they lead to


# A change to one of these can change which files are indexed, or how: sync everything.
_WIDE_FILES = (".gitignore", ".cursorignore", ".kensoignore", "pyproject.toml", ".kenso.toml")


def from_pre_commit(environ: Mapping[str, str]) -> HookCall:
    """Translate the pre-commit framework's PRE_COMMIT_* variables into a git hook call."""
    from_ref = environ.get("PRE_COMMIT_FROM_REF", "")
    to_ref = environ.get("PRE_COMMIT_TO_REF", "")
    if environ.get("PRE_COMMIT_CHECKOUT_TYPE"):
        return HookCall("post-checkout", (from_ref, to_ref, environ["PRE_COMMIT_CHECKOUT_TYPE"]))
    if environ.get("PRE_COMMIT_REWRITE_COMMAND"):
        return HookCall("post-rewrite", (environ["PRE_COMMIT_REWRITE_COMMAND"],))
    if "PRE_COMMIT_IS_SQUASH_MERGE" in environ:
        return HookCall("post-merge", (environ["PRE_COMMIT_IS_SQUASH_MERGE"],))
    return HookCall("post-commit", ())


def normalise_call(name: str, args: Sequence[str], environ: Mapping[str, str]) -> HookCall:
    """Check the hook name; map `pre-commit-framework` onto the git hook it stands for.

    Raises:
        UsageError: `name` is not a hook kenso-git handles.
    """
    if name == PRE_COMMIT_HOOK:
        return from_pre_commit(environ)
    if name not in HOOK_NAMES and name not in RETIRED_HOOKS:
        known = ", ".join((*HOOK_NAMES, *RETIRED_HOOKS, PRE_COMMIT_HOOK))
        raise UsageError(f"unknown hook {name!r}", hint=f"known hooks: {known}")
    return HookCall(name, tuple(args))


def threshold(environ: Mapping[str, str]) -> int:
    raw = environ.get(THRESHOLD_ENV, "").strip()
    try:
        return max(0, int(raw)) if raw else DEFAULT_THRESHOLD
    except ValueError:
        return DEFAULT_THRESHOLD


def _arg(call: HookCall, position: int) -> str:
    return call.args[position] if len(call.args) > position else ""


def changed_names(ws: Workspace, call: HookCall) -> tuple[list[str] | None, str | None]:
    """The paths the git operation changed (None when it cannot be told) and the commit
    they lead to."""
    if call.name == "post-checkout":
        if _arg(call, 2) != "1":
            return None, None  # a file checkout: git does not say which files
        return diff_names(ws, _arg(call, 0), _arg(call, 1)), _arg(call, 1)
    if call.name == "post-merge":
        head = head_commit(ws)
        return (None if head is None else diff_names(ws, "ORIG_HEAD", head)), head
    return None, None


def _targeted(names: Sequence[str] | None) -> tuple[str, ...] | None:
    """The Markdown paths to re-check, or None when everything must be (ignore or config
    files changed, or the change is unknown)."""
    if names is None or any(name.rsplit("/", 1)[-1] in _WIDE_FILES for name in names):
        return None
    return tuple(name for name in names if is_markdown(name))


def plan(ws: Workspace, call: HookCall, environ: Mapping[str, str]) -> Plan:
    """Decide what the hook call does: skip, sync in the foreground, or in the background."""
    if not ws.is_git:
        return Plan(Mode.SKIP, "not a git work tree")
    if call.name in RETIRED_HOOKS:
        # A commit changes no file: the next search or tool call sees HEAD moved and syncs
        # the few docs git lists (edits committed without a sync among them).
        return Plan(Mode.SKIP, "a commit changes no file; the next read records the new HEAD")
    if call.name == "post-index-change" and _arg(call, 0) != "1":
        return Plan(Mode.SKIP, "the working tree was not updated")
    leaving = None
    if call.name != "post-rewrite" and rebase_will_rewrite(ws):
        # `git rebase --abort`, `git am --abort` and a plain am's `--skip` fire only
        # post-index-change, with the replay's folder still there: no post-rewrite follows,
        # so that call syncs (once git is done). Only post-index-change has git's pid.
        leaving = leaving_command(ws.git_dir, _git_pid(call, environ))
        if leaving is None:
            return Plan(Mode.SKIP, "a rebase is in progress; post-rewrite syncs once at the end")
    if not resolve_db_path(ws).is_file():
        return Plan(Mode.SKIP, NO_INDEX_REASON)
    if call.name == "post-checkout" and _arg(call, 0) == _arg(call, 1) and _arg(call, 2) == "1":
        return Plan(Mode.SKIP, "HEAD did not move")
    if leaving is not None:
        return Plan(
            Mode.BACKGROUND, f"`git {leaving}` moved the replay on; syncing after git exits"
        )
    if call.name == "post-index-change":
        # git writes the index before it moves HEAD (reset --hard, stash): sync once git is done.
        return Plan(Mode.BACKGROUND, "the working tree was updated; syncing after git exits")
    if call.name == "post-rewrite":
        size = 1 if _arg(call, 0) == "amend" else None
        names, head = None, None
    else:
        names, head = changed_names(ws, call)
        size = None if names is None else sum(1 for name in names if is_markdown(name))
    limit = threshold(environ)
    counted = UNKNOWN_SIZE if size is None else size
    if counted > limit:
        shown = "an unknown number of" if size is None else str(size)
        return Plan(Mode.BACKGROUND, f"{shown} Markdown paths changed (more than {limit})")
    return Plan(Mode.FOREGROUND, f"{size} Markdown paths changed", _targeted(names), head)


# --- running ------------------------------------------------------------------------------


def state_dir(ws: Workspace) -> Path:
    """The folder of the lock, the rerun mark and the background log (beside the database)."""
    return resolve_db_path(ws, for_write=True).parent


def sync_index(ws: Workspace, paths: Sequence[str] | None = None) -> None:
    """Bring an existing index to the state of the work tree; with `paths`, look only there
    (what a checkout, merge or commit changed: the rest of the tree was not touched)."""
    from kenso_git.kb import KnowledgeBase  # heavy: only when a sync really runs

    kb = KnowledgeBase.of_workspace(ws)
    try:
        if kb.has_index():
            kb.sync(paths=paths)
    finally:
        kb.close()


def _foreground_sync(ws: Workspace, paths: Sequence[str] | None = None) -> None:
    """`sync_index` waiting at most HOOK_WAIT_S for SQLite's own write lock as well: a
    program that writes the database without taking ours (an old kenso-git, a sqlite3
    shell) would otherwise hold git for the busy timeout, a minute."""
    from kenso_git.api.index import set_write_wait

    set_write_wait(HOOK_WAIT_S)
    sync_index(ws, paths)


def _build_index(ws: Workspace, _paths: Sequence[str] | None = None) -> None:
    from kenso_git.kb import KnowledgeBase  # heavy: only when a sync really runs

    kb = KnowledgeBase.of_workspace(ws)
    try:
        kb.sync()  # creates the index (the whole work tree) when there is none
    finally:
        kb.close()


def coalesced_sync(
    ws: Workspace,
    sync: Callable[[Workspace, Sequence[str] | None], None] = sync_index,
    *,
    paths: Sequence[str] | None = None,
    head: str | None = None,
    wait: float = HOOK_WAIT_S,
) -> bool:
    """Run `sync` under the write lock, or leave "dirty, rerun" for its holder; True if we
    synced. Waits at most `wait` seconds for the lock: git is never held longer.

    The first round may be targeted at `paths`, the changes that lead to commit `head`: a
    HEAD found elsewhere under the lock (a commit or another checkout since) makes it a
    full sync. Reruns asked for by others are full syncs.
    """
    return coalesced(
        state_dir(ws),
        lambda n: sync(ws, _paths_at(ws, paths, head) if n == 0 else None),
        wait=wait,
        own_run=False,
    )


def _paths_at(ws: Workspace, paths: Sequence[str] | None, head: str | None) -> Sequence[str] | None:
    """`paths` while HEAD is still `head`; None (look at everything) once it moved on."""
    if paths is None or head is None:
        return paths
    return paths if head_commit(ws) == head else None


def is_idle(ws: Workspace) -> bool:
    """True when no sync is running or pending (the lock is free and nobody asked for a rerun)."""
    folder = state_dir(ws)
    if (folder / DIRTY_FILE).exists():
        return False
    if not folder.is_dir():
        return True
    fd = try_lock(folder / LOCK_FILE)
    if fd is None:
        return False
    os.close(fd)
    return not (folder / DIRTY_FILE).exists()


def wait_until_idle(ws: Workspace, timeout: float = 30.0) -> bool:
    """Poll (bounded) until background syncs are done; False on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if is_idle(ws):
            return True
        time.sleep(0.02)
    return is_idle(ws)


def start_background_sync(ws: Workspace, *, after_pid: int | None = None) -> int:
    """Start a detached process that syncs under the lock; return its pid.

    With `after_pid`, the process first waits (bounded) for that process (git) to exit.
    """
    folder = state_dir(ws)
    ensure_private_dir(folder)
    # pending from now on, so waiters see it before the worker runs
    (folder / DIRTY_FILE).touch(mode=0o600)
    import subprocess  # only here: the foreground hook path never pays for the import

    with os.fdopen(_open_log(folder), "ab") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kenso_git.triggers.githooks.runner",
                str(ws.root),
                str(after_pid or 0),
            ],
            cwd=ws.root,
            env=scrubbed_env(),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
            close_fds=True,
        )
    return proc.pid


def run_hook(name: str, args: Sequence[str], *, start: Path | None = None) -> Plan:
    """Handle one git hook call; returns what was done. Scrubs GIT_DIR and friends first.

    Raises:
        UsageError: an unknown hook name. Sync failures propagate; the CLI turns them
        into one line on stderr and exit 0.
    """
    call = normalise_call(name, args, os.environ)
    for var in GIT_REPO_VARS:
        os.environ.pop(var, None)
    ws = find_workspace(start)
    if is_detached():
        _say_into_log(ws)
    decided = plan(ws, call, os.environ)
    if name == PRE_COMMIT_HOOK and decided.reason == NO_INDEX_REASON:
        # Shims installed by `hooks install` wait for an ingest; a kenso-reindex hook in
        # .pre-commit-config.yaml is the user asking for an index: build the first one.
        _say("kenso-git: no index yet; building it (once) for the kenso-reindex hook")
        coalesced_sync(ws, _build_index)
        return Plan(Mode.FOREGROUND, "no index yet: built the first one")
    if decided.action == Mode.FOREGROUND:
        try:
            synced = coalesced_sync(ws, _foreground_sync, paths=decided.paths, head=decided.head)
        except IndexLockedError:
            _say(
                f"kenso-git: {name} hook: another program is writing the index database; "
                f"syncing in the background once it is done"
            )
            start_background_sync(ws, after_pid=_git_pid(call))
            return Plan(Mode.BACKGROUND, "the database was busy: handed to the background")
        if not synced:
            lock = state_dir(ws) / LOCK_FILE
            _say(f"kenso-git: {name} hook: {holder(lock)} is writing the index; it syncs these too")
    elif decided.action == Mode.BACKGROUND:
        start_background_sync(ws, after_pid=_git_pid(call))
    return decided


def is_detached() -> bool:
    """Whether the shim ran this hook in the background, detached from git."""
    return bool(os.environ.get(DETACHED_ENV))


def _say_into_log(ws: Workspace) -> None:
    """A detached hook has no terminal: what it says goes to the log beside the index.
    With no index there is nothing to sync and no log to make: a hook never creates
    `.kenso/` (a new linked worktree, a repository nobody ingested)."""
    if not resolve_db_path(ws).is_file():
        return
    try:
        folder = state_dir(ws)
        ensure_private_dir(folder)
        fd = _open_log(folder)
    except (OSError, KensoError):
        return
    os.dup2(fd, 2)
    os.close(fd)


def _open_log(folder: Path) -> int:
    """The background syncs' log, for appending; it restarts once past LOG_LIMIT bytes."""
    log = folder / LOG_FILE
    try:
        if os.stat(log).st_size > LOG_LIMIT:
            os.unlink(log)
    except FileNotFoundError:
        pass
    return os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)  # it names paths


def hook_main(name: str, args: Sequence[str]) -> None:
    """`kenso-git hook NAME ARGS...`: never fails or blocks git; one stderr line on trouble."""
    from kenso_git.api.index import defer_checkpoints

    # The commit only appends to the WAL; copying it into the database (three fsyncs, and
    # at 30x the whole WAL) happens after git has its exit status (`_settle`). A detached
    # hook holds up no git and checkpoints as it goes.
    if not is_detached():
        defer_checkpoints()
    try:
        decided = run_hook(name, args)
        _settle(decided)
    except CorruptIndexError as err:  # a later sync cannot mend it: name the repair
        _say(f"kenso-git: {name} hook: {err.message}; {err.hint or 'run `kenso-git sync`'}")
    except KensoError as err:
        _say(f"kenso-git: {name} hook: {err.message} (run `kenso-git sync` later)")
    except OSError as err:  # the state folder beside the index: read-only, full
        failure = file_failure(Path(err.filename or "."), err)
        _say(f"kenso-git: {name} hook: {failure.message} (run `kenso-git sync` later)")
    except Exception as err:  # a hook must never fail or block git: one line, exit 0
        _say(f"kenso-git: {name} hook failed: {err!r} (run `kenso-git sync`)")
    except KeyboardInterrupt:
        _say(f"kenso-git: {name} hook interrupted (run `kenso-git sync`)")
    else:
        if os.environ.get("KENSO_HOOK_VERBOSE"):
            _say(f"kenso-git: {name}: {decided.action}: {decided.reason}")


def _settle(decided: Plan) -> None:
    """After a foreground sync, empty a long WAL in a detached child."""
    if decided.action != Mode.FOREGROUND or is_detached():
        return
    from kenso_git.api.index import settle_detached

    settle_detached(resolve_db_path(find_workspace(None)))


def _say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except OSError:
        pass


def _git_pid(call: HookCall, environ: Mapping[str, str] | None = None) -> int | None:
    if call.name != "post-index-change":
        return None
    raw = (os.environ if environ is None else environ).get("KENSO_GIT_PID", "")
    if raw.isdigit() and int(raw) > 1:
        return int(raw)  # the shim's parent: git
    return git_ancestor(os.getppid())  # a line in another tool's hook file sets none


def _wait_for_exit(pid: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        except PermissionError:
            pass
        time.sleep(0.01)


def _worker(argv: Sequence[str]) -> int:
    root = Path(argv[0]) if argv else Path.cwd()
    if len(argv) > 1 and argv[1].isdigit() and int(argv[1]) > 1:
        _wait_for_exit(int(argv[1]))
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
    sys.stderr.write(f"{stamp} kenso-git background sync of {root} (pid {os.getpid()})\n")
    began = time.monotonic()
    try:
        coalesced_sync(find_workspace(root))
    except Exception as err:  # a detached worker has nobody else to report to: log it
        sys.stderr.write(f"{stamp} kenso-git background sync failed: {err!r}\n")
        return 1
    sys.stderr.write(f"{stamp} done in {time.monotonic() - began:.2f} s\n")
    return 0


if __name__ == "__main__":
    sys.exit(_worker(sys.argv[1:]))
