"""Reading work-tree files without following symbolic links, and the private `.kenso/` folder.

A path the scope gate approved can change before it is read: a local process may swap
`docs/x.md`, or a folder above it, for a symbolic link between the check and the open
(#27). So a file an agent can reach is opened at its approved real path one component at a
time: the first folder by its absolute path (the checkout root itself is trusted, links
above it included), each later one relative to the descriptor of the folder above it, every
component with `O_NOFOLLOW` (folders also with `O_DIRECTORY`). A link that appears anywhere
on the way makes the open fail (`ELOOP`, `ENOTDIR`) instead of leading elsewhere, and the
descriptor's `fstat` is the identity of what is read. A FIFO or a device is never waited on
(`O_NONBLOCK`) and never read.

The index's own folder (`.kenso` in the work tree, the default rule's) is never reached
through a symbolic link either: a branch can commit `.kenso -> ../elsewhere`, and following
it would put the index, its side files and the HTTP token wherever the link leads
(`check_index_folder`). A `--db` file's folder is the user's choice (and resolved already).

The hook path imports this module: it needs only `os`, `stat`, `errno` and `errors`.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from kenso_git.errors import UsageError
from kenso_git.repo.workspace import DB_DIRNAME

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# O_PATH (Linux): a folder can be walked through without read permission on it, and opening
# one costs no permission check; elsewhere folders are opened read-only.
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC | getattr(os, "O_PATH", 0)
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC
# what an open reports when a link (or a non-folder) sits where a folder or the file should be
LINK_ERRNOS = frozenset({errno.ELOOP, errno.ENOTDIR})
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600  # every file kenso-git writes in its folder
MAX_KEPT_FOLDERS = 256  # a Walker's open folders; past this it closes them all and goes on


def _parent(root: str, parts: list[str]) -> int:
    """The descriptor of the folder holding `parts[-1]`, no component of `parts` followed."""
    fd = os.open(os.path.join(root, parts[0]), _DIR_FLAGS)
    try:
        for part in parts[1:-1]:
            inner = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def lstat_beneath(root: str, rel: str) -> os.stat_result:
    """The `lstat` of `root/rel`, with no symbolic link followed on the way from `root`
    (a link as the last component is described, not followed).

    Raises:
        OSError: `ENOENT` when something is missing, `ENOTDIR` when a folder on the way is a
            link or not a folder.
    """
    parts = rel.split("/")
    if len(parts) == 1:
        return os.stat(os.path.join(root, rel), follow_symlinks=False)
    fd = _parent(root, parts)
    try:
        return os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
    finally:
        os.close(fd)


class Walker:
    """`lstat_beneath` for the many paths of one call: each folder is opened (no link
    followed) once and kept until `close`, so a path costs one `fstatat`.

    A kept folder is the one that was at its path when it was opened; a folder moved since
    is still where later lookups look, so a lookup finds what was at its approved path at
    some instant of the call, never what a link swapped in since leads to.
    """

    __slots__ = ("_folders", "_root")

    def __init__(self, root: str) -> None:
        self._root = root
        self._folders: dict[str, int] = {}

    def lstat(self, rel: str) -> os.stat_result:
        """Like `lstat_beneath(root, rel)`.

        Raises:
            OSError: as `lstat_beneath`.
        """
        folder, _, name = rel.rpartition("/")
        if not folder:
            return os.stat(os.path.join(self._root, rel), follow_symlinks=False)
        return os.stat(name, dir_fd=self._folder(folder), follow_symlinks=False)

    def _folder(self, folder: str) -> int:
        fd = self._folders.get(folder)
        if fd is not None:
            return fd
        if len(self._folders) >= MAX_KEPT_FOLDERS:
            self.close()
        parent, _, name = folder.rpartition("/")
        if parent:
            fd = os.open(name, _DIR_FLAGS, dir_fd=self._folder(parent))
        else:
            fd = os.open(os.path.join(self._root, name), _DIR_FLAGS)
        self._folders[folder] = fd
        return fd

    def close(self) -> None:
        """Close the kept folders (a later lookup opens them again)."""
        folders, self._folders = self._folders, {}
        for fd in folders.values():
            os.close(fd)

    def __enter__(self) -> Walker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_beneath(root: str, rel: str) -> int:
    """A read-only descriptor of the regular file `root/rel`, opened without following a
    symbolic link in any component of `rel`; `os.fstat` of it is what will be read.

    Raises:
        OSError: `ELOOP`/`ENOTDIR` when a component is a link, `ENOENT` when it is missing,
            `EISDIR` for a folder, `EINVAL` for anything else that is not a regular file.
    """
    parts = rel.split("/")
    if len(parts) == 1:
        fd = os.open(os.path.join(root, rel), _FILE_FLAGS)
    else:
        parent = _parent(root, parts)
        try:
            fd = os.open(parts[-1], _FILE_FLAGS, dir_fd=parent)
        finally:
            os.close(parent)
    mode = os.fstat(fd).st_mode
    if stat.S_ISREG(mode):
        return fd
    os.close(fd)
    code = errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL
    raise OSError(code, "not a regular file" if code == errno.EINVAL else os.strerror(code), rel)


def read_capped(fd: int, size: int, limit: int) -> bytes:
    """At most `limit` bytes of the open file, to its end: first as many as `size` (its
    stat size) and one more, then on while it grew. A buffered read of `limit` bytes
    (the size cap, 10 MB) allocated that much for every file read: a third of a cold
    ingest's reading time went to mapping and unmapping it (#32)."""
    parts: list[bytes] = []
    got, ask = 0, min(size + 1, limit)
    while got < limit:
        part = os.read(fd, min(ask, limit - got))
        if not part:
            break
        parts.append(part)
        got += len(part)
        ask = 1 << 16
    return parts[0] if len(parts) == 1 else b"".join(parts)


def real_path(path: str) -> str | None:
    """`os.path.realpath(path)`, or None when a link on it changed while it was resolved
    (`realpath` lstat's a link, then reads it: a file swapped in between makes the read
    fail with `EINVAL`). Never raises, even on a loop."""
    try:
        return os.path.realpath(path)
    except OSError:
        return None


# What else works, for every command that opens the index: the path is named in the message
# only (the CLI puts an error's `path` before it too, and would say it twice)
_ELSEWHERE = (
    "to keep the index elsewhere on purpose, set KENSO_DATABASE_URL to its path (or pass --db "
    "where the command has it); `serve --transport http` keeps its token in the checkout and "
    "needs a real .kenso folder"
)


def check_index_folder(folder: Path) -> None:
    """Refuse a `.kenso` that is a symbolic link or not a folder; a folder with another
    name (that of a `--db` file, whose path is resolved) or none yet is not refused.

    Raises:
        UsageError: `folder` is named `.kenso` and is a link (dangling or not) or a file.
    """
    if folder.name != DB_DIRNAME:
        return
    try:
        mode = os.lstat(folder).st_mode
    except OSError:
        return  # not there yet: it is made a folder (0700)
    if stat.S_ISDIR(mode):
        return
    if stat.S_ISLNK(mode):
        try:
            target = os.readlink(folder)
        except OSError:
            target = "?"
        raise UsageError(
            f"{folder} is a symbolic link (to {target}): kenso-git keeps a repository's "
            "index only in a real .kenso folder, never wherever a link leads",
            hint="a branch may have committed the link to have the index and the HTTP token "
            f"written outside the repository: remove it (`rm {folder}`) and run the command "
            f"again; {_ELSEWHERE}",
        )
    raise UsageError(
        f"{folder} is not a folder: kenso-git keeps the repository's index in it",
        hint=f"move the file away (`mv {folder} {folder}.old`) and run the command again; "
        f"{_ELSEWHERE}",
    )


def ensure_private_dir(folder: Path, *, create: bool = True) -> None:
    """Create `folder` owner-only (0700; its parents as usual), or tighten an existing
    `.kenso/` of ours that others may read: it holds the index, the token, the lock and the
    hook log, whatever the umask. `create=False` only tightens. Every writer comes here
    before it writes in the folder, so a `.kenso` that is a link is refused here.

    An existing folder is changed only when it is named `.kenso`, is a real folder (never
    through a link) and belongs to this user; any other folder (`--db` elsewhere) is left as
    it is.

    Raises:
        UsageError: `folder` is a `.kenso` that is a symbolic link or a file
            (`check_index_folder`).
        OSError: the folder cannot be created.
    """
    check_index_folder(folder)
    if not create:
        if folder.name == DB_DIRNAME:
            _tighten(folder)
        return
    try:
        os.mkdir(folder, PRIVATE_DIR_MODE)
        return
    except FileNotFoundError:
        folder.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.mkdir(folder, PRIVATE_DIR_MODE)
            return
        except FileExistsError:
            pass
    except FileExistsError:
        pass
    if folder.name == DB_DIRNAME:
        _tighten(folder)


def _tighten(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC)
    except OSError:
        return  # a link, or not a folder: whoever opens the files inside reports it
    try:
        st = os.fstat(fd)
        if st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) & 0o077:
            os.fchmod(fd, stat.S_IMODE(st.st_mode) & PRIVATE_DIR_MODE)
    except OSError:
        pass  # a folder we may not change (a read-only mount): it works as it is
    finally:
        os.close(fd)
