"""Where git moved a path: its rename detection over the staged changes and HEAD's history.

Asked only about paths that are missing from the work tree, so the cost follows them: one
`git log` limited to those paths finds the commits that deleted them, and one more asks git
which of those deletions were renames (`-M`, git's similarity detection). A folder moved
whole (every file renamed under one new folder) moves as a folder. A renamed path that is
gone again is followed to where it went next, a few steps at most.

Asked the other way about some files of the tree (`sources`: pages whose own relative links
or relates_to entries are dead), it says where each came from: the staged rename to it, else
the newest commit that added it, when git reads that addition as a rename; and where it was
before that, back along a chain of renames (a few steps at most).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterable

from kenso_git.errors import GitError
from kenso_git.records import NamedTuple
from kenso_git.repo.gitrun import EarlyGit
from kenso_git.repo.gitrun import run_git
from kenso_git.repo.prestart import commit_index_env
from kenso_git.repo.workspace import Workspace

STAGED = "the staged changes"  # what a move not committed yet is "in"
MAX_STEPS = 4  # renames followed from one path (a -> b -> c ...)
MAX_PATHS = 20_000  # paths asked about in one run; more are left unexplained
# Bytes of paths named on git's command line; past it the log is read whole and sorted out
# here (Linux refuses a command line of more than ~2 MB, or 128 kB in one argument)
MAX_PATHSPEC_BYTES = 64_000
MAX_COMMIT_ARGS = 2_000  # commits named in one `git log --no-walk`
MAX_CHAIN_LOGS = 16  # git logs run per step back along the renames of moved pages


class Origin(NamedTuple):
    """Where a file of the tree was before git renamed it to where it is, in which commit
    (short id, or `STAGED`: the newest of a chain of renames), and through which paths it
    went since (a -> b -> here: `a`, through `b`)."""

    old: str
    commit: str
    via: tuple[str, ...] = ()

    def describe(self, new: str) -> str:
        """`docs/guide/a.md was moved to docs/a.md in 1a2b3c4 (through docs/b.md)`."""
        through = f" (through {', '.join(self.via)})" if self.via else ""
        return f"{self.old} was moved to {new} in {self.commit}{through}"


class Move(NamedTuple):
    """A path git renamed: where it went, in which commit (short id), and through which."""

    new: str
    commit: str
    via: tuple[str, ...] = ()

    def describe(self, old: str) -> str:
        """`docs/old.md was renamed to docs/new.md in 1a2b3c4`."""
        through = f" (through {', '.join(self.via)})" if self.via else ""
        return f"{old} was renamed to {self.new} in {self.commit}{through}"


Renames = dict[str, tuple[str, str]]  # old path -> (new path, commit)


def _pairs(out: str, commit: str | None) -> Iterable[tuple[str, str, str]]:
    """(old, new, commit) of `--name-status -z` output; `--format=%x01%h` starts commits."""
    for record in out.split("\x01") if commit is None else [out]:
        fields = record.split("\0")
        label = commit
        if commit is None:
            label, fields = fields[0].strip(), fields[1:]
        at = 0
        while at + 2 < len(fields):
            status = fields[at].strip()
            if status.startswith("R"):
                yield fields[at + 1], fields[at + 2], label or ""
                at += 3
            else:
                at += 2 if status else 1


# git's renames among the staged changes (what a commit now would record)
STAGED_RENAMES = ("diff", "--cached", "-M", "-z", "--name-status", "--diff-filter=R")


def _staged(ws: Workspace, early: EarlyGit | None) -> Renames:
    try:
        if early is None:
            out = run_git(ws, *STAGED_RENAMES, env=commit_index_env(str(ws.root)))
        else:
            out = early.result()
    except GitError:  # an unborn HEAD has nothing to compare
        return {}
    return {old: (new, STAGED) for old, new, _ in _pairs(out, STAGED)}


class DeletingLog(NamedTuple):
    """git's log of the commits that deleted some paths, started; `wanted` is set when the
    paths were too many to name on git's command line (the log is then of every deletion,
    and `_deleting_commits` keeps those of the paths)."""

    early: EarlyGit
    wanted: frozenset[str] | None = None

    def commits(self, out: str) -> dict[str, list[str]]:
        return _deleting_commits(out, self.wanted)


def _deleting_log(
    ws: Workspace, paths: Collection[str], kind: str = "D", rev: str = "HEAD"
) -> DeletingLog:
    """git's log of the commits that deleted any of `paths` (or a file under one), started
    (with `kind` "A": that added one), in the history of `rev`.

    Past `MAX_PATHSPEC_BYTES` of paths the command line would pass the system's limit
    (`Argument list too long` at 20,000 missing paths, #32): git then lists every
    deletion of HEAD's history and the paths' own are kept here, as git would have."""
    spec = sorted(paths)
    wanted = None
    if sum(len(path.encode("utf-8", "surrogateescape")) + 1 for path in spec) > MAX_PATHSPEC_BYTES:
        spec, wanted = [], frozenset(spec)
    early = EarlyGit(
        ws,
        "--literal-pathspecs",
        "log",
        "--format=%x01%h",
        "--name-only",
        "-z",
        "--no-renames",
        f"--diff-filter={kind}",
        rev,
        "--",
        *spec,
    )
    return DeletingLog(early, wanted)


def _deleting_commits(out: str, wanted: frozenset[str] | None = None) -> dict[str, list[str]]:
    """The commits of `_deleting_log`'s output, newest first, each with the files it
    deleted; with `wanted`, only the files that are or lie under one of those paths, and
    only the commits that deleted such a file (what the paths as git's pathspec give)."""
    commits: dict[str, list[str]] = {}
    for record in out.split("\x01"):
        head, *names = record.split("\0")
        head = head.strip()
        if not head or head in commits:
            continue
        kept = [name.strip() for name in names if name.strip()]
        if wanted is not None:
            kept = [name for name in kept if _under_any(name, wanted)]
            if not kept:
                continue
        commits[head] = kept
    return commits


def _under_any(name: str, paths: frozenset[str]) -> bool:
    """Is `name` one of `paths` or a file under one of them?"""
    if name in paths:
        return True
    cut = name.find("/")
    while cut != -1:
        if name[:cut] in paths:
            return True
        cut = name.find("/", cut + 1)
    return False


def _history(ws: Workspace, log: DeletingLog) -> str:
    """`log`'s output; none when HEAD has no commit yet (a new repository has no renames).

    Raises:
        GitError: git failed otherwise.
    """
    try:
        return log.early.result()
    except GitError:
        try:
            run_git(ws, "rev-parse", "--verify", "--quiet", "HEAD")  # the ref, not its object
        except GitError:
            return ""  # an unborn HEAD: nothing was ever deleted or renamed
        raise


def _deleted_in(commits: dict[str, list[str]], path: str) -> str | None:
    """The newest of `commits` that deleted `path` or a file under it."""
    prefix = f"{path}/"
    for commit, names in commits.items():
        if any(name == path or name.startswith(prefix) for name in names):
            return commit
    return None


def _renames_in(ws: Workspace, commits: list[str]) -> Renames:
    found: Renames = {}
    for start in range(0, len(commits), MAX_COMMIT_ARGS):  # within the command line's limit
        out = run_git(
            ws,
            "log",
            "--no-walk=unsorted",
            "-M",
            "--diff-filter=R",
            "--name-status",
            "-z",
            "--format=%x01%h",
            *commits[start : start + MAX_COMMIT_ARGS],
        )
        for old, new, commit in _pairs(out, None):
            found.setdefault(old, (new, commit))  # newest first: the latest rename wins
    return found


def _folder_move(folder: str, renames: Renames) -> tuple[str, str] | None:
    """The folder every renamed file under `folder` went to, keeping its place under it."""
    prefix = f"{folder}/"
    targets: set[tuple[str, str]] = set()
    for old, (new, commit) in renames.items():
        if old.startswith(prefix):
            tail = old[len(prefix) :]
            if not new.endswith("/" + tail):
                return None
            targets.add((new[: -len(tail) - 1], commit))
    return targets.pop() if len(targets) == 1 else None


def _step(renames: Renames, path: str) -> tuple[str, str] | None:
    return renames.get(path) or _folder_move(path, renames)


class Moves(NamedTuple):
    """What git knows of paths missing from the work tree, and of where `sources` came from."""

    moved: dict[str, Move]  # path -> where it went (the new path exists)
    deleted: dict[str, str]  # path -> the commit (short id) that deleted it, not a rename
    # source -> where it was before each of its renames, newest first (a chain: a -> b -> it)
    origins: dict[str, tuple[Origin, ...]] | None = None


def find_moves(
    ws: Workspace,
    paths: Collection[str],
    exists: Callable[[str], bool],
    *,
    staged: EarlyGit | None = None,
    sources: Collection[str] = (),
) -> Moves:
    """Where git moved each of `paths` (missing from the work tree) to a path that `exists`,
    and which of the others a commit deleted; paths git never had are left out; where each
    of `sources` (files of the tree) was before git renamed it there. Outside git, nothing
    moved. `staged`: git's `STAGED_RENAMES` started earlier (read here).

    Raises:
        GitError: git failed on a repository it should read.
    """
    return start_moves(ws, paths, exists, staged=staged, sources=sources).result()


class PendingMoves:
    """`find_moves` under way: git's log of the deleting commits runs from `start_moves`
    until `result` reads it, so a caller can do other work meanwhile."""

    __slots__ = ("_adding", "_asked", "_exists", "_log", "_origins", "_renames", "_ws")

    def __init__(
        self,
        ws: Workspace,
        asked: list[str],
        exists: Callable[[str], bool],
        renames: Renames,
        log: DeletingLog | None,
        origins: dict[str, Origin] | None = None,
        adding: DeletingLog | None = None,
    ) -> None:
        self._ws, self._asked, self._exists = ws, asked, exists
        self._renames, self._log = renames, log
        self._origins = origins or {}  # the sources a staged rename explains
        self._adding = adding  # git's log of the commits that added the other sources

    def discard(self) -> None:
        """Stop git unless read (idempotent)."""
        for log in (self._log, self._adding):
            if log is not None:
                log.early.discard()

    def result(self) -> Moves:
        """The moves, once git is done.

        Raises:
            GitError: git failed on a repository it should read.
        """
        ws, exists, renames = self._ws, self._exists, self._renames
        chains: dict[str, list[tuple[str, str]]] = {path: [] for path in self._asked}
        pending = {path: path for path in self._asked}  # where the search stands -> its start
        deleting: dict[str, list[str]] = {}
        for step_no in range(MAX_STEPS):
            commits: dict[str, list[str]] = {}
            if step_no == 0:
                log, self._log = self._log, None
                commits = {} if log is None else log.commits(_history(ws, log))
                deleting = commits
            elif unknown := [now for now in pending if _step(renames, now) is None]:
                later = _deleting_log(ws, unknown)
                commits = later.commits(later.early.result())
            if commits:
                for old, found in _renames_in(ws, list(commits)).items():
                    renames.setdefault(old, found)
            following: dict[str, str] = {}
            for now, origin in pending.items():
                step = _step(renames, now)
                if step is None:
                    continue
                chains[origin].append(step)
                if not exists(step[0]) and step[0] not in chains:
                    following[step[0]] = origin
            pending = following
            if not pending:
                break
        return _outcome(chains, deleting, exists)._replace(origins=self._traced())

    def _traced(self) -> dict[str, tuple[Origin, ...]]:
        """Where the sources came from: a staged rename, else the newest commit that added
        each, when git reads that addition as a rename; and where they were before that,
        back along their renames (`_chained`)."""
        origins, adding, self._adding = self._origins, self._adding, None
        if adding is not None:
            added = _renamed_to(self._ws, adding.commits(_history(self._ws, adding)))
            for new, step in added.items():
                origins.setdefault(new, step)
        return _chained(self._ws, origins)


def _renamed_to(ws: Workspace, commits: dict[str, list[str]]) -> dict[str, Origin]:
    """Of the files `commits` (a log of additions, newest first) added, those whose newest
    addition git reads as a rename, with where each was before it."""
    newest: dict[str, str] = {}  # file -> the commit that added it last
    for commit, names in commits.items():
        for name in names:
            newest.setdefault(name, commit)
    wanted = set(newest.values())
    out: dict[str, Origin] = {}
    for old, (new, commit) in _renames_in(ws, [c for c in commits if c in wanted]).items():
        if newest.get(new) == commit:
            out[new] = Origin(old, commit)
    return out


def _chained(ws: Workspace, first: dict[str, Origin]) -> dict[str, tuple[Origin, ...]]:
    """Each source's renames, newest first, from its last (`first`) back: where the path it
    came from was added before the commit that renamed it away (the staged changes: in
    HEAD), when git reads that addition as a rename too, a few steps at most: a link of
    the page may have been written at any of those places, not only at the last.

    Each `Origin` names the newest commit and the paths between (`via`), as a `Move` does.
    """
    steps = {source: [(origin.old, origin.commit)] for source, origin in first.items()}
    frontier = dict(steps)
    for _ in range(MAX_STEPS - 1):
        by_rev: dict[str, dict[str, str]] = {}  # where to look -> {path: source}
        for source, chain in frontier.items():
            old, commit = chain[-1]
            rev = "HEAD" if commit == STAGED else f"{commit}^"
            by_rev.setdefault(rev, {})[old] = source
        frontier = {}
        for rev, olds in sorted(by_rev.items())[:MAX_CHAIN_LOGS]:
            log = _deleting_log(ws, olds, "A", rev)
            try:
                earlier = _renamed_to(ws, log.commits(log.early.result()))
            except GitError:  # a commit git cannot walk back from: the chain stops there
                log.early.discard()
                continue
            for old, origin in earlier.items():
                asking = olds.get(old)
                if asking is None or origin.old in {asking, *(p for p, _ in steps[asking])}:
                    continue  # not asked, or back where it was (a -> b -> a)
                steps[asking].append((origin.old, origin.commit))
                frontier[asking] = steps[asking]
        if not frontier:
            break
    return {source: _origins_of(chain) for source, chain in steps.items()}


def _origins_of(chain: list[tuple[str, str]]) -> tuple[Origin, ...]:
    """The `Origin` of each place of `chain` ((path, commit) newest first), each with the
    newest commit and the places after it, oldest first."""
    newest = chain[0][1]
    places = [path for path, _ in chain]
    return tuple(
        Origin(path, newest, tuple(reversed(places[:at]))) for at, path in enumerate(places)
    )


def _outcome(
    chains: dict[str, list[tuple[str, str]]],
    deleting: dict[str, list[str]],
    exists: Callable[[str], bool],
) -> Moves:
    """Each asked path's last step, when it exists, else the commit that deleted it."""
    out: dict[str, Move] = {}
    deleted: dict[str, str] = {}
    for origin, own in chains.items():
        steps = _joined(origin, own, chains, exists)
        if steps and exists(steps[-1][0]):
            out[origin] = Move(steps[-1][0], steps[-1][1], tuple(s[0] for s in steps[:-1]))
        elif not steps and (commit := _deleted_in(deleting, origin)) is not None:
            deleted[origin] = commit
    return Moves(out, deleted)


def _joined(
    origin: str,
    steps: list[tuple[str, str]],
    chains: dict[str, list[tuple[str, str]]],
    exists: Callable[[str], bool],
) -> list[tuple[str, str]]:
    """`origin`'s steps, continued by the steps of the paths they reach that were asked too
    (`a -> b` and `b -> c` when both `a` and `b` are missing: `a` went to `c`), which the
    search does not follow twice."""
    seen = {origin}
    while steps and (last := steps[-1][0]) in chains and last not in seen and not exists(last):
        seen.add(last)
        steps = [*steps, *chains[last]]
    return steps


def start_moves(
    ws: Workspace,
    paths: Collection[str],
    exists: Callable[[str], bool],
    *,
    staged: EarlyGit | None = None,
    sources: Collection[str] = (),
) -> PendingMoves:
    """`find_moves` started: git's staged renames read, its logs of the commits that deleted
    the paths and added the sources they do not explain started; `PendingMoves.result`
    finishes the work.

    Raises:
        GitError: git failed on a repository it should read.
    """
    if not ws.is_git or not (paths or sources):
        if staged is not None:
            staged.discard()
        return PendingMoves(ws, [], exists, {}, None)
    asked = sorted(paths)[:MAX_PATHS]
    renames = _staged(ws, staged)
    unknown = [path for path in asked if _step(renames, path) is None]
    traced = set(sorted(sources)[:MAX_PATHS])
    origins = {new: Origin(old, commit) for old, (new, commit) in renames.items() if new in traced}
    untraced = sorted(traced - origins.keys())
    return PendingMoves(
        ws,
        asked,
        exists,
        renames,
        _deleting_log(ws, unknown) if unknown else None,
        origins,
        _deleting_log(ws, untraced, "A") if untraced else None,
    )
