"""The first `git status` of `sync` and `search`, started before anything else is loaded.

At 48,600 docs git's status of the work tree takes ~130 ms, and what kenso-git does meanwhile
(start-up, imports, opening the index) ~70: only what runs after git starts overlaps it. This
module needs nothing but `os`, `time` and `statusindex` (which needs no more; no `typing`,
`pathlib` or `re`: ~20 ms before git could start), so the entry starts git first. It finds
the work tree the plain way only (a `.git` folder in the current folder or above it) and
gives up on anything else;
`repo.gitstatus.adopt_status` hands the running status over once the workspace is found the full
way, and drops it when the two disagree.
"""

from __future__ import annotations

import os
import time

from kenso_git.repo import statusindex

TYPE_CHECKING = False  # typing is not imported here (see above); checkers read the block
if TYPE_CHECKING:
    from collections.abc import Mapping

# Variables git exports into hooks that would point us at the wrong repository or index.
# GIT_CONFIG_* (git -c, GIT_CONFIG_COUNT/KEY_n/VALUE_n, GIT_CONFIG_GLOBAL...) are kept.
# GIT_INDEX_FILE is dropped too, but for the commit gate's read of the staged changes
# (`hook_index_env`): `git commit -a`, `-i`, `-o` and `commit -- paths` stage into an index
# of their own (`.git/index.lock`, `.git/next-index-*.lock`) and name it there alone.
GIT_REPO_VARS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_QUARANTINE_PATH",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_EXEC_PATH",
    "GIT_REFLOG_ACTION",
    "GIT_INTERNAL_SUPER_PREFIX",
    "GIT_SHALLOW_FILE",
    "GIT_REPLACE_REF_BASE",
    "GIT_GRAFT_FILE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_LITERAL_PATHSPECS",
    "GIT_GLOB_PATHSPECS",
    "GIT_NOGLOB_PATHSPECS",
    "GIT_ICASE_PATHSPECS",
)
# The whole tree's status (repo/statusindex.py adds the options that say which index).
STATUS_ARGS = (
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=normal",
    "--no-renames",
    "--ignore-submodules=all",
    "--",
)
_HEX = frozenset("0123456789abcdef")


def scrubbed_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """A copy of the environment without the repository-locating GIT_* variables."""
    source = os.environ if environ is None else environ
    return {k: v for k, v in source.items() if k not in GIT_REPO_VARS}


def hook_index(root: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The index a commit hook's git named in GIT_INDEX_FILE (what the commit being made
    holds), as a path: relative to the top of the work tree `root`, where git reads it
    from; None when unset or not a file (git would read it as an empty index: a commit
    that deletes everything), the repository's own index then being the one read."""
    source = os.environ if environ is None else environ
    named = source.get("GIT_INDEX_FILE")
    if not named:
        return None
    path = os.path.join(root, named)  # an absolute one as it is
    return path if os.path.isfile(path) else None


def commit_index_env(root: str) -> dict[str, str] | None:
    """In a commit hook whose git names an index (`hook_index`: `commit -a`, `-o`, `commit
    -- paths` stage into one of their own), the environment that lists the tree and the
    staged renames from it, what the commit holds; else None (git's own index, as for
    every other read)."""
    return hook_index_env(root) if hook_index(root) is not None else None


def hook_index_env(root: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The scrubbed environment for git's read of the staged changes of the work tree at
    `root`: on the index a commit hook's git named (`hook_index`) when there is one.

    Git holds that index's lock while the hook runs (often it is the lock file itself): the
    git run with it must only read it, a plumbing command that refreshes nothing, and
    GIT_OPTIONAL_LOCKS=0 keeps git from taking a lock it could do without."""
    env = scrubbed_env(environ)
    index = hook_index(root, environ)
    if index is not None:
        env["GIT_INDEX_FILE"] = index
    env["GIT_OPTIONAL_LOCKS"] = "0"
    return env


def spawn(argv: list[str], env: Mapping[str, str], *, pipe_bytes: int = 0) -> tuple[int, int, int]:
    """Start `argv` with stdin from /dev/null: (pid, stdout read end, stderr read end);
    `pipe_bytes`, when non-zero, the size asked for the stdout pipe (Linux; kept as it is
    elsewhere or when refused).

    `posix_spawn` and two pipes rather than `subprocess` (whose import, with `signal`,
    `threading` and `selectors`, costs more than a git call).

    Raises:
        OSError: the program cannot be started.
    """
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    if pipe_bytes:
        _grow_pipe(out_w, pipe_bytes)
    try:
        pid = os.posix_spawnp(
            argv[0],
            argv,
            env,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, out_w, 1),
                (os.POSIX_SPAWN_DUP2, err_w, 2),
            ],
        )
    except BaseException:
        os.close(out_r)
        os.close(err_r)
        raise
    finally:
        os.close(out_w)
        os.close(err_w)
    return pid, out_r, err_r


def _grow_pipe(fd: int, size: int) -> None:
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, size)  # type: ignore[attr-defined,unused-ignore]
    except (ImportError, AttributeError, OSError):  # not Linux, or over the system's cap
        pass


class Started:
    """A status started by `start`: the work tree it looked at, HEAD then, the process, and
    the copy of git's index it runs on (None: git's own)."""

    __slots__ = ("argv", "err", "head", "out", "pid", "private", "root", "started_ns")

    def __init__(self, root: str, head: str | None) -> None:
        self.root, self.head = root, head
        self.started_ns = time.time_ns()
        git_dir = os.path.join(root, ".git")
        if os.path.islink(git_dir):  # keyed as the workspace keys it: the resolved git dir
            git_dir = os.path.realpath(git_dir)
        flags, env, self.private = statusindex.status_setup(
            git_dir, git_dir, scrubbed_env(), folder=statusindex.default_folder(root)
        )
        self.argv = ["git", "-C", root, *flags, *STATUS_ARGS]
        self.pid, self.out, self.err = spawn(self.argv, env)


def start() -> Started | None:
    """Start the whole tree's status of the work tree around the current folder; None when
    it is not found the plain way (no `.git` folder above; a `.git` file, a bare repository)
    or git cannot be started: the caller then starts one after finding the workspace."""
    try:
        root = _plain_root(os.path.realpath(os.getcwd()))
        if root is None:
            return None
        return Started(root, _head(os.path.join(root, ".git")))
    except OSError:
        return None


def _plain_root(folder: str) -> str | None:
    while True:
        dotgit = os.path.join(folder, ".git")
        if os.path.isdir(dotgit):
            return folder
        if os.path.lexists(dotgit) or os.path.basename(folder) == ".git":
            return None  # a gitfile (worktree, submodule), or inside a git dir: the full way
        if os.path.isfile(os.path.join(folder, "HEAD")):
            return None  # maybe a bare repository
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().strip()
    except (OSError, ValueError):
        return None


def _sha(text: str | None) -> str | None:
    if text is not None and len(text) in (40, 64) and _HEX.issuperset(text):
        return text
    return None


def _head(git_dir: str) -> str | None:
    """The commit HEAD names (a loose or packed branch ref, or a detached id), else None:
    `repo.gitstatus.adopt_status` compares it with what `index.freshness.head_commit` reads."""
    head = _read(os.path.join(git_dir, "HEAD"))
    if head is None or not head.startswith("ref:"):
        return _sha(head)
    ref = head[4:].strip()
    loose = _read(os.path.join(git_dir, *ref.split("/")))
    if loose is not None:
        return _sha(loose)
    for line in (_read(os.path.join(git_dir, "packed-refs")) or "").splitlines():
        sha, _, name = line.partition(" ")
        if name == ref:
            return _sha(sha)
    return None
