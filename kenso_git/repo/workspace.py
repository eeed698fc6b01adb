"""Where we are: the root of the work tree, the git directories, the database path.

This module answers without pygit2 (importing it costs ~0.1 s), by reading the
`.git` file or directory the way git does. Search, stats and the hook shims stay fast.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from kenso_git.errors import UsageError
from kenso_git.records import NamedTuple

GLOBAL_DB = Path("~/.local/share/kenso/docs.db")
MARKDOWN_SUFFIXES = (".md", ".markdown")
DB_DIRNAME = ".kenso"
DB_FILENAME = "docs.db"


class Workspace(NamedTuple):
    """The root that paths are relative to, and git's directories when it is a work tree."""

    root: Path  # absolute, resolved
    git_dir: Path | None  # this work tree's git dir (`.git/worktrees/x` for a linked worktree)
    common_dir: Path | None  # the shared git dir (hooks, info/exclude, objects)

    @property
    def is_git(self) -> bool:
        return self.git_dir is not None


def is_markdown(name: str) -> bool:
    """`*.md` or `*.markdown`, in any case."""
    return name.lower().endswith(MARKDOWN_SUFFIXES)


def is_undecodable(name: str) -> bool:
    """Is `name` a file name whose bytes are not valid UTF-8 (held as surrogate escapes)?

    Paths are stored, printed and sent to agents as UTF-8 text: such a file cannot be one
    of them, so discovery skips it with a warning rather than failing the whole run (#26).
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def in_scope(path: str, scope: Sequence[str]) -> bool:
    """Is root-relative `path` one of, or under one of, the `scope` entries ("" = all)?"""
    return any(not s or path == s or path.startswith(s + "/") for s in scope)


def _read_gitfile(dotgit: Path) -> Path | None:
    try:
        text = dotgit.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    if not target.is_absolute():
        target = dotgit.parent / target
    return target.resolve()


def _common_dir(git_dir: Path) -> Path:
    marker = git_dir / "commondir"
    try:
        rel = marker.read_text(encoding="utf-8").strip()
    except OSError:
        return git_dir
    common = Path(rel)
    return (common if common.is_absolute() else git_dir / common).resolve()


def git_dirs_of(root: Path) -> tuple[Path, Path] | None:
    """Return (git_dir, common_dir) when `root` holds a `.git` entry, else None."""
    dotgit = root / ".git"
    if dotgit.is_dir():
        return dotgit.resolve(), _common_dir(dotgit.resolve())
    if dotgit.is_file():
        git_dir = _read_gitfile(dotgit)
        if git_dir is not None and git_dir.is_dir():
            return git_dir, _common_dir(git_dir)
    return None


def _is_bare_repository(folder: Path) -> bool:
    return (
        (folder / "HEAD").is_file()
        and (folder / "objects").is_dir()
        and (folder / "refs").is_dir()
        and (folder / "config").is_file()
    )


def _is_linked_git_dir(folder: Path) -> bool:
    """A linked work tree's (or a submodule's) git dir, `.git/worktrees/x`: a HEAD beside
    a `commondir` or `gitdir` file."""
    return (folder / "HEAD").is_file() and (
        (folder / "commondir").is_file() or (folder / "gitdir").is_file()
    )


def find_workspace(start: Path | None = None) -> Workspace:
    """Find the enclosing work tree of `start` (default: cwd), or use `start` itself. From
    the current folder, GIT_DIR (and GIT_WORK_TREE), when set, name it as they do for git.

    Raises:
        UsageError: `start` does not exist, or GIT_DIR names no work tree of a repository.
    """
    begin = Path.cwd() if start is None else Path(start)
    if not begin.exists():
        raise UsageError(
            f"path does not exist: {start}",
            hint="pass a folder or Markdown file inside the repository",
        )
    begin = begin.resolve()
    if os.environ.get("GIT_DIR") and (start is None or _is_cwd(begin)):
        return _named_by_env()
    probe = begin if begin.is_dir() else begin.parent
    for candidate in (probe, *probe.parents):
        dirs = git_dirs_of(candidate)
        if dirs is not None:
            return Workspace(root=candidate, git_dir=dirs[0], common_dir=dirs[1])
        if candidate.name == ".git" or _is_linked_git_dir(candidate):
            raise UsageError(
                f"{begin} is inside the git directory {candidate}: it holds git's own data, "
                "not your docs",
                hint="run kenso-git in the work tree"
                + (f" ({candidate.parent})" if candidate.name == ".git" else ""),
            )
        if _is_bare_repository(candidate):
            raise UsageError(
                f"{candidate} is a bare git repository: it has no work tree to index",
                hint="run kenso-git in a checkout (`git clone` it, or `git worktree add`)",
            )
    return Workspace(root=probe, git_dir=None, common_dir=None)


def _is_cwd(folder: Path) -> bool:
    try:
        return folder == Path.cwd().resolve()
    except OSError:  # the current folder was deleted
        return False


def _named_by_env() -> Workspace:
    """The work tree and git directories that GIT_DIR (with GIT_WORK_TREE, or
    core.worktree, or else the checkout at or above the current folder whose `.git` it is,
    or else the current folder) names, as git finds them: a script, or a wrapper of git,
    may set them to work from outside the checkout. The hooks' runner clears them first
    (git sets them in hooks), so a hook is found from its folder.

    Raises:
        UsageError: GIT_DIR names no repository, or one with no work tree, or one whose
            work tree does not hold it as its `.git` (kenso-git and the git it runs find
            the repository from the work tree).
    """
    from kenso_git.repo.gitrun import capture  # not at the top: gitrun imports this module

    named = f"GIT_DIR={os.environ['GIT_DIR']}"
    if os.environ.get("GIT_WORK_TREE"):
        named += f" GIT_WORK_TREE={os.environ['GIT_WORK_TREE']}"
    argv = ["git", "rev-parse", "--path-format=absolute", "--git-dir", "--show-toplevel"]
    try:
        status, out, err = capture(argv, dict(os.environ), 30.0)
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"{named}: git cannot read it ({exc})") from None
    lines = out.decode("utf-8", "surrogateescape").splitlines()
    if status != 0 or len(lines) != 2:
        said = err.decode("utf-8", "replace").strip().removeprefix("fatal: ")
        no_tree = len(lines) == 1
        raise UsageError(
            f"{named} names "
            + ("a repository with no work tree" if no_tree else f"no git repository ({said})"),
            hint="set GIT_WORK_TREE to its checkout as well"
            if no_tree
            else "point GIT_DIR at a repository's .git folder, or unset GIT_DIR",
        )
    git_dir, root = Path(lines[0]).resolve(), Path(lines[1]).resolve()
    # git fell back to the current folder (a core.worktree elsewhere is kept as git has it)
    if not os.environ.get("GIT_WORK_TREE") and _is_cwd(root):
        root = _checkout_of(git_dir, root)
    dirs = git_dirs_of(root)
    if dirs is None or dirs[0] != git_dir:
        raise UsageError(
            f"{named}: its work tree {root} does not hold {git_dir} as its .git",
            hint="set GIT_WORK_TREE to the checkout whose .git it is (kenso-git finds the "
            "repository from the work tree), or run kenso-git inside that checkout",
        )
    return Workspace(root=root, git_dir=dirs[0], common_dir=dirs[1])


def _checkout_of(git_dir: Path, cwd: Path) -> Path:
    """The folder at or above `cwd` whose `.git` is `git_dir`, else `cwd`. Git exports
    GIT_DIR alone into the hooks, aliases and `rebase -x` commands of a linked worktree or
    a `--separate-git-dir` checkout, and with no work tree named (GIT_WORK_TREE, or
    core.worktree) it takes the current folder as the top: `cd docs && kenso-git lint` in
    such a hook would root the checkout at docs/."""
    for candidate in (cwd, *cwd.parents):
        dirs = git_dirs_of(candidate)
        if dirs is not None and dirs[0] == git_dir:
            return candidate
    return cwd


def resolve_db_path(
    workspace: Workspace,
    *,
    flag: str | os.PathLike[str] | None = None,
    for_write: bool = False,
) -> Path:
    """Pick the database file: --db, KENSO_DATABASE_URL, the root's .kenso/, global."""
    explicit = explicit_db(flag)
    if explicit is not None:
        return explicit
    if workspace.is_git:
        return workspace.root / DB_DIRNAME / DB_FILENAME
    # Outside git the index still belongs to the root, never to whatever folder is the cwd:
    # a temp folder (or `serve --root`) must not open the cwd repository's own index.
    local = workspace.root / DB_DIRNAME
    if local.is_dir() or for_write:
        return local / DB_FILENAME
    fallback = GLOBAL_DB.expanduser()
    if fallback.is_file():
        return fallback
    return local / DB_FILENAME


def explicit_db(flag: str | os.PathLike[str] | None = None) -> Path | None:
    """The database the user named (--db, then KENSO_DATABASE_URL), or None.

    Raises:
        UsageError: the value is a URL (`sqlite:///x.db`), not a path.
    """
    if flag:
        return Path(_not_a_url(os.fspath(flag), "--db")).expanduser().resolve()
    env = os.environ.get("KENSO_DATABASE_URL", "").strip()
    if not env:
        return None
    return Path(_not_a_url(env, "KENSO_DATABASE_URL")).expanduser().resolve()


def _not_a_url(value: str, source: str) -> str:
    """`value`, refused when it reads as a URL: kenso's KENSO_DATABASE_URL is a file path
    despite its name, and `sqlite:///x.db` made a folder named `sqlite:` in the cwd. The
    path is not guessed from it (`sqlite:///x.db` is relative to some tools, absolute to
    others)."""
    scheme, colon, _rest = value.partition(":")
    if colon and len(scheme) > 1 and scheme.replace("+", "").isalnum() and scheme[0].isalpha():
        raise UsageError(
            f"{source} takes a file path, not a URL: {value!r}",
            hint=f"name the database file itself, e.g. {source}"
            + ("=" if source.isupper() else " ")
            + "/path/to/docs.db",
        )
    return value


def ingest_start(target: Path, cwd: Path) -> Path:
    """Where to look for the root when ingesting `target`: outside git, the cwd encloses it.

    `ingest docs/` outside git then roots the index at the cwd, where `sync` looks too; a
    target outside the cwd (or inside a git work tree) is rooted at its own work tree.
    """
    folder = (target if target.is_dir() else target.parent).resolve()
    here = cwd.resolve()
    if folder != here and folder.is_relative_to(here):
        found = find_workspace(folder)
        if not found.is_git:
            return here
    return folder


INDEX_COMMENT = "# kenso-git search index"


def exclude_from_git(
    workspace: Workspace, entry: str = f"/{DB_DIRNAME}/", comment: str = INDEX_COMMENT
) -> bool:
    """Add `entry` to `info/exclude` of the repository once, under the line `comment` (not
    repeated when the file's last comment is that line already); True when the file changed.
    """
    if workspace.common_dir is None:
        return False
    exclude = workspace.common_dir / "info" / "exclude"
    try:
        current = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
    except OSError:
        return False
    variants = {entry, entry.strip("/"), entry.lstrip("/")}
    if any(line.strip() in variants for line in current.splitlines()):
        return False
    exclude.parent.mkdir(parents=True, exist_ok=True)
    sep = "" if not current or current.endswith("\n") else "\n"
    comments = [line.strip() for line in current.splitlines() if line.startswith("#")]
    heading = "" if comments and comments[-1] == comment else f"{comment}\n"
    with exclude.open("a", encoding="utf-8") as handle:
        handle.write(f"{sep}{heading}{entry}\n")
    return True
