"""Agent instruction drift: has the upstream branch a newer AGENTS.md (or kin) than HEAD?

Agents read `AGENTS.md`, `CLAUDE.md`, `GEMINI.md`, `.github/copilot-instructions.md` and
`.cursor/rules/**` as their standing orders; a checkout behind its upstream gives them last
week's. This compares HEAD with its upstream branch as git last fetched it (never fetching)
and lists each instruction file the upstream side changed since the two parted.
"""

from __future__ import annotations

from kenso_git.errors import GitError
from kenso_git.records import NamedTuple
from kenso_git.repo.gitrun import run_git
from kenso_git.repo.history import Commit
from kenso_git.repo.history import literal
from kenso_git.repo.history import log_first_commits
from kenso_git.repo.workspace import Workspace

# The files, at any depth (a monorepo keeps one per package), as git pathspecs.
INSTRUCTION_PATHSPECS = (
    ":(glob)**/AGENTS.md",
    ":(glob)**/CLAUDE.md",
    ":(glob)**/GEMINI.md",
    ":(glob).github/copilot-instructions.md",
    ":(glob)**/.cursor/rules/**",
)
_STATUS = {"A": "added", "D": "deleted"}


class DriftedFile(NamedTuple):
    """One instruction file the upstream branch has in another version."""

    path: str
    status: str  # modified, added (only upstream has it) or deleted (upstream removed it)
    insertions: int | None  # None for a binary file
    deletions: int | None
    last_commit: Commit | None  # the upstream commit that last changed it

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "status": self.status,
            "insertions": self.insertions,
            "deletions": self.deletions,
            "last_commit": None if self.last_commit is None else self.last_commit.to_dict(),
        }


class Drift(NamedTuple):
    """What `drift` found: the upstream, how far HEAD is behind it, and the files."""

    upstream: str | None  # e.g. origin/main; None when the branch has none
    upstream_commit: str | None
    behind: int  # upstream commits HEAD does not have
    files: tuple[DriftedFile, ...]
    reason: str | None  # why nothing could be compared (no git, no upstream)

    @property
    def drifted(self) -> bool:
        return bool(self.files)

    def to_dict(self) -> dict[str, object]:
        return {
            "drifted": self.drifted,
            "upstream": self.upstream,
            "upstream_commit": self.upstream_commit,
            "behind": self.behind,
            "files": [f.to_dict() for f in self.files],
            "reason": self.reason,
        }

    def summary(self) -> str | None:
        """One line for a hook to print, or None when nothing drifted."""
        if not self.files:
            return None
        names = ", ".join(f.path for f in self.files[:3])
        more = f" and {len(self.files) - 3} more" if len(self.files) > 3 else ""
        return (
            f"kenso-git: {self.upstream} has newer agent instructions ({names}{more}); "
            f"`git log HEAD..{self.upstream} -- {self.files[0].path}` shows what changed"
        )


NOT_A_REPOSITORY = "not a git repository"
NO_UPSTREAM = (
    "the current branch has no upstream (`git branch --set-upstream-to=origin/BRANCH` sets one)"
)
DETACHED = (
    "HEAD is detached (no branch, so no upstream to compare with); "
    "`git switch BRANCH` checks out a branch, and drift compares it with its upstream"
)


def _nothing(reason: str, upstream: str | None = None) -> Drift:
    return Drift(upstream, None, 0, (), reason)


def drift(ws: Workspace) -> Drift:
    """Compare HEAD's agent instruction files with its upstream branch's (as last fetched).

    Never raises for a repository without git, an unborn or detached HEAD or a branch
    without upstream: `reason` says why nothing was compared.
    """
    if ws.git_dir is None:
        return _nothing(NOT_A_REPOSITORY)
    try:
        upstream = run_git(
            ws, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"
        ).strip()
        upstream_commit = run_git(ws, "rev-parse", "--verify", "@{upstream}^{commit}").strip()
    except GitError:
        return _nothing(NO_UPSTREAM if _on_a_branch(ws) else DETACHED)
    try:
        behind = int(run_git(ws, "rev-list", "--count", "HEAD..@{upstream}").strip() or 0)
        files = _drifted(ws) if behind else ()
    except GitError as err:
        return _nothing(err.message, upstream)
    return Drift(upstream, upstream_commit, behind, files, None)


def _on_a_branch(ws: Workspace) -> bool:
    """Whether HEAD names a branch (one with no commit yet too), not a commit (detached)."""
    try:
        run_git(ws, "symbolic-ref", "--quiet", "HEAD")
    except GitError:
        return False
    return True


def _drifted(ws: Workspace) -> tuple[DriftedFile, ...]:
    """The instruction files the upstream side changed since HEAD and it parted, whose
    upstream version differs from HEAD's."""
    changed = run_git(
        ws, "diff", "--name-status", "-z", "--no-renames", "HEAD...@{upstream}", "--",
        *INSTRUCTION_PATHSPECS,
    )  # fmt: skip
    fields = [f for f in changed.split("\0") if f]
    by_path = {
        fields[i + 1]: _STATUS.get(fields[i][:1], "modified") for i in range(0, len(fields) - 1, 2)
    }
    if not by_path:
        return ()
    differs = run_git(
        ws,
        "diff",
        "--numstat",
        "-z",
        "--no-renames",
        "HEAD",
        "@{upstream}",
        "--",
        *literal(by_path),
    )
    stats: dict[str, tuple[int | None, int | None]] = {}
    for entry in differs.split("\0"):
        parts = entry.split("\t", 2)
        if len(parts) == 3:
            added, removed, path = parts
            stats[path] = (_count(added), _count(removed))
    last = log_first_commits(ws, "HEAD..@{upstream}", list(stats))
    return tuple(
        DriftedFile(path, by_path[path], *stats[path], last.get(path))
        for path in sorted(stats)
        if path in by_path
    )


def _count(text: str) -> int | None:
    return int(text) if text.isdigit() else None
