"""A search at a revision holds the docs ingest admits, whatever door asks: `search --ref`
from the command line (and `at_revision` with no scope, which it calls) leaves out what
ingest skips and the gate refuses (a vendored `node_modules/` page, names with `%25`, a tab,
a newline, a backslash or bytes that are not UTF-8), as the checkout's search and the MCP
tools with `ref` do, and ranks as the checkout does where no doc differs (docs/history.md,
docs/security.md)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from kenso_git.api.revision import at_revision
from kenso_git.kb import KnowledgeBase
from kenso_git.serve.service import Service
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli

OK = {
    "docs/ok.md": "# Kiwi care\n\nThe kiwi needs a warm burrow and a quiet night to forage.\n",
    "docs/other.md": "# Moa notes\n\nThe moa was large and ate leaves from the lower branches.\n",
    "docs/third.md": "# Tui song\n\nThe tui sings two notes at once from a high branch here.\n",
}
# each a doc ingest skips with a warning; all mention the kiwi, so each would weigh on its
# statistics (fewer docs: another score) and answer the query
SKIPPED = (
    "node_modules/pkg/readme.md",
    "docs/50%25-off.md",
    "docs/tab\tname.md",
    "docs/new\nline.md",
    "docs/back\\slash.md",
)
KIWI = "# Vendored\n\nThe kiwi appears in a page that is not the project's own page at all.\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "repo", {**OK, **dict.fromkeys(SKIPPED, KIWI)}, commit=False)
    # a name whose bytes are not UTF-8 (git keeps it as it is)
    with open(os.path.join(os.fsencode(root), b"docs/caf\xe9.md"), "w", encoding="utf-8") as f:
        f.write(KIWI)
    git(root, "add", "-A", "-f")
    git(root, "commit", "-q", "-m", "initial")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
    # the odd names are committed as they are
    assert {*map(os.fsencode, SKIPPED), b"docs/caf\xe9.md"} <= set(listed.stdout.split(b"\0"))
    assert run_cli(root, "ingest", "--no-lint").returncode == 0
    return root


def _scored(hits: object) -> list[tuple[str, float]]:
    assert isinstance(hits, list)
    return [(hit["file_path"], hit["score"]) for hit in hits]


def test_cli_search_at_a_revision_shows_only_what_ingest_admits(repo: Path) -> None:
    checkout = run_cli(repo, "search", "kiwi", "--json")
    at_head = run_cli(repo, "search", "kiwi", "--json", "--ref", "HEAD")
    assert checkout.returncode == 0, checkout.stderr
    assert at_head.returncode == 0, at_head.stderr
    assert [hit["file_path"] for hit in json.loads(checkout.stdout)] == ["docs/ok.md"]
    assert [hit["file_path"] for hit in json.loads(at_head.stdout)] == ["docs/ok.md"]
    page = run_cli(repo, "search", "kiwi", "--ref", "HEAD", "--format", "json")
    assert page.returncode == 0, page.stderr
    assert [hit["path"] for hit in json.loads(page.stdout)["results"]] == ["docs/ok.md"]


def test_scores_at_an_unchanged_revision_are_the_checkouts(repo: Path) -> None:
    kb = KnowledgeBase.open(repo)
    try:
        checkout = _scored(kb.search_docs("kiwi branch", limit=20))
        with at_revision(kb, "HEAD") as (at, revision):
            assert revision.differing == 0  # nothing differs: the copy is the index
            assert _scored(at.search_docs("kiwi branch", limit=20)) == checkout
    finally:
        kb.close()
    assert {path for path, _ in checkout} == set(OK)
    assert any(score != 0 for _, score in checkout)  # the statistics do weigh


def test_every_door_at_a_revision_answers_the_same_docs(repo: Path) -> None:
    kb = KnowledgeBase.open(repo)
    try:
        with at_revision(kb, "HEAD") as (at, _revision):
            cli_door = {hit["file_path"] for hit in at.search_docs("kiwi", limit=20)}  # type: ignore[index]
    finally:
        kb.close()
    service = Service(repo)
    try:
        hits, _ = service.search_docs("kiwi", None, 20, "HEAD")
        page, _ = service.search("kiwi", page_size=20, ref="HEAD")
    finally:
        service.revisions.close()
    assert cli_door == {h["file_path"] for h in hits} == {"docs/ok.md"}  # type: ignore[index]
    assert {h["path"] for h in page["results"]} == {"docs/ok.md"}
