"""The security gate between outside path arguments and the repository.

Every path an agent (or any other outside caller) names goes through `Scope.resolve`,
which returns a `RepoPath` only when the path is inside the scoped roots after the real
path is resolved. Refusals raise `ScopeError` whose `rule` names the check that failed;
paths are never trimmed into something acceptable. Results read from the index are
filtered with `Scope.allows` (or a per-call `Scope.gate()`), which applies the same checks
to the same real path, so an agent never sees documents outside its scope, whichever tool
it asks (docs/security.md: "one rule for every door").

The files themselves are looked up and opened without following a link the gate did not
approve (`repo/safeopen.py`): `open_file` reads the file at the approved real path, and a
gate given `same_file` lets an index path through only when the file there is the one its
text was read from, so a link swapped in after a check never leads anywhere (#27).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from pathlib import Path
from pathlib import PurePosixPath
from typing import NewType
from typing import Protocol

from kenso_git.config import Settings
from kenso_git.errors import ConfigError
from kenso_git.repo import safeopen
from kenso_git.repo.foreign import ENVIRONMENT
from kenso_git.repo.foreign import NESTED
from kenso_git.repo.foreign import Foreign
from kenso_git.repo.pathtext import MAX_PATH_CHARS as MAX_PATH_CHARS
from kenso_git.repo.pathtext import MAX_PATH_DEPTH as MAX_PATH_DEPTH
from kenso_git.repo.pathtext import check_text as _check_text
from kenso_git.repo.pathtext import refuse as _refuse
from kenso_git.repo.rootpath import below_root
from kenso_git.repo.workspace import Workspace
from kenso_git.repo.workspace import is_markdown
from kenso_git.repo.written import INTERNAL_DIRS as INTERNAL_DIRS
from kenso_git.repo.written import MAX_CACHED_VERDICTS
from kenso_git.repo.written import IsIgnored as IsIgnored
from kenso_git.repo.written import IsIgnoredIn as IsIgnoredIn
from kenso_git.repo.written import Verdicts


class SameFile(Protocol):
    """Whether the index's text of a path was read from the file `st` describes (see
    `Scope.gate`); `reads` names the read transaction its answers hold for."""

    def __call__(self, path: str, st: os.stat_result, /) -> bool: ...

    def reads(self) -> int:
        """Changes when the caller begins another read transaction."""
        ...


Lstat = Callable[[str], os.stat_result]
RepoPath = NewType("RepoPath", str)
"""A repo-relative POSIX path that passed `Scope.resolve` (lexically and after realpath)."""

MAX_OPEN_TRIES = 3  # a path that changes this often while it is opened is refused


def _never_ignored(rel: str, *, is_dir: bool = False, every_entry: bool = False) -> bool:
    return False


def _unchanged() -> bool:
    return False


@dataclass(frozen=True, slots=True)
class Scope:
    """The folders an agent may see: the checkout, or `agent_scoped_roots` inside it."""

    root: Path  # the real (resolved) work-tree root
    roots: tuple[Path, ...]  # real scoped roots, each inside `root`
    is_ignored: IsIgnored = _never_ignored
    # Re-reads the ignore rules when their files changed on disk; True when it did.
    reload: Callable[[], bool] = _unchanged
    # The rules on one name in a folder not excluded (None: `is_ignored` on the whole path)
    is_ignored_in: IsIgnoredIn | None = None
    # allows() runs for every candidate row of a search; the rules only change through
    # reload(), so each index path is decided once per rule set, and what its folder
    # decides once per folder (`repo/written.py`), but in a folder the work tree lacks.
    _verdicts: Verdicts = field(default_factory=Verdicts, compare=False, repr=False)
    # which folders are nested repositories or environment folders: their markers may
    # appear at any time, so each call looks again (once per folder, `repo/foreign.py`)
    _foreign: Foreign = field(default_factory=Foreign, compare=False, repr=False)
    # bumped each time reload() reads the rules again: `rules_generation`
    _reads: list[int] = field(default_factory=lambda: [0], compare=False, repr=False)

    def reload_if_changed(self) -> bool:
        """Apply edited ignore files (.gitignore, .cursorignore, info/exclude...) at once,
        and look at the markers of nested repositories and environment folders afresh.

        A few stats when nothing changed; `resolve` and `gate` call it, so each tool call
        sees the rules and the folders as they are on disk. Also for a file watcher to call
        on its own.
        """
        self._foreign.begin()  # a `.git` or `pyvenv.cfg` made since the last call counts
        if not self.reload():
            return False
        self._verdicts.clear()
        self._reads[0] += 1
        return True

    @property
    def rules_generation(self) -> int:
        """Counts the times the ignore rules were read again: a list judged by them is kept
        under it, and is stale once it moved."""
        return self._reads[0]

    def judging_by(self, is_ignored: IsIgnored) -> Scope:
        """This scope with `is_ignored` for its ignore rules and verdicts of its own, for a
        caller that must know which reading of the rules each verdict came from (a
        revision's cached docs are kept under the rule files they were chosen by)."""
        return replace(
            self,
            is_ignored=is_ignored,
            reload=_unchanged,
            is_ignored_in=None,
            _verdicts=Verdicts(),
            _foreign=Foreign(),
        )

    @property
    def rel_roots(self) -> tuple[str, ...]:
        """Scoped roots as repo-relative POSIX strings ("." for the whole checkout)."""
        return tuple(r.relative_to(self.root).as_posix() for r in self.roots)

    def resolve(self, raw: object) -> RepoPath:
        """Check an outside path argument and return it as a `RepoPath`.

        Raises:
            ScopeError: the path is refused; `rule` names the check (for example
                `parent-traversal`, `outside-root`, `symlink-escape`, `ignored`,
                `environment`).
        """
        text, rel = self._as_written(raw)
        found = safeopen.real_path(str(self.root / rel))  # Path.resolve raises on a loop
        if found is None:
            raise _refuse("symlink-escape", text, "a symbolic link on the path kept changing")
        real = Path(found)
        if not real.is_relative_to(self.root):
            raise _refuse("symlink-escape", text, "a symbolic link leads outside the repository")
        real_rel = PurePosixPath(real.relative_to(self.root).as_posix())
        self._check_inside(real_rel, text, real=True)
        try:
            folder = real.is_dir()
        except OSError:  # a name over the system's limit (ENAMETOOLONG): no folder there
            folder = False
        for named in (rel, real_rel) if real_rel != rel else (rel,):
            self._check_folder(named, text, folder=folder)
        if not folder and _as_folder(text) and real.exists():
            raise _refuse("not-a-folder", text, NOT_A_FOLDER)
        return RepoPath(rel.as_posix() if rel.parts else ".")

    def resolve_as_written(self, raw: object) -> RepoPath:
        """Check an outside path argument naming a file of another revision (#29's `ref`):
        every check of `resolve` on the path as written, none on disk (the work tree need
        not hold it, and what it holds says nothing of the revision) but the markers of an
        environment folder or a nested repository, as `shows` looks for them.

        Raises:
            ScopeError: the path is refused; `rule` names the check.
        """
        text, rel = self._as_written(raw)
        folder = bool(rel.parts) and not is_markdown(rel.name)  # a doc's name never is one
        if not folder and rel.parts and _as_folder(text):
            raise _refuse("not-a-folder", text, NOT_A_FOLDER)
        if folder:
            self._check_ignored(rel, text, is_dir=True)
            self._check_environment(rel, text, folder=True)
        self._check_nested(rel, text, folder=folder)
        return RepoPath(rel.as_posix() if rel.parts else ".")

    def _as_written(self, raw: object) -> tuple[str, PurePosixPath]:
        """The argument's text and its repo-relative form, after every check of the path as
        written (after applying edited ignore files)."""
        text = _check_text(raw)
        self.reload_if_changed()
        lexical = PurePosixPath(text)
        if lexical.is_absolute():  # below the root, or a folder that is it by another name
            below = below_root(self.root, Path(_lexical_norm(lexical)))
            if below is None:
                raise _refuse("outside-root", text, "the path is outside the repository checkout")
            rel = below
        else:
            rel = PurePosixPath(_lexical_norm(lexical))
        self._check_inside(rel, text, real=False)
        return text, rel

    def _check_inside(self, rel: PurePosixPath, text: str, *, real: bool) -> None:
        if any(part in INTERNAL_DIRS for part in rel.parts):
            raise _refuse("internal-dir", text, "paths inside .git/ and .kenso/ are not served")
        absolute = self.root.joinpath(*rel.parts)
        if not any(absolute.is_relative_to(r) for r in self.roots):
            rule = "symlink-escape" if real else "outside-scope"
            scoped = ", ".join(self.rel_roots)
            raise _refuse(rule, text, f"the path is outside the agent scope ({scoped})")
        self._check_ignored(rel, text, is_dir=False)
        self._check_environment(rel, text, folder=False)

    def _check_ignored(self, rel: PurePosixPath, text: str, *, is_dir: bool) -> None:
        # a folder whose every entry is excluded (`docs/old/**`, which git does not call
        # ignored itself) is refused too: no file under it is ever indexed
        if rel.parts and self.is_ignored(rel.as_posix(), is_dir=is_dir, every_entry=is_dir):
            what = "the folder, or everything in it," if is_dir else "the path"
            raise _refuse(
                "ignored",
                text,
                f"{what} is excluded by .gitignore, .cursorignore, .kensoignore or `exclude`",
            )

    def _marks(self, rel: PurePosixPath, *, folder: bool) -> int:
        """The folder marks (`repo/foreign.py`: ingest's one decision) of `rel` as a
        folder, or of the folder that holds it."""
        where = rel.as_posix() if folder else rel.parent.as_posix()
        return self._foreign.marks(str(self.root), "" if where == "." else where)

    def _check_environment(self, rel: PurePosixPath, text: str, *, folder: bool) -> None:
        """Refuse a path in an environment folder (a virtualenv, `node_modules`...), or such
        a folder itself: ingest never indexes its third-party files (`repo/discover.py`)."""
        if rel.parts and self._marks(rel, folder=folder) & ENVIRONMENT:
            raise _refuse(
                "environment",
                text,
                "the path, or where a symbolic link on it leads, is in an environment folder "
                "(a virtualenv, node_modules...), whose third-party files are never indexed",
            )

    def _check_folder(self, rel: PurePosixPath, text: str, *, folder: bool) -> None:
        """The checks on disk of a path that passed the others: a folder is judged as git
        judges one (`private/` ignores the folder `private`: a path filter naming it is
        refused as its files are, as is an environment folder), and nothing inside a nested
        repository or a submodule is served (ingest never enters one)."""
        if not rel.parts:
            return
        if folder or not is_markdown(rel.name):
            self._check_ignored(rel, text, is_dir=True)
            self._check_environment(rel, text, folder=True)
        self._check_nested(rel, text, folder=folder)

    def _check_nested(self, rel: PurePosixPath, text: str, *, folder: bool) -> None:
        if rel.parts and self._marks(rel, folder=folder) & NESTED:
            raise _refuse(
                "nested-repo",
                text,
                "the file, or where a symbolic link on its path leads, is inside a nested "
                "repository or a submodule, whose docs are its own",
            )

    def allows(self, rel_path: str) -> bool:
        """True when an index path (repo-relative POSIX) passes the gate `resolve` applies:
        the path itself and its real path (through symlinks) are in scope, not ignored, and
        in no nested repository or environment folder."""
        return self._admits(rel_path, None, None)

    def gate(
        self, same_file: SameFile | None = None, walker: safeopen.Walker | None = None
    ) -> Callable[[str], bool]:
        """`allows` memoised for one call, after applying changed ignore files: a search
        asks about each path many times, and the links on disk may change between calls,
        so nothing outlives the call.

        With `same_file`, a path passes only when something is there and `same_file(path,
        lstat)` accepts the file found at its approved real path (looked up without
        following a link): the caller checks that the index's text of `path` was read from
        that very file, so a hit never carries another file's text (#27). `walker` keeps
        the folders it opened for the call (see `gating`).
        """
        self.reload_if_changed()
        seen: dict[str, bool] = {}
        lstat = None if walker is None else walker.lstat
        # a call that reads the index again (its check synced a change meanwhile) judges
        # each path again: the index's inode of a path may be another one now
        reads = [same_file.reads() if same_file is not None else 0]

        def check(rel_path: str) -> bool:
            if same_file is not None and same_file.reads() != reads[0]:
                seen.clear()
                reads[0] = same_file.reads()
            verdict = seen.get(rel_path)
            if verdict is None:
                if len(seen) >= MAX_CACHED_VERDICTS:
                    seen.clear()
                verdict = seen[rel_path] = self._admits(rel_path, same_file, lstat)
            return verdict

        return check

    @contextlib.contextmanager
    def gating(self, same_file: SameFile | None = None) -> Iterator[Callable[[str], bool]]:
        """`gate` for the body of a `with`: the folders it opens to look files up are kept
        until the end of the block, so each path costs one `fstatat`."""
        with safeopen.Walker(str(self.root)) as walker:
            yield self.gate(same_file, walker)

    def file_stat(self, rel: str) -> os.stat_result | None:
        """The `lstat` of what is at `rel`'s approved real path (the path itself, or where its
        symbolic links lead), looked up without following a link the gate did not approve;
        None when nothing is there.

        Raises:
            ScopeError: the path, or its real path as it is now, is refused.
        """
        return self._located(rel)[1]

    def open_file(self, rel: str) -> int:
        """A read-only descriptor of the regular file at `rel`'s approved real path, opened
        without following any link: a link swapped in after the check is refused, never read.

        Raises:
            ScopeError: the path is refused, or kept changing while it was opened.
            OSError: nothing is there (`FileNotFoundError`), a folder (`IsADirectoryError`),
                not a regular file, or unreadable.
        """
        for _ in range(MAX_OPEN_TRIES):
            real, found = self._located(rel)
            if found is None:
                raise FileNotFoundError(errno.ENOENT, "no such file", rel)
            try:
                return safeopen.open_beneath(str(self.root), real)
            except OSError as err:
                if err.errno not in safeopen.LINK_ERRNOS:
                    raise
                # a link appeared on the way since we looked: look again, as the gate does
        raise _refuse(
            "symlink-escape", rel, "a symbolic link kept appearing on the path while it was read"
        )

    def _located(self, rel: str) -> tuple[str, os.stat_result | None]:
        found = self._locate(rel) if self._lexical(rel) else None
        if found is None:
            raise _refuse("symlink-escape", rel, "a symbolic link leads outside the agent scope")
        found_dir = found[1] is not None and stat.S_ISDIR(found[1].st_mode)
        self._check_folder(PurePosixPath(found[0]), rel, folder=found_dir)
        if is_markdown(rel) and not is_markdown(found[0]):  # as ingest skips such a link
            raise _refuse(
                "not-markdown", rel, "a symbolic link leads to a file that is not Markdown"
            )
        return found

    def _admits(self, rel_path: str, same_file: SameFile | None, lstat: Lstat | None) -> bool:
        if not self._lexical(rel_path):
            return False
        found = self._locate(rel_path, lstat)
        if found is None:
            return False
        if same_file is None:
            return True  # a vanished file passes: the index may still answer for its path
        st = found[1]
        return st is not None and stat.S_ISREG(st.st_mode) and same_file(rel_path, st)

    def _locate(
        self, rel: str, lstat: Lstat | None = None
    ) -> tuple[str, os.stat_result | None] | None:
        """(real repo-relative path, its lstat or None when nothing is there) of a path that
        passed the lexical checks; None when the real path is refused.

        The path is first looked up with no link followed (the common case: one `lstat` per
        component, all relative to a folder's descriptor). Only when a link is met is the
        real path resolved, checked like the path, and looked up the same way: a link that
        appears meanwhile is refused, never followed.
        """
        base = str(self.root)
        try:
            found = lstat(rel) if lstat is not None else safeopen.lstat_beneath(base, rel)
        except FileNotFoundError:
            return rel, None
        except OSError:
            found = None  # a folder on the way is a link (or not a folder)
        if found is not None and not stat.S_ISLNK(found.st_mode):
            return rel, found
        real = safeopen.real_path(os.path.join(base, rel))
        if real is None or not real.startswith(base + os.sep):
            return None
        real_rel = real[len(base) + 1 :].replace(os.sep, "/")
        if real_rel != rel and not self._lexical(real_rel):
            return None
        try:
            return real_rel, safeopen.lstat_beneath(base, real_rel)
        except FileNotFoundError:
            return real_rel, None  # a dangling link
        except OSError as err:
            if real_rel == rel and err.errno == errno.ENOTDIR:
                return rel, None  # a file where a folder should be: nothing is there
            return None  # it changed again while we looked: refused, not followed

    def shows(self, rel_path: str) -> bool:
        """True when the scope shows `rel_path` as written (roots, ignore rules, internal
        folders, and no folder on its way a nested repository or an environment folder in
        the work tree), whatever file is there: for paths of another revision or a deleted
        file."""
        return self._lexical(rel_path)

    def _lexical(self, rel_path: str) -> bool:
        """The checks on the path as written (cached until `reload` sees a rule file change),
        then whether a folder on its way is a nested repository or an environment folder,
        as `resolve` refuses them (looked at once per folder per call: a marker may appear
        while the rules stay as they were).

        A path in a folder the work tree lacks (another revision's, a deleted one's) is
        judged again each time: the rules read no file there, so `reload` would not see
        one made there later. The folder is looked at before the rules are: one made
        meanwhile is read by them, and watched.
        """
        folder = rel_path.rpartition("/")[0]
        verdict = self._verdicts.judged(self, rel_path, folder)
        return verdict and not self._foreign.marks(str(self.root), folder)


NOT_A_FOLDER = "the path ends in `/` as a folder's does, but names a file"


def _as_folder(text: str) -> bool:
    """Written as a folder (`docs/a.md/`: pathlib drops the ending, no file system does)."""
    return text.endswith(("/", "/."))


def _lexical_norm(path: PurePosixPath) -> str:
    """Drop "." parts and repeated slashes; `..` was refused before we get here."""
    parts = [p for p in path.parts if p != "."]
    if not parts:
        return "."
    return PurePosixPath(*parts).as_posix()


def build_scope(
    workspace: Workspace,
    settings: Settings,
    *,
    is_ignored: IsIgnored | None = None,
    reload: Callable[[], bool] = _unchanged,
    is_ignored_in: IsIgnoredIn | None = None,
) -> Scope:
    """Build the scope from `agent_scoped_roots` (default: the whole checkout).

    Raises:
        ConfigError: a scoped root is absolute, climbs out with `..`, or resolves
            (through a symbolic link) outside the repository. The server fails closed.
    """
    root = workspace.root.resolve()
    roots = _scoped_roots(root, settings.agent_scoped_roots, settings.source)
    return Scope(
        root=root,
        roots=roots,
        is_ignored=is_ignored or _never_ignored,
        reload=reload,
        is_ignored_in=is_ignored_in if is_ignored else None,
    )


def _scoped_roots(root: Path, configured: Sequence[str], source: str | None) -> tuple[Path, ...]:
    if not configured:
        return (root,)
    where = source or "configuration"
    out: list[Path] = []
    for entry in configured:
        # checked before any trimming: "/" or "  " must not become the whole checkout
        text = entry.strip()
        pure = PurePosixPath(text)
        if not text or pure.is_absolute() or ".." in pure.parts or "\x00" in text or "\\" in text:
            raise ConfigError(
                f"agent-scoped-roots entry {entry!r} must be a folder inside the repository",
                path=where,
                hint='use repo-relative folders such as agent-scoped-roots = ["docs"]',
            )
        real = Path(os.path.realpath(root / _lexical_norm(pure)))  # no RuntimeError on a loop
        if not real.is_relative_to(root):
            raise ConfigError(
                f"agent-scoped-roots entry {entry!r} resolves outside the repository",
                path=where,
                hint="remove the symbolic link or the entry",
            )
        out.append(real)
    return tuple(out)


def scope_for(workspace: Workspace, settings: Settings) -> Scope:
    """The scope with the repository's ignore rules (.gitignore, .cursorignore, .kensoignore)."""
    from kenso_git.repo.ignore import IgnoreRules  # lazy: a gate built without rules skips it

    rules = IgnoreRules.for_workspace(workspace, settings, watch=True)
    return build_scope(
        workspace,
        settings,
        is_ignored=rules.is_ignored,
        reload=rules.reload_if_changed,
        is_ignored_in=rules.is_ignored_in,
    )
