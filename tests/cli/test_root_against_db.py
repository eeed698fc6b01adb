"""`watch` and `serve` refuse a --root that the index named by --db does not record (they
silently watched and served the recorded root instead), and `state` names a missing index
by its absolute path, as `stats` and `search` do."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli


def two_repos(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Repositories A (indexed into A.db, kept beside them) and B."""
    a = init_repo(tmp_path / "A", {"docs/a.md": doc("Alpha", "zeppelin alpha words. " * 12)})
    b = init_repo(tmp_path / "B", {"docs/b.md": doc("Beta", "zeppelin beta words. " * 12)})
    db = tmp_path / "A.db"
    out = run_cli(a, "ingest", "--db", str(db), "--no-lint")
    assert out.returncode == 0, out.stderr
    return a, b, db


@pytest.mark.parametrize(
    ("command", "env"),
    [("watch", {}), ("serve", {}), ("serve", {"KENSO_MCP_SDK": "1"})],
    ids=["watch", "serve", "serve-sdk"],
)
def test_a_root_the_index_does_not_record_is_refused(
    tmp_path: Path, command: str, env: dict[str, str]
) -> None:
    a, b, db = two_repos(tmp_path)
    out = run_cli(tmp_path, command, "--root", str(b), "--db", str(db), timeout=60, **env)
    assert out.returncode == 2, out.stderr
    assert f"this index belongs to {a.resolve()}, not to --root {b.resolve()}" in out.stderr
    assert "hint: drop --root" in out.stderr
    assert not (b / ".kenso").exists()


def test_a_root_inside_the_recorded_one_is_served(tmp_path: Path) -> None:
    a, _b, db = two_repos(tmp_path)
    out = run_cli(
        tmp_path, "serve", "--root", str(a / "docs"), "--db", str(db), "--no-watch", timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert "belongs to" not in out.stderr


def test_state_without_an_index_names_it_by_its_absolute_path(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "words. " * 12)})
    for command in ("state", "stats"):
        out = run_cli(root, command)
        assert out.returncode == 3, out.stderr
        assert f"no search index at {root.resolve() / '.kenso' / 'docs.db'}" in out.stderr
    assert not (root / ".kenso").exists()
