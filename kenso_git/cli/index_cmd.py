"""`kenso-git ingest`, `sync` and `stats`: build the index, refresh it, describe it."""

from __future__ import annotations

import json
import sys
from contextlib import nullcontext
from pathlib import Path

import click

from kenso_git.cli.click_options import option
from kenso_git.cli.click_options import options
from kenso_git.cli.options import COLOR
from kenso_git.cli.options import DB
from kenso_git.cli.options import JSON
from kenso_git.cli.options import SYNC_OPTIONS
from kenso_git.cli.output import Style
from kenso_git.cli.output import echo_json
from kenso_git.cli.output import finish_progress
from kenso_git.cli.output import progress_printers
from kenso_git.cli.output import use_color
from kenso_git.cli.plaintext import sync_text
from kenso_git.cli.render import NO_LINT
from kenso_git.cli.render import ingest_json
from kenso_git.cli.render import ingest_text
from kenso_git.cli.render import lint_digest
from kenso_git.cli.render import lint_for_ingest
from kenso_git.cli.render import stats_text
from kenso_git.errors import ExitCode
from kenso_git.kb import KnowledgeBase


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@option(JSON.with_help("Print one JSON object (ingest + lint; lint null when skipped)."))
@click.option(
    "--lint/--no-lint",
    "with_lint",
    default=None,
    help="Print the quality summary always (every doc linted) / never.  "
    "[default: when some file was (re)indexed]",
)
@click.option(
    "--rebuild",
    is_flag=True,
    help="Build a new index from nothing and replace the old one (with its -wal and -shm).",
)
@option(DB)
@option(COLOR)
def ingest(
    paths: tuple[Path, ...],
    as_json: bool,
    with_lint: bool | None,
    rebuild: bool,
    db_path: str | None,
    color: str,
) -> None:
    """Index the repository's Markdown (default: the whole work tree) into .kenso/docs.db.

    \b
    Only files whose git blob id changed are parsed again; files that vanished are
    removed. The index then holds exactly the files under PATHS, so `ingest docs/`
    narrows it to docs/ and a later `sync` (or the git hooks) keeps that scope.
    .gitignore, .cursorignore and .kensoignore are honoured. --rebuild is the
    recovery from a corrupt index: the old file is replaced only once the new one is done.

    Outside git, as git finds a work tree from a subfolder, a folder with no .kenso of its
    own updates the index of the nearest folder above that has one (yours); with none
    above, the current folder is indexed. `mkdir .kenso` first gives a subfolder its own.

    After the files comes a lint quality summary of the indexed docs, by default only when
    some file was (re)indexed; --lint prints it always (every doc is linted again when
    nothing changed), --no-lint never. In --json, `lint` is then null and `lint_skipped`
    says why.

    \b
    Examples:
      kenso-git ingest              # the whole repository
      kenso-git ingest docs/        # only docs/
      kenso-git ingest --rebuild    # a new index from nothing
      kenso-git ingest --json | jq .ingest.total_chunks
    """
    from kenso_git.api.workspace import ingest_start

    start = ingest_start(paths[0], Path.cwd()) if paths else None
    kb = KnowledgeBase.open(start, db=db_path, rooting=True)  # only ingest (re)roots
    if start is not None:
        _say_other_root(kb)
    _say_index_above(kb)
    progress, warn = progress_printers()
    with lint_digest(kb) if with_lint is not False else nullcontext() as halves:
        report = kb.ingest(  # each doc linted where it is parsed
            list(paths) or None, progress=progress, warn=warn, digest=halves, rebuild=rebuild
        )
        finish_progress()
        lint = NO_LINT if halves is None else lint_for_ingest(kb, report, halves, bool(with_lint))
    label = " ".join(str(p) for p in paths) or "."
    if as_json:
        echo_json(ingest_json(label, report, lint, streamed=True), ensure_ascii=False)
    else:
        style = Style(use_color(color, sys.stdout))
        db = str(kb.db_path) if db_path else None
        click.echo(ingest_text(report, lint, style, db=db, paths=paths))
    if any(r.status == "error" for r in report.results):
        sys.exit(int(ExitCode.FAILURE))


def _say_other_root(kb: KnowledgeBase) -> None:
    """One line when PATH roots the index outside the repository the command runs in
    (`ingest /some/folder` from a checkout): its own index, made there, not this one's."""
    from kenso_git.api.workspace import find_workspace

    here = find_workspace(Path.cwd())
    if here.is_git and kb.workspace.root != here.root:
        click.echo(
            f"kenso-git: indexing {kb.workspace.root}, not this repository ({here.root}), "
            f"into its own index: {kb.db_path}",
            err=True,
        )


def _say_index_above(kb: KnowledgeBase) -> None:
    """One line when, outside git, the index updated is one found above the current
    folder (as git finds a work tree): not a new index of this folder."""
    here = Path.cwd().resolve()
    root = kb.workspace.root
    if kb.owned and not kb.workspace.is_git and here != root and here.is_relative_to(root):
        click.echo(
            f"kenso-git: updating the index of {root}, the nearest folder above with one "
            f"({kb.db_path}); to index this folder on its own, run `mkdir .kenso` first",
            err=True,
        )


@click.command()
@options(*SYNC_OPTIONS)
def sync(as_json: bool, quiet: bool, db_path: str | None) -> None:
    """Bring the index to the state of the work tree (what the git hooks run).

    Reuses the git index's blob ids for clean files and hashes only modified or
    untracked Markdown, so a sync with nothing changed takes a few milliseconds.
    Creates the index (whole work tree) when there is none yet.
    """
    text = sync_text(as_json=as_json, quiet=quiet, db_path=db_path)
    if text is not None:
        click.echo(text)


@click.command()
@option(JSON.with_help("Print the statistics as JSON."))
@option(DB)
def stats(as_json: bool, db_path: str | None) -> None:
    """Show what the index holds and whether it still matches the work tree.

    Exit codes: 0 ok, 3 no index yet (stats never creates one).
    """
    kb = KnowledgeBase.open(Path.cwd(), db=db_path)
    state = kb.state()
    if as_json:
        click.echo(json.dumps(state.to_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo(stats_text(state))
