"""What the front ends ask of git: the early `git status` started at process start, the
scrubbed environment of hooks, hook folders, diffs, history and drift of agent instructions,
and which files of a commit or of the work tree are docs (as the indexer takes them).

A facade of the library API (see `api/lazy.py`).
"""

from __future__ import annotations

from kenso_git.api.lazy import resolver

TYPE_CHECKING = False

if TYPE_CHECKING:
    from kenso_git.index.atref import tree_blobs as tree_blobs
    from kenso_git.index.freshness import head_commit as head_commit
    from kenso_git.repo import drift as drift
    from kenso_git.repo import gitstatus as gitstatus
    from kenso_git.repo import history as history
    from kenso_git.repo import prestart as prestart
    from kenso_git.repo.discover import discover_paths as discover_paths
    from kenso_git.repo.drift import INSTRUCTION_PATHSPECS as INSTRUCTION_PATHSPECS
    from kenso_git.repo.drift import NOT_A_REPOSITORY as NOT_A_REPOSITORY
    from kenso_git.repo.drift import Drift as Drift
    from kenso_git.repo.foreign import is_nested_repository as is_nested_repository
    from kenso_git.repo.git import REWRITING_VERBS as REWRITING_VERBS
    from kenso_git.repo.git import diff_names as diff_names
    from kenso_git.repo.git import hooks_dir as hooks_dir
    from kenso_git.repo.git import hooks_path_setting as hooks_path_setting
    from kenso_git.repo.git import rebase_will_rewrite as rebase_will_rewrite
    from kenso_git.repo.git import tracks_files_in as tracks_files_in
    from kenso_git.repo.git import untracked_cache_tip as untracked_cache_tip
    from kenso_git.repo.gitstatus import EarlyStatus as EarlyStatus
    from kenso_git.repo.gitstatus import stop_unread as stop_unread
    from kenso_git.repo.prestart import GIT_REPO_VARS as GIT_REPO_VARS
    from kenso_git.repo.prestart import Started as Started
    from kenso_git.repo.prestart import scrubbed_env as scrubbed_env

__all__ = [
    "GIT_REPO_VARS",
    "INSTRUCTION_PATHSPECS",
    "NOT_A_REPOSITORY",
    "REWRITING_VERBS",
    "Drift",
    "EarlyStatus",
    "Started",
    "diff_names",
    "discover_paths",
    "drift",
    "gitstatus",
    "head_commit",
    "history",
    "hooks_dir",
    "hooks_path_setting",
    "is_nested_repository",
    "prestart",
    "rebase_will_rewrite",
    "scrubbed_env",
    "stop_unread",
    "tracks_files_in",
    "tree_blobs",
    "untracked_cache_tip",
]

# name -> (defining module, attribute; None: the module itself)
_NAMES: dict[str, tuple[str, str | None]] = {
    "Drift": ("kenso_git.repo.drift", "Drift"),
    "EarlyStatus": ("kenso_git.repo.gitstatus", "EarlyStatus"),
    "GIT_REPO_VARS": ("kenso_git.repo.prestart", "GIT_REPO_VARS"),
    "INSTRUCTION_PATHSPECS": ("kenso_git.repo.drift", "INSTRUCTION_PATHSPECS"),
    "NOT_A_REPOSITORY": ("kenso_git.repo.drift", "NOT_A_REPOSITORY"),
    "REWRITING_VERBS": ("kenso_git.repo.git", "REWRITING_VERBS"),
    "Started": ("kenso_git.repo.prestart", "Started"),
    "diff_names": ("kenso_git.repo.git", "diff_names"),
    "discover_paths": ("kenso_git.repo.discover", "discover_paths"),
    "drift": ("kenso_git.repo.drift", None),
    "gitstatus": ("kenso_git.repo.gitstatus", None),
    "head_commit": ("kenso_git.index.freshness", "head_commit"),
    "history": ("kenso_git.repo.history", None),
    "hooks_dir": ("kenso_git.repo.git", "hooks_dir"),
    "hooks_path_setting": ("kenso_git.repo.git", "hooks_path_setting"),
    "is_nested_repository": ("kenso_git.repo.foreign", "is_nested_repository"),
    "prestart": ("kenso_git.repo.prestart", None),
    "rebase_will_rewrite": ("kenso_git.repo.git", "rebase_will_rewrite"),
    "scrubbed_env": ("kenso_git.repo.prestart", "scrubbed_env"),
    "stop_unread": ("kenso_git.repo.gitstatus", "stop_unread"),
    "tracks_files_in": ("kenso_git.repo.git", "tracks_files_in"),
    "tree_blobs": ("kenso_git.index.atref", "tree_blobs"),
    "untracked_cache_tip": ("kenso_git.repo.git", "untracked_cache_tip"),
}

__getattr__ = resolver(__name__, _NAMES)
