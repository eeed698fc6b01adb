"""Which git command moves on from a stopped replay (a rebase, or `git am` of a patch series).

The shims skip the hooks git runs per replayed commit; a rebase syncs once at its end, in
post-rewrite. Three commands move on from a stopped replay with no post-rewrite after them,
and each runs only post-index-change, while the replay's folder is still there: `git rebase
--abort`, and `git am --abort` and `git am --skip` of a plain `git am` (which never runs
post-rewrite, so an `--skip` that stops at the next patch syncs that stop). git names no
command to its hooks, but on Linux the hook's parent, git, shows its command line in /proc.
`git rebase --quit` and `git am --quit` run no hook at all: the next read syncs.
"""

from __future__ import annotations

from pathlib import Path

# git's global options that take a value as the next argument (`git -C dir rebase --abort`)
_VALUED_OPTIONS = frozenset(("-c", "-C", "--git-dir", "--work-tree", "--namespace"))
# (subcommand, option) of each command that moves on from a replay without post-rewrite
_LEAVING = (("rebase", "--abort"), ("am", "--abort"), ("am", "--skip"))


def git_command(pid: int | None) -> list[str]:
    """The subcommand and its arguments that process `pid` (a git) runs, git's own options
    dropped; empty when that cannot be told (no /proc)."""
    if pid is None:
        return []
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            raw = cmdline.read()
    except OSError:
        return []
    args = raw.decode("utf-8", "replace").split("\0")[1:]
    while args and args[0].startswith("-"):
        args = args[2:] if args[0] in _VALUED_OPTIONS else args[1:]
    return args


MAX_HOPS = 4  # git -> husky's wrapper -> the team's hook file -> kenso-git's launcher


def git_ancestor(pid: int) -> int | None:
    """The nearest of `pid` and its ancestors that is git (MAX_HOPS at most), or None (no
    /proc): a hook file another tool keeps runs kenso-git from its own shell, and only
    kenso-git's shims name git's process (`KENSO_GIT_PID`)."""
    for _ in range(MAX_HOPS):
        if pid <= 1:
            return None
        try:
            with open(f"/proc/{pid}/comm", "rb") as comm:
                if comm.read().strip() == b"git":
                    return pid
            with open(f"/proc/{pid}/stat", "rb") as stat:
                # `pid (comm) state ppid ...`: comm may hold spaces and parentheses
                pid = int(stat.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return None
    return None


def is_plain_am(git_dir: Path | None) -> bool:
    """Whether `rebase-apply/` is a `git am`'s own (a rebase's is marked `rebasing`)."""
    return git_dir is not None and (git_dir / "rebase-apply" / "applying").is_file()


def leaving_command(git_dir: Path | None, pid: int | None) -> str | None:
    """`rebase --abort`, `am --abort` or `am --skip` when git `pid` runs it on a stopped
    replay that no post-rewrite follows; None for any other command."""
    args = git_command(pid)
    for verb, option in _LEAVING:
        if args[:1] == [verb] and option in args[1:]:
            # `git rebase --skip` of an apply-backend rebase runs `git am --skip`: that
            # rebase goes on, and post-rewrite syncs at its end
            if verb == "am" and not is_plain_am(git_dir):
                return None
            return f"{verb} {option}"
    return None
