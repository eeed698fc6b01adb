"""A killed `ingest --rebuild` leaves `.kenso/docs.db.building-PID` behind: the next writer
of any kind (sync, a hook's sync, ingest) removes what a dead process left (#26)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.helpers import doc
from tests.helpers import init_repo
from tests.index.test_reliability import cli

DOCS = {f"docs/d{i}.md": doc(f"Doc {i}", "words to index here. " * 40) for i in range(12)}


@pytest.fixture
def killed_rebuild(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "repo", DOCS)
    assert cli(root, "ingest", "--no-lint").returncode == 0
    env = {**os.environ, "KENSO_TEST_KILL_AFTER_FILES": "3"}
    proc = cli(root, "ingest", "--rebuild", "--no-lint", env=env)
    assert proc.returncode == -signal.SIGKILL
    assert list((root / ".kenso").glob("docs.db.building-*"))  # what the kill left
    return root


@pytest.mark.parametrize(
    "command",
    [("sync",), ("hook", "post-rewrite", "amend"), ("ingest", "--no-lint"), ("search", "words")],
)
def test_the_next_writer_removes_a_dead_rebuild_file(
    killed_rebuild: Path, command: tuple[str, ...]
) -> None:
    (killed_rebuild / "docs" / "d0.md").write_text(doc("Doc 0", "edited words. " * 40))
    proc = cli(killed_rebuild, *command)
    assert proc.returncode == 0, proc.stderr
    assert not list((killed_rebuild / ".kenso").glob("docs.db.building-*"))
    assert '"documents": 12' in cli(killed_rebuild, "stats", "--json").stdout


def test_a_live_build_file_is_left_alone(killed_rebuild: Path) -> None:
    live = killed_rebuild / ".kenso" / f"docs.db.building-{os.getpid()}"
    live.write_bytes(b"")  # this test process is alive: its build may be under way
    assert cli(killed_rebuild, "sync").returncode == 0
    assert [p.name for p in (killed_rebuild / ".kenso").glob("docs.db.building-*")] == [live.name]
