"""`kenso-git changed`: a doc moved to a name the scope hides (into a `.kensoignore`d folder,
or to a name that is no Markdown) is listed as deleted, and the commit that moved it is
counted, as a `git rm` is. It said `0 commits from --since to --until`, with no reason and
`last_commit: null`, though `git log SINCE..UNTIL -- OLD` lists that commit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli as run

PAGE = "# Pub\n\nA published page about spoonbills, later moved out of the docs.\n"


@pytest.mark.parametrize("moved_to", ["drafts/y.md", "docs/y.txt"])
def test_a_doc_moved_out_of_view_counts_the_commit_that_moved_it(
    tmp_path: Path, moved_to: str
) -> None:
    root = init_repo(
        tmp_path / "repo",
        {".kensoignore": "drafts/\n", "docs/y.md": PAGE, "docs/z.md": "# Z\n\nEgrets.\n"},
    )
    git(root, "tag", "t0")
    (root / "drafts").mkdir()
    git(root, "mv", "docs/y.md", moved_to)
    git(root, "commit", "-qm", "unpublish y")
    moved = git(root, "rev-parse", "HEAD").strip()
    git(root, "rm", "-q", "docs/z.md")
    git(root, "commit", "-qm", "delete z")

    text = run(root, "changed", "--since", "t0", "--until", "HEAD")
    listed = run(root, "changed", "--since", "t0", "--until", "HEAD", "--json")
    against_tree = run(root, "changed", "--since", "t0", "--json")

    assert text.returncode == 0, text.stderr
    y_line, z_line = text.stdout.splitlines()
    assert y_line.startswith(f"deleted   docs/y.md\t1 commit, last {moved[:7]} ")
    assert z_line.startswith("deleted   docs/z.md\t1 commit, last ")
    for proc in (listed, against_tree):
        y = json.loads(proc.stdout)["results"][0]
        assert (y["path"], y["status"], y["commits"]) == ("docs/y.md", "deleted", 1)
        assert y["last_commit"]["id"] == moved
        assert y["last_commit"]["subject"] == "unpublish y"
    assert moved_to not in text.stdout


def test_a_doc_moved_out_of_view_and_back_counts_both_moves(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {".kensoignore": "drafts/\n", "docs/y.md": PAGE})
    git(root, "tag", "t0")
    (root / "drafts").mkdir()
    git(root, "mv", "docs/y.md", "drafts/y.md")
    git(root, "commit", "-qm", "unpublish y")
    (root / "drafts/y.md").write_text(PAGE + "\nEdited as a draft.\n", encoding="utf-8")
    git(root, "commit", "-qam", "edit the draft")
    git(root, "mv", "drafts/y.md", "docs/y.md")
    git(root, "commit", "-qm", "publish y again")
    log = git(root, "log", "--format=%s", "t0..HEAD", "--", "docs/y.md").split()

    y = json.loads(run(root, "changed", "--since", "t0", "--until", "HEAD", "--json").stdout)

    assert log == ["publish", "y", "again", "unpublish", "y"]
    assert [(r["path"], r["status"], r["commits"]) for r in y["results"]] == [
        ("docs/y.md", "modified", 2)
    ]
    assert y["results"][0]["last_commit"]["subject"] == "publish y again"
