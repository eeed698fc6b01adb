"""An index named by --db is only ever synced at the repository it was built from: a recorded
root that is an empty folder now (a disk not mounted) or holds another repository is read
as it is, flagged stale, and never emptied nor refilled by a read or a sync (#26)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.helpers import connect_raw
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli as run
from tests.helpers import write

DOCS = {
    f"docs/d{i}.md": doc(f"Doc {i}", f"zeppelin words of document {i}. " * 12) for i in (1, 2, 3)
}
OTHER = {"docs/x.md": doc("Other", "zeppelin words of another repository. " * 12)}


def held(db: Path) -> set[str]:
    """The paths an index holds, read with plain SQLite."""
    conn = connect_raw(db)
    try:
        return {r[0] for r in conn.execute("SELECT path FROM files")}
    finally:
        conn.close()


def indexed_elsewhere(tmp_path: Path) -> tuple[Path, Path]:
    """A repository of three docs whose index is kept outside it (`ingest --db`)."""
    root = init_repo(tmp_path / "repo", DOCS)
    db = tmp_path / "dbs" / "docs.db"
    db.parent.mkdir()
    out = run(root, "ingest", "--db", str(db), "--no-lint")
    assert out.returncode == 0, out.stderr
    assert held(db) == set(DOCS)
    return root, db


def found(out_json: str) -> set[str]:
    return {r["file_path"] for r in json.loads(out_json)}


def test_a_read_whose_root_is_an_empty_folder_answers_from_the_index(tmp_path: Path) -> None:
    root, db = indexed_elsewhere(tmp_path)
    shutil.move(root, tmp_path / "away")
    root.mkdir()  # the mount point of a disk that is not mounted
    out = run(tmp_path, "search", "zeppelin", "--db", str(db), "--json")
    assert out.returncode == 0, out.stderr
    assert found(out.stdout) == set(DOCS)
    assert "stale:" in out.stderr and "empty folder" in out.stderr, out.stderr
    assert str(root.resolve()) in out.stderr
    assert held(db) == set(DOCS)
    assert list(root.iterdir()) == []  # nothing written there either


def test_a_read_whose_root_holds_another_repository_keeps_the_index(tmp_path: Path) -> None:
    root, db = indexed_elsewhere(tmp_path)
    shutil.move(root, tmp_path / "away")
    init_repo(root, OTHER)  # another repository made at the same path
    for cwd in (tmp_path, root, root / "docs"):
        out = run(cwd, "search", "zeppelin", "--db", str(db), "--json")
        assert out.returncode == 0, out.stderr
        assert found(out.stdout) == set(DOCS), cwd
        assert "another repository" in out.stderr, out.stderr
        assert held(db) == set(DOCS)


def test_sync_and_ingest_refuse_an_index_whose_root_is_not_its_repository(
    tmp_path: Path,
) -> None:
    root, db = indexed_elsewhere(tmp_path)
    shutil.move(root, tmp_path / "away")
    root.mkdir()
    out = run(tmp_path, "sync", "--db", str(db))
    assert out.returncode == 2, out.stderr
    assert str(db) in out.stderr and str(root.resolve()) in out.stderr
    assert "empty folder" in out.stderr and f"ingest --rebuild --db {db}" in out.stderr
    assert held(db) == set(DOCS)
    init_repo(root, OTHER)
    for cwd, args in ((tmp_path, ("sync",)), (root, ("sync",)), (root, ("ingest", "--no-lint"))):
        out = run(cwd, *args, "--db", str(db))
        assert out.returncode == 2, (args, out.stderr)
        assert "another repository" in out.stderr and str(db) in out.stderr
        assert "--rebuild" in out.stderr
        assert held(db) == set(DOCS)
    # the way to really index what is there now
    out = run(root, "ingest", "--rebuild", "--db", str(db), "--no-lint")
    assert out.returncode == 0, out.stderr
    assert held(db) == set(OTHER)


def test_the_repository_put_back_syncs_again(tmp_path: Path) -> None:
    root, db = indexed_elsewhere(tmp_path)
    away = tmp_path / "away"
    shutil.move(root, away)
    root.mkdir()
    assert run(tmp_path, "sync", "--db", str(db)).returncode == 2
    root.rmdir()
    shutil.move(away, root)  # the disk mounted again
    write(root, {"docs/d4.md": doc("Doc 4", "zeppelin words of document 4. " * 12)})
    out = run(tmp_path, "search", "zeppelin", "--db", str(db), "--json")
    assert out.returncode == 0, out.stderr
    assert "stale" not in out.stderr, out.stderr
    assert found(out.stdout) == {*DOCS, "docs/d4.md"}


def test_a_commit_that_deletes_every_doc_still_syncs_to_none(tmp_path: Path) -> None:
    root, db = indexed_elsewhere(tmp_path)
    git(root, "rm", "-q", "-r", "docs")
    git(root, "commit", "-q", "-m", "no docs")
    git(root, "gc", "-q")  # the commit the index recorded is packed now: git vouches for it
    out = run(tmp_path, "sync", "--db", str(db))
    assert out.returncode == 0, out.stderr
    assert held(db) == set()


def test_a_moved_repository_is_rooted_anew_by_ingest_from_where_it_is(tmp_path: Path) -> None:
    root, db = indexed_elsewhere(tmp_path)
    away = tmp_path / "away"
    shutil.move(root, away)
    root.mkdir()  # whatever is at the old path now, the index may follow the repository
    out = run(away, "ingest", "--db", str(db), "--no-lint")
    assert out.returncode == 0, out.stderr
    assert held(db) == set(DOCS)
    assert run(tmp_path, "sync", "--db", str(db)).returncode == 0


def test_an_index_of_a_plain_folder_whose_folder_is_empty_now_is_kept(tmp_path: Path) -> None:
    folder = tmp_path / "handbook"
    write(folder, {"guide.md": doc("Guide", "How to fly the zeppelin. " * 20)})
    db = tmp_path / "kb.db"
    assert run(folder, "ingest", ".", "--db", str(db), "--no-lint").returncode == 0
    shutil.rmtree(folder)
    folder.mkdir()
    out = run(tmp_path, "search", "zeppelin", "--db", str(db), "--json")
    assert out.returncode == 0, out.stderr
    assert found(out.stdout) == {"guide.md"}
    assert "stale:" in out.stderr
    assert run(tmp_path, "sync", "--db", str(db)).returncode == 2
    assert held(db) == {"guide.md"}


def test_a_recorded_commit_pruned_from_its_own_repository_still_syncs(tmp_path: Path) -> None:
    # the commit the index recorded was amended away and pruned (as in a CI cache restored
    # into a shallow clone): its docs are still there, so this is the same repository
    root, db = indexed_elsewhere(tmp_path)
    write(root, {"docs/d1.md": doc("Doc 1", "quokka words of document 1. " * 12)})
    git(root, "commit", "-q", "-a", "--amend", "-m", "amended")
    git(root, "reflog", "expire", "--expire=now", "--all")
    git(root, "gc", "-q", "--prune=now")
    out = run(tmp_path, "search", "quokka", "--db", str(db), "--json")
    assert out.returncode == 0, out.stderr
    assert "stale" not in out.stderr, out.stderr
    assert found(out.stdout) == {"docs/d1.md"}
