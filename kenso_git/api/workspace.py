"""The work tree as the front ends see it: finding it, its `.kenso/` folder, private
folders, Markdown names, and the installed script's path.

A facade of the library API (see `api/lazy.py`).
"""

from __future__ import annotations

from kenso_git.api.lazy import resolver

TYPE_CHECKING = False

if TYPE_CHECKING:
    from kenso_git.index.home import check_root_option as check_root_option
    from kenso_git.repo.executable import find_script as find_script
    from kenso_git.repo.executable import script_command as script_command
    from kenso_git.repo.indexroot import root_with_index as root_with_index
    from kenso_git.repo.safeopen import ensure_private_dir as ensure_private_dir
    from kenso_git.repo.statusindex import remove_legacy as remove_legacy_status_copy
    from kenso_git.repo.workspace import DB_DIRNAME as DB_DIRNAME
    from kenso_git.repo.workspace import Workspace as Workspace
    from kenso_git.repo.workspace import exclude_from_git as exclude_from_git
    from kenso_git.repo.workspace import find_workspace as find_workspace
    from kenso_git.repo.workspace import ingest_start as ingest_start
    from kenso_git.repo.workspace import is_markdown as is_markdown
    from kenso_git.repo.workspace import resolve_db_path as resolve_db_path

__all__ = [
    "DB_DIRNAME",
    "Workspace",
    "check_root_option",
    "ensure_private_dir",
    "exclude_from_git",
    "find_script",
    "find_workspace",
    "ingest_start",
    "is_markdown",
    "remove_legacy_status_copy",
    "resolve_db_path",
    "root_with_index",
    "script_command",
]

# name -> (defining module, attribute; None: the module itself)
_NAMES: dict[str, tuple[str, str | None]] = {
    "DB_DIRNAME": ("kenso_git.repo.workspace", "DB_DIRNAME"),
    "Workspace": ("kenso_git.repo.workspace", "Workspace"),
    "check_root_option": ("kenso_git.index.home", "check_root_option"),
    "ensure_private_dir": ("kenso_git.repo.safeopen", "ensure_private_dir"),
    "exclude_from_git": ("kenso_git.repo.workspace", "exclude_from_git"),
    "find_script": ("kenso_git.repo.executable", "find_script"),
    "find_workspace": ("kenso_git.repo.workspace", "find_workspace"),
    "ingest_start": ("kenso_git.repo.workspace", "ingest_start"),
    "is_markdown": ("kenso_git.repo.workspace", "is_markdown"),
    "remove_legacy_status_copy": ("kenso_git.repo.statusindex", "remove_legacy"),
    "resolve_db_path": ("kenso_git.repo.workspace", "resolve_db_path"),
    "root_with_index": ("kenso_git.repo.indexroot", "root_with_index"),
    "script_command": ("kenso_git.repo.executable", "script_command"),
}

__getattr__ = resolver(__name__, _NAMES)
