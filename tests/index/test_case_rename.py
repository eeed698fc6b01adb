"""With `core.ignorecase` (git's default on macOS and Windows), `mv docs/Guide.md
docs/guide.md` makes git list only ` D docs/Guide.md`: it matches the new name to the
tracked entry, so it never lists it as untracked. The query-time check and `sync` trusted
that list: they removed the page and never indexed `docs/guide.md`, so search and get_doc
found it under neither name until `ingest`. A listed doc gone from the disk now has its
folder looked in for a name equal to it but for case, which is indexed as any new file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kenso_git.errors import DocumentNotFoundError
from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli

DOCS = {
    "docs/Guide.md": doc("Guide", "The guide is a page about narwhals, long enough to index.\n"),
    "docs/other.md": doc("Other", "Another page, about walruses, long enough to be indexed.\n"),
}


def _kg(root: Path, *args: str) -> str:
    proc = run_cli(root, *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("step", ["search", "sync"])
def test_a_case_only_rename_is_indexed_under_its_new_name(tmp_path: Path, step: str) -> None:
    root = init_repo(tmp_path / "repo", DOCS, commit=False)
    git(root, "config", "core.ignorecase", "true")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    _kg(root, "ingest")
    _kg(root, "sync")  # leaves the git mark: later checks ask git status only
    assert "docs/Guide.md" in _kg(root, "search", "narwhals")

    os.rename(root / "docs/Guide.md", root / "docs/guide.md")
    assert git(root, "status", "--short", "--untracked-files=all") == " D docs/Guide.md\n"

    if step == "sync":
        assert "1 updated" in _kg(root, "sync")
    found = _kg(root, "search", "narwhals")
    assert "docs/guide.md" in found
    assert "docs/Guide.md" not in found
    listed = _kg(root, "search", "page", "--json")
    assert "docs/guide.md" in listed
    assert "docs/Guide.md" not in listed
    kb = KnowledgeBase.open(root)
    assert "narwhals" in kb.get_doc("docs/guide.md")["content"]
    with pytest.raises(DocumentNotFoundError):
        kb.get_doc("docs/Guide.md")
