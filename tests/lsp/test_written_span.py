"""A link finding underlines the destination as written, `<...>`, backslash escapes and
all: its subject is the target with those resolved, which did not stand at the column, so
the diagnostic (and its quick fix's) ran on to the end of the line."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from kenso_git.api.lint import Severity
from kenso_git.api.lint import Violation
from kenso_git.lsp.diagnostic import Page
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lsp.client import WAIT
from tests.lsp.client import Editor
from tests.lsp.client import covered

TARGET = "# Target page\n\n## Section\n\n" + "The target page holds a section to link. " * 4 + "\n"
PAGE = (
    "# Linking page for the spans\n\n"
    "A [x](<no such.md>) tail text here.\n"
    "B [y](<t.md#nope>) tail text here.\n"
    'C [z](<no such.md> "a title") tail.\n'
    "D [w](a\\_b.md) tail text here.\n"
    "E [v](<old name.md>) tail text here.\n"
)


def test_a_link_finding_spans_its_destination_as_written(repo: Path) -> None:
    write(repo, {"docs/t.md": TARGET, "docs/old name.md": TARGET})
    commit_all(repo, "docs")
    git(repo, "mv", "docs/old name.md", "docs/new name.md")
    commit_all(repo, "rename")
    write(repo, {"docs/page.md": PAGE})

    async def session() -> None:
        editor = Editor(repo)
        await editor.start()
        editor.open("docs/page.md")
        found = await editor.diagnostics("docs/page.md")
        spans = sorted(
            (d.range.start.line, str(d.code), covered(PAGE, d.range))
            for d in found
            if str(d.code) in ("KS022", "KS023", "KS024")
        )
        assert spans == [
            (2, "KS022", "<no such.md>"),
            (3, "KS023", "<t.md#nope>"),
            (4, "KS022", "<no such.md>"),
            (5, "KS022", "a\\_b.md"),
            (6, "KS024", "<old name.md>"),
        ]
        moved = next(d for d in found if d.code == "KS024")
        (fix,) = await editor.code_actions("docs/page.md", moved.range)
        assert fix.diagnostics is not None
        assert [covered(PAGE, d.range) for d in fix.diagnostics] == ["<old name.md>"]
        assert fix.edit is not None and fix.edit.changes is not None
        (change,) = fix.edit.changes[editor.uri("docs/page.md")]
        assert (covered(PAGE, change.range), change.new_text) == ("<old name.md>", "<new name.md>")
        await editor.stop()

    asyncio.run(asyncio.wait_for(session(), 5 * WAIT))


@pytest.mark.parametrize(
    ("line", "subject", "spanned"),
    [
        ("A [x](<no such.md>) tail", "no such.md", "<no such.md>"),
        ("A [x](<a\\>b.md>) tail", "a>b.md", "<a\\>b.md>"),
        ("A [x](a\\_b\\(1\\).md) tail", "a_b(1).md", "a\\_b\\(1\\).md"),
        ("A [x](c&amp;d.md) tail", "c&d.md", "c&amp;d.md"),
        ('<a href="c&amp;d.md">x</a> tail', "c&d.md", "c&amp;d.md"),
        ("A [x](plain.md) tail", "plain.md", "plain.md"),
        ("## The \\_x heading", "The _x heading", "The \\_x heading"),
        ("A [x](<unclosed.md tail", "unclosed.md", "<unclosed.md tail"),  # the rest
        ("A [x](other.md) tail", "else.md", "other.md) tail"),  # not there: the rest
    ],
)
def test_span_reads_the_subject_as_written(line: str, subject: str, spanned: str) -> None:
    text = f"# P\n\n{line}\n"
    column = line.index(spanned) + 1
    v = Violation("p.md", "KS022", "dead-link", Severity.ERROR, 3, column, "m", subject)
    assert covered(text, Page.of(text).span(v)) == spanned
