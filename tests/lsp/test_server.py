"""`kenso-git lsp` driven by a real LSP client over stdio in a real git repository (#30):
diagnostics on open and change with whole-repository context, kept current when another
document changes, quick fixes for fixable findings, a linked doc's title on hover."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lsp.client import WAIT
from tests.lsp.client import Editor

TARGET = "---\ntags: [a, b, c]\n---\n# Payment Retries\n\n## Backoff\n\n" + (
    "Failed card payments are retried three times with backoff. " * 3 + "\n"
)
OLD = "# Refund Rules\n\n" + "Refunds are issued to the original card within days. " * 4 + "\n"
GUIDE = (
    "---\ntags: [a, b, c]\n---\n# Checkout Guide For Payments\n\n"
    "Read [the retries](target.md#backof) and [refunds](old.md) first.\n"
)


def _codes(found: list[types.Diagnostic]) -> list[tuple[int, object]]:
    return sorted((d.range.start.line, d.code) for d in found if str(d.code) >= "KS022")


def _run(coroutine) -> None:
    asyncio.run(asyncio.wait_for(coroutine, 5 * WAIT))


def test_editor_session_gets_diagnostics_fixes_and_hovers(repo: Path) -> None:
    write(repo, {"docs/target.md": TARGET, "docs/old.md": OLD, "docs/guide.md": GUIDE})
    commit_all(repo, "docs")
    git(repo, "mv", "docs/old.md", "docs/refunds.md")
    commit_all(repo, "rename the refunds page")
    short = git(repo, "rev-parse", "--short", "HEAD").strip()

    async def session() -> None:
        editor = Editor(repo)
        started = await editor.start()
        assert started.capabilities.hover_provider
        assert started.capabilities.code_action_provider
        editor.open("docs/guide.md")
        found = await editor.diagnostics("docs/guide.md")
        assert _codes(found) == [(5, "KS023"), (5, "KS024")]
        moved = next(d for d in found if d.code == "KS024")
        assert moved.message == (
            f"docs/old.md was renamed to docs/refunds.md in {short}; lint --fix rewrites the link"
        )
        assert (moved.range.start.character, moved.range.end.character) == (51, 57)
        anchor = next(d for d in found if d.code == "KS023")
        assert 'did you mean "#backoff"?' in anchor.message

        actions = await asyncio.wait_for(
            editor.client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(editor.uri("docs/guide.md")),
                    range=moved.range,
                    context=types.CodeActionContext(diagnostics=[moved]),
                )
            ),
            WAIT,
        )
        assert actions is not None
        offered = [a for a in actions if isinstance(a, types.CodeAction)]
        # the line's other quick fix is KS023's: "#backof" has one close anchor
        assert sorted(a.title[:5] for a in offered) == ["KS023", "KS024"]
        (fix,) = [a for a in offered if a.title.startswith("KS024")]
        assert fix.edit is not None and fix.edit.changes is not None
        (edit,) = fix.edit.changes[editor.uri("docs/guide.md")]
        assert (edit.new_text, edit.range.start.character) == ("refunds.md", 51)

        hover = await asyncio.wait_for(
            editor.client.text_document_hover_async(
                types.HoverParams(
                    text_document=types.TextDocumentIdentifier(editor.uri("docs/guide.md")),
                    position=types.Position(line=5, character=8),  # on "the retries"
                )
            ),
            WAIT,
        )
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        assert hover.contents.value.startswith("**Payment Retries**")
        assert "docs/target.md#backof" in hover.contents.value

        # the quick fix and the anchor typo fixed in the buffer: no finding left
        editor.drain()
        fixed = GUIDE.replace("#backof", "#backoff").replace("(old.md)", "(refunds.md)")
        editor.change("docs/guide.md", fixed)
        clean = await editor.settle("docs/guide.md", lambda found: not _codes(found))
        assert _codes(clean) == []

        # another document's heading renamed in the editor: the guide's link breaks again
        editor.open("docs/target.md")
        await editor.diagnostics("docs/target.md")
        editor.drain()
        editor.change("docs/target.md", TARGET.replace("## Backoff", "## Backoff Policy"))
        await editor.diagnostics("docs/target.md")
        broken = await editor.settle("docs/guide.md", lambda found: bool(_codes(found)))
        assert _codes(broken) == [(5, "KS023")]

        # a new page typed in the editor, not on disk yet, is a target links may name
        editor.drain()
        editor.open("docs/new.md", "# A New Page\n\nSee [the guide](guide.md#checkout).\n")
        assert _codes(await editor.diagnostics("docs/new.md")) == [(2, "KS023")]
        await editor.stop()

    _run(session())


def test_columns_follow_the_position_encoding_the_client_chose(repo: Path) -> None:
    """Neovim and Helix offer utf-8 first: the server agreed to it but counted UTF-16 units,
    so on a line with CJK text the underline missed the link and the quick fix turned
    `中文 [cjk](Setup.md).` into `中文 [csetup.mdp.md).`"""
    line = "中文 [cjk](Setup.md)."
    write(repo, {"docs/setup.md": TARGET, "docs/guide.md": f"# Guide For The Setup\n\n{line}\n"})
    commit_all(repo, "docs")
    for encoding in ("utf-8", "utf-16", "utf-32"):

        async def session(encoding: str = encoding) -> None:
            editor = Editor(repo, [encoding])
            started = await editor.start()
            assert started.capabilities.position_encoding == encoding
            editor.open("docs/guide.md")
            found = await editor.diagnostics("docs/guide.md")
            case = next(d for d in found if d.code == "KS022")
            units = {"utf-8": 3, "utf-16": 1, "utf-32": 1}[encoding]  # per CJK character
            start = 2 * units + len(" [cjk](")
            assert (case.range.start.character, case.range.end.character) == (start, start + 8)
            actions = await asyncio.wait_for(
                editor.client.text_document_code_action_async(
                    types.CodeActionParams(
                        text_document=types.TextDocumentIdentifier(editor.uri("docs/guide.md")),
                        range=types.Range(types.Position(2, 0), types.Position(2, 0)),
                        context=types.CodeActionContext(diagnostics=[]),
                    )
                ),
                WAIT,
            )
            assert actions
            edit = actions[0].edit.changes[editor.uri("docs/guide.md")][0]  # type: ignore[union-attr,index]
            assert (edit.range.start.character, edit.new_text) == (start, "setup.md")
            await editor.stop()

        _run(session())


def test_without_a_root_the_opened_documents_repository_is_read(repo: Path) -> None:
    """A client that names no root (an editor launched from `/`) had the folder the server
    started in read as the repository: a walk of the whole file system, and a renamed page
    reported as missing (KS022) where `kenso-git lint` says where it went (KS024)."""
    write(repo, {"docs/target.md": TARGET, "docs/old.md": OLD, "docs/guide.md": GUIDE})
    commit_all(repo, "docs")
    git(repo, "mv", "docs/old.md", "docs/refunds.md")
    commit_all(repo, "rename the refunds page")

    async def session() -> None:
        editor = Editor(repo, rooted=False)
        await editor.start()
        editor.open("docs/guide.md")
        assert _codes(await editor.diagnostics("docs/guide.md")) == [(5, "KS023"), (5, "KS024")]
        await editor.stop()

    _run(session())


def test_a_malformed_config_is_shown_once_and_fixing_it_needs_no_restart(repo: Path) -> None:
    """Started with a malformed `.kenso.toml`, every keystroke popped up "Error in server:
    ConfigError..." and the failed load stayed cached until the editor restarted it."""
    write(repo, {"docs/target.md": TARGET, "docs/guide.md": GUIDE, ".kenso.toml": "lint = [\n"})
    commit_all(repo, "docs")

    async def session() -> None:
        editor = Editor(repo)
        await editor.start()
        editor.open("docs/guide.md")
        for _ in range(3):
            editor.change("docs/guide.md", GUIDE + "\nMore words.\n")
        for _ in range(int(WAIT * 10)):  # the load fails in a worker thread: wait for it
            if editor.messages:
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(1.0)  # the later changes: no second message
        assert len(editor.messages) == 1 and ".kenso.toml" in editor.messages[0]
        (repo / ".kenso.toml").write_text("", encoding="utf-8")
        editor.change("docs/guide.md", GUIDE)
        found = await editor.settle("docs/guide.md", lambda f: any(d.code == "KS023" for d in f))
        assert any(d.code == "KS023" for d in found)
        await editor.stop()

    _run(session())
