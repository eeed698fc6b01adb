"""What on disk the language server's read of a repository depends on, and a stamp of it for
clients that cannot watch files for the server.

The corpus is every Markdown file of the work tree, judged by the settings of `.kenso.toml`
or `pyproject.toml` and the ignore files. A client that watches files reports their
changes (`watch.py`); for one that cannot, the server takes a `TreeStamp` when it reads
the repository and again when a document is saved or opened, and reads the repository
again when the stamp differs. A stamp is one walk of the folders and a `stat` per Markdown
and configuration file: a few milliseconds for a thousand documents, in a worker thread.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path

from kenso_git.api.lint import SITE_CONFIG_NAMES
from kenso_git.api.workspace import is_markdown
from kenso_git.records import NamedTuple

# Files whose change changes the corpus or its rules besides the Markdown files themselves:
# kenso's settings, the ignore files, and the site configs a page's dialect is read from
# (`mkdocs.yml`, Hugo's: MkDocs or Hugo serve a page at a folder URL of its own).
CONFIG_NAMES = (
    frozenset({".kenso.toml", "pyproject.toml", ".gitignore", ".cursorignore", ".kensoignore"})
    | SITE_CONFIG_NAMES
)
# Folders discovery never reads (git's and kenso's own, installed third-party code). The
# ignore rules are not applied: a change in an ignored folder costs a needless read only.
SKIPPED_FOLDERS = frozenset(
    {".git", ".kenso", "node_modules", "bower_components", "site-packages", "__pycache__"}
    | {".tox", ".nox", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
)
_FOREIGN_MARKERS = (".git", "pyvenv.cfg", "conda-meta")  # a nested repository, an environment

Signature = tuple[int, int]  # size, modification time (ns)


class TreeStamp(NamedTuple):
    """The Markdown and configuration files of a work tree, each with its `Signature`."""

    root: Path
    common_dir: Path | None  # git's shared folder, whose info/exclude is an ignore file
    files: dict[str, Signature]  # repo-relative POSIX path -> signature

    @classmethod
    def take(cls, root: Path, common_dir: Path | None) -> TreeStamp:
        """Walk the work tree at `root` now."""
        files: dict[str, Signature] = {}
        stack = [""]
        while stack:
            stack.extend(_scan(root, stack.pop(), files))
        if common_dir is not None:
            _record(files, ":info/exclude", os.path.join(common_dir, "info", "exclude"))
        return cls(root, common_dir, files)

    def again(self) -> TreeStamp:
        """The same work tree's stamp now."""
        return TreeStamp.take(self.root, self.common_dir)

    def differs(self, other: TreeStamp, open_files: Collection[str]) -> bool:
        """Whether `other` shows a file created, deleted or changed since this stamp. The
        Markdown documents open in the editor (`file_key`s) count by their names only: their
        text comes from the editor, and the editor saving them is no change. A config is
        read from disk, open or not."""
        if self.files.keys() != other.files.keys():
            return True
        changed = (path for path, sig in self.files.items() if sig != other.files[path])
        return any(not is_editors(os.path.join(self.root, path), open_files) for path in changed)


def is_editors(path: str, open_files: Collection[str]) -> bool:
    """Whether the text of the file at `path` comes from the editor: a Markdown document
    open in it (`open_files`: their `file_key`s). A config open in it is read from disk."""
    return is_markdown(path) and file_key(path) in open_files


def is_config(path: str) -> bool:
    """Whether the file at `path` is one of the configs the corpus is read by (`CONFIG_NAMES`)."""
    return os.path.basename(path) in CONFIG_NAMES


def resolved(path: str) -> Path:
    """`path` with its folder resolved, as the work tree's root is (not the file itself: a
    Markdown file may be a link to one elsewhere)."""
    where = Path(path)
    return where.parent.resolve() / where.name


def file_key(path: str) -> str:
    """`path` as compared with the paths of open documents."""
    return os.path.normcase(os.fspath(resolved(path)))


def _scan(root: Path, folder: str, files: dict[str, Signature]) -> list[str]:
    """Record the wanted files of `folder`; return the folders in it to walk."""
    folders: list[str] = []
    try:
        with os.scandir(root / folder if folder else root) as entries:
            for entry in entries:
                rel = f"{folder}/{entry.name}" if folder else entry.name
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir:
                    if entry.name not in SKIPPED_FOLDERS and not _foreign(entry.path):
                        folders.append(rel)
                elif is_markdown(entry.name) or entry.name in CONFIG_NAMES:
                    _record(files, rel, entry.path)
    except OSError:
        pass  # unreadable or gone: its files are not in the stamp, as discovery skips it
    return folders


def _foreign(path: str) -> bool:
    return any(os.path.lexists(os.path.join(path, marker)) for marker in _FOREIGN_MARKERS)


def _record(files: dict[str, Signature], rel: str, path: str) -> None:
    try:
        st = os.stat(path)
    except OSError:
        return  # a dangling link, or deleted while we looked
    files[rel] = (st.st_size, st.st_mtime_ns)


def is_relevant(rel: str, *, created: bool, deleted: bool, is_dir: bool) -> bool:
    """Whether a change a file watcher reported at `rel` (repo-relative POSIX) may change the
    corpus: a Markdown or configuration file, a folder created, or a name without a suffix
    deleted (a folder, reported alone, not the pages that were in it)."""
    parts = rel.split("/")
    if any(part in SKIPPED_FOLDERS for part in parts):
        return False
    name = parts[-1]
    if is_markdown(name) or name in CONFIG_NAMES:
        return True
    return (created and is_dir) or (deleted and "." not in name)
