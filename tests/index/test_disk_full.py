"""A full disk under the index (issue #14, finding 6): the error names it, and the index
that was there stays whole. Real ENOSPC from a small tmpfs mounted on `.kenso/`."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write
from tests.index.test_reliability import DOCS
from tests.index.test_reliability import cli
from tests.index.test_reliability import integrity

# ~2.6 MB of distinct words: chunk text is stored compressed, so a repeated phrase would
# fit in what is left of 1 MB; 360,000 distinct words' postings cannot
BIG = {
    f"docs/big{i}.md": doc(f"Big {i}", " ".join(f"w{i}x{k}" for k in range(9000)))
    for i in range(40)
}


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A repository whose `.kenso/` folder is a 1 MB tmpfs (needs CAP_SYS_ADMIN)."""
    root = init_repo(tmp_path / "repo", DOCS)
    folder = root / ".kenso"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root in a mount namespace)")
    try:
        yield root
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def _honest(stderr: str) -> None:
    assert "disk is full" in stderr, stderr
    assert "cannot rollback" not in stderr
    assert "corrupt" not in stderr and "delete" not in stderr


def test_a_full_disk_is_named_and_the_index_there_stays_whole(small_disk: Path) -> None:
    root = small_disk
    first = cli(root, "ingest", "--no-lint")
    assert first.returncode == 0, first.stderr
    db = root / ".kenso" / "docs.db"
    write(root, BIG)  # its index cannot fit in what is left of 1 MB
    failed = cli(root, "sync")
    assert failed.returncode == 1
    _honest(failed.stderr)
    assert integrity(db) == "ok"
    stats = cli(root, "stats", "--json")
    assert stats.returncode == 0, stats.stderr
    assert '"documents": 6' in stats.stdout  # the last good index, not a part of the new one


def test_a_first_ingest_on_a_full_disk_is_named_and_publishes_nothing(small_disk: Path) -> None:
    root = small_disk
    write(root, BIG)
    failed = cli(root, "ingest", "--no-lint")
    assert failed.returncode == 1
    _honest(failed.stderr)
    assert not (root / ".kenso" / "docs.db").exists()
    assert not list((root / ".kenso").glob("docs.db.building-*"))
