"""The revision cache of `search --ref` (#29): a revision's differing docs and their texts kept
in `revisions.db` beside the index, bounded by count and bytes, least recently used first out,
shown by `stats`, and never trusted once the checkout's index or the ignore rules changed."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_search_ref import ALPHA
from tests.cli.test_search_ref import BETA1
from tests.cli.test_search_ref import BETA2
from tests.cli.test_search_ref import GAMMA
from tests.cli.test_search_ref import _paths
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli
from tests.helpers import write


@pytest.fixture
def history(tmp_path: Path) -> Path:
    """v1 (= HEAD~2): a, b (giraffe), gamma; HEAD~1 drops gamma; HEAD edits b (okapi)."""
    root = init_repo(
        tmp_path / "repo",
        {"docs/a.md": ALPHA, "docs/b.md": BETA1, "docs/gamma.md": GAMMA, ".gitignore": ".kenso/\n"},
    )
    git(root, "tag", "v1")
    git(root, "rm", "-q", "docs/gamma.md")
    git(root, "commit", "-q", "-m", "drop gamma")
    write(root, {"docs/b.md": BETA2})
    git(root, "commit", "-q", "-am", "edit b")
    assert run_cli(root, "ingest").returncode == 0
    return root


def _cache(root: Path) -> dict[str, Any]:
    proc = run_cli(root, "stats", "--json")
    assert proc.returncode == 0, proc.stderr
    found: dict[str, Any] = json.loads(proc.stdout)["revision_cache"]
    return found


def _commit(root: Path, ref: str) -> str:
    return git(root, "rev-parse", ref).strip()


def test_a_cached_revision_answers_without_reading_its_blobs_from_git(history: Path) -> None:
    """The second search at a revision takes the differing docs' texts from the cache: it
    answers even when git no longer has those blobs (before: every search read them with
    `git cat-file` and failed)."""
    assert _paths(history, "giraffe", "--ref", "v1") == ["docs/b.md"]
    for rel in ("docs/b.md", "docs/gamma.md"):
        blob = _commit(history, f"v1:{rel}")
        (history / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    assert _paths(history, "giraffe", "--ref", "v1") == ["docs/b.md"]
    assert _paths(history, "pelican", "--ref", "v1") == ["docs/gamma.md"]
    assert _paths(history, "okapi", "--ref", "v1") == []


def test_stats_shows_the_cached_revisions_most_recent_first(history: Path) -> None:
    assert _cache(history)["count"] == 0
    _paths(history, "giraffe", "--ref", "v1")
    _paths(history, "giraffe", "--ref", "HEAD~1")
    cache = _cache(history)
    assert [r["commit"] for r in cache["revisions"]] == [
        _commit(history, "HEAD~1"),
        _commit(history, "v1"),
    ]
    assert [r["ref"] for r in cache["revisions"]] == ["HEAD~1", "v1"]
    # v1 differs from the checkout in b (its text) and gamma (absent today); HEAD~1 in b
    assert [r["differing"] for r in cache["revisions"]] == [1, 2]
    assert 0 < cache["revisions"][0]["bytes"] < len(BETA1) + 1
    assert cache["bytes"] > 0 and cache["max_count"] == 16
    text = run_cli(history, "stats").stdout
    assert "revision cache: 2 of 16 revisions" in text
    # by commit first: a name typed earlier (HEAD~1) may name another commit by now
    assert f"  {_commit(history, 'v1')[:12]} (asked as v1) " in text
    assert f"  {_commit(history, 'HEAD~1')[:12]} (asked as HEAD~1) " in text


def test_the_least_recently_used_revision_goes_first(history: Path) -> None:
    write(history, {".kenso.toml": "revision-cache-count = 2\n"})
    _paths(history, "giraffe", "--ref", "v1")
    _paths(history, "giraffe", "--ref", "HEAD~1")
    _paths(history, "giraffe", "--ref", "v1")  # used again: HEAD~1 is now the oldest
    _paths(history, "giraffe", "--ref", "HEAD")
    cache = _cache(history)
    assert [r["commit"] for r in cache["revisions"]] == [
        _commit(history, "HEAD"),
        _commit(history, "v1"),
    ]


def test_the_bytes_bound_keeps_only_what_fits_and_drops_unneeded_texts(history: Path) -> None:
    write(history, {".kenso.toml": "revision-cache-bytes = 10\n"})
    _paths(history, "giraffe", "--ref", "v1")
    _paths(history, "giraffe", "--ref", "HEAD~1")
    cache = _cache(history)
    # the revision being searched stays even alone over the bound; v1 and its texts go
    assert [r["commit"] for r in cache["revisions"]] == [_commit(history, "HEAD~1")]
    assert cache["bytes"] == cache["revisions"][0]["bytes"]


def test_a_changed_ignore_rule_is_not_answered_from_the_cache(history: Path) -> None:
    assert _paths(history, "pelican", "--ref", "v1") == ["docs/gamma.md"]
    write(history, {".kensoignore": "docs/gamma.md\n"})
    assert _paths(history, "pelican", "--ref", "v1") == []


def test_a_changed_checkout_index_is_not_answered_from_the_cache(history: Path) -> None:
    """The cache keeps how a revision differs from the checkout's index: once the index
    holds another doc, that doc must not show up at the revision."""
    assert _paths(history, "heron", "--ref", "v1") == []
    heron = "# New\n\nThe heron arrived after v1 was tagged, with the rest of the flock.\n"
    write(history, {"docs/new.md": heron})
    git(history, "add", "-A")
    git(history, "commit", "-q", "-m", "add new")
    assert run_cli(history, "sync").returncode == 0
    assert _paths(history, "heron") == ["docs/new.md"]
    assert _paths(history, "heron", "--ref", "v1") == []
    assert _paths(history, "giraffe", "--ref", "v1") == ["docs/b.md"]


def test_a_broken_cache_file_is_made_again(history: Path) -> None:
    _paths(history, "giraffe", "--ref", "v1")
    cache_file = Path(_cache(history)["path"])
    cache_file.write_bytes(b"not a database at all" * 100)
    assert _paths(history, "giraffe", "--ref", "v1") == ["docs/b.md"]
    assert _cache(history)["count"] == 1
    assert _paths(history, "giraffe", "--ref", "v1") == ["docs/b.md"]


def test_the_cache_file_is_private_and_beside_the_index(history: Path, tmp_path: Path) -> None:
    _paths(history, "giraffe", "--ref", "v1")
    cache_file = Path(_cache(history)["path"])
    assert cache_file.parent == history / ".kenso"
    assert stat.S_IMODE(cache_file.stat().st_mode) == 0o600
    # an index named by --db keeps its cache beside it, searched from another folder
    db = tmp_path / "elsewhere" / "idx.db"
    assert run_cli(history, "ingest", "--db", str(db)).returncode == 0
    other = tmp_path / "other"
    other.mkdir()
    proc = run_cli(other, "search", "giraffe", "--ref", "v1", "--db", str(db), "--json")
    assert proc.returncode == 0, proc.stderr
    assert [h["file_path"] for h in json.loads(proc.stdout)] == ["docs/b.md"]
    assert (db.parent / "revisions.db").exists()


def test_copies_left_by_a_killed_process_are_swept(history: Path) -> None:
    folder = history / ".kenso" / "revisions"
    folder.mkdir(exist_ok=True)
    dead = 2**22 + 12345  # above the usual pid_max: no such process
    left = folder / f"ref-{dead}-x1y2"
    left.mkdir()
    (left / "index.db").write_bytes(b"x" * 1000)
    mine = folder / f"ref-{os.getpid()}-alive"  # a live process's copy stays
    mine.mkdir()
    assert _paths(history, "giraffe", "--ref", "v1") == ["docs/b.md"]
    assert not left.exists()
    assert mine.exists()


def test_a_cache_file_of_another_version_is_made_again(history: Path) -> None:
    import sqlite3

    folder = history / ".kenso"
    conn = sqlite3.connect(folder / "revisions.db")
    conn.execute("CREATE TABLE revision (commit_id TEXT, something_else TEXT)")
    conn.execute("INSERT INTO revision VALUES ('x', 'y')")
    conn.commit()
    conn.close()
    assert _paths(history, "giraffe", "--ref", "v1") == ["docs/b.md"]
    cache = _cache(history)
    assert [r["commit"] for r in cache["revisions"]] == [_commit(history, "v1")]


def test_a_folder_the_copy_cannot_be_made_in_sends_it_to_the_temporary_folder(
    history: Path,
) -> None:
    """mkdir of revisions/ fails as in a read-only folder: the copy is made in a private
    temporary folder instead (tests/api/test_read_only_reads.py), the file left as it was."""
    (history / ".kenso" / "revisions").write_text("not a folder")
    assert _paths(history, "giraffe", "--ref", "v1") == ["docs/b.md"]
    assert (history / ".kenso" / "revisions").read_text() == "not a folder"
    assert _paths(history, "okapi") == ["docs/b.md"]  # the checkout's index is untouched


@pytest.mark.parametrize("kind", ["text", "database"])
def test_a_revisions_db_of_someone_else_beside_a_db_index_is_left_alone(
    history: Path, tmp_path: Path, kind: str
) -> None:
    """An index named by --db keeps its cache in its folder, which may be anyone's: a
    `revisions.db` found there that is not a cache (a text file was deleted and made again;
    another program's database had kenso-git's tables added and its own `blob` table
    dropped) is left byte for byte, and `--ref` answers without a cache."""
    import hashlib
    import sqlite3

    folder = tmp_path / "shared"
    folder.mkdir()
    theirs = folder / "revisions.db"
    if kind == "text":
        theirs.write_bytes(b"my own notes about revisions\n" * 10)
    else:
        conn = sqlite3.connect(theirs)
        conn.execute("CREATE TABLE blob (id INTEGER PRIMARY KEY, data BLOB)")
        conn.execute("CREATE TABLE users (name TEXT)")
        conn.execute("INSERT INTO blob(data) VALUES (x'00ff')")
        conn.commit()
        conn.close()
    before = hashlib.sha256(theirs.read_bytes()).hexdigest()
    db = folder / "idx.db"
    assert run_cli(history, "ingest", "--db", str(db)).returncode == 0
    for _ in range(2):
        proc = run_cli(history, "search", "giraffe", "--ref", "v1", "--db", str(db), "--json")
        assert proc.returncode == 0, proc.stderr
        assert [h["file_path"] for h in json.loads(proc.stdout)] == ["docs/b.md"]
    assert hashlib.sha256(theirs.read_bytes()).hexdigest() == before
    assert not any(folder.glob("revisions.db-*"))
