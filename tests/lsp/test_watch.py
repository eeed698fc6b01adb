"""`kenso-git lsp` sees what changes on disk outside the editor: a page renamed with `git mv`
in a terminal, a page created or a folder moved, `.kenso.toml` or `.gitignore` edited. Open
documents kept the findings of the repository as it was read at start until a restart."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from lsprotocol import types

from kenso_git.lsp.disk import file_key
from kenso_git.lsp.watch import calls_for_read
from kenso_git.lsp.watch import can_watch
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lsp.client import WAIT
from tests.lsp.client import Editor

PAGE = (
    "# Setup Steps For Payments\n\n" + "Install the payment service and its database. " * 3 + "\n"
)
SUB = (
    "# A Page In The Sub Folder\n\n" + "Words about the page in the sub folder go here. " * 3 + "\n"
)
GUIDE = (
    "# Guide For The Install\n\n"
    "See [setup](setup.md), [install](install.md), [new](new.md) and [page](sub/page.md).\n"
)
CREATED, CHANGED, DELETED = (
    types.FileChangeType.Created,
    types.FileChangeType.Changed,
    types.FileChangeType.Deleted,
)


def _run(coroutine) -> None:
    asyncio.run(asyncio.wait_for(coroutine, 5 * WAIT))


def _links(text: str) -> Callable[[list[types.Diagnostic]], set[tuple[object, str]]]:
    """The findings on links as (rule, the text they underline), for `Editor.settle`."""
    lines = text.split("\n")

    def found(diagnostics: list[types.Diagnostic]) -> set[tuple[object, str]]:
        out: set[tuple[object, str]] = set()
        for d in diagnostics:
            if str(d.code) >= "KS022":
                line = lines[d.range.start.line]
                out.add((d.code, line[d.range.start.character : d.range.end.character]))
        return out

    return found


def _docs(repo: Path) -> None:
    write(repo, {"docs/setup.md": PAGE, "docs/sub/page.md": SUB, "docs/guide.md": GUIDE})
    commit_all(repo, "docs")


def test_a_watching_client_is_asked_for_the_files_and_their_changes_are_read(repo: Path) -> None:
    _docs(repo)
    links = _links(GUIDE)

    async def until(editor: Editor, expected: set[tuple[object, str]]) -> None:
        got = await editor.settle("docs/guide.md", lambda found: links(found) == expected)
        assert links(got) == expected

    async def session() -> None:
        editor = Editor(repo, watches=True)
        await editor.start()
        registration = await editor.registered()
        assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        options = registration.register_options
        assert isinstance(options, dict)
        globs = {watcher["globPattern"] for watcher in options["watchers"]}
        assert {"**/*.md", "**/*.markdown", "**/.kenso.toml", "**/pyproject.toml"} <= globs
        assert {"**/.gitignore", "**/.cursorignore", "**/.kensoignore"} <= globs

        editor.open("docs/guide.md")
        await until(editor, {("KS022", "install.md"), ("KS022", "new.md")})

        # renamed in a terminal: the link to the new name works, the old one is moved
        git(repo, "mv", "docs/setup.md", "docs/install.md")
        editor.watched(("docs/setup.md", DELETED), ("docs/install.md", CREATED))
        await until(editor, {("KS024", "setup.md"), ("KS022", "new.md")})

        write(repo, {"docs/new.md": PAGE.replace("Setup Steps", "New Steps")})
        editor.watched(("docs/new.md", CREATED))
        await until(editor, {("KS024", "setup.md")})

        # a folder moved: the client reports the folder alone, not the pages in it
        (repo / "docs/sub").rename(repo / "docs/part")
        editor.watched(("docs/sub", DELETED), ("docs/part", CREATED))
        await until(editor, {("KS024", "setup.md"), ("KS022", "sub/page.md")})

        write(repo, {".kenso.toml": 'ignore = ["KS024"]\n'})
        editor.watched((".kenso.toml", CREATED))
        await until(editor, {("KS022", "sub/page.md")})

        # a malformed config is said; fixing it is read without an edit
        write(repo, {".kenso.toml": "ignore = [\n"})
        editor.watched((".kenso.toml", CHANGED))
        async with asyncio.timeout(WAIT):
            while not editor.messages:
                await asyncio.sleep(0.05)
        assert ".kenso.toml" in editor.messages[0]
        write(repo, {".kenso.toml": 'ignore = ["KS022"]\n'})
        editor.watched((".kenso.toml", CHANGED))
        await until(editor, {("KS024", "setup.md")})
        await editor.stop()

    _run(session())


@pytest.mark.parametrize("refuses", [False, True], ids=["cannot-watch", "refuses-to-watch"])
def test_without_watched_files_a_save_or_an_open_reads_what_changed(
    repo: Path, refuses: bool
) -> None:
    """A client that cannot watch files for the server (Neovim on Linux, Helix), or refuses
    the registration: the server looks at the work tree again when a document is saved or
    opened."""
    guide = GUIDE.replace("(new.md)", "(new.md#nope)")
    write(repo, {"docs/setup.md": PAGE, "docs/sub/page.md": SUB, "docs/guide.md": guide})
    commit_all(repo, "docs")
    links = _links(guide)

    async def until(editor: Editor, expected: set[tuple[object, str]]) -> None:
        got = await editor.settle("docs/guide.md", lambda found: links(found) == expected)
        assert links(got) == expected

    async def session() -> None:
        editor = Editor(repo, watches=refuses, refuses=refuses)
        await editor.start()
        if refuses:
            await editor.registered()
        editor.open("docs/guide.md")
        await until(editor, {("KS022", "install.md"), ("KS022", "new.md#nope")})

        git(repo, "mv", "docs/setup.md", "docs/install.md")
        editor.save("docs/guide.md")
        await until(editor, {("KS024", "setup.md"), ("KS022", "new.md#nope")})

        write(repo, {"docs/new.md": PAGE.replace("Setup Steps", "New Steps")})
        editor.open("docs/install.md")  # on disk already: the open reads the tree again
        await until(editor, {("KS024", "setup.md"), ("KS023", "new.md#nope")})

        # an ignored page is not linted, but its anchors are read from disk all the same
        write(repo, {".gitignore": "docs/new.md\n"})
        editor.save("docs/guide.md")
        await until(editor, {("KS024", "setup.md"), ("KS023", "new.md#nope")})

        write(repo, {"pyproject.toml": '[tool.kenso]\nignore = ["KS023", "KS024"]\n'})
        editor.save("docs/install.md")
        await until(editor, set())
        assert editor.registrations.empty()
        await editor.stop()

    _run(session())


def test_changes_to_open_documents_and_other_folders_call_for_no_read(tmp_path: Path) -> None:
    root = tmp_path.resolve() / "repo"
    write(root, {"docs/open.md": PAGE, "docs/closed.md": PAGE})
    (root / "docs/new").mkdir()

    def event(path: Path, kind: types.FileChangeType) -> types.FileEvent:
        return types.FileEvent(path.as_uri(), kind)

    open_files = {file_key(str(root / "docs/open.md"))}
    saved = event(root / "docs/open.md", CHANGED)
    assert not calls_for_read([saved], root, open_files)
    assert not calls_for_read([event(tmp_path / "other/x.md", CREATED)], root, open_files)
    assert not calls_for_read([event(root / "docs/logo.png", CREATED)], root, open_files)
    assert calls_for_read([saved, event(root / "docs/closed.md", CHANGED)], root, open_files)
    assert calls_for_read([event(root / "docs/new", CREATED)], root, open_files)
    assert calls_for_read([event(root / "docs/logo.png", DELETED)], None, open_files)


def test_only_a_client_that_registers_watchers_is_asked_to() -> None:
    def capabilities(dynamic: bool | None) -> types.ClientCapabilities:
        watched = types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=dynamic)
        return types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(did_change_watched_files=watched)
        )

    assert can_watch(capabilities(True))
    assert not can_watch(capabilities(False))
    assert not can_watch(capabilities(None))
    assert not can_watch(types.ClientCapabilities())
