"""What one indexing run looks at: git's status of the scope, the files found (a walk, or
only the paths a git operation changed), the jobs for the files that look changed, and the
git mark the run leaves for the next one (index/gitprobe.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kenso_git.index import gitprobe
from kenso_git.index.freshness import cap_decides_anew
from kenso_git.index.run import Run
from kenso_git.repo import git
from kenso_git.repo import gitstatus
from kenso_git.repo.workspace import Workspace
from kenso_git.repo.workspace import in_scope
from kenso_git.store.files import FileRow
from kenso_git.store.files import count_statuses
from kenso_git.store.files import load_files

if TYPE_CHECKING:
    # The walker and the parser load only when a run has files to look at: a sync with
    # nothing to do (the common case, and every query-time check) skips ~25 ms of imports.
    from kenso_git.index.prepare import Job
    from kenso_git.index.prepare import Prepared
    from kenso_git.repo.discover import SourceFile
    from kenso_git.repo.discover import WalkFacts


def look(
    run: Run, only: Sequence[str] | None
) -> tuple[dict[str, FileRow], list[SourceFile], WalkFacts | None, bool]:
    """The stored rows and the files found: a walk (its facts too), or only `only`'s.

    Returns (rows, files, the walk's facts or None, whether a .gitattributes applies).
    """
    if only is None:
        from kenso_git.repo.discover import WalkFacts
        from kenso_git.repo.discover import discover

        facts = WalkFacts()
        stored = load_files(run.conn)
        scope = run.report.scope
        found = discover(run.ws, run.settings, scope=scope, warn=run.warn, facts=facts)
        return stored, found, facts, facts.saw_attributes
    if not only:  # nothing to look at: no walker, no parser to import
        return {}, [], None, False
    from kenso_git.repo.discover import discover_paths

    # a targeted sync reads and may remove only the rows of `only`
    stored = load_files(run.conn, only)
    found = discover_paths(run.ws, run.settings, only, scope=run.report.scope, warn=run.warn)
    return stored, found, None, attributes_near(run.ws, only)


def ask_git(
    run: Run,
    meta: dict[str, str],
    *,
    interactive: bool,
    early: gitstatus.EarlyStatus | None,
    may_skip_walk: bool,
) -> tuple[gitprobe.Probe | None, tuple[list[str], gitprobe.Mark] | None]:
    """git status of the scope and, when the mark allows, the only docs worth a look."""
    # git status runs before anything is read: a doc edited after it is listed next time.
    probe = gitprobe.probe(run.ws, run.settings, run.report.scope, refresh=interactive, early=early)
    if probe is None or not may_skip_walk or not meta:
        return probe, None
    fast = gitprobe.candidates(run.ws, meta, probe)
    if fast is not None:
        run.report.carried, run.counts = count_statuses(run.conn, exclude=fast[0], meta=meta)
    return probe, fast


def with_links(meta: dict[str, str], only: Sequence[str]) -> Sequence[str]:
    """`only`, a targeted sync's paths (a hook's: what the commits changed), and the mark's
    symlinked docs: git names a change of what one holds (its target edited, gone or back)
    under the target's path only."""
    mark = gitprobe.read_mark(meta)
    if mark is None or not mark.links or mark.links <= set(only):
        return only
    return sorted({*only, *mark.links})


def touched_paths(
    probe: gitprobe.Probe | None, suspects: Sequence[SourceFile], removed: set[str]
) -> set[str]:
    """The removed docs and those rewritten that may have changed after git status ran."""
    if probe is None:
        return removed
    recent = probe.started_ns - gitprobe.CLOCK_SLACK_NS
    return removed | {sf.path for sf in suspects if sf.ctime_ns >= recent}


def next_mark(
    run: Run,
    meta: dict[str, str],
    given: Sequence[str] | None,
    probe: gitprobe.Probe | None,
    fast: tuple[list[str], gitprobe.Mark] | None,
    found: Sequence[SourceFile],
    touched: set[str],
    facts: WalkFacts | None,
) -> str | None:
    """The git mark this run leaves (see gitprobe); None keeps the recorded one."""
    if given is not None and probe is None:  # a hook's or a query's targeted sync
        return gitprobe.widen(meta, given)
    if probe is None:
        return ""  # git could not tell: the next run walks
    if fast is not None:
        looked = set(fast[0])
        links = {p for p in fast[1].links if p not in looked}
        # Every symlinked doc looked at, indexed or not: one skipped as dangling is clean to
        # git (its blob is the link's text), and the commit or edit that brings its target
        # back names only the target; forgotten here, no later sync would look at it again.
        scope = run.report.scope
        links.update(p for p in looked if in_scope(p, scope) and _is_symlink(run.ws.root, p))
        return gitprobe.mark_value(probe, touched, links)
    if facts is None:
        return ""
    # After a walk: a file git cannot see (untracked and ignored by git, re-included by a
    # .kensoignore negation) would never be listed: no mark, the next run walks again.

    listed = set(probe.docs)
    unlisted = (sf.path for sf in found if sf.path not in listed)
    if git.missing_from_head(run.ws, unlisted) != set():
        return ""
    return gitprobe.mark_value(probe, touched, facts.links)


def _is_symlink(root: os.PathLike[str] | str, rel: str) -> bool:
    """Whether `rel` is a symlink (a dangling one too), its folders followed."""
    return os.path.islink(os.path.join(root, rel))


def attributes_near(ws: Workspace, paths: Sequence[str]) -> bool:
    """Does a .gitattributes file apply to any of `paths` (in its folder or above)?"""
    folders = {""}
    for path in paths:
        parts = path.split("/")[:-1]
        folders.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return any((ws.root / folder / ".gitattributes").exists() for folder in folders)


def jobs_for(
    run: Run,
    suspects: Sequence[SourceFile],
    stored: dict[str, FileRow],
    rechunk_all: bool,
    *,
    saw_attributes: bool,
) -> list[Job]:
    """One job per changed-looking file. Git is asked for blob ids only when a content
    filter could make them differ from the plain hash of the bytes (see `gitconfig`)."""
    if not suspects:
        return []
    from kenso_git.index.prepare import Job
    from kenso_git.index.prepare import git_blob_ids

    git_ids = git_blob_ids(run.ws, [sf.path for sf in suspects], saw_attributes=saw_attributes)
    use_git = git_ids is not None
    cap = run.settings.max_file_size
    jobs = []
    for sf in suspects:
        row = stored.get(sf.path)
        # a file the cap in force judges anew is read again: its blob id does not say
        fresh = rechunk_all or row is None or cap_decides_anew(row, cap)
        known = None if fresh or row is None else row.blob_id
        jobs.append(Job(sf, known, git_ids.get(sf.path) if git_ids else None, use_git))
    return jobs


def prepare_jobs(run: Run, jobs: list[Job]) -> Iterator[Prepared]:
    """The prepared files of `jobs`, in order (the parser loads only when there are any)."""
    if not jobs:
        return iter(())
    from kenso_git.index.prepare import Options
    from kenso_git.index.prepare import prepare_all

    opts = Options(
        run.settings.chunk_size,
        run.settings.chunk_overlap,
        run.settings.max_file_size,
        run.keep_documents,
        run.digest,
    )
    return prepare_all(jobs, opts)
