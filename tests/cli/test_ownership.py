"""An index belongs to one root: no command reads or writes another folder's index."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from kenso_git.serve.service import Service
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write

EXE = [sys.executable, "-m", "kenso_git"]


def _kenso(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EXE, *args], cwd=cwd, capture_output=True, text=True, check=False)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _indexed_repo(root: Path) -> Path:
    init_repo(root, {"docs/guide.md": doc("Repo Guide", "The repository's own guide.")})
    assert _kenso(root, "ingest", "--no-lint").returncode == 0
    return root / ".kenso" / "docs.db"


def _plain_folder(root: Path) -> Path:
    write(root, {"docs/notes.md": doc("Outside Notes", "Notes kept outside any repository.")})
    return root


def test_the_mcp_tools_doc_generator_leaves_the_cwd_index_alone(tmp_path: Path) -> None:
    db = _indexed_repo(tmp_path / "repo")
    before = _digest(db)
    proc = subprocess.run(
        [sys.executable, "-m", "kenso_git.serve.mcp.docs"],
        cwd=tmp_path / "repo",
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "# MCP Tools Reference" in proc.stdout
    assert _digest(db) == before


def test_ingest_of_an_outside_folder_keeps_the_repo_index(tmp_path: Path) -> None:
    db = _indexed_repo(tmp_path / "repo")
    before = _digest(db)
    outside = _plain_folder(tmp_path / "elsewhere")
    assert _kenso(tmp_path / "repo", "ingest", "--no-lint", str(outside)).returncode == 0
    assert _digest(db) == before
    assert (outside / ".kenso" / "docs.db").is_file()


def test_serve_root_of_a_plain_folder_uses_that_folders_index(
    tmp_path: Path, monkeypatch: object
) -> None:
    _indexed_repo(tmp_path / "repo")
    outside = _plain_folder(tmp_path / "elsewhere")
    assert _kenso(outside, "ingest", "--no-lint").returncode == 0
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.chdir(tmp_path / "repo")
    service = Service(outside)
    assert service.kb().db_path == outside / ".kenso" / "docs.db"
    hits, _ = service.search_docs("outside notes", None, 5)
    assert [h["file_path"] for h in hits] == ["docs/notes.md"]  # type: ignore[index]


def test_an_index_that_records_another_root_is_a_usage_error(tmp_path: Path) -> None:
    _indexed_repo(tmp_path / "repo")
    copy = tmp_path / "copy"
    shutil.copytree(tmp_path / "repo", copy)
    for args in (("search", "guide"), ("stats",), ("ingest", "--no-lint"), ("sync",)):
        proc = _kenso(copy, *args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert str(tmp_path / "repo") in proc.stderr and str(copy) in proc.stderr
        assert "--db" in proc.stderr
    db = copy / ".kenso" / "docs.db"
    assert _kenso(copy, "ingest", "--no-lint", "--db", str(db)).returncode == 0
    assert _kenso(copy, "search", "guide").returncode == 0  # re-homed by --db


def test_outside_git_ingest_of_a_folder_and_sync_agree_on_the_root(tmp_path: Path) -> None:
    folder = _plain_folder(tmp_path / "plain")
    assert _kenso(folder, "ingest", "--no-lint", "docs/").returncode == 0
    assert (folder / ".kenso" / "docs.db").is_file()
    proc = _kenso(folder, "sync", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["removed"] == 0 and report["unchanged"] == 1, report
    state = json.loads(_kenso(folder, "stats", "--json").stdout)
    assert state["root"] == str(folder.resolve())
    assert state["documents"] == 1


def test_ingest_db_from_another_folder_keeps_that_checkouts_index(tmp_path: Path) -> None:
    """`ingest --db OTHER/.kenso/docs.db` run from the wrong folder once emptied OTHER's
    index (every document "removed") and rooted it here, exit 0: now a usage error naming
    both roots, the index untouched; `--rebuild` says the replacement is meant."""
    db = _indexed_repo(tmp_path / "repo")
    before = _digest(db)
    outside = _plain_folder(tmp_path / "elsewhere")
    for env_db in (False, True):
        args = ("ingest", "--no-lint") if env_db else ("ingest", "--no-lint", "--db", str(db))
        env = {**os.environ, "KENSO_DATABASE_URL": str(db)} if env_db else None
        proc = subprocess.run(
            [*EXE, *args], cwd=outside, capture_output=True, text=True, check=False, env=env
        )
        assert proc.returncode == 2, (proc.stdout, proc.stderr)
        assert str(tmp_path / "repo") in proc.stderr and str(outside) in proc.stderr
        assert "--rebuild" in proc.stderr
        assert _digest(db) == before
    assert _kenso(tmp_path / "repo", "sync").returncode == 0  # still the repo's own
    proc = _kenso(outside, "ingest", "--no-lint", "--rebuild", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    assert _kenso(tmp_path / "repo", "sync").returncode == 2  # now the other folder's


def test_ingest_db_into_a_subfolder_checkouts_index_is_refused(tmp_path: Path) -> None:
    """A checkout nested in another: the outer one's `ingest --db inner/.kenso/docs.db` would
    replace the inner checkout's own index, though the file lies under the outer root."""
    outer = init_repo(tmp_path / "outer", {"docs/a.md": doc("Outer", "The outer guide.")})
    db = _indexed_repo(outer / "inner")
    before = _digest(db)
    proc = _kenso(outer, "ingest", "--no-lint", "--db", str(db))
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert _digest(db) == before
