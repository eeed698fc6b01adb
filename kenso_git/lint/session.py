"""One `kenso-git lint` run: workspace, settings, documents, rules, baseline."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from kenso_git.errors import DISK_FULL_ERRNOS
from kenso_git.errors import READ_ONLY_ERRNOS
from kenso_git.errors import ExitCode
from kenso_git.errors import KensoError
from kenso_git.lint.baseline import apply_baseline
from kenso_git.lint.baseline import load_baseline
from kenso_git.lint.baseline import write_baseline as save_baseline
from kenso_git.lint.config import LintConfig
from kenso_git.lint.config import load_lint_config
from kenso_git.lint.config import rule_ids
from kenso_git.lint.corpus import CorpusFacts
from kenso_git.lint.corpus import facts_for
from kenso_git.lint.corpus import select_documents
from kenso_git.lint.corpus import start_listing
from kenso_git.lint.fix import FixOutcome
from kenso_git.lint.fix import plan_fix_passes
from kenso_git.lint.fix import write_fixes_until_failure
from kenso_git.lint.model import FileResult
from kenso_git.lint.model import LintReport
from kenso_git.lint.model import RuleContext
from kenso_git.lint.model import Violation
from kenso_git.lint.root import lint_workspace
from kenso_git.lint.runner import binary_result
from kenso_git.lint.runner import lint_document
from kenso_git.lint.runner import lint_documents
from kenso_git.repo.workspace import Workspace
from kenso_git.text.parse import parse_document

if TYPE_CHECKING:
    from kenso_git.config import Settings


class FixWriteError(KensoError):
    """`lint --fix` could not write a fixed file (disk full, read-only): the findings are
    reported, and the command exits 2, not 1 as for findings."""

    exit_code = ExitCode.USAGE


@dataclass(frozen=True, slots=True)
class Outcome:
    report: LintReport
    baseline_written: int | None = None
    fixes: FixOutcome | None = None  # with `fix` or `diff`: what was (or would be) changed
    error: FixWriteError | None = None  # with `fix`: the file that could not be written


def run_lint(
    paths: Sequence[Path],
    *,
    overrides: Mapping[str, list[str]] | None = None,
    fail_under: int | None = None,
    baseline: Path | None = None,
    write_baseline: Path | None = None,
    warn: Callable[[str], None] | None = None,
    fix: bool = False,
    diff: bool = False,
    staged: bool = False,
) -> Outcome:
    """Lint `paths` (default: the repository root) as the CLI does. With `fix`, the fixable
    findings are rewritten in place (each file atomically) and the report is of the files
    as fixed; with `diff`, nothing is written and `Outcome.fixes` holds the patch. With
    `staged` (the commit gate), the Markdown files the staged changes add or change when
    no `paths` are given, and the pages linking to what they rename away or delete.

    Raises:
        UsageError: a path does not exist, a flag or the configuration is malformed.
    A file `fix` cannot write (disk full, read-only) stops the writing: the files before it
    stay fixed, the rest as they were, the report is of the files as they are, and
    `Outcome.error` names the file and what to do.
    """
    from kenso_git.config import load_settings

    for path in paths:
        if not path.exists():
            from kenso_git.errors import UsageError

            raise UsageError(
                f"path does not exist: {path}", hint="pass Markdown files or folders that exist"
            )
    ws = lint_workspace(paths)
    settings = load_settings(ws.root)
    config = _configured(load_lint_config(settings), overrides, fail_under)
    report, facts = _lint_once(ws, settings, config, paths, warn, staged)
    fixes = error = None
    if fix or diff:
        fixes = plan_fix_passes(ws.root, report.violations(), partial(_relint, facts, config))
        if fix and fixes.files:
            fixes, failure = write_fixes_until_failure(ws.root, fixes)
            if failure is not None:  # the files before it stay fixed
                error = _write_error(*failure, len(fixes.files))
            if error is None or fixes.files:
                report, _ = _lint_once(ws, settings, config, paths, None, staged)  # warned
    if write_baseline is not None:
        return Outcome(report, save_baseline(report, write_baseline), fixes, error)
    if baseline is None and config.baseline is not None:
        baseline = ws.root / config.baseline
    if baseline is not None:
        kept = apply_baseline(report, load_baseline(baseline))
        report = replace(kept, skipped=report.skipped)
    return Outcome(report, None, fixes, error)


def _write_error(path: str, err: OSError, fixed: int) -> FixWriteError:
    """The cause named as `ingest` names it, without the temporary file's name."""
    detail = err.strerror or str(err)
    before = f"the {fixed} before it are fixed, " if fixed > 1 else ""
    before = "the one before it is fixed, " if fixed == 1 else before
    kept = f"{before}this file and the rest are as they were"
    if err.errno in DISK_FULL_ERRNOS:
        return FixWriteError(
            f"cannot write the fixes: the disk is full or a file-size limit was reached ({detail})",
            path=path,
            hint=f"free some disk space (or raise the limit) and run `kenso-git lint --fix` "
            f"again; {kept}",
        )
    if err.errno in READ_ONLY_ERRNOS:
        return FixWriteError(
            f"cannot write the fixes: the file or its folder is read-only ({detail})",
            path=path,
            hint=f"make it writable and run `kenso-git lint --fix` again (`kenso-git lint` "
            f"without --fix only reports); {kept}",
        )
    return FixWriteError(
        f"cannot write the fixes ({detail})",
        path=path,
        hint=f"check the disk and run `kenso-git lint --fix` again; {kept}",
    )


def _configured(
    config: LintConfig, overrides: Mapping[str, list[str]] | None, fail_under: int | None
) -> LintConfig:
    for key, values in (overrides or {}).items():
        ids = rule_ids(values, f"--{key}", "command line")
        if key == "select":
            config = replace(config, select=ids)
        elif key == "extend-select":
            config = replace(config, select=config.select | ids)
        else:
            config = replace(config, select=config.select - ids)
    if fail_under is not None:
        config = replace(config, fail_under=fail_under)
    return config


def _relint(facts: CorpusFacts, config: LintConfig, path: str, text: str) -> tuple[Violation, ...]:
    """The findings of the document at `path` if it read `text`, judged by the corpus facts
    of the lint just made (a fix changes link targets only: the other documents' headings,
    titles and paths stand)."""
    doc = parse_document(path, text)
    if facts.links is not None:
        facts.links.forget(path)
        facts.links.docs = {**facts.links.docs, path: doc}
    return lint_document(doc, RuleContext(facts, config.thresholds), config).violations


def _lint_once(
    ws: Workspace,
    settings: Settings,
    config: LintConfig,
    paths: Sequence[Path],
    warn: Callable[[str], None] | None,
    staged: bool = False,
) -> tuple[LintReport, CorpusFacts]:
    from kenso_git.lint.runner import lint_alone

    alone = partial(lint_alone, config=config)
    listing = start_listing(ws, config)  # git lists the tree while the docs are parsed
    try:
        selection = select_documents(
            ws, settings, paths, warn=warn, alone=alone, binary_found=True, staged=staged
        )
        facts = facts_for(ws, selection, config, warn=warn, listing=listing)
    finally:
        if listing is not None:
            listing.discard()  # what was not read (no missing path: no staged renames)
    binary = list(_binary_results(selection.binary, config, warn))
    try:
        report = lint_documents(selection.targets(), corpus=facts, config=config, extra=binary)
    finally:
        if facts.links is not None:
            facts.links.drop_moves()  # git's moves, when no rule read them (or on error)
    skipped = () if facts.links is None else tuple(sorted(_named(ws, facts.links.tally())))
    return replace(report, skipped=skipped), facts


def _binary_results(
    paths: Sequence[str], config: LintConfig, warn: Callable[[str], None] | None
) -> Iterator[FileResult]:
    """A KS021 error for each file ingest skips as binary: `lint` said "0 files, all checks
    passed" of a UTF-16 page saved without a byte-order mark that no search would find."""
    for path in paths:
        result = binary_result(path, config)
        if result is not None:
            yield result
        elif warn is not None:  # KS021 is off for it: said not linted, never passed in silence
            warn(f"{path}: looks binary (NUL bytes), not Markdown, not linted")


def _named(ws: Workspace, tally: Mapping[str, int]) -> Iterator[tuple[str, int]]:
    """The skipped reasons as this work tree calls them: outside git, there is no
    repository for a link to leave, only the folder lint runs from (its root)."""
    from kenso_git.lint.targets import OUTSIDE

    for reason, count in tally.items():
        if reason == OUTSIDE and not ws.is_git:
            reason = f"link leaving {ws.root.name or ws.root}/ outside git"
        yield reason, count
