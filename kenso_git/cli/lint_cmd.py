"""`kenso-git lint [PATHS...]`: check Markdown for retrieval quality (the KS rules)."""

from __future__ import annotations

import itertools
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kenso_git.cli.click_options import option
from kenso_git.cli.options import COLOR
from kenso_git.cli.options import JSON
from kenso_git.cli.output import resolve_color
from kenso_git.errors import ExitCode
from kenso_git.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from kenso_git.api.lint import LintReport

FORMATS = ("summary", "detail", "json", "sarif", "github", "concise")


def _pick_format(fmt: str | None, detail: bool, as_json: bool) -> str:
    chosen = [name for name, on in (("detail", detail), ("json", as_json)) if on]
    if fmt is not None:
        chosen.append(fmt)
    if len(set(chosen)) > 1:
        raise UsageError(
            "--detail, --json and --format are mutually exclusive",
            hint="pick one output format",
        )
    return chosen[0] if chosen else "summary"


def _rule_list(values: tuple[str, ...]) -> list[str]:
    return [part for value in values for part in value.replace(",", " ").split()]


class _LintCommand(click.Command):
    """`lint` reads an argument that names an existing file or folder as a path even when it
    starts with `-`: pre-commit appends the staged files after the hook's `entry` and `args`
    with no `--` between, so a top-level `-draft.md` was a usage error (`No such option`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, _dashed_paths_last(self.get_params(ctx), args))


def _dashed_paths_last(params: Sequence[click.Parameter], args: list[str]) -> list[str]:
    """`args` with those that are no option of `params` but name an existing path moved
    after a `--`; options, their values and a typo (no such path) are left for click."""
    known: set[str] = set()
    valued: set[str] = set()
    for param in params:
        if isinstance(param, click.Option):
            known.update((*param.opts, *param.secondary_opts))
            if not param.is_flag:
                valued.update(param.opts)
    kept: list[str] = []
    dashed: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            break
        if arg in valued:  # its value may start with `-` too
            kept += [arg, *itertools.islice(rest, 1)]
        elif arg[:1] == "-" and arg.split("=", 1)[0] not in known and os.path.lexists(arg):
            dashed.append(arg)
        else:
            kept.append(arg)
    return [*kept, "--", *dashed, *rest] if dashed else args


@click.command("lint", cls=_LintCommand)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--detail", is_flag=True, help="List every finding, file by file.")
@option(JSON.with_help("Print kenso's JSON report."))
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Output format.")
@option(COLOR._replace(help=None, show_default=False))  # lint's --help lists it bare
@click.option("--select", multiple=True, help="Only these rules (ids or names, comma-separated).")
@click.option("--extend-select", multiple=True, help="Also these rules (e.g. KS019).")
@click.option("--ignore", multiple=True, help="Skip these rules.")
@click.option("--fail-under", type=click.IntRange(0, 100), help="Also fail below this score.")
@click.option("--baseline", type=click.Path(path_type=Path), help="Report only new findings.")
@click.option(
    "--write-baseline",
    type=click.Path(path_type=Path),
    help="Record current findings, errors included, and exit 0.",
)
@click.option(
    "--fix",
    is_flag=True,
    help="Rewrite fixable findings in place (links to moved pages, a moved page's own "
    "relative links, code paths, link and anchor case, an anchor typo with one close match), "
    "each file atomically and never over an edit made meanwhile, then report what is left.",
)
@click.option(
    "--diff",
    is_flag=True,
    help="Print the patch --fix would apply and write nothing; exit 1 when there is one.",
)
@click.option(
    "--staged",
    is_flag=True,
    help="Gate a commit: lint PATHS (without any, the Markdown files the staged changes add "
    "or change) and every page that links to a file they rename or delete.",
)
def lint(
    paths: tuple[Path, ...],
    detail: bool,
    as_json: bool,
    fmt: str | None,
    color: str,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    fail_under: int | None,
    baseline: Path | None,
    write_baseline: Path | None,
    fix: bool,
    diff: bool,
    staged: bool,
) -> int:
    """Check Markdown docs for retrieval quality; exit 1 on error-severity findings.

    PATHS are files or folders (default: the repository root). Links, anchors, orphans and
    category consistency are judged against all of the repository's docs and files, and
    moved targets against git's rename history; nothing is fetched from the network. Run
    from a commit hook on PATHS (or with --staged), the pages that link to a file the
    staged changes rename or delete are linted too: the commit breaks their links.

    Exit codes: 0 ok, and whenever --write-baseline recorded the findings (errors
    included: `--baseline FILE` later reports only new ones); 1 an error-severity finding,
    a score under --fail-under, or a patch from --diff; 2 bad usage or configuration, or
    --fix could not write a file (disk full, read-only).
    """
    from kenso_git.api.lint import run_lint

    output = _pick_format(fmt, detail, as_json)
    overrides = {
        "select": _rule_list(select),
        "extend-select": _rule_list(extend_select),
        "ignore": _rule_list(ignore),
    }
    outcome = run_lint(
        list(paths),
        overrides={k: v for k, v in overrides.items() if v},
        fail_under=fail_under,
        baseline=baseline,
        write_baseline=write_baseline,
        warn=lambda message: click.echo(f"kenso-git: warning: {message}", err=True),
        fix=fix and not diff,
        diff=diff,
        staged=staged,
    )
    report = outcome.report
    for path, why in outcome.fixes.unfixed if outcome.fixes is not None else ():
        click.echo(f"kenso-git: warning: {path}: not rewritten: {why}", err=True)
    if diff:
        patch = outcome.fixes.diff() if outcome.fixes is not None else ""
        click.echo(patch, nl=False)
        return int(ExitCode.FAILURE if patch else ExitCode.OK)
    if fix and outcome.fixes is not None:
        fixes = outcome.fixes
        click.echo(
            f"kenso-git: fixed {fixes.applied} finding{'s' if fixes.applied != 1 else ''} "
            f"in {len(fixes.files)} file{'s' if len(fixes.files) != 1 else ''}",
            err=True,
        )
    use_color = resolve_color(color, isatty=sys.stdout.isatty(), environ=os.environ)
    if outcome.baseline_written is not None:
        click.echo(_recorded(report, outcome.baseline_written, write_baseline), err=True)
    if output == "json":
        from kenso_git.api.lint import report as text
        from kenso_git.cli.output import echo_json

        echo_json(text.report_to_json(report, streamed=True))
    else:
        flags = ("--staged",) if staged else ()  # the hint's command lints the same
        rendered = _render(output, report, use_color, paths, flags)
        if rendered:
            click.echo(rendered, color=use_color)
    if outcome.error is not None:  # after the report: its findings stand (exit 2)
        raise outcome.error
    # a baseline written is the run's success: a CI step that records one must not fail
    failed = report.failed and outcome.baseline_written is None
    return int(ExitCode.FAILURE if failed else ExitCode.OK)


def _recorded(report: LintReport, count: int, path: Path | None) -> str:
    """What `--write-baseline` recorded, on stderr (the report keeps stdout)."""
    from kenso_git.cli.output import plural

    kinds = [plural(report.errors, "error"), plural(report.warnings, "warning")]
    if report.info:
        kinds.append(f"{report.info} info")
    return (
        f"kenso-git: recorded {plural(count, 'finding')} ({', '.join(kinds)}) in {path}; "
        f"`--baseline {path}` (or `baseline` in the config) now reports only new ones"
    )


def _render(
    output: str, report: LintReport, color: bool, paths: Sequence[object], flags: Sequence[str]
) -> str:
    from kenso_git.api.lint import report as text
    from kenso_git.api.lint import report_to_sarif

    if output == "sarif":
        return json.dumps(report_to_sarif(report), indent=2)
    if output == "github":
        return text.render_github(report)
    if output == "concise":
        return "\n".join(v.format_line() for v in report.violations())
    if output == "detail":
        return text.render_detail(report, color=color)
    return text.render_summary(report, color=color, paths=paths, flags=flags)
