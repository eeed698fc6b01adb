"""`kenso-git changed --since REV` without `--until` (the work tree's side), for a doc no
commit from REV to HEAD changed and the work tree left as HEAD has it: on an orphan branch
it said `0 commits, last uncommitted` of a deletion that is committed, in a clean tree. It
now says why, as the `--until` form does: no common history, or which side changed it; a
change the work tree made is still `last uncommitted`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import orphan_repo
from tests.helpers import run_cli as run
from tests.helpers import write


def test_changed_against_the_work_tree_of_an_orphan_branch_says_no_common_history(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    orphan_repo(root)

    proc = run(root, "changed", "--since", "main")

    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "deleted   docs/a.md\t0 commits: no common history between main and HEAD"
    assert lines[1].startswith("added     docs/o.md\t1 commit, last ")
    assert "uncommitted" not in proc.stdout


def test_changed_against_the_work_tree_says_how_since_stands_to_head(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": "# A page\n\nText of a.\n"})
    git(root, "checkout", "-q", "-b", "feature")
    write(root, {"docs/new.md": "# New page\n\nOnly on the feature branch.\n"})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "feature page")
    git(root, "checkout", "-q", "main")

    ahead = run(root, "changed", "--since", "feature").stdout
    write(root, {"docs/a.md": "# A page\n\nText of a, edited on main.\n"})
    git(root, "commit", "-qam", "main edit")
    forked = run(root, "changed", "--since", "feature").stdout

    assert (
        ahead
        == "deleted   docs/new.md\t0 commits from --since to HEAD (--since is newer than HEAD)\n"
    )
    edited, gone = forked.splitlines()
    assert edited.startswith("modified  docs/a.md\t1 commit, last ")
    assert gone == (
        "deleted   docs/new.md\t0 commits from --since to HEAD "
        "(only --since's side changed it since the two forked)"
    )


def test_a_doc_the_work_tree_changed_is_still_last_uncommitted(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    orphan_repo(root)
    write(root, {"docs/draft.md": "# Draft page\n\nNot committed yet.\n"})

    proc = run(root, "changed", "--since", "main")

    assert "added     docs/draft.md\t0 commits, last uncommitted" in proc.stdout.splitlines()


def test_before_the_first_commit_of_an_orphan_branch_every_change_is_uncommitted(
    tmp_path: Path,
) -> None:
    """HEAD names no commit yet: the work tree made every difference from --since."""
    root = init_repo(tmp_path / "repo", {"docs/a.md": "# A page\n\nText of a.\n"})
    write(root, {"docs/b.md": "# B page\n\nText of b.\n"})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "b")
    git(root, "checkout", "-q", "--orphan", "fresh")
    git(root, "rm", "-q", "--cached", "docs/b.md")
    (root / "docs" / "b.md").unlink()

    text = run(root, "changed", "--since", "main")
    (item,) = json.loads(run(root, "changed", "--since", "main", "--json").stdout)["results"]

    assert text.stdout == "deleted   docs/b.md\t0 commits, last uncommitted\n", text.stderr
    assert item["path"] == "docs/b.md" and item["uncommitted"] is True
