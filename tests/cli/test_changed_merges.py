"""`kenso-git changed` and the age of a hit when merges are in the history.

A conflict resolved in a merge commit was left out: `changed` named the side commit (whose
text is not in HEAD) as the last one and counted one commit fewer than `git log`, and after
`ingest` the doc's hits carried neither `last_commit` nor `uncommitted`. And between two
revisions with no common commit (an orphan branch) a deleted doc's line asked "is --since
the newer revision?", which it was not."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import orphan_repo
from tests.helpers import run_cli as run
from tests.helpers import write

TEXT = "# Merge test page title\n\n{} line one of text long enough for ingest to index it.\n"


def _resolved_in_the_merge(root: Path) -> str:
    """The tester's r2: a conflict on docs/a.md resolved with new text in the merge."""
    init_repo(root, {"docs/a.md": TEXT.format("Plain")})
    git(root, "checkout", "-q", "-b", "side")
    write(root, {"docs/a.md": TEXT.format("Side")})
    git(root, "commit", "-qam", "side")
    git(root, "checkout", "-q", "main")
    write(root, {"docs/a.md": TEXT.format("Main")})
    git(root, "commit", "-qam", "main")
    git(root, "merge", "-q", "side", "-m", "merge", check=False)
    write(root, {"docs/a.md": TEXT.format("Resolved")})
    git(root, "add", "docs/a.md")
    git(root, "commit", "-qm", "merge side (resolved)")
    return git(root, "rev-parse", "HEAD").strip()


def test_changed_counts_the_merge_that_resolved_a_conflict_and_names_it_last(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    merge = _resolved_in_the_merge(root)

    one = run(root, "changed", "--since", "HEAD~1")
    two = run(root, "changed", "--since", "HEAD~2", "--json")

    assert one.returncode == 0, one.stderr
    assert one.stdout.startswith(f"modified  docs/a.md\t2 commits, last {merge[:7]} ")
    assert two.returncode == 0, two.stderr
    (item,) = json.loads(two.stdout)["results"]
    assert (item["commits"], item["last_commit"]["id"]) == (3, merge)
    assert item["last_commit"]["subject"] == "merge side (resolved)"


def test_a_hit_on_a_doc_a_merge_made_carries_the_merge_as_its_last_commit(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    merge = _resolved_in_the_merge(root)
    assert run(root, "ingest").returncode == 0

    found = run(root, "search", "resolved", "--json")

    assert found.returncode == 0, found.stderr
    (hit,) = json.loads(found.stdout)
    assert hit["last_commit"]["id"] == merge
    assert "uncommitted" not in hit


def test_changed_between_unrelated_histories_says_they_share_no_commit(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    orphan_repo(root)

    proc = run(root, "changed", "--since", "main", "--until", "HEAD")

    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "deleted   docs/a.md\t0 commits: no common history between main and HEAD"
    assert lines[1].startswith("added     docs/o.md\t1 commit, last ")
    assert "newer" not in proc.stdout


def test_changed_says_which_side_changed_a_doc_no_commit_of_the_range_did(
    tmp_path: Path,
) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": "# A page\n\nText of a.\n"})
    git(root, "tag", "v0")
    git(root, "checkout", "-q", "-b", "feature")
    write(root, {"docs/new.md": "# New page\n\nOnly on the feature branch.\n"})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "feature page")
    git(root, "checkout", "-q", "main")
    write(root, {"docs/a.md": "# A page\n\nText of a, edited on main.\n"})
    git(root, "commit", "-qam", "main edit")

    forked = run(root, "changed", "--since", "feature", "--until", "main").stdout
    back = run(root, "changed", "--since", "HEAD", "--until", "v0").stdout

    edited, gone = forked.splitlines()
    assert edited.startswith("modified  docs/a.md\t1 commit, last ")
    assert gone == (
        "deleted   docs/new.md\t0 commits from --since to --until "
        "(only --since's side changed it since the two forked)"
    )
    assert back == (
        "modified  docs/a.md\t0 commits from --since to --until "
        "(--since is the newer revision: swap them)\n"
    )
