"""Ignore rules with git's semantics: .gitignore (nested), info/exclude, core.excludesFile,
.cursorignore and .kensoignore, plus `exclude` patterns from the settings.

Patterns are read and matched as git's dir.c and wildmatch.c do (gitignore(5)), on the
path's bytes: a pattern without a slash (a trailing one aside) is matched against the last
component, any other against the path below its file's folder; `dir/` matches folders
only; `**` spans folders only as a whole component (`**/x`, `x/**/y`, `x/**`). A folder
is excluded only by a pattern that matches the folder itself: `x/**` matches everything
inside `x` but not `x`, so `!x/keep.md` re-includes that file, and `!*/` re-includes the
folders `*` excluded. With `core.ignorecase` (git's default on macOS and Windows) ASCII
case is folded as git folds it, so `private/` hides `Private/` and an agent's `PRIVATE/`.

Rules are layered like git's: a deeper ignore file overrides a shallower one, inside one
file the last matching pattern wins, and a file inside an excluded directory cannot be
re-included (the walker never enters such a directory; `is_ignored` checks every ancestor
for the same reason). A `.gitignore` in the tree that is a symlink is not read, as git
(2.32+) does not read one; a symlinked `.cursorignore` or `.kensoignore` is read only when it
leads to a file inside the work tree.

A long-lived reader (the MCP server) calls `reload_if_changed()` before each call: it stats
the rule files read so far (and the names where one could appear in a folder already
consulted) and starts afresh when any changed, so an edited `.gitignore` applies at once.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.config import Settings
from kenso_git.records import NamedTuple
from kenso_git.repo.gitconfig import excludes_file
from kenso_git.repo.gitconfig import is_true
from kenso_git.repo.gitconfig import read_config
from kenso_git.repo.safeopen import LINK_ERRNOS
from kenso_git.repo.safeopen import open_beneath
from kenso_git.repo.safeopen import real_path
from kenso_git.repo.wildmatch import translate
from kenso_git.repo.workspace import Workspace

if TYPE_CHECKING:
    import re

    Fullmatch = Callable[[bytes], re.Match[bytes] | None]

IGNORE_FILES = (".gitignore", ".cursorignore", ".kensoignore")
# Both caches are keyed by folder; outside callers (agents' paths) can name any number of
# folders, so each is emptied when full instead of growing for the life of the server.
MAX_CACHED_FOLDERS = 8192
ALWAYS_SKIPPED_DIRS = frozenset({".git", ".kenso"})


class _Pattern(NamedTuple):
    negative: bool  # `!pattern`: re-includes
    dir_only: bool  # `pattern/`: matches folders only
    on_name: bool  # no slash inside: matched against the last component (git's NODIR)
    regex: bytes  # a full match of the (folded) subject means the pattern matches
    body: bytes  # the pattern as written, without `!`, a leading `/` or a trailing one


class _Probe:
    """The patterns of one file that can match one kind of entry (a file, a folder), the
    last line first. Most paths match none: one alternation of them all says so at once
    (it has no groups, so the engine drops an alternative at its first differing byte).
    Each regex is compiled when first needed, a line's own once per file for both kinds
    (`compiled`): a 900-line file compiled every line twice at each load (0.19 s), and a
    sync that asks nothing of a file compiles nothing of it."""

    __slots__ = ("_alternations", "compiled", "lines")

    def __init__(
        self, lines: tuple[tuple[bool, bool, bytes], ...], compiled: dict[bytes, Fullmatch]
    ) -> None:
        self.lines = lines  # (on_name, negative, regex)
        self.compiled = compiled  # shared by the file's two probes
        # matching the name (patterns without a slash), matching the path (the others)
        self._alternations: tuple[Fullmatch | None, Fullmatch | None] | None = None

    def _any(self) -> tuple[Fullmatch | None, Fullmatch | None]:
        if self._alternations is None:

            def alternation(on_name: bool) -> Fullmatch | None:
                sources = [regex for name, _neg, regex in self.lines if name == on_name]
                return _fullmatch(b"|".join(sources)) if sources else None

            self._alternations = (alternation(True), alternation(False))
        return self._alternations

    def verdict(self, below: bytes, name: bytes) -> bool | None:
        on_name, on_path = self._any()
        if (on_name is None or on_name(name) is None) and (
            on_path is None or on_path(below) is None
        ):
            return None
        for by_name, negative, regex in self.lines:
            match = self.compiled.get(regex)
            if match is None:
                match = self.compiled[regex] = _fullmatch(regex)
            if match(name if by_name else below) is not None:
                return not negative
        return None  # pragma: no cover - the alternation matched, so one line does


class _Source(NamedTuple):
    base: str  # folder the patterns are relative to ("" = root), no trailing slash
    files: _Probe
    folders: _Probe
    skip: int  # bytes of `base/` in front of a path below it
    patterns: tuple[_Pattern, ...]  # the last line first

    def verdict(self, path: bytes, name: bytes, is_dir: bool) -> bool | None:
        """True = ignored, False = re-included by a negation, None = no pattern matched:
        the last matching line decides (git's last_matching_pattern_from_list).

        `path` is root-relative, below `base`; `name` its last component (both folded
        when the rules fold case)."""
        return (self.folders if is_dir else self.files).verdict(path[self.skip :], name)


# Lines that change nothing here: `.kenso/` is never entered anyway (kenso-git writes it
# into info/exclude), so a repository with no other pattern has no source to consult.
_NO_OP_LINES = frozenset({b"/.kenso/", b".kenso/", b"/.kenso", b".kenso"})
_BOM = b"\xef\xbb\xbf"


def _lines(data: bytes) -> list[bytes]:
    """The pattern lines of a rule file as git reads them (add_patterns_from_buffer)."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    out: list[bytes] = []
    for line in data.split(b"\n"):
        if not line or line.startswith(b"#"):
            continue
        out.append(_trim_trailing_spaces(line[:-1] if line.endswith(b"\r") else line))
    return out


def _trim_trailing_spaces(line: bytes) -> bytes:
    """Drop trailing spaces unless escaped with a backslash (git's trim_trailing_spaces)."""
    stripped = line.rstrip(b" ")
    if len(stripped) == len(line):
        return line
    escapes = len(stripped) - len(stripped.rstrip(b"\\"))
    return stripped + b" " if escapes % 2 else stripped


def _compile(lines: Iterable[bytes], base: str, fold: bool) -> _Source | None:
    patterns = [
        pattern
        for line in lines
        if line not in _NO_OP_LINES and (pattern := _pattern(line, fold)) is not None
    ]
    if not patterns:
        return None
    skip = len(_as_bytes(base)) + 1 if base else 0
    compiled: dict[bytes, Fullmatch] = {}
    files, folders = (_probe(patterns, compiled, folders=f) for f in (False, True))
    return _Source(base, files, folders, skip, tuple(reversed(patterns)))


def _fullmatch(regex: bytes) -> Fullmatch:
    import re  # only once some rule file has a pattern

    return re.compile(regex, re.DOTALL).fullmatch


def _probe(patterns: list[_Pattern], compiled: dict[bytes, Fullmatch], *, folders: bool) -> _Probe:
    taken = [p for p in reversed(patterns) if folders or not p.dir_only]
    return _Probe(tuple((p.on_name, p.negative, p.regex) for p in taken), compiled)


def _pattern(line: bytes, fold: bool) -> _Pattern | None:
    """One line as git's parse_path_pattern reads it; None for one that matches nothing."""
    negative = line.startswith(b"!")
    body = line[1:] if negative else line
    dir_only = body.endswith(b"/")
    if dir_only:
        body = body[:-1]
    on_name = b"/" not in body
    if not on_name and body.startswith(b"/"):
        body = body[1:]  # anchored: the leading slash only says "from this folder"
    regex = translate(body, fold=fold) if body else None
    if regex is None:
        return None
    return _Pattern(negative, dir_only, on_name, regex, body)


def _read_lines(path: Path) -> list[bytes] | None:
    try:
        return _lines(path.read_bytes())
    except OSError:
        return None


# git opens an in-tree `.gitignore` with O_NOFOLLOW (dir.c's PATTERN_NOFOLLOW, 2.32+): a
# symlink there is not read at all ("unable to access '.gitignore': Too many levels of
# symbolic links"). info/exclude and core.excludesFile are followed (`_read_lines`).
_NOFOLLOW = ".gitignore"


def _read_in_tree(root: Path, folder: str, name: str) -> list[bytes] | None:
    """The lines of the rule file `name` in `folder`, opened with no symlink followed on the
    way from `root`. A symlinked `.gitignore` is not read (as git); a symlinked
    `.cursorignore` or `.kensoignore` is read at its real path when that is a regular file
    inside the work tree, never outside it. A FIFO is never read."""
    rel = f"{folder}/{name}" if folder else name
    try:
        # most folders hold none: one failed open, no stat (a walk probes 3 names in each)
        os.close(os.open(os.path.join(root, rel), _PROBE))
        fd = open_beneath(str(root), rel)  # and no folder on the way is a link
    except OSError as exc:
        if exc.errno not in LINK_ERRNOS or name == _NOFOLLOW:
            return None
        try:
            fd = open_beneath(*_inside(str(root), rel))
        except OSError:
            return None
    with os.fdopen(fd, "rb") as handle:
        try:
            return _lines(handle.read())
        except OSError:
            return None


_PROBE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def _inside(root: str, rel: str) -> tuple[str, str]:
    """(the real root, the real path below it) of `root/rel`, which a link leads through.

    Raises:
        OSError: it resolves outside the work tree, or a link on it changed meanwhile.
    """
    real_root, real = real_path(root), real_path(os.path.join(root, rel))
    if real_root is None or real is None:
        raise OSError(errno.ELOOP, "a link changed while it was resolved", rel)
    inner = os.path.relpath(real, real_root)
    if inner == os.curdir or inner.startswith(os.pardir + os.sep) or inner == os.pardir:
        raise OSError(errno.EXDEV, "leads outside the work tree", rel)
    return real_root, inner.replace(os.sep, "/")


Signature = tuple[int, int, int] | None  # (mtime_ns, size, inode); None: no such file


def _signature(path: str) -> Signature:
    """A symlink signs as its target, its inode negated: a `.gitignore` swapped for a link to
    itself (which git then stops reading) changes, and so does an edit of a link's target."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            st = os.stat(path)
            return st.st_mtime_ns, st.st_size, -1 - st.st_ino
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def signatures_hold(signatures: dict[str, Signature]) -> bool:
    """True when every rule file of `signatures` is still as it was (see `signatures()`)."""
    return all(_signature(path) == sig for path, sig in signatures.items())


# How patterns are matched: an index records it with the rule files it was synced under, so a
# matcher that reads a pattern otherwise (git's folder rules, `core.ignorecase`, a symlinked
# `.gitignore` left unread) walks once.
MATCHER = "git-dir.c-2"


def folds_case(config: Mapping[str, str]) -> bool:
    """Whether git compares paths with ASCII case folded (`core.ignorecase`)."""
    return is_true(config.get("core.ignorecase", "false"))


def _base_sources(
    ws: Workspace, settings: Settings, watched: dict[str, Signature]
) -> tuple[list[_Source], bool]:
    """excludesFile, info/exclude and settings.exclude, lowest precedence first, and
    whether the rules fold case (`core.ignorecase`)."""
    base: list[_Source] = []
    fold = False
    if ws.is_git:
        assert ws.common_dir is not None
        config = read_config(ws)
        fold = folds_case(config)
        for path in (excludes_file(config), ws.common_dir / "info" / "exclude"):
            watched[str(path)] = _signature(str(path))  # before reading: a later edit shows
            lines = _read_lines(path)
            if lines and (src := _compile(lines, "", fold)) is not None:
                base.append(src)
    if settings.exclude:
        lines = _lines("\n".join(settings.exclude).encode("utf-8", "surrogateescape"))
        if (src := _compile(lines, "", fold)) is not None:
            base.append(src)
    return base, fold


class IgnoreRules:
    """Layered ignore patterns for one work tree; folder files are loaded on demand."""

    __slots__ = (
        "_chain_cache",
        "_folder_cache",
        "_settings",
        "_watch",
        "_watched",
        "_ws",
        "base_sources",
        "fold",
        "root",
    )

    def __init__(
        self, root: Path, base_sources: list[_Source] | None = None, *, fold: bool = False
    ) -> None:
        self.root = root
        self.base_sources = base_sources or []  # lowest precedence first
        self.fold = fold  # `core.ignorecase`: paths and patterns compared with ASCII case folded
        self._folder_cache: dict[str, list[_Source]] = {}
        self._chain_cache: dict[str, list[_Source]] = {}
        self._watched: dict[str, Signature] = {}  # every rule file read (or probed) so far
        self._watch = False  # only long-lived readers pay for the stats
        self._ws: Workspace | None = None
        self._settings: Settings | None = None

    @classmethod
    def for_workspace(
        cls, ws: Workspace, settings: Settings, *, watch: bool = False
    ) -> IgnoreRules:
        """Rules that apply everywhere in `ws`: excludesFile, info/exclude, settings.exclude.

        `watch`: record what was read for `reload_if_changed()` (a server's scope); a walk
        that throws the rules away after one pass skips those stats."""
        watched: dict[str, Signature] = {}
        base, fold = _base_sources(ws, settings, watched)
        rules = cls(root=ws.root, base_sources=base, fold=fold)
        rules._watched = watched if watch else {}
        rules._watch = watch
        rules._ws, rules._settings = ws, settings
        return rules

    def changed(self) -> bool:
        """True when a rule file read so far changed, appeared or vanished on disk."""
        return any(_signature(path) != sig for path, sig in list(self._watched.items()))

    def signatures(self) -> dict[str, Signature]:
        """Every rule file read (or probed) so far, with its signature then (`watch` only)."""
        return dict(self._watched)

    def reload_if_changed(self) -> bool:
        """Forget every cached rule when `changed()`; True when it did.

        Costs one stat per rule file consulted (three per folder seen, plus the base files).
        A change of git's configuration alone (`core.excludesFile`, `core.ignorecase`) or
        of `exclude` applies at the next reload a rule file causes, or a restart.
        """
        if not self.changed():
            return False
        watched: dict[str, Signature] = {}
        if self._ws is not None and self._settings is not None:
            self.base_sources, self.fold = _base_sources(self._ws, self._settings, watched)
        self._watched = watched
        self._folder_cache = {}
        self._chain_cache = {}
        return True

    def folder_sources(self, folder: str) -> list[_Source]:
        """Patterns of the ignore files that live directly in `folder` ("" = root)."""
        return self._folder(folder)[0]

    def _folder(self, folder: str) -> tuple[list[_Source], bool]:
        """The folder's sources and whether they may be cached (the folder exists).

        When watching, a folder that does not exist is neither cached nor watched: outside
        callers name any number of them, and one created later is read when next consulted.
        A walk only consults folders it found, so it skips that check."""
        cached = self._folder_cache.get(folder)
        if cached is not None:
            return cached, True
        directory = self.root / folder if folder else self.root
        if self._watch and not os.path.isdir(directory):  # no OSError (ENAMETOOLONG)
            return [], False
        found: list[_Source] = []
        for name in IGNORE_FILES:
            path = directory / name
            if self._watch and len(self._watched) < 3 * MAX_CACHED_FOLDERS:
                self._watched[str(path)] = _signature(str(path))
            lines = _read_in_tree(self.root, folder, name)
            if lines and (src := _compile(lines, folder, self.fold)) is not None:
                found.append(src)
        if len(self._folder_cache) >= MAX_CACHED_FOLDERS:
            self._folder_cache.clear()
        self._folder_cache[folder] = found
        return found, True

    def _sources_for(self, folder: str) -> list[_Source]:
        """Every source that applies inside `folder`, highest precedence first (memoised)."""
        cached = self._chain_cache.get(folder)
        if cached is None:
            cached, complete = self._build_chain(folder)
            if complete:  # a missing folder's chain would go stale when it is created
                if len(self._chain_cache) >= MAX_CACHED_FOLDERS:
                    self._chain_cache.clear()
                self._chain_cache[folder] = cached
        return cached

    def _build_chain(self, folder: str) -> tuple[list[_Source], bool]:
        chain = [""]
        if folder:
            parts = folder.split("/")
            chain += ["/".join(parts[: i + 1]) for i in range(len(parts))]
        levels: list[list[_Source]] = []
        complete = True
        for level in chain:  # root first: below a missing folder nothing exists to read
            found: list[_Source] = []
            if complete:
                found, complete = self._folder(level)
            levels.append(found)
        ordered: list[_Source] = []
        for found in reversed(levels):
            ordered.extend(reversed(found))
        ordered.extend(reversed(self.base_sources))
        return ordered, complete

    def _matches(self, rel: str, is_dir: bool) -> bool:
        """The verdict of the rules on `rel` itself (git's last_matching_pattern): its folder
        known not to be excluded, a folder matched as git matches one, with no `/` added."""
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        path = _as_bytes(rel)
        if self.fold:
            path = path.lower()
        name = path[path.rfind(b"/") + 1 :]
        for source in self._sources_for(folder):
            verdict = source.verdict(path, name, is_dir)
            if verdict is not None:
                return verdict
        return False

    def _internal(self, name: str) -> bool:
        return (name.lower() if self.fold else name) in ALWAYS_SKIPPED_DIRS

    def is_ignored(self, rel: str, *, is_dir: bool = False, every_entry: bool = False) -> bool:
        """True when `rel` (root-relative POSIX) or any folder above it is excluded; with
        `every_entry`, also when `rel` is a folder whose every entry is (`ignores_everything_in`:
        git's `rel/**`, which git does not call `rel` itself ignored)."""
        parts = [p for p in rel.split("/") if p]
        if not parts:
            return False
        if any(self._internal(p) for p in parts[:-1]) or (is_dir and self._internal(parts[-1])):
            return True
        for i in range(1, len(parts)):
            if self._matches("/".join(parts[:i]), True):
                return True
        if self._matches("/".join(parts), is_dir):
            return True
        return every_entry and is_dir and self.ignores_everything_in("/".join(parts))

    def ignores_everything_in(self, folder: str) -> bool:
        """True when the rules exclude every entry of `folder`, whatever its name, so every
        path it could hold (`folder/**`, `folder/*`, a `*` in its own `.gitignore`, and no
        negation that could re-include one after it): `repo.ignorewhole`. Never for the
        checkout's root. Says nothing of `folder` itself (`is_ignored` does)."""
        from kenso_git.repo.ignorewhole import every_entry_verdict

        rel = "/".join(p for p in folder.split("/") if p)
        if not rel:
            return False
        path = _as_bytes(rel).lower() if self.fold else _as_bytes(rel)
        for source in self._sources_for(rel):
            verdict = every_entry_verdict(source.patterns, path[source.skip :], fold=self.fold)
            if verdict is not None:
                return verdict
        return False

    def is_ignored_in(self, folder: str, name: str, *, is_dir: bool) -> bool:
        """Walker fast path: `folder` is known not to be ignored; check one entry in it."""
        if is_dir and self._internal(name):
            return True
        rel = f"{folder}/{name}" if folder else name
        return self._matches(rel, is_dir)


def _as_bytes(rel: str) -> bytes:
    """The path as git sees it: the bytes of the name on disk (undecodable bytes come back
    from `surrogateescape`); a lone surrogate an outside caller sent is kept as UTF-8."""
    try:
        return rel.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return rel.encode("utf-8", "surrogatepass")
