"""What git already knows: which docs may differ from the index, in one `git status`.

A sync records a mark in the meta table: the HEAD it saw, the docs that differed from HEAD
then (git's list plus the ones it rewrote) and a fingerprint of the ignore rules. Every doc
outside that list held HEAD's text at the mark, so the next sync or query-time check need
only look at the docs listed then, the docs `git status` lists now and the docs the commits
since the mark changed: work proportional to what changed, not to the repository. git does
the per-file stat in C, in parallel, with the untracked cache and fsmonitor where enabled.

Without a mark (a plain folder, a first sync, edited ignore rules, a file only kenso sees)
callers walk the work tree as before.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kenso_git.records import NamedTuple
from kenso_git.repo import git
from kenso_git.repo import gitstatus
from kenso_git.repo.ignore import IGNORE_FILES
from kenso_git.repo.ignore import folds_case
from kenso_git.repo.workspace import in_scope
from kenso_git.repo.workspace import is_markdown

if TYPE_CHECKING:
    from pathlib import Path

    from kenso_git.config import Settings
    from kenso_git.repo.workspace import Workspace

META_GIT_MARK = "git_mark"  # JSON: {"head", "docs", "links", "rules"}
# Past this many listed docs the mark costs more than the walk it saves (a tree of
# uncommitted docs): no mark, callers walk.
MAX_LISTED = 2000
CONFIG_FILES = ("pyproject.toml", ".kenso.toml")  # read at the root only
_GLOB_CHARS = frozenset("*?[\\")
# git config keys that turn sparse checkout on, or change how its patterns read, or keep
# them in the work tree's own config (`config.worktree`) where `git sparse-checkout` writes
SPARSE_KEYS = ("core.sparsecheckout", "core.sparsecheckoutcone", "extensions.worktreeconfig")
# What a mark's lists mean, in the rules' fingerprint: a mark of another format walks once.
# 2: `links` keeps the symlinked docs a sync skipped too (a dangling link), not only those
# it indexed; a mark of format 1 may have forgotten one whose target has come back since.
MARK_FORMAT = 2


class Probe(NamedTuple):
    """One `git status` of the scope: HEAD and the listed paths, docs and rule files."""

    head: str | None
    docs: tuple[str, ...]  # Markdown paths in the scope that differ from HEAD, sorted
    rules: str  # fingerprint of everything that decides which files are indexed
    started_ns: int = 0  # wall clock just before git status ran


# A file whose ctime is this close to, or after, the probe may have changed after git looked.
CLOCK_SLACK_NS = 1_000_000_000


class Mark(NamedTuple):
    """What the last sync recorded (see the module docstring)."""

    head: str | None
    docs: frozenset[str]
    # symlinked docs, indexed or skipped (dangling, refused): what their target holds, or
    # whether there is one, may change under a link git lists as clean
    links: frozenset[str]
    rules: str


def _pathspecs(scope: Sequence[str]) -> list[str] | None:
    """Plain prefixes: the scope entries and the rule files above them. Wildcards cost git
    more per tracked file (fnmatch) than listing everything and filtering here."""
    if any(not entry for entry in scope) or not scope:
        return []  # the whole tree: no pathspec at all
    specs = list(CONFIG_FILES)
    for entry in scope:
        if _GLOB_CHARS & set(entry) or entry.startswith(":"):
            return None  # a name git would read as a pattern or magic: not worth escaping
        parts = entry.split("/")[:-1]
        folders = [""] + ["/".join(parts[: i + 1]) for i in range(len(parts))]
        specs += [f"{f}/{name}" if f else name for f in folders for name in IGNORE_FILES]
        specs.append(entry)
    return sorted(set(specs))


def whole_tree(scope: Sequence[str]) -> bool:
    """Whether an index of `scope` (`store.meta.meta_scope`) covers the whole work tree:
    `probe` then asks git about the whole tree, which a status started early
    (`gitstatus.start_status`) can answer."""
    return _pathspecs(scope) == []


def stat_key(path: str) -> list[int] | None:
    """The stat data that tells when a file changes (size, mtime, ctime, inode); None: none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def _rules(
    ws: Workspace,
    settings: Settings,
    scope: Sequence[str],
    listed: list[str],
    config: dict[str, str],
) -> str:
    """A fingerprint that changes whenever an ignore file or the settings might have."""
    from kenso_git.repo.ignore import MATCHER

    # A listed rule file differs from HEAD: its stat data says when it changes again. A
    # rule file that is not listed holds HEAD's text, which the mark's HEAD pins down.
    keys = {path: stat_key(path) for path in outside_rule_files(ws, config)}
    keys.update({path: stat_key(os.path.join(ws.root, path)) for path in listed})
    # the size cap decides which files are indexed too: a new one walks every doc (#26); so
    # do the matcher and `core.ignorecase`: docs they hid before are found by one walk
    matching = [MATCHER, folds_case(config), settings.max_file_size, MARK_FORMAT]
    matching += [config.get(key, "") for key in SPARSE_KEYS]
    return json.dumps([list(scope), list(settings.exclude), sorted(keys.items()), matching])


def outside_rule_files(ws: Workspace, config: dict[str, str]) -> list[str]:
    """The files outside the work tree that decide which docs are indexed (beside git's
    configuration): the excludes files, sparse-checkout's and `shallow`."""
    from kenso_git.repo.gitconfig import excludes_file

    assert ws.common_dir is not None
    shared = [str(excludes_file(config)), str(ws.common_dir / "info" / "exclude")]
    shared += _sparse_files(ws, config)
    # a fetch that deepens a shallow clone fires no hook: the pages its cut dated are
    # dated again by the sync a changed (or removed) `shallow` file sends the next query to
    shared.append(str(ws.common_dir / "shallow"))
    return shared


def _sparse_files(ws: Workspace, config: dict[str, str]) -> list[str]:
    """The files of a sparse checkout whose stat data the rules' fingerprint keeps.

    Its patterns decide which tracked docs the work tree holds: the others are
    skip-worktree entries, which `git status` never lists, whether they just left the
    disk or came back to it. `git sparse-checkout set/add/disable` rewrites the patterns'
    file (per work tree), the work tree's own config, where it turns sparse checkout on
    and off (git >= 2.35), or the repository's config (whose values `SPARSE_KEYS` keep).
    A repository that never used either costs no stat."""
    from kenso_git.repo.gitconfig import is_true

    assert ws.git_dir is not None
    if not any(is_true(config.get(key, "")) for key in SPARSE_KEYS):
        return []
    return [str(ws.git_dir / "info" / "sparse-checkout"), str(ws.git_dir / "config.worktree")]


def probe(
    ws: Workspace,
    settings: Settings,
    scope: Sequence[str],
    *,
    refresh: bool = False,
    early: gitstatus.EarlyStatus | None = None,
) -> Probe | None:
    """Ask git which docs and rule files of `scope` differ from HEAD; None: git cannot tell.

    `refresh` lets git update its index's stat data (see `gitstatus.status_paths`). `early`: a
    status of the whole tree the caller started before (taken if still `usable`, else
    stopped).
    """
    import time

    from kenso_git.index.freshness import head_commit

    if not ws.is_git:
        return None  # no `early` either: `gitstatus.start_status` starts none outside git
    specs = _pathspecs(scope)
    if early is not None and (specs or not early.usable(head_commit(ws))):
        early.discard()  # another scope, HEAD moved, or it waited too long for the lock
        early = None
    started_ns = time.time_ns() if early is None else early.started_ns
    listed = (
        None if specs is None else gitstatus.status_paths(ws, specs, refresh=refresh, early=early)
    )
    if listed is None:
        return None
    docs = [p for p in listed if is_markdown(p) and in_scope(p, scope)]
    if len(docs) > MAX_LISTED:
        return None
    from kenso_git.repo.gitconfig import read_config

    config = read_config(ws)
    docs = sorted({*docs, *_case_renamed(ws.root, docs, scope, config)})
    rule_files = [p for p in listed if _is_rule_file(p)]
    rules = _rules(ws, settings, scope, rule_files, config)
    return Probe(head_commit(ws), tuple(docs), rules, started_ns)


def _case_renamed(
    root: Path, docs: Sequence[str], scope: Sequence[str], config: dict[str, str]
) -> list[str]:
    """With `core.ignorecase`, the files a listed doc that left the disk was renamed to by
    case alone (`mv Guide.md guide.md`): git matches the new name to the tracked entry,
    so it lists only the old one as deleted, never the new one as untracked. Each folder
    of such a doc is listed once; the sync vets the names found as any new file."""
    if not docs or not folds_case(config):
        return []
    gone: dict[str, set[str]] = {}
    for doc in docs:
        if not os.path.lexists(os.path.join(root, doc)):
            folder, _, name = doc.rpartition("/")
            gone.setdefault(folder, set()).add(name.lower())
    found = []
    for folder, names in gone.items():
        try:
            entries = os.listdir(os.path.join(root, folder))
        except OSError:
            continue
        for entry in entries:
            path = f"{folder}/{entry}" if folder else entry
            if entry.lower() in names and is_markdown(path) and in_scope(path, scope):
                found.append(path)
    return found


def _is_rule_file(path: str) -> bool:
    return path in CONFIG_FILES or os.path.basename(path) in IGNORE_FILES


def read_mark(meta: dict[str, str]) -> Mark | None:
    """The mark the last sync left in `meta`, if any."""
    raw = meta.get(META_GIT_MARK)
    if not raw:
        return None
    try:
        data = json.loads(raw)
        return Mark(
            data["head"] or None,
            frozenset(data["docs"]),
            frozenset(data["links"]),
            str(data["rules"]),
        )
    except (ValueError, KeyError, TypeError):
        return None


def mark_value(now: Probe, touched: Collection[str], links: Collection[str]) -> str:
    """The mark to record after a sync that saw `now` and removed or rewrote `touched`.

    Those stay listed once (callers pass the removed docs and the docs whose ctime is not
    safely before `now.started_ns`): a doc edited after `git status` ran but before the
    sync read it holds text that is neither HEAD's nor, later, the work tree's.
    """
    docs = sorted(set(now.docs) | set(touched))
    if len(docs) > MAX_LISTED:
        return ""
    data = {"head": now.head or "", "docs": docs, "links": sorted(links), "rules": now.rules}
    return json.dumps(data, separators=(",", ":"))


def widen(meta: dict[str, str], paths: Collection[str]) -> str | None:
    """The mark after a targeted sync (a hook's) looked at `paths`; None: no mark to keep."""
    mark = read_mark(meta)
    if mark is None:
        return None
    docs = sorted(mark.docs | set(paths))
    if len(docs) > MAX_LISTED:
        return ""
    data = {"head": mark.head or "", "docs": docs, "links": sorted(mark.links), "rules": mark.rules}
    return json.dumps(data, separators=(",", ":"))


def candidates(ws: Workspace, meta: dict[str, str], now: Probe) -> tuple[list[str], Mark] | None:
    """The docs that may differ from the index, or None when only a walk can tell."""
    mark = read_mark(meta)
    if mark is None or mark.rules != now.rules:
        return None
    found = set(mark.docs) | set(now.docs) | mark.links
    if mark.head != now.head:
        if mark.head is None or now.head is None:
            return None
        moved = git.diff_names(ws, mark.head, now.head)
        if moved is None or any(os.path.basename(p) in IGNORE_FILES for p in moved):
            return None
        if any(p in CONFIG_FILES for p in moved) or len(moved) > MAX_LISTED:
            return None
        found.update(p for p in moved if is_markdown(p))
    return sorted(found), mark
