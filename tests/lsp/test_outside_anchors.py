"""`kenso-git lsp` on links whose `#fragment` names a heading of a page outside the corpus (a
checked-out submodule's, an ignored folder's): the page is read from disk, a dead anchor is
a diagnostic and one differing in case gets its quick fix, as for the corpus' own pages."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from tests.lint.test_submodule_links import ANCHORS
from tests.lint.test_submodule_links import _parent
from tests.lsp.client import WAIT
from tests.lsp.client import Editor


def _anchors(found: list[types.Diagnostic]) -> list[tuple[int, int]]:
    return sorted((d.range.start.line, d.range.start.character) for d in found if d.code == "KS023")


def test_a_dead_anchor_into_a_submodule_page_is_a_diagnostic_with_its_case_fix(
    tmp_path: Path,
) -> None:
    top = _parent(tmp_path, checked_out=True, page=ANCHORS)

    async def session() -> None:
        editor = Editor(top)
        await editor.start()
        editor.open("docs/top.md")
        found = await editor.diagnostics("docs/top.md")
        assert _anchors(found) == [(2, 70), (3, 18), (4, 72)]
        case = next(d for d in found if d.code == "KS023" and d.range.start.line == 3)
        assert "differs in case" in case.message
        actions = await asyncio.wait_for(
            editor.client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(editor.uri("docs/top.md")),
                    range=case.range,
                    context=types.CodeActionContext(diagnostics=[case]),
                )
            ),
            WAIT,
        )
        (fix,) = [a for a in actions or () if isinstance(a, types.CodeAction)]
        assert fix.edit is not None and fix.edit.changes is not None
        (edit,) = fix.edit.changes[editor.uri("docs/top.md")]
        assert edit.new_text == "../vendor/lib/docs/libpage.md#install-steps"

        editor.drain()
        fixed = ANCHORS.replace("#instal-steps", "#install-steps")
        editor.change("docs/top.md", fixed)
        left = await editor.settle("docs/top.md", lambda found: len(_anchors(found)) == 2)
        assert _anchors(left) == [(3, 18), (4, 72)]
        await editor.stop()

    asyncio.run(asyncio.wait_for(session(), 5 * WAIT))
