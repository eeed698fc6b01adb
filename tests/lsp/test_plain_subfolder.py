"""`kenso-git lsp` outside git, with the editor opened on a subfolder of the folder `ingest`
indexed: the root is found upward as `kenso-git lint` run in that subfolder finds it (the
same function), so links and anchors across files are judged against the same pages and the
editor shows what the CLI prints. Before, the editor's folder was the root: a dead anchor
into a page one folder up was "not checked", though `kenso-git lint` from there failed on it.

A real LSP client over stdio and real `python -m kenso_git` runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from lsprotocol import types

from tests.helpers import plain_tree
from tests.helpers import run_cli
from tests.lsp.client import WAIT
from tests.lsp.client import Editor

GUIDE = (
    "# Alpha guide\n\nalpha beta gamma and enough words, see "
    "[beta](../b.md#no-such-part) and [home](../b.md#beta-notes).\n"
)
BETA = "# Beta notes\n\nWords enough for a page of its own here, and a few more of them.\n"


def _plain(tmp_path: Path, *, indexed: bool = True) -> tuple[Path, Path]:
    return plain_tree(tmp_path, {"guide/a.md": GUIDE, "b.md": BETA}, indexed=indexed)


def _cli_findings(cwd: Path, file: str) -> list[tuple[int, int, str]]:
    """What `kenso-git lint --json` run in `cwd` finds in `file` (as the CLI names it)."""
    out = run_cli(cwd, "lint", "--json")
    assert out.returncode in (0, 1), out.stderr
    found = [v for v in json.loads(out.stdout)["violations"] if v["file"] == file]
    return sorted((i["line"], i["column"], i["rule"]) for v in found for i in v["issues"])


def _shown(found: list[types.Diagnostic]) -> list[tuple[int, int, str]]:
    return sorted((d.range.start.line + 1, d.range.start.character + 1, str(d.code)) for d in found)


async def _editor_findings(guide: Path, *, rooted: bool) -> list[tuple[int, int, str]]:
    editor = Editor(guide, rooted=rooted)
    await editor.start()
    editor.open("a.md")
    found = await editor.settle("a.md", lambda found: bool(found))
    await editor.stop()
    return _shown(found)


def test_an_editor_opened_on_a_subfolder_judges_by_the_index_root_as_lint(tmp_path: Path) -> None:
    _root, guide = _plain(tmp_path)
    cli = _cli_findings(guide, "guide/a.md")
    assert (3, 47, "KS023") in cli  # the dead anchor into ../b.md, one folder up
    shown = asyncio.run(asyncio.wait_for(_editor_findings(guide, rooted=True), 5 * WAIT))
    assert shown == cli


def test_a_document_opened_with_no_workspace_folder_finds_the_index_root(tmp_path: Path) -> None:
    _root, guide = _plain(tmp_path)
    shown = asyncio.run(asyncio.wait_for(_editor_findings(guide, rooted=False), 5 * WAIT))
    assert shown == _cli_findings(guide, "guide/a.md")
    assert (3, 47, "KS023") in shown


def test_with_no_index_above_the_editors_folder_stays_the_root(tmp_path: Path) -> None:
    _root, guide = _plain(tmp_path, indexed=False)
    cli = _cli_findings(guide, "a.md")
    assert "KS023" not in {rule for _l, _c, rule in cli}  # the link leaves guide/: not checked
    shown = asyncio.run(asyncio.wait_for(_editor_findings(guide, rooted=True), 5 * WAIT))
    assert shown == cli


async def _page_above_fixed_then_saved(root: Path, guide: Path) -> list[str]:
    """The rules an editor on guide/ that watches files shows for a.md after b.md, one folder
    up, gains the heading the dead anchor names and a.md is saved."""
    editor = Editor(guide, watches=True)
    await editor.start()
    await asyncio.wait_for(editor.registrations.get(), WAIT)  # it watches guide/ now
    editor.open("a.md")
    first = await editor.settle("a.md", lambda found: bool(found))
    assert "KS023" in {str(d.code) for d in first}
    # A client watching guide/ reports nothing of a page above it: none is sent here either.
    (root / "b.md").write_text(BETA + "\n## No such part\n\nWords of the new part.\n")
    editor.drain()
    editor.client.text_document_did_save(
        types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(editor.uri("a.md")))
    )
    after = await editor.settle("a.md", lambda found: "KS023" not in {str(d.code) for d in found})
    await editor.stop()
    return sorted(str(d.code) for d in after)


def test_a_page_above_the_watched_folder_changed_is_seen_at_a_save(tmp_path: Path) -> None:
    root, guide = _plain(tmp_path)
    shown = asyncio.run(asyncio.wait_for(_page_above_fixed_then_saved(root, guide), 5 * WAIT))
    assert "KS023" not in shown
    assert shown == sorted(rule for _l, _c, rule in _cli_findings(guide, "guide/a.md"))
