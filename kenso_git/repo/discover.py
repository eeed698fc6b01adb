"""Find the Markdown files of a work tree, honouring the ignore rules, and load them.

Discovery never enters `.git/`, `.kenso/`, ignored folders, nested repositories
(submodules), environment folders (a virtualenv, `node_modules`...: third-party files even
when not ignored, announced in one summary line) or symlinked folders; it skips files over
the size cap, binary files and files whose path no agent may name (`repo.pathtext`: a
leading `~`, `%XX`, a backslash, a control character, more components or characters than
the gate takes), and indexes a symlinked file only when its real target would be indexed
itself (a Markdown file inside the checkout, not ignored, not in `.git/`, `.kenso/`, a
nested repository or an environment folder), each skip with a one-line warning
(`repo/foreign.py` says which folders are not the project's). docs/security.md states the
rule.
"""

from __future__ import annotations

import os
import stat as stat_mod
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from pathlib import Path

from kenso_git.config import Settings
from kenso_git.records import NamedTuple
from kenso_git.repo.foreign import in_environment as in_environment
from kenso_git.repo.foreign import in_nested_repository as in_nested_repository
from kenso_git.repo.foreign import is_environment as is_environment
from kenso_git.repo.foreign import is_nested_repository
from kenso_git.repo.ignore import ALWAYS_SKIPPED_DIRS
from kenso_git.repo.ignore import IgnoreRules
from kenso_git.repo.pathtext import oversized
from kenso_git.repo.pathtext import unnameable
from kenso_git.repo.safeopen import LINK_ERRNOS
from kenso_git.repo.safeopen import open_beneath
from kenso_git.repo.safeopen import read_capped
from kenso_git.repo.safeopen import real_path
from kenso_git.repo.status import FileStatus
from kenso_git.repo.workspace import Workspace
from kenso_git.repo.workspace import in_scope
from kenso_git.repo.workspace import is_markdown
from kenso_git.repo.workspace import is_undecodable
from kenso_git.text.parse import Document
from kenso_git.text.parse import decode
from kenso_git.text.parse import looks_binary
from kenso_git.text.parse import parse_document

Warn = Callable[[str], None]


class SourceFile(NamedTuple):
    """A Markdown file found in the work tree, with the stat data used to skip re-reads."""

    path: str  # root-relative POSIX
    location: str  # absolute path as a string (a Path costs more to build than to use)
    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    # a symlink's vetted real target, root-relative: what is read ("" = the path itself)
    real: str = ""

    @property
    def abspath(self) -> Path:
        return Path(self.location)

    @property
    def root(self) -> str:
        """The work tree's root, as `location` spells it."""
        return self.location[: len(self.location) - len(self.path) - 1]


class WalkFacts:
    """What the walk noticed besides Markdown files."""

    __slots__ = ("links", "saw_attributes")

    def __init__(self, *, saw_attributes: bool = False) -> None:
        # a .gitattributes file exists under the walked folders
        self.saw_attributes = saw_attributes
        # Markdown files that are symlinks, indexed or skipped (dangling, refused): the
        # git mark keeps them (index/gitprobe.py, `Mark.links`)
        self.links: list[str] = []


class Skip(NamedTuple):
    """A file that discovery found but will not index, and why."""

    path: str
    reason: FileStatus  # why it is not indexed
    detail: str
    racy: bool = False  # the file changed while it was read: read it again next time


class Read(NamedTuple):
    """A file's bytes, and the stat data of the file they were read from when it is not the
    one discovery saw (replaced since): the index records what it read (#27)."""

    data: bytes
    seen: tuple[int, int, int, int] | None = None  # (size, mtime_ns, ctime_ns, inode)


def _ignore_warning(_message: str) -> None:
    return None


def undecodable_warning(rel: str) -> str:
    """The warning for a path that is not valid UTF-8, its bytes escaped (`\\xe9`)."""
    shown = os.fsencode(rel).decode("utf-8", "backslashreplace")
    return f"{shown}: file name is not valid UTF-8, skipped; rename it to UTF-8 to index it"


def discover(
    ws: Workspace,
    settings: Settings,
    *,
    scope: Sequence[str] = ("",),
    rules: IgnoreRules | None = None,
    warn: Warn | None = None,
    facts: WalkFacts | None = None,
) -> list[SourceFile]:
    """Every indexable Markdown file under the `scope` folders or files, sorted by path."""
    rules = rules or IgnoreRules.for_workspace(ws, settings)
    say = warn or _ignore_warning
    found: dict[str, SourceFile] = {}
    for item in scope or ("",):
        target = ws.root / item if item else ws.root
        if item and rules.is_ignored(item, is_dir=target.is_dir()):
            say(f"{item}: ignored by .gitignore/.cursorignore/.kensoignore rules, skipped")
            continue
        if target.is_dir():
            envs: list[str] = []
            _walk(ws, rules, item, found, say, facts or WalkFacts(), envs)
            _say_environments(envs, say)
        elif is_markdown(target.name):
            entry = _markdown_entry(ws.root, rules, item, str(target), say)
            if entry is not None:
                found[entry.path] = entry
    return [found[key] for key in sorted(found)]


def discover_paths(
    ws: Workspace,
    settings: Settings,
    paths: Sequence[str],
    *,
    scope: Sequence[str] = ("",),
    warn: Warn | None = None,
) -> list[SourceFile]:
    """Like `discover`, but looks only at `paths` (root-relative): those that exist, are
    Markdown, lie in `scope` and are not ignored (in a non-ignored folder)."""
    rules = IgnoreRules.for_workspace(ws, settings)
    say = warn or _ignore_warning
    found: list[SourceFile] = []
    for rel in sorted(set(paths)):
        if not is_markdown(rel) or not in_scope(rel, scope):
            continue
        if is_undecodable(rel):
            say(undecodable_warning(rel))
            continue
        if not _nameable(rel, say, is_dir=False):
            continue
        location = os.path.join(ws.root, rel)
        if not os.path.isfile(location) or rules.is_ignored(rel):
            continue
        if in_nested_repository(ws.root, rel) or in_environment(ws.root, rel):
            continue
        sf = _markdown_entry(ws.root, rules, rel, location, say)
        if sf is not None:
            found.append(sf)
    return found


def _say_environments(envs: list[str], say: Warn) -> None:
    if not envs:
        return
    shown = ", ".join(sorted(envs)[:3]) + (f" and {len(envs) - 3} more" if len(envs) > 3 else "")
    noun = "folder" if len(envs) == 1 else "folders"
    say(
        f"{shown}: {len(envs)} environment {noun} (virtualenv, node_modules...) skipped; "
        "add them to .gitignore to silence this"
    )


def _not_ours(path: str, rel: str, name: str, envs: list[str] | None) -> bool:
    if is_nested_repository(path):
        return True  # a submodule or nested repository: its docs are its own
    if is_environment(path, name):
        if envs is not None:
            envs.append(rel)
        return True
    return False


def _entries(
    root: str,
    rules: IgnoreRules,
    folder: str,
    say: Warn,
    envs: list[str] | None = None,
    visit: Callable[[str], object] | None = None,
) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Each entry that is not a folder, with its folder (root-relative), in the folders the
    walk enters from `folder`: not ignored, not a nested repository's or an environment's.
    `visit` is called on each folder (absolute path) before it is listed, and on each
    folder skipped as not its own, which is not entered."""
    stack = [folder]
    while stack:
        current = stack.pop()
        directory = os.path.join(root, current) if current else root
        if visit is not None:
            visit(directory)
        try:
            entries = list(os.scandir(directory))
        except OSError as err:
            say(f"{current or '.'}: cannot list folder ({err.strerror}), skipped")
            continue
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if not is_dir:
                yield current, entry
            elif _wanted(rules, current, name, say, is_dir=True):
                rel = f"{current}/{name}" if current else name
                if not _not_ours(entry.path, rel, name, envs):
                    stack.append(rel)
                elif visit is not None:
                    visit(entry.path)


def _walk(
    ws: Workspace,
    rules: IgnoreRules,
    folder: str,
    found: dict[str, SourceFile],
    say: Warn,
    facts: WalkFacts,
    envs: list[str] | None = None,
) -> None:
    root = ws.root
    for current, entry in _entries(str(root), rules, folder, say, envs):
        name = entry.name
        if name == ".gitattributes":
            facts.saw_attributes = True
            continue
        try:
            is_link = entry.is_symlink()
        except OSError:
            continue
        if is_markdown(name) and _wanted(rules, current, name, say, is_dir=False):
            rel = f"{current}/{name}" if current else name
            sf = _markdown_entry(root, rules, rel, entry.path, say, linked=is_link)
            if is_link:
                facts.links.append(rel)
            if sf is not None:
                found[rel] = sf


HARD_LINKED = (
    "a doc is hard-linked (a write through its other name reports no event; "
    "`find . -name '*.md' -links +1` lists it)"
)


class _TooMany(Exception):
    pass


def watch_walk(
    ws: Workspace, settings: Settings, visit: Callable[[str], object], *, limit: int
) -> str | None:
    """Call `visit` on each folder (absolute path) of the whole work tree that `discover`
    walks, before listing it, and on those it skips as not its own (a nested repository,
    an environment: a marker leaving one hands its docs back) without entering them. A
    folder made while the walk runs is either listed or made after its parent's `visit`.

    Returns why a watch of these folders cannot see every change (past `limit` folders,
    a hard-linked doc: written through its other name, no event here), or None; the reason
    names no path (`health_check` shows it to agents whose scope may hide the doc). A
    symlinked doc's target is a file the walk reaches too (`_link_refusal`): its folder is
    visited. `visit`'s OSError propagates."""
    rules = IgnoreRules.for_workspace(ws, settings)
    visited = 0

    def counted(folder: str) -> None:
        nonlocal visited
        visited += 1
        if visited > limit:
            raise _TooMany
        visit(folder)

    try:
        for current, entry in _entries(str(ws.root), rules, "", _ignore_warning, None, counted):
            name = entry.name
            try:
                if not is_markdown(name) or entry.stat(follow_symlinks=False).st_nlink == 1:
                    continue
            except FileNotFoundError:
                continue
            if _wanted(rules, current, name, _ignore_warning, is_dir=False):
                return HARD_LINKED
    except _TooMany:
        return (
            f"more than {limit} folders to watch (`exclude` some, or raise "
            "`fs.inotify.max_user_watches`)"
        )
    return None


def _wanted(rules: IgnoreRules, folder: str, name: str, say: Warn, *, is_dir: bool) -> bool:
    """A folder or Markdown file of `folder` the walk takes: not ignored, and named in
    UTF-8 (any other name is skipped with a warning)."""
    if rules.is_ignored_in(folder, name, is_dir=is_dir):
        return False
    if is_undecodable(name):
        say(undecodable_warning(f"{folder}/{name}" if folder else name))
        return False
    return _nameable(f"{folder}/{name}" if folder else name, say, is_dir=is_dir)


def _nameable(rel: str, say: Warn, *, is_dir: bool) -> bool:
    """Whether an agent can name `rel` (repo.pathtext); a path it cannot is skipped with a
    warning: it could be found but never opened. A folder is judged by its characters alone:
    the files under one too deep are skipped, and named, one by one."""
    over = None if is_dir else oversized(rel)
    if over is not None:
        say(
            f"{rel}: its path has {over}, which no agent may name, skipped; "
            "give it a shorter path to index it"
        )
        return False
    why = unnameable(rel)
    if why is None:
        return True
    shown = rel.encode("unicode_escape").decode("ascii")
    say(f"{shown}: its path holds {why}, which no agent may name, skipped; rename it to index it")
    return False


def _markdown_entry(
    root: Path, rules: IgnoreRules, rel: str, location: str, say: Warn, *, linked: bool = True
) -> SourceFile | None:
    """A found Markdown file, unless it is a symlink whose real target would not be indexed.

    `linked=False` is the walker's word that no component of `location` is a symlink; any
    other caller pays one realpath, which also catches a symlinked parent folder.
    """
    target = ""
    if linked:
        real = real_path(location)
        if real is None:
            say(f"{rel}: symlink changed while it was read, skipped; the next sync reads it")
            return None
        if real != os.path.normpath(location):
            refusal = _link_refusal(root, rules, real)
            if refusal is not None:
                say(f"{rel}: symlink {refusal}, skipped")
                return None
            target = real[len(str(root)) + 1 :].replace(os.sep, "/")
    return _source_file(rel, location, say, target)


def _link_refusal(root: Path, rules: IgnoreRules, real: str) -> str | None:
    """Why the real target of a symlink may not be indexed, or None when it may."""
    base = str(root)
    if not real.startswith(base + os.sep):
        return "leads outside the repository"
    if not os.path.isfile(real):
        return "is dangling, loops or leads to something that is not a file"
    real_rel = real[len(base) + 1 :].replace(os.sep, "/")
    if any(part in ALWAYS_SKIPPED_DIRS for part in real_rel.split("/")):
        return "leads into .git/ or .kenso/"
    if not is_markdown(real_rel):
        return "leads to a file that is not Markdown"
    if rules.is_ignored(real_rel):
        return "leads to an ignored file"
    if in_nested_repository(root, real_rel):
        return "leads into a nested repository"
    if in_environment(root, real_rel):
        return "leads into an environment folder (a virtualenv, node_modules...)"
    return None


def _source_file(rel: str, location: str, say: Warn, real: str = "") -> SourceFile | None:
    try:
        st = os.stat(location)
    except OSError as err:
        say(f"{rel}: cannot read ({err.strerror}), skipped")
        return None
    if not stat_mod.S_ISREG(st.st_mode):
        return None
    return SourceFile(rel, location, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, real)


def read_bytes(sf: SourceFile, max_size: int) -> bytes | Skip:
    """The file's bytes, or a Skip for files larger than `max_size`, binary or unreadable."""
    read = read_file(sf, max_size)
    return read if isinstance(read, Skip) else read.data


def read_file(sf: SourceFile, max_size: int) -> Read | Skip:
    """The file's bytes, or a Skip for files larger than `max_size`, binary or unreadable.

    The file is opened at the path discovery vetted (a symlink's real target, or the path
    itself) with no link followed on the way (`safeopen`): a link swapped in since is
    refused, never read, so the text indexed under a path is always that of a file it was
    allowed to hold (#27). A file replaced since discovery is read, and its own stat data
    comes back with the bytes.
    """
    if sf.size > max_size:
        return _too_large(sf, sf.size, max_size)
    try:
        fd = open_beneath(sf.root, sf.real or sf.path)
    except OSError as err:
        if err.errno in LINK_ERRNOS:
            detail = (
                "a symbolic link appeared on its path while it was read; the next sync reads it"
            )
            return Skip(sf.path, FileStatus.UNREADABLE, detail, racy=True)
        return Skip(sf.path, FileStatus.UNREADABLE, f"cannot read: {err.strerror}")
    try:
        st = os.fstat(fd)
        data = read_capped(fd, st.st_size, max_size + 1)
    except OSError as err:
        return Skip(sf.path, FileStatus.UNREADABLE, f"cannot read: {err.strerror}")
    finally:
        os.close(fd)
    if len(data) > max_size:
        return _too_large(sf, st.st_size, max_size)
    if looks_binary(data):
        return Skip(sf.path, FileStatus.BINARY, "looks binary (NUL bytes), not Markdown")
    seen = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    return Read(data, None if seen == (sf.size, sf.mtime_ns, sf.ctime_ns, sf.inode) else seen)


def _too_large(sf: SourceFile, size: int, max_size: int) -> Skip:
    return Skip(sf.path, FileStatus.LARGE, too_large_detail(size, max_size))


def too_large_detail(size: int, max_size: int) -> str:
    """Why a file of `size` bytes is skipped under the cap `max_size`, quoting that cap."""
    return (
        f"{size:,} bytes is over the {max_size:,}-byte cap "
        "(raise max-file-size in [tool.kenso] or KENSO_MAX_FILE_SIZE to index it)"
    )


def document_from_bytes(path: str, data: bytes) -> Document:
    """Decode and parse; decoding problems travel in `Document.problems`."""
    text, problems = decode(data)
    doc = parse_document(path, text)
    if problems:
        doc = doc._replace(problems=(*problems, *doc.problems))
    return doc


def load_document(sf: SourceFile, settings: Settings) -> Document | Skip:
    """Read, decode and parse one discovered file."""
    data = read_bytes(sf, settings.max_file_size)
    if isinstance(data, Skip):
        return data
    return document_from_bytes(sf.path, data)
