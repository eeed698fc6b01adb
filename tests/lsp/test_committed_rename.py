"""`kenso-git lsp` after a rename is committed: a commit changes no file of the work tree, so
the server kept saying the page was renamed "in the staged changes" while `kenso-git lint`
named the commit. A save or an open now sees that HEAD moved and reads the repository again."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.helpers import run_cli
from tests.lsp.client import WAIT
from tests.lsp.client import Editor

TARGET = "# Target page about widgets\n\nSome text that is long enough to be a document here.\n"
SOURCE = "# Source page about gadgets\n\nSee [target](target.md) for text that is long enough.\n"


def _run(coroutine) -> None:
    asyncio.run(asyncio.wait_for(coroutine, 5 * WAIT))


def _moved(found: list[types.Diagnostic]) -> list[str]:
    return [d.message for d in found if d.code == "KS024"]


@pytest.mark.parametrize("watches", [False, True], ids=["on-save", "watched"])
def test_a_committed_rename_is_named_by_its_commit_as_lint_names_it(
    repo: Path, watches: bool
) -> None:
    write(repo, {"docs/target.md": TARGET, "docs/source.md": SOURCE})
    commit_all(repo, "docs")

    async def session() -> None:
        editor = Editor(repo, watches=watches)
        await editor.ready()
        editor.open("docs/source.md")
        assert _moved(await editor.diagnostics("docs/source.md")) == []

        git(repo, "mv", "docs/target.md", "docs/moved.md")
        if watches:
            editor.watched(
                ("docs/target.md", types.FileChangeType.Deleted),
                ("docs/moved.md", types.FileChangeType.Created),
            )
        else:
            editor.save("docs/source.md")
        staged = await editor.settle("docs/source.md", lambda found: bool(_moved(found)))
        assert _moved(staged) == [
            "docs/target.md was renamed to docs/moved.md in the staged changes; "
            "lint --fix rewrites the link"
        ]

        git(repo, "commit", "-q", "-m", "move the target")
        short = git(repo, "rev-parse", "--short", "HEAD").strip()
        said = f"docs/target.md was renamed to docs/moved.md in {short}"
        cli = run_cli(repo, "lint", "--format", "concise", "docs/source.md").stdout
        assert f"KS024 {said};" in cli
        editor.save("docs/source.md")
        committed = await editor.settle(
            "docs/source.md", lambda found: _moved(found) != _moved(staged)
        )
        assert _moved(committed) == [f"{said}; lint --fix rewrites the link"]
        await editor.stop()

    _run(session())
