"""A Markdown file whose name is not valid UTF-8 is skipped with a warning naming it (its
bytes escaped) and every other file is indexed, by ingest and by every sync (#26)."""

from __future__ import annotations

import os
from pathlib import Path

from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write
from tests.index.test_reliability import cli

BAD = b"docs/caf\xe9 notes.md"  # Latin-1 bytes: not UTF-8
ESCAPED = "docs/caf\\xe9 notes.md"


def _bad_file(root: Path, name: bytes = BAD) -> None:
    path = os.path.join(os.fsencode(root), name)
    with open(path, "wb") as out:
        out.write(doc("Latin", "bananas grow in the latin file. " * 5).encode())


def test_ingest_skips_a_file_name_that_is_not_utf8_and_indexes_the_rest(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/good.md": doc("Good", "apples grow here. " * 5)})
    _bad_file(root)
    proc = cli(root, "ingest", "--no-lint")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert ESCAPED in proc.stderr and "not valid UTF-8" in proc.stderr
    found = cli(root, "search", "apples", "--json")
    assert found.returncode == 0 and "docs/good.md" in found.stdout, found.stderr
    assert '"documents": 1' in cli(root, "stats", "--json").stdout


def test_every_sync_skips_it_too_committed_or_not(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/good.md": doc("Good", "apples grow here. " * 5)})
    kb = KnowledgeBase.open(root)
    kb.ingest()
    _bad_file(root)
    warnings: list[str] = []
    kb.sync(warn=warnings.append)  # untracked: git status lists it
    assert any(ESCAPED in w for w in warnings), warnings
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "latin name")
    write(root, {"docs/other.md": doc("Other", "cherries grow there. " * 5)})
    kb.sync(warn=warnings.append)
    kb.sync(paths=[os.fsdecode(BAD), "docs/other.md"], warn=warnings.append)  # a hook's sync
    kb.ingest(warn=warnings.append)
    assert sorted(kb.read(lambda c: [r[0] for r in c.execute("SELECT path FROM files")])) == [
        "docs/good.md",
        "docs/other.md",
    ]
    kb.close()
    assert cli(root, "sync").returncode == 0


def test_a_folder_whose_name_is_not_utf8_is_skipped_with_a_warning(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/good.md": doc("Good", "apples grow here. " * 5)})
    os.mkdir(os.path.join(os.fsencode(root), b"docs/\xff"))
    _bad_file(root, b"docs/\xff/inner.md")
    proc = cli(root, "ingest", "--no-lint")
    assert proc.returncode == 0, proc.stderr
    assert "docs/\\xff" in proc.stderr and "not valid UTF-8" in proc.stderr
    assert '"documents": 1' in cli(root, "stats", "--json").stdout
