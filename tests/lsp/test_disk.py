"""The work-tree stamp a server takes for a client that watches no files, and which reported
changes call for reading the repository again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kenso_git.lsp.disk import TreeStamp
from kenso_git.lsp.disk import file_key
from kenso_git.lsp.disk import is_relevant
from tests.gitrepo import write

PAGE = "# A Page\n\nWords.\n"


def _tree(root: Path) -> TreeStamp:
    write(root, {"docs/a.md": PAGE, "docs/b.markdown": PAGE, "README.MD": PAGE, "x.py": ""})
    (root / ".git" / "info").mkdir(parents=True)
    return TreeStamp.take(root, root / ".git")


def test_a_stamp_holds_the_markdown_and_configuration_files(tmp_path: Path) -> None:
    stamp = _tree(tmp_path)
    write(tmp_path, {".gitignore": "", "docs/.kensoignore": "", "pyproject.toml": ""})
    assert sorted(stamp.again().files) == [
        ".gitignore",
        "README.MD",
        "docs/.kensoignore",
        "docs/a.md",
        "docs/b.markdown",
        "pyproject.toml",
    ]  # git's info/exclude is absent: no entry until it exists


@pytest.mark.parametrize(
    "change",
    ["rename", "new page", "delete", "edit a closed page", "gitignore", "config", "exclude"],
)
def test_a_stamp_differs_after_a_change_outside_the_editor(tmp_path: Path, change: str) -> None:
    stamp = _tree(tmp_path)
    if change == "rename":
        (tmp_path / "docs/a.md").rename(tmp_path / "docs/c.md")
    elif change == "new page":
        write(tmp_path, {"docs/deeper/new.md": PAGE})
    elif change == "delete":
        (tmp_path / "docs/b.markdown").unlink()
    elif change == "edit a closed page":
        write(tmp_path, {"docs/a.md": PAGE + "More.\n"})
    elif change == "gitignore":
        write(tmp_path, {"docs/.gitignore": "a.md\n"})
    elif change == "config":
        write(tmp_path, {".kenso.toml": "ignore = []\n"})
    else:
        write(tmp_path, {".git/info/exclude": "docs/\n"})
    assert stamp.differs(stamp.again(), set())


def test_the_editor_saving_an_open_document_is_no_change(tmp_path: Path) -> None:
    stamp = _tree(tmp_path)
    write(tmp_path, {"docs/a.md": PAGE + "Saved by the editor.\n"})
    assert not stamp.differs(stamp.again(), {file_key(os.fspath(tmp_path / "docs/a.md"))})
    assert stamp.differs(stamp.again(), {file_key(os.fspath(tmp_path / "docs/b.markdown"))})


def test_folders_discovery_never_reads_are_not_walked(tmp_path: Path) -> None:
    stamp = _tree(tmp_path)
    write(
        tmp_path,
        {
            "node_modules/pkg/README.md": PAGE,
            ".git/notes.md": PAGE,
            ".kenso/x.md": PAGE,
            "vendor/lib/.git": "gitdir: elsewhere\n",  # a submodule: its docs are its own
            "vendor/lib/README.md": PAGE,
            "env/pyvenv.cfg": "",
            "env/lib/README.md": PAGE,
        },
    )
    assert not stamp.differs(stamp.again(), set())


@pytest.mark.parametrize(
    ("rel", "created", "deleted", "is_dir", "expected"),
    [
        ("docs/a.md", False, False, False, True),
        ("docs/A.Markdown", True, False, False, True),
        ("docs/.gitignore", False, True, False, True),
        (".kenso.toml", False, False, False, True),
        (".cursorignore", True, False, False, True),
        ("docs/img.png", True, False, False, False),
        ("docs/part", True, False, True, True),  # a folder moved in
        ("docs/sub", False, True, False, True),  # a folder moved or deleted, gone now
        ("docs/old.png", False, True, False, False),
        ("build", True, False, False, False),  # a file without a suffix, created
        (".git/index.lock", True, False, False, False),
        ("node_modules/pkg/README.md", True, False, False, False),
        (".kenso/docs.db", False, False, False, False),
    ],
)
def test_which_reported_changes_call_for_a_read(
    rel: str, created: bool, deleted: bool, is_dir: bool, expected: bool
) -> None:
    assert is_relevant(rel, created=created, deleted=deleted, is_dir=is_dir) is expected
