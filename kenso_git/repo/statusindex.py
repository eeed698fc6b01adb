"""kenso-git's own copy of git's index, for its `git status` calls (#16).

At 48,600 tracked docs one `git status` took ~220 ms: ~85 to lstat every tracked file and
~90 to read every folder for untracked files. git's untracked cache skips the folders
whose mtime did not change, but git keeps that cache in its index, and a status that
takes no optional lock (ours must not hold `index.lock` while the user's next git command
wants it) never writes the index, so the cache is never built, nor is the stat data of
files git had to re-read.

So kenso-git runs its statuses on a copy of the index (`GIT_INDEX_FILE`, which git
documents for this), with the untracked cache on unless the user's configuration says
otherwise, and lets git update the copy. The copy lives in the index's own folder (`.kenso/`,
or the folder of the `--db` file), never in the git dir: a read writes nothing but its
index's root. Its name carries a key of the git dir, so work trees sharing one index folder
never share a copy. The copy is made again whenever git's index changes (a new file, so a
new inode; or other stat data or trailing hash), and git's own index is never written. git
re-checks a copy before it writes one (the file must still be the one it read), so a copy
made meanwhile is never overwritten with an older one. Anything unusual (no index yet, no or
a read-only index folder, a copy git cannot read) falls back to git's own index without
optional locks, as before. No status runs the user's hooks (`NO_HOOKS`): git runs
post-index-change whenever it writes an index, a copy included.

Only `os`, `sys` and `time` are imported: `repo/prestart.py` starts git through this module
before anything else loads; it knows the work tree but not yet the index, so it works the
folder out from the command line and the environment as the index's own lookup will
(`default_folder`: `--db`, `KENSO_DATABASE_URL`, `.kenso/`).

Copies no work tree uses any more (its repository moved, its linked worktree removed) are
removed by a sync that writes (`remove_legacy`, at most once per `PRUNE_EVERY_S`): those
of another git dir's key none of whose files was written for `PRUNE_AFTER_S` (kenso-git
writes them as it makes the copy again, git as it updates it). A work tree still sharing
the folder loses its copy only when neither happened for that long, and then makes it
again on its next status.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # typing is not imported here (see above); checkers read the block
if TYPE_CHECKING:
    from collections.abc import Mapping

PREFIX = "git-status-index-"  # + the git dir's key: the copy, in the index's folder
SOURCE = ".source"  # + the copy's name: the signature of the git index the copy was made from
LOCK = ".lock"  # git's lock file protocol: whoever creates it may replace the copy
LEGACY = "kenso-git-status-index"  # where kenso-git kept the copy before: in the git dir
DEFAULT_FOLDER = ".kenso"  # the default index folder in the work tree (repo.workspace's)
# store/stamp.py's SUFFIX, spelt out (only `os` and `time` load here; a test holds them equal)
STAMP_SUFFIX = ".verified"
STALE_LOCK_S = 60  # a lock this old was left by a git that was killed
PRUNE_AFTER_S = 30 * 86_400  # another git dir's copy left unwritten this long is removed
PRUNE_EVERY_S = 86_400  # how often a writing sync looks for such copies
PRUNED = "git-status-index.pruned"  # in the index's folder: its mtime says when it last did
PRIVATE_FILE_MODE = 0o600  # repo.safeopen's (only `os`, `sys` and `time` load here)
# Every status runs none of the user's hooks: git runs post-index-change as it writes the
# index it refreshed (our copy; git's own with `refresh`), and a read runs no user code.
NO_HOOKS = ("-c", f"core.hooksPath={os.devnull}")
# Our statuses, on our copy: the cache of untracked folders, and never a split index
# (git would write a shared index file beside git's own for it). git writes the copy it
# updates through a lock file made 0666 less the umask; `core.sharedRepository=0600` makes
# it owner-only, as the copy kenso-git made (it lists every tracked path).
COPY_FLAGS = ("-c", "core.splitIndex=false", "-c", "core.sharedRepository=0600", *NO_HOOKS)
CACHE_FLAGS = ("-c", "core.untrackedCache=true")
REAL_FLAGS = ("--no-optional-locks", *NO_HOOKS)  # git's own index: read it, never write it
_KEY_END = len(PREFIX) + 16  # a copy's name: PREFIX and 16 hex digits (`copy_name`)
_HEX = frozenset("0123456789abcdef")
_TAIL = 32  # bytes of the index's trailing hash (SHA-1: 20; SHA-256: 32) read into the signature


_placed: dict[str, str] = {}  # git dir -> the index folder this process opened for it


def place(git_dir: str, folder: str) -> None:
    """The statuses of `git_dir` keep their copy in `folder` from now on (the folder of the
    index this process opened for that work tree)."""
    _placed[os.path.abspath(git_dir)] = folder


def default_folder(root: str) -> str | None:
    """The folder of the index this command opens for the work tree at `root`, before it is
    opened (`place`): that of the file `--db` names (the last one before `--`, relative to
    the current folder), else of `KENSO_DATABASE_URL`'s, else `<root>/.kenso`. None when
    the named file is not a kenso-git index a writer left (no `.verified` stamp beside it:
    a value that is not a path, an index not made yet, or another program's file, which the
    command refuses: no copy is made beside it, and git's own index is read)."""
    named = _named_db(sys.argv[1:]) or os.environ.get("KENSO_DATABASE_URL", "").strip()
    if not named:
        return os.path.join(root, DEFAULT_FOLDER)
    path = os.path.abspath(os.path.expanduser(named))
    return os.path.dirname(path) if os.path.isfile(path + STAMP_SUFFIX) else None


def _named_db(args: list[str]) -> str:
    """The value of the last `--db` option in `args` ("" when none), as click reads it."""
    named = ""
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg.startswith("--db="):
            named = arg[5:]
        elif arg == "--db" and i + 1 < len(args):
            named = args[i + 1]
    return named


def folder_for(git_dir: str, root: str) -> str | None:
    """Where the copy of `git_dir`'s index is kept (see `place` and `default_folder`)."""
    placed = _placed.get(os.path.abspath(git_dir))
    return placed if placed is not None else default_folder(root)


def copy_name(git_dir: str) -> str:
    """The copy's file name: `PREFIX` and a key of the git dir's path (FNV-1a, 64 bits: no
    hashlib import on this path; no realpath either, whose lstat of every folder a status
    would pay: callers pass the resolved git dir, or `<real root>/.git`)."""
    key = 0xCBF29CE484222325
    for byte in os.fsencode(os.path.abspath(git_dir)):
        key = ((key ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{PREFIX}{key:016x}"


def status_setup(
    git_dir: str,
    common_dir: str,
    env: Mapping[str, str],
    *,
    folder: str | None,
    refresh: bool = False,
    use_copy: bool = True,
) -> tuple[tuple[str, ...], dict[str, str], str | None]:
    """git's global options and environment for a status of this work tree, and the copy
    it runs on, kept in `folder` (None: git's own index, read without optional locks
    unless `refresh`). None of the user's hooks runs (`NO_HOOKS`).

    `env` is the scrubbed environment (no GIT_INDEX_FILE of a caller's); it is not changed.
    """
    private = prepare(git_dir, folder) if use_copy and folder is not None else None
    if private is None:
        return (NO_HOOKS if refresh else REAL_FLAGS), dict(env), None
    flags = (
        COPY_FLAGS
        if _user_says_untracked_cache(common_dir, git_dir, env)
        else (
            *COPY_FLAGS,
            *CACHE_FLAGS,
        )
    )
    return flags, {**env, "GIT_INDEX_FILE": private}, private


def prepare(git_dir: str, folder: str) -> str | None:
    """The path of the copy of `git_dir`'s index in `folder`, made again first if the index
    changed; None when there is no index to copy or the copy cannot be made (`folder` is
    never created: no index there yet means no copy)."""
    real = os.path.join(git_dir, "index")
    private = os.path.join(folder, copy_name(git_dir))
    try:
        if os.path.basename(folder) == DEFAULT_FOLDER and os.path.islink(folder):
            return None  # a `.kenso` a branch committed as a link: nothing is written there
        signature = _signature_of(real)
        if signature == _read(private + SOURCE) and os.path.isfile(private):
            return private
        return private if _copy(private, real) else None
    except OSError:
        return None


def forget(git_dir: str, folder: str) -> None:
    """Drop the copy (git could not read it): the next status copies git's index again."""
    private = os.path.join(folder, copy_name(git_dir))
    for path in (private + SOURCE, private):
        try:  # noqa: SIM105  (contextlib costs this path ~5 ms of imports)
            os.unlink(path)
        except OSError:
            pass


def remove_legacy(git_dir: str) -> None:
    """Remove the copies kenso-git no longer uses (a sync that writes and `hooks uninstall`
    call this): the one an earlier kenso-git kept in the git dir (a lock a live git may
    hold is left until stale), and in the folder `place`d for `git_dir` those of other git
    dirs whose files were none written for `PRUNE_AFTER_S` (see the module's docstring)."""
    legacy = os.path.join(git_dir, LEGACY)
    for path in (legacy + SOURCE, legacy):
        try:  # noqa: SIM105  (as in `forget`)
            os.unlink(path)
        except OSError:
            pass
    _clear_stale_lock(legacy + LOCK)
    folder = _placed.get(os.path.abspath(git_dir))
    if folder is not None and _prune_due(os.path.join(folder, PRUNED)):
        _prune(folder, copy_name(git_dir))


def _prune_due(marker: str) -> bool:
    """Whether the folder's copies were last looked over `PRUNE_EVERY_S` ago (or never):
    then `marker` is touched, and the caller looks. One stat per writing sync otherwise,
    rather than a listing of the folder."""
    try:
        if time.time() - os.stat(marker).st_mtime < PRUNE_EVERY_S:
            return False
    except OSError:
        pass
    try:
        os.close(_create(marker, exclusive=False))
        os.utime(marker)
    except OSError:
        return False  # a folder kenso-git cannot write: nothing it could remove either
    return True


def _prune(folder: str, own: str) -> None:
    """Remove the files of every copy in `folder` but `own` not written for `PRUNE_AFTER_S`."""
    files: dict[str, list[str]] = {}
    newest: dict[str, float] = {}
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                key = _key_of(entry.name)
                if key is None or key == own:
                    continue
                try:
                    mtime = entry.stat(follow_symlinks=False).st_mtime
                except OSError:
                    continue
                files.setdefault(key, []).append(entry.path)
                newest[key] = max(newest.get(key, mtime), mtime)
    except OSError:
        return
    cutoff = time.time() - PRUNE_AFTER_S
    for key, paths in files.items():
        if newest[key] < cutoff:
            for path in paths:
                try:  # noqa: SIM105  (as in `forget`)
                    os.unlink(path)
                except OSError:
                    pass


def _key_of(name: str) -> str | None:
    """The copy `name` belongs to (`copy_name`'s form), if it is one of a copy's files: the
    copy, its signature, its lock, or a signature being written (`_copy`)."""
    key, rest = name[:_KEY_END], name[_KEY_END:]
    if len(key) < _KEY_END or not key.startswith(PREFIX) or not _HEX.issuperset(key[len(PREFIX) :]):
        return None
    if rest in ("", SOURCE, LOCK) or (
        rest.startswith(SOURCE + ".") and rest[len(SOURCE) + 1 :].isdigit()
    ):
        return key
    return None


def _signature(st: os.stat_result, tail: bytes) -> str:
    return f"{st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {tail.hex()}"


def _signature_of(real: str) -> str:
    """Raises OSError (FileNotFoundError: no index yet)."""
    fd = os.open(real, os.O_RDONLY)
    try:
        st = os.fstat(fd)
        return _signature(st, os.pread(fd, _TAIL, max(0, st.st_size - _TAIL)))
    finally:
        os.close(fd)


def _copy(private: str, real: str) -> bool:
    """Copy `real` to `private` under the copy's lock; False when another process holds it."""
    lock = private + LOCK
    try:
        fd = _create(lock)
    except FileExistsError:
        if not _clear_stale_lock(lock):
            return False
        fd = _create(lock)  # FileExistsError again: another copier came first
    try:
        with open(real, "rb") as source:
            st = os.fstat(source.fileno())
            data = source.read()
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        # git's index's own mtime: git re-reads by content the entries written as late as
        # its index (racily clean), and a later mtime on the copy would hide them.
        os.utime(fd, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.close(fd)
        fd = -1
        source_file = private + SOURCE
        _unlink(source_file)  # no moment where an old signature names the new copy
        os.rename(lock, private)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        _unlink(lock)
        raise
    # Written after the copy is in place and the lock is gone: a copier that follows may
    # replace both, and a signature that names an older index only costs one more copy.
    temp = f"{source_file}.{os.getpid()}"
    with os.fdopen(_create(temp, exclusive=False), "w", encoding="ascii") as out:
        out.write(_signature(st, data[-_TAIL:]))
    os.rename(temp, source_file)
    return True


def _create(path: str, *, exclusive: bool = True) -> int:
    """A new file owner-only (0600) whatever the umask: the copy lists every tracked path."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
    return os.open(path, flags, PRIVATE_FILE_MODE)


def _clear_stale_lock(lock: str) -> bool:
    """Remove `lock` if a killed git left it (True); a live one is left alone. Until then
    git cannot update the copy (it still answers from it)."""
    try:
        if time.time() - os.stat(lock).st_mtime > STALE_LOCK_S:
            os.unlink(lock)
            return True
    except OSError:
        pass
    return False


def drop_orphaned_lock(private: str) -> None:
    """Remove the lock of the copy `private` when no process holds it open for writing:
    called after stopping a git that ran on the copy. git arms the signal handler that
    removes its lock files only once its first one exists, so a git stopped in between
    leaves the lock, and no status could update the copy for `STALE_LOCK_S`. A live
    git's lock is open for writing until git renames it, and Linux grants a read lease
    only on a file no process has open for writing (`F_SETLEASE`); without leases
    (not Linux) the lock waits for `_clear_stale_lock`."""
    import fcntl  # only after a stopped git: the prestart path loads os, sys and time

    setlease = getattr(fcntl, "F_SETLEASE", None)
    if setlease is None:
        return
    lock = private + LOCK
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return  # none (the usual case), or not ours to read
    try:
        fcntl.fcntl(fd, setlease, fcntl.F_RDLCK)  # EAGAIN: a live git is writing it
        try:
            if os.stat(lock).st_ino == os.fstat(fd).st_ino:
                os.unlink(lock)
        finally:
            fcntl.fcntl(fd, setlease, fcntl.F_UNLCK)
    except OSError:
        pass
    finally:
        os.close(fd)


def _unlink(path: str) -> None:
    try:  # noqa: SIM105  (as in `forget`)
        os.unlink(path)
    except FileNotFoundError:
        pass


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii") as handle:
            return handle.read()
    except (OSError, ValueError):
        return None


def _config_files(common_dir: str, git_dir: str, env: Mapping[str, str]) -> list[str]:
    home = env.get("HOME", "")
    xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    files = [
        os.path.join(common_dir, "config"),
        os.path.join(git_dir, "config.worktree"),
        env.get("GIT_CONFIG_GLOBAL") or os.path.join(home, ".gitconfig"),
        os.path.join(xdg, "git", "config"),
    ]
    if not env.get("GIT_CONFIG_NOSYSTEM"):
        files.append(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
    return files


def _user_says_untracked_cache(common_dir: str, git_dir: str, env: Mapping[str, str]) -> bool:
    """True when any configuration git reads names `untrackedCache`: git then decides, as
    the user said (false on a file system whose folder mtimes git cannot trust). A crude
    scan, on purpose: a mention in a comment only means the cache is not forced on."""
    if any("untrackedcache" in v.lower() for k, v in env.items() if k.startswith("GIT_CONFIG")):
        return True
    for path in _config_files(common_dir, git_dir, env):
        try:
            with open(path, "rb") as handle:
                if b"untrackedcache" in handle.read().lower():
                    return True
        except OSError:
            continue
    return False
