"""Where `kenso-git lsp` places findings, quick fixes and hovers: lines end at `\\r\\n`, `\\r`
or `\\n` for LSP as for the linter, a byte-order mark is a character of the first line the
linter does not count, and columns are units of the agreed position encoding. The editor's
side is counted apart from the server's code (`tests/lsp/client.py`)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from pathlib import Path

import pytest
from lsprotocol import types

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lsp.client import WAIT
from tests.lsp.client import Editor
from tests.lsp.client import covered
from tests.lsp.client import position

TARGET = "# Payment Retries\n\n## Backoff\n\n" + "Failed payments are retried with backoff. " * 4
OLD = "# Refund Rules\n\n" + "Refunds are issued to the original card within days. " * 4
LINK_LINE = "Read [the retries](target.md#backof) and [refunds](old.md) first."
ENDINGS = {
    "cr": ["\r"] * 8,
    "crlf": ["\r\n"] * 8,
    "mixed": ["\r\n", "\r", "\n", "\r", "\r", "\n", "\r\n", "\r"],  # no `\r` before a `\n`
}


def _page(breaks: list[str]) -> str:
    lines = ["---", "tags: [a, b, c]", "---", "# Checkout Guide For Payments", "", LINK_LINE]
    lines += ["", "## Setup"]
    return "".join(line + brk for line, brk in zip(lines, breaks, strict=True))


def _run(coroutine: Coroutine[object, object, None]) -> None:
    asyncio.run(asyncio.wait_for(coroutine, 5 * WAIT))


@pytest.fixture
def docs(repo: Path) -> Path:
    """target.md, and old.md renamed to refunds.md in the last commit (links to it: KS024)."""
    write(repo, {"docs/target.md": TARGET, "docs/old.md": OLD})
    commit_all(repo, "docs")
    git(repo, "mv", "docs/old.md", "docs/refunds.md")
    commit_all(repo, "rename the refunds page")
    return repo


def _by_code(found: list[types.Diagnostic]) -> dict[object, types.Diagnostic]:
    return {d.code: d for d in found}


def test_findings_and_fixes_sit_on_their_text_whatever_the_line_endings(docs: Path) -> None:
    """On a page with lone `\\r` line endings (old Mac), or `\\r` mixed with `\\n` and
    `\\r\\n`, every finding sat at column 1 (the page was one line to the server), a
    finding for the whole line spanned the whole page, and no quick fix was offered."""

    async def session() -> None:
        editor = Editor(docs)
        await editor.start()
        for name, breaks in ENDINGS.items():
            rel, text = f"docs/{name}.md", _page(breaks)
            editor.open(rel, text)
            found = _by_code(await editor.diagnostics(rel))
            spans = {
                code: (found[code].range.start.line, covered(text, found[code].range))
                for code in ("KS012", "KS023", "KS024", "KS007")
            }
            assert spans == {
                "KS012": (0, "---"),  # the whole first line, without its break
                "KS023": (5, "target.md#backof"),
                "KS024": (5, "old.md"),
                "KS007": (7, "## Setup"),
            }, name
            actions = await editor.code_actions(rel, found["KS024"].range)
            # the line's other quick fix is KS023's: "#backof" has one close anchor
            assert sorted(a.title[:5] for a in actions) == ["KS023", "KS024"], name
            (fix,) = [a for a in actions if a.title.startswith("KS024")]
            assert fix.edit is not None and fix.edit.changes is not None
            (change,) = fix.edit.changes[editor.uri(rel)]
            assert covered(text, change.range) == "old.md", name
            fixed = editor.edit(rel, change.range, change.new_text)
            assert fixed == text.replace("(old.md)", "(refunds.md)")
            after = await editor.settle(rel, lambda f: "KS024" not in _by_code(f))
            assert covered(fixed, _by_code(after)["KS023"].range) == "target.md#backof"
        await editor.stop()

    _run(session())


# A mark, then a line that the linter counts from after it; lone `\r` endings; characters
# of two UTF-16 units (four UTF-8 bytes) before findings and links.
MARKED = (
    "\ufeffRead [the retries](target.md) and [refunds](old.md) first.\r\r"
    "# Checkout Guide For Payments\r\r"
    "😀 See [the retries](target.md#backof) 😀 and [refunds](old.md).\r"
)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
def test_a_byte_order_mark_and_wide_characters_are_counted_in_the_agreed_units(
    docs: Path, encoding: str
) -> None:
    """With a byte-order mark, the first line's findings sat one character early and
    underlined the rest of the line; after a character beyond the BMP on a `\\r` page,
    findings, fixes and hovers missed their text in every encoding."""

    async def session() -> None:
        editor = Editor(docs, [encoding])
        started = await editor.start()
        assert started.capabilities.position_encoding == encoding
        rel = "docs/marked.md"
        editor.open(rel, MARKED)
        found = await editor.diagnostics(rel)
        spans = sorted(
            (d.range.start.line, str(d.code), covered(MARKED, d.range, encoding))
            for d in found
            if d.code in ("KS023", "KS024")
        )
        assert spans == [
            (0, "KS024", "old.md"),
            (4, "KS023", "target.md#backof"),
            (4, "KS024", "old.md"),
        ]
        everything = types.Range(types.Position(0, 0), types.Position(5, 0))
        edits = [
            change
            for fix in await editor.code_actions(rel, everything)
            for change in (fix.edit.changes or {})[editor.uri(rel)]  # type: ignore[union-attr]
        ]
        assert [(e.range.start.line, covered(MARKED, e.range, encoding)) for e in edits] == [
            (0, "old.md"),
            (4, "target.md#backof"),  # the anchor typo one anchor is close to
            (4, "old.md"),
        ]
        for target in ("(target.md)", "(target.md#backof)"):  # on its closing parenthesis
            at = position(MARKED, MARKED.index(target) + len(target) - 1, encoding)
            hover = await editor.hover(rel, at)
            assert hover is not None and hover.startswith("**Payment Retries**"), target
        await editor.stop()

    _run(session())


def test_an_edit_below_a_form_feed_or_line_separator_lands_where_it_was_made(
    docs: Path,
) -> None:
    """The server took ranged changes and applied them to lines split by `str.splitlines`,
    which also breaks at a form feed, `\\x85` or U+2028: a change below one landed lines
    above where it was made, and the server's text parted from the editor's."""
    text = f"# Checkout Guide For Payments\n\nA\x0cB\u2028C\x85D\n\n{LINK_LINE}\n"

    async def session() -> None:
        editor = Editor(docs)
        await editor.start()
        rel = "docs/page.md"
        editor.open(rel, text)
        moved = _by_code(await editor.diagnostics(rel))["KS024"]
        assert (moved.range.start.line, covered(text, moved.range)) == (4, "old.md")
        editor.drain()
        fixed = editor.edit(rel, moved.range, "refunds.md")
        after = _by_code(await editor.settle(rel, lambda f: "KS024" not in _by_code(f)))
        assert "KS024" not in after
        assert covered(fixed, after["KS023"].range) == "target.md#backof"
        await editor.stop()

    _run(session())
