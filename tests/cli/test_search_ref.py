"""`kenso-git search --ref REV` (#29): the docs as they are at a revision, in a real git
repository with a real index, the work tree, git's index and HEAD untouched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kenso_git.errors import ExitCode
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli
from tests.helpers import write

ALPHA = "# Alpha\n\nThe zebra protocol handles retries across the payment gateway service.\n"
BETA1 = "# Beta\n\nThe giraffe ledger reconciles invoices at the end of every month here.\n"
BETA2 = "# Beta\n\nThe okapi ledger reconciles invoices at the end of every month here.\n"
GAMMA = "# Gamma\n\nThe pelican runbook says how to rotate the signing keys of the cluster.\n"


@pytest.fixture
def history(tmp_path: Path) -> Path:
    """v1: a, b (giraffe), gamma; then gamma deleted; then a renamed, b edited (okapi)."""
    root = init_repo(
        tmp_path / "repo",
        {"docs/a.md": ALPHA, "docs/b.md": BETA1, "docs/gamma.md": GAMMA, ".gitignore": ".kenso/\n"},
    )
    git(root, "tag", "v1")
    git(root, "branch", "old")
    git(root, "rm", "-q", "docs/gamma.md")
    git(root, "commit", "-q", "-m", "drop gamma")
    git(root, "mv", "docs/a.md", "docs/alpha.md")
    write(root, {"docs/b.md": BETA2})
    git(root, "commit", "-q", "-am", "rename a, edit b")
    assert run_cli(root, "ingest").returncode == 0
    return root


def _paths(root: Path, query: str, *extra: str) -> list[str]:
    proc = run_cli(root, "search", query, "--json", *extra)
    assert proc.returncode == 0, proc.stderr
    return [hit["file_path"] for hit in json.loads(proc.stdout)]


@pytest.mark.parametrize("ref", ["v1", "old", "HEAD~2"])
def test_search_at_a_tag_branch_or_ancestor_sees_the_docs_as_they_were(
    history: Path, ref: str
) -> None:
    assert _paths(history, "giraffe") == []
    assert _paths(history, "giraffe", "--ref", ref) == ["docs/b.md"]
    assert _paths(history, "okapi", "--ref", ref) == []
    # a renamed doc answers under its path at the revision; a deleted one is back
    assert _paths(history, "zebra", "--ref", ref) == ["docs/a.md"]
    assert _paths(history, "zebra") == ["docs/alpha.md"]
    assert _paths(history, "pelican", "--ref", ref) == ["docs/gamma.md"]
    assert _paths(history, "pelican") == []


def test_search_at_head_matches_the_checkout(history: Path) -> None:
    assert _paths(history, "zebra", "--ref", "HEAD") == ["docs/alpha.md"]
    assert _paths(history, "okapi", "--ref", "HEAD") == ["docs/b.md"]


def test_agent_page_at_a_revision(history: Path) -> None:
    proc = run_cli(history, "search", "pelican", "--ref", "v1", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert [h["path"] for h in json.loads(proc.stdout)["results"]] == ["docs/gamma.md"]


def test_search_at_a_revision_leaves_work_tree_index_and_head_alone(history: Path) -> None:
    write(history, {"docs/b.md": BETA2 + "\nAn uncommitted edit mentions the heron.\n"})
    status = git(history, "status", "--porcelain")  # git's own refresh of its index, done
    head = git(history, "rev-parse", "HEAD")
    index_mtime = (history / ".git" / "index").stat().st_mtime_ns

    assert _paths(history, "giraffe", "--ref", "v1") == ["docs/b.md"]
    assert _paths(history, "heron", "--ref", "v1") == []

    assert (history / ".git" / "index").stat().st_mtime_ns == index_mtime
    assert git(history, "status", "--porcelain") == status
    assert git(history, "rev-parse", "HEAD") == head
    assert (history / "docs" / "b.md").read_text().endswith("heron.\n")
    assert _paths(history, "heron") == ["docs/b.md"]  # the checkout's index is the checkout's


def test_ignored_paths_of_today_stay_out_at_every_revision(history: Path) -> None:
    write(history, {".kensoignore": "docs/gamma.md\n"})
    assert _paths(history, "pelican", "--ref", "v1") == []


@pytest.mark.parametrize("ref", ["no-such-branch", "HEAD~99", ""])
def test_a_bad_ref_is_named_with_a_usage_exit_code(history: Path, ref: str) -> None:
    proc = run_cli(history, "search", "zebra", "--ref", ref)
    assert proc.returncode == ExitCode.USAGE
    assert "Traceback" not in proc.stderr
    assert "revision" in proc.stderr and "hint:" in proc.stderr


def test_ref_outside_git_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path / "plain", {"docs/a.md": ALPHA})
    assert run_cli(tmp_path / "plain", "ingest").returncode == 0
    proc = run_cli(tmp_path / "plain", "search", "zebra", "--ref", "HEAD")
    assert proc.returncode == ExitCode.USAGE
    assert "git" in proc.stderr and "Traceback" not in proc.stderr


def test_search_at_a_revision_writes_only_under_the_index_root(history: Path) -> None:
    """A read writes nothing but its own index's root: the copy of the index made for a
    revision lived in the system's temporary folder."""
    from kenso_git.api.revision import at_revision
    from kenso_git.kb import KnowledgeBase

    kb = KnowledgeBase.open(history)
    root = kb.db_path.parent
    with at_revision(kb, "v1") as (at, _revision):
        assert at.db_path.is_relative_to(root), at.db_path
        assert [h.file_path for h in at.search("zebra").hits] == ["docs/a.md"]
    assert list((root / "revisions").iterdir()) == []  # removed after use


def test_hits_at_a_revision_carry_no_last_commit_as_the_tool_gives_them(history: Path) -> None:
    """docs/mcp-tools.md: with `ref`, hits carry no `last_commit` (the index knows the
    checkout's dates, not the revision's); `search --json --ref` dated some of them."""
    proc = run_cli(history, "search", "ledger", "--json", "--ref", "HEAD")
    assert proc.returncode == 0, proc.stderr
    hits = json.loads(proc.stdout)
    assert hits and all("last_commit" not in h and "uncommitted" not in h for h in hits)
    checkout = json.loads(run_cli(history, "search", "ledger", "--json").stdout)
    assert all("last_commit" in h for h in checkout)


def test_a_time_filter_at_a_revision_is_refused_not_half_applied(history: Path) -> None:
    # a page that differs at REV carried modified 0 and failed the filter, the others today's
    # work-tree time: `--since 30d` at v1 dropped docs/b.md silently, exit 0
    assert run_cli(history, "search", "ledger", "--ref", "v1", "--format", "tsv").stdout
    for args in (("--since", "30d"), ()):
        query = "ledger" if args else "ledger modified:30d"
        refused = run_cli(history, "search", query, "--ref", "v1", "--format", "tsv", *args)
        assert refused.returncode == ExitCode.USAGE, refused.stdout + refused.stderr
        assert "modified" in refused.stderr and "--ref" in refused.stderr, refused.stderr
