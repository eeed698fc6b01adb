"""Files the client watches for the server: what the server registers with a client that can
(`workspace/didChangeWatchedFiles`, dynamic registration), and which reported changes call
for reading the repository again."""

from __future__ import annotations

import os
from collections.abc import Collection
from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from kenso_git.lsp.disk import CONFIG_NAMES
from kenso_git.lsp.disk import is_editors
from kenso_git.lsp.disk import is_relevant
from kenso_git.lsp.disk import resolved

REGISTRATION_ID = "kenso-git-watched-files"
# What the linter reads (`is_markdown` takes any case; a client's globs may not), then the
# files of its configuration and ignore rules.
GLOBS = (
    "**/*.md",
    "**/*.markdown",
    "**/*.MD",
    "**/*.MARKDOWN",
    *(f"**/{name}" for name in sorted(CONFIG_NAMES)),
)
# A folder deleted or moved is reported alone, not the pages in it (VS Code folds them).
FOLDERS = "**/*"


def can_watch(capabilities: types.ClientCapabilities) -> bool:
    """Whether the client registers file watchers for the server when asked."""
    workspace = capabilities.workspace
    watched = workspace.did_change_watched_files if workspace is not None else None
    return bool(watched is not None and watched.dynamic_registration)


def registration() -> types.RegistrationParams:
    """The watchers to register: every kind of change to the files above, and folders
    created or deleted."""
    watchers = [types.FileSystemWatcher(glob_pattern=glob) for glob in GLOBS]
    created_or_deleted = types.WatchKind.Create | types.WatchKind.Delete
    watchers.append(types.FileSystemWatcher(glob_pattern=FOLDERS, kind=created_or_deleted))
    return types.RegistrationParams(
        [
            types.Registration(
                id=REGISTRATION_ID,
                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers),
            )
        ]
    )


def calls_for_read(
    changes: Sequence[types.FileEvent], root: Path | None, open_files: Collection[str]
) -> bool:
    """Whether a change reported may change the corpus of the work tree at `root` (None:
    not read yet). A Markdown document open in the editor (`open_files`: their
    `file_key`s) is skipped: its text comes from the editor, and the editor saving it is
    reported too; a config open in it is read from disk, so its change is not."""
    for change in changes:
        fs_path = to_fs_path(change.uri)
        if fs_path is None or is_editors(fs_path, open_files):
            continue
        if root is None:
            return True
        try:
            rel = resolved(fs_path).relative_to(root).as_posix()
        except ValueError:
            continue  # another folder of a multi-root workspace
        created = change.type == types.FileChangeType.Created
        deleted = change.type == types.FileChangeType.Deleted
        is_dir = created and os.path.isdir(fs_path)
        if is_relevant(rel, created=created, deleted=deleted, is_dir=is_dir):
            return True
    return False
