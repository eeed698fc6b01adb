"""`--db` naming a file that holds no index, beside one that does (`.kenso/kenso.db` for
`.kenso/docs.db`): the hint names the index that is there (store/noindex.py)."""

from __future__ import annotations

from pathlib import Path

from kenso_git.store import noindex
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli


def test_a_db_path_beside_the_index_is_told_its_name(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "apples in orchards. " * 8)})
    assert run_cli(root, "ingest", "--no-lint").returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    wrong = root / ".kenso" / "kenso.db"
    proc = run_cli(elsewhere, "search", "apples", "--db", str(wrong))
    assert proc.returncode == 3, proc.stderr
    assert f"no search index at {wrong}" in proc.stderr
    assert f"{root / '.kenso'} holds docs.db: pass its path to `--db`" in proc.stderr
    assert not wrong.exists()  # a read never makes the file it was pointed at
    right = run_cli(elsewhere, "search", "apples", "--db", str(root / ".kenso" / "docs.db"))
    assert right.returncode == 0, right.stderr


def test_nothing_is_named_without_an_index_beside(tmp_path: Path) -> None:
    (tmp_path / "notes.db").write_bytes(b"")  # a .db no kenso-git stamp vouches for
    assert noindex.no_index_hint(tmp_path / "kenso.db").startswith("run `kenso-git ingest`")
    assert "holds" not in noindex.no_index_hint(tmp_path / "missing" / "kenso.db")
