"""`kenso-git lsp` on a document `kenso-git lint` refuses as ignored (.gitignore, .cursorignore,
.kensoignore, `exclude`): the editor showed KS findings, errors included, for vendored or
generated Markdown the CLI says it does not lint. It now publishes none, and clears them when
the document becomes ignored while it is open."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.helpers import run_cli
from tests.lsp.client import WAIT
from tests.lsp.client import Editor

VENDORED = (
    "# Vendored readme page\n\nSee [missing](nothere.md) for some text that is long enough.\n"
)
GUIDE = "# Guide For The Install\n\nSee [missing](gone.md) for the steps of the install here.\n"


def _run(coroutine) -> None:
    asyncio.run(asyncio.wait_for(coroutine, 5 * WAIT))


def _cli_says_not_linted(repo: Path, rel: str) -> None:
    said = run_cli(repo, "lint", rel).stderr
    assert f"{rel}: ignored by .gitignore/.cursorignore/.kensoignore rules, not linted" in said


def _codes(found: list[types.Diagnostic]) -> set[object]:
    return {d.code for d in found}


@pytest.mark.parametrize("rule_file", [".gitignore", ".kensoignore"])
def test_an_ignored_document_gets_no_findings_as_lint_lints_it_not(
    repo: Path, rule_file: str
) -> None:
    write(repo, {rule_file: "vendor/\n", "vendor/README.md": VENDORED, "docs/guide.md": GUIDE})
    commit_all(repo, "docs")
    _cli_says_not_linted(repo, "vendor/README.md")

    async def session() -> None:
        editor = Editor(repo)
        await editor.start()
        editor.open("vendor/README.md")
        assert list(await editor.diagnostics("vendor/README.md")) == []
        # an edit neither: the document stays out of what the rules judge
        editor.change("vendor/README.md", VENDORED + "\nMore [links](also-gone.md).\n")
        assert list(await editor.diagnostics("vendor/README.md")) == []
        whole = types.Range(types.Position(0, 0), types.Position(5, 0))
        assert await editor.code_actions("vendor/README.md", whole) == []
        # a document that is not ignored keeps its findings in the same session
        editor.open("docs/guide.md")
        assert "KS022" in _codes(await editor.settle("docs/guide.md", bool))
        await editor.stop()

    _run(session())


@pytest.mark.parametrize("watches", [False, True], ids=["on-save", "watched"])
def test_findings_are_cleared_when_an_open_document_becomes_ignored(
    repo: Path, watches: bool
) -> None:
    write(repo, {"vendor/README.md": VENDORED, "docs/guide.md": GUIDE})
    commit_all(repo, "docs")

    async def session() -> None:
        editor = Editor(repo, watches=watches)
        await editor.ready()
        editor.open("vendor/README.md")
        assert "KS022" in _codes(await editor.settle("vendor/README.md", bool))

        write(repo, {".gitignore": "vendor/\n"})
        if watches:
            editor.watched((".gitignore", types.FileChangeType.Created))
        else:
            editor.save("vendor/README.md")
        assert list(await editor.settle("vendor/README.md", lambda found: not found)) == []

        # and back when the rule goes again
        (repo / ".gitignore").unlink()
        if watches:
            editor.watched((".gitignore", types.FileChangeType.Deleted))
        else:
            editor.save("vendor/README.md")
        assert "KS022" in _codes(await editor.settle("vendor/README.md", bool))
        await editor.stop()

    _run(session())
