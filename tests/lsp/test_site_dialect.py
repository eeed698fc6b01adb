"""`kenso-git lsp` follows the site dialect when `mkdocs.yml` or a Hugo config is created,
edited or deleted mid-session. The server read the dialect once and the watchers and the
work-tree stamp held no site config, so its diagnostics kept the old dialect until a
restart: here `./#part` is the page's own anchor on an MkDocs or Hugo page (served at
`guide/page/`), the folder README's on GitHub, and not judged with MkDocs' flat URLs."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from kenso_git.lsp.disk import TreeStamp
from kenso_git.lsp.disk import is_relevant
from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.helpers import FRONT
from tests.lint.helpers import PREAMBLE
from tests.lsp.client import WAIT
from tests.lsp.client import Editor

README = FRONT.format(t="Guide overview") + PREAMBLE + "## Install\n\nInstall it.\n"
PAGE = (
    FRONT.format(t="Guide usage page")
    + PREAMBLE
    + "## Usage\n\nSee [usage](./#usage) and [install](./#install).\n"
)
GITHUB = {("KS023", "./#usage")}  # the folder's README's anchors: no #usage
SITE = {("KS023", "./#install")}  # the page's own: no #install
FLAT: set[tuple[object, str]] = set()  # `./` a site's folder, no page of its own: unjudged
CREATED, CHANGED, DELETED = (
    types.FileChangeType.Created,
    types.FileChangeType.Changed,
    types.FileChangeType.Deleted,
)


def _found(diagnostics: list[types.Diagnostic]) -> set[tuple[object, str]]:
    lines = PAGE.split("\n")
    return {
        (d.code, lines[d.range.start.line][d.range.start.character : d.range.end.character])
        for d in diagnostics
        if str(d.code) >= "KS022"
    }


@pytest.mark.parametrize("watches", [True, False], ids=["watching", "not-watching"])
def test_the_site_config_created_edited_and_deleted_changes_the_dialect(
    repo: Path, watches: bool
) -> None:
    write(repo, {"docs/guide/README.md": README, "docs/guide/page.md": PAGE})
    commit_all(repo, "docs")

    async def until(editor: Editor, expected: set[tuple[object, str]]) -> None:
        got = await editor.settle("docs/guide/page.md", lambda found: _found(found) == expected)
        assert _found(got) == expected

    def changed(editor: Editor, rel: str, kind: types.FileChangeType) -> None:
        if watches:  # the client's watcher reports it
            editor.watched((rel, kind))
        else:  # a client that watches nothing: the next save looks at the work tree
            editor.save("docs/guide/page.md")

    async def session() -> None:
        editor = Editor(repo, watches=watches)
        await editor.ready()
        editor.open("docs/guide/page.md")
        await until(editor, GITHUB)

        write(repo, {"mkdocs.yml": "site_name: x\n"})
        changed(editor, "mkdocs.yml", CREATED)
        await until(editor, SITE)

        write(repo, {"mkdocs.yml": "site_name: x\nuse_directory_urls: false\n"})
        changed(editor, "mkdocs.yml", CHANGED)
        await until(editor, FLAT)  # flat URLs: docs/guide/page.html, `./` is the folder

        write(repo, {"mkdocs.yml": "site_name: a longer name\n"})
        changed(editor, "mkdocs.yml", CHANGED)
        await until(editor, SITE)

        (repo / "mkdocs.yml").unlink()
        changed(editor, "mkdocs.yml", DELETED)
        await until(editor, GITHUB)

        write(repo, {"hugo.toml": 'title = "x"\ncontentDir = "docs"\n'})
        changed(editor, "hugo.toml", CREATED)
        await until(editor, SITE)
        await editor.stop()

    asyncio.run(asyncio.wait_for(session(), 5 * WAIT))


@pytest.mark.parametrize("watches", [True, False], ids=["watching", "not-watching"])
def test_a_site_config_saved_from_the_editor_changes_the_dialect(repo: Path, watches: bool) -> None:
    """The config open in the editor: its text is the file's once saved (the server reads it
    from disk), so neither the stamp nor a watcher's report may pass it over as an open
    document's."""
    flat = "site_name: x\nuse_directory_urls: false\n"
    write(repo, {"docs/guide/README.md": README, "docs/guide/page.md": PAGE, "mkdocs.yml": flat})
    commit_all(repo, "docs")

    async def session() -> None:
        editor = Editor(repo, watches=watches)
        await editor.ready()
        editor.open("docs/guide/page.md")
        editor.open("mkdocs.yml")
        got = await editor.settle("docs/guide/page.md", lambda found: _found(found) == FLAT)
        assert _found(got) == FLAT

        editor.change("mkdocs.yml", "site_name: x\n")
        write(repo, {"mkdocs.yml": "site_name: x\n"})
        editor.save("mkdocs.yml")
        if watches:
            editor.watched(("mkdocs.yml", CHANGED))
        got = await editor.settle("docs/guide/page.md", lambda found: _found(found) == SITE)
        assert _found(got) == SITE
        await editor.stop()

    asyncio.run(asyncio.wait_for(session(), 5 * WAIT))


@pytest.mark.parametrize(
    "rel",
    ["mkdocs.yml", "site/mkdocs.yaml", "hugo.toml", "config.yaml", "config/_default/markup.toml"],
)
def test_a_site_config_is_stamped_and_its_reported_change_calls_for_a_read(
    tmp_path: Path, rel: str
) -> None:
    write(tmp_path, {"docs/a.md": "# A\n"})
    stamp = TreeStamp.take(tmp_path, None)
    write(tmp_path, {rel: "x: 1\n"})
    assert stamp.differs(stamp.again(), set())
    assert is_relevant(rel, created=False, deleted=False, is_dir=False)
