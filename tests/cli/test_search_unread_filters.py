"""A plain `kenso-git search` answers as kenso's `search_docs` does: `in:docs` in its query
is two words, not a filter. Asked `apples in:guide` it answered from every folder with no
word said, so a user took the answer for a filtered one; it now says on stderr that the
filter was searched as words and how to have it read (stdout keeps its shape)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli

BODY = "This page talks about apples in enough words to pass the minimum chunk size. " * 3
NOTE = "searched as words here"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = init_repo(
        tmp_path_factory.mktemp("unread") / "r",
        {"guide/a.md": doc("Guide", BODY), "notes/b.md": doc("Notes", BODY)},
    )
    assert run_cli(root, "ingest", "--no-lint").returncode == 0
    return root


def test_a_filter_in_a_plain_search_is_said_to_be_read_as_words(repo: Path) -> None:
    proc = run_cli(repo, "search", "apples in:guide tag:x", "-n", "5")
    assert proc.returncode == 0, proc.stderr
    assert f"`in:`, `tag:` in the query are {NOTE}" in proc.stderr
    assert "--format" in proc.stderr
    assert "notes/b.md" in proc.stdout  # answered as before: no filter applied


def test_the_json_answer_stays_json(repo: Path) -> None:
    proc = run_cli(repo, "search", "apples path:guide", "--json")
    assert proc.returncode == 0, proc.stderr
    assert f"`in:` in the query is {NOTE}" in proc.stderr  # an alias, named canonically
    assert {hit["file_path"] for hit in json.loads(proc.stdout)} == {"guide/a.md", "notes/b.md"}


@pytest.mark.parametrize(
    "args",
    [
        ("How to: apples",),  # a colon that makes no filter
        ("apples",),
        ("apples in:guide", "--format", "json"),  # the query language reads it
    ],
)
def test_no_note_when_nothing_is_left_unread(repo: Path, args: tuple[str, ...]) -> None:
    proc = run_cli(repo, "search", *args)
    assert proc.returncode == 0, proc.stderr
    assert NOTE not in proc.stderr


def test_the_query_language_applies_the_filter(repo: Path) -> None:
    proc = run_cli(repo, "search", "apples in:guide", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert [hit["path"] for hit in json.loads(proc.stdout)["results"]] == ["guide/a.md"]
