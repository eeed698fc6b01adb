"""Text and JSON renderings of ingest and stats results (kenso's layouts)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from kenso_git.cli.output import Style
from kenso_git.cli.output import plural

if TYPE_CHECKING:
    from collections.abc import Iterator
    from collections.abc import Sequence

    from kenso_git.api.lint import FirstHalves
    from kenso_git.api.lint import IngestFile
    from kenso_git.api.lint import IngestReport
    from kenso_git.api.lint import LintReport
    from kenso_git.api.lint import Packed
    from kenso_git.api.lint import Spilled
    from kenso_git.kb import IndexState
    from kenso_git.kb import KnowledgeBase

MAX_ROWS = 20
# why an ingest printed no lint summary: `ingest --json`'s `lint_skipped`, beside `lint: null`
NO_LINT = "--no-lint"
UNCHANGED = "no file was (re)indexed; `kenso-git ingest --lint` lints the docs anyway"
_GLYPHS = {
    "ingested": ("✓", "green"),
    "unchanged": ("–", "dim"),
    "skipped": ("⊘", "dim"),
    "error": ("✗", "red"),
    "removed": ("✕", "red"),
}


def lint_digest(kb: KnowledgeBase) -> FirstHalves:
    """What an ingest keeps of each document it parses for its lint summary: the findings of
    the rules that judge it alone, beside its slim form (computed in the parse workers, held
    in a file beside the index while the writer runs)."""
    from kenso_git.api.lint import FirstHalves
    from kenso_git.api.lint import load_lint_config

    return FirstHalves(load_lint_config(kb.settings), kb.db_path.parent)


def lint_for_ingest(
    kb: KnowledgeBase,
    report: IngestReport,
    halves: FirstHalves | None = None,
    always: bool = False,
) -> LintReport | str:
    """Lint the whole indexed corpus, from what the run kept of the documents it parsed
    (`lint_digest`); only unchanged files are read again, one at a time (#32). A large
    run's summary was started by `halves` as the writer finished: its result is used.

    When nothing was (re)indexed nothing is linted (the summary would not change) and
    the reason is returned instead, unless `always` (`ingest --lint`): every doc is read.
    """
    from kenso_git.api.lint import load_lint_config
    from kenso_git.api.lint import summary
    from kenso_git.api.lint import summary_inputs

    inputs = summary_inputs(report, always=always)
    if inputs is None:
        return UNCHANGED
    parts, unparsed = inputs
    # handed over: the summary lets each go once linted, which it could not while the
    # report still held them all (100,000 at the scale point, #32)
    report.documents.clear()
    done = halves.ahead(parts, unparsed) if halves is not None else None
    if done is not None:
        return done
    config = load_lint_config(kb.settings)
    return summary(kb.workspace, kb.settings, _drained(parts), unparsed, report.scope, config)


def _drained(parts: list[Packed | Spilled]) -> Iterator[Packed | Spilled]:
    """The items of `parts` (in any order: the summary sorts them), each dropped from the
    list as it is given."""
    while parts:
        yield parts.pop()


def ingest_text(
    report: IngestReport,
    lint: LintReport | str,
    style: Style,
    *,
    db: str | None,
    paths: Sequence[object] = (),
) -> str:
    """The files, their counts, and the lint summary (`lint`), or why there is none."""
    lines = [
        f"{style('kenso-git', 'bold')} · indexing {plural(len(report.results), 'document')}"
        + (f" (db: {db})" if db else "")
    ]
    shown = [r for r in report.results if r.status != "unchanged"] or report.results
    for result in shown[:MAX_ROWS]:
        glyph, colour = _GLYPHS.get(result.status, ("?", "dim"))
        size = "removed" if result.status == "removed" else plural(result.chunks, "chunk")
        detail = f" [{result.detail}]" if result.detail else ""
        lines.append(f"  {style(glyph, colour)} {result.path:<50} {size}{detail}")
    if len(shown) > MAX_ROWS:
        lines.append(f"  … and {len(shown) - MAX_ROWS} more")
    counts = {s: report.count(s) for s in ("ingested", "unchanged", "removed", "skipped")}
    summary = (
        f"{plural(len(report.results), 'file')} · {counts['ingested']} ingested · "
        f"{counts['unchanged']} unchanged · {counts['removed']} removed · "
        f"{plural(report.total_chunks, 'chunk')} · {report.elapsed:.2f} s"
    )
    lines.append(style(summary, "bold"))
    if report.scope_changed:
        lines.append(scope_change_line(report))
    if isinstance(lint, str):  # asked for with --no-lint: nothing said
        if lint != NO_LINT:
            lines.append(style(f"no lint summary: {lint}", "dim"))
        return "\n".join(lines)
    from kenso_git.api.lint import render_summary

    lines.append("")
    summary = render_summary(lint, color=style.enabled, for_ingest=True, paths=paths)
    lines.append(summary.strip("\n"))
    return "\n".join(lines)


def _scope_words(scope: Sequence[str]) -> str:
    if not scope or any(not entry for entry in scope):
        return "the whole repository"
    return ", ".join(f"{entry}/" if not entry.endswith(".md") else entry for entry in scope)


def scope_change_line(report: IngestReport) -> str:
    """`scope: docs/ (was: the whole repository); 59 pages outside it removed from the index`."""
    assert report.scope_before is not None
    line = f"scope: {_scope_words(report.scope)} (was: {_scope_words(report.scope_before)})"
    outside = report.removed_outside()
    if outside:
        line += f"; {plural(outside, 'page')} outside it removed from the index"
    return line


def _scope_change(report: IngestReport) -> dict[str, object] | None:
    if not report.scope_changed:
        return None
    return {
        "scope": list(report.scope),
        "was": list(report.scope_before or ()),
        "removed_outside": report.removed_outside(),
    }


def ingest_json(
    label: str, report: IngestReport, lint: LintReport | str, *, streamed: bool = False
) -> dict[str, object]:
    """`ingest --json`'s object: `ingest`, and `lint` (the summary, or null with the reason
    in `lint_skipped`); `streamed`: its two long lists (files and the lint's violations)
    made as `iter_json` writes them (#32: 1.4 GB held at 100,000 docs)."""
    from kenso_git.api.lint import Streamed

    files = (_file_entry(r) for r in report.results)
    body: dict[str, object] = {
        "path": label,
        "total_files": len(report.results),
        "ingested": report.count("ingested"),
        "unchanged": report.count("unchanged"),
        "skipped": report.count("skipped"),
        "removed": report.count("removed"),
        "errors": report.count("error"),
        "total_chunks": report.total_chunks,
        "scope_changed": _scope_change(report),
        "files": Streamed(files) if streamed else list(files),
    }
    out: dict[str, object] = {"ingest": body}
    if isinstance(lint, str):  # always a `lint` key: `jq .lint.score` is null, and why
        return {**out, "lint": None, "lint_skipped": lint}
    from kenso_git.api.lint import report_to_json

    out["lint"] = report_to_json(lint, streamed=streamed)
    return out


def _file_entry(r: IngestFile) -> dict[str, object]:
    entry: dict[str, object] = {"path": r.path, "status": r.status, "chunks": r.chunks}
    if r.status == "ingested":
        entry["title"] = r.title
        entry["category"] = r.category
    if r.detail:
        entry["detail"] = r.detail
    return entry


def _human(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def stats_text(state: IndexState) -> str:
    rule = "─" * 45
    rows = [
        ("documents", str(state.documents)),
        ("chunks", str(state.chunks)),
        ("text size", _human(state.content_bytes)),
        ("database", _human(state.db_bytes)),
        ("links", str(state.links)),
    ]
    lines = ["kenso-git · stats", rule]
    lines += [f"{label:<14}{value:>8}" for label, value in rows]
    lines.append(rule)
    for category, docs, chunks in state.categories:
        lines.append(f"{category or '(none)':<20}{docs:>4} docs, {chunks:>4} chunks")
    lines.append(rule)
    if state.synced_at is not None:
        when = local_time(state.synced_at)
        head = f" at {state.as_of[:12]}" if state.as_of else ""
        lines.append(f"synced {when}{head}")
    if state.worktree_differs:
        lines.append("the docs differed from HEAD at that sync (uncommitted or untracked edits)")
    if state.stale:
        lines.append(f"stale: {state.stale_reason}")
    elif state.stale is False:
        lines.append("fresh: the index matches the work tree")
    scope = ", ".join(s or "." for s in state.scope)
    lines.append(f"scope: {scope}")
    cache = state.revision_cache
    if cache.revisions:
        lines.append(
            f"revision cache: {len(cache.revisions)} of {cache.max_count} revisions, "
            f"{_human(cache.bytes)} of {_human(cache.max_bytes)} of text "
            f"({_human(cache.file_bytes)} on disk)"
        )
        for rev in cache.revisions:
            # the commit first: a name (`HEAD~3`) meant it when it was asked, maybe no more
            name = rev.commit[:12]
            if not rev.ref.startswith(rev.commit[:7]):
                name += f" (asked as {rev.ref})"
            lines.append(
                f"  {name:<36} {rev.differing:>5} docs differ  {_human(rev.bytes):>9}  "
                f"used {local_time(rev.used)}"
            )
    return "\n".join(lines) + "\n"


def local_time(seconds: float) -> str:
    """A Unix time as the local `YYYY-MM-DD HH:MM:SS` that `stats` and `state` print."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))
