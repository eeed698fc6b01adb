"""An index belongs to the root it records: readers from any folder never re-root it (#26)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from kenso_git.kb import KnowledgeBase
from tests.helpers import connect_raw
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli as run
from tests.helpers import write


def held(db: Path) -> tuple[str | None, set[str]]:
    """The root an index records and the paths it holds, read with plain SQLite."""
    conn = connect_raw(db)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'root'").fetchone()
        paths = {r[0] for r in conn.execute("SELECT path FROM files")}
    finally:
        conn.close()
    return (row[0] if row else None), paths


def docs_folder(tmp_path: Path) -> Path:
    """A folder of docs outside git, as kenso's `ingest PATH` workflow has it."""
    folder = tmp_path / "handbook"
    write(folder, {"guide.md": doc("Deploy guide", "How to deploy the zeppelin service. " * 20)})
    write(folder, {"faq.md": doc("FAQ", "Frequently asked about zeppelin. " * 20)})
    return folder


def test_search_with_db_from_another_folder_keeps_the_index_and_its_root(tmp_path: Path) -> None:
    folder = docs_folder(tmp_path)
    db = tmp_path / "kb.db"
    assert run(folder, "ingest", ".", "--db", str(db), "--no-lint").returncode == 0
    before = held(db)
    assert before[1] == {"guide.md", "faq.md"}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = run(elsewhere, "search", "zeppelin", "--db", str(db), "--json")
    assert out.returncode == 0, out.stderr
    assert {r["file_path"] for r in json.loads(out.stdout)} == {"guide.md", "faq.md"}
    assert held(db) == before


def test_search_with_db_from_inside_another_repo_keeps_the_index(tmp_path: Path) -> None:
    repo_a = init_repo(tmp_path / "a", {"docs/a.md": doc("Alpha", "Alpha zeppelin words. " * 20)})
    repo_b = init_repo(tmp_path / "b", {"docs/b.md": doc("Beta", "Beta zeppelin words. " * 20)})
    assert run(repo_a, "ingest", "--no-lint").returncode == 0
    db = repo_a / ".kenso" / "docs.db"
    before = held(db)
    out = run(repo_b, "search", "zeppelin", "--db", str(db), "--json")
    assert out.returncode == 0, out.stderr
    assert {r["file_path"] for r in json.loads(out.stdout)} == {"docs/a.md"}
    assert held(db) == before
    again = run(repo_a, "search", "zeppelin", "--json")  # A's own search still works
    assert again.returncode == 0, again.stderr


def test_a_read_from_elsewhere_syncs_the_recorded_root_not_the_cwd(tmp_path: Path) -> None:
    folder = docs_folder(tmp_path)
    db = tmp_path / "kb.db"
    assert run(folder, "ingest", ".", "--db", str(db), "--no-lint").returncode == 0
    write(folder, {"new.md": doc("Airship", "The airship manual. " * 20)})
    out = run(tmp_path, "search", "airship", "--db", str(db), "--json")
    assert out.returncode == 0, out.stderr
    assert [r["file_path"] for r in json.loads(out.stdout)] == ["new.md"]
    assert held(db)[0] == str(folder.resolve())


def test_a_read_whose_root_is_gone_answers_from_the_index_flagged_stale(tmp_path: Path) -> None:
    folder = docs_folder(tmp_path)
    db = tmp_path / "kb.db"
    assert run(folder, "ingest", ".", "--db", str(db), "--no-lint").returncode == 0
    before = held(db)
    shutil.rmtree(folder)
    out = run(tmp_path, "search", "zeppelin", "--db", str(db), "--json")
    assert out.returncode == 0, out.stderr
    assert {r["file_path"] for r in json.loads(out.stdout)} == {"guide.md", "faq.md"}
    assert "stale" in out.stderr  # kenso's --json shape stays a list: the word goes to stderr
    assert str(folder.resolve()) in out.stderr
    assert held(db) == before


def test_ingest_is_the_only_command_that_re_roots_an_index(tmp_path: Path) -> None:
    folder = docs_folder(tmp_path)
    other = tmp_path / "other"
    write(other, {"x.md": doc("Other", "Something else entirely. " * 20)})
    db = tmp_path / "kb.db"
    assert run(folder, "ingest", ".", "--db", str(db), "--no-lint").returncode == 0
    for args in (("stats", "--json"), ("state", "--json"), ("sync",)):
        run(other, *args, "--db", str(db))
    assert held(db)[0] == str(folder.resolve())
    assert held(db)[1] == {"guide.md", "faq.md"}
    # a live folder's index is not taken over by a plain ingest from elsewhere (exit 2)
    assert run(other, "ingest", ".", "--db", str(db), "--no-lint").returncode == 2
    assert held(db)[0] == str(folder.resolve())
    assert run(other, "ingest", ".", "--db", str(db), "--no-lint", "--rebuild").returncode == 0
    assert held(db) == (str(other.resolve()), {"x.md"})


def test_the_library_opens_an_explicit_db_at_the_root_it_records(tmp_path: Path) -> None:
    folder = docs_folder(tmp_path)
    db = tmp_path / "kb.db"
    assert run(folder, "ingest", ".", "--db", str(db), "--no-lint").returncode == 0
    kb = KnowledgeBase.open(tmp_path, db=str(db))
    try:
        assert kb.workspace.root == folder.resolve()
        assert {h.file_path for h in kb.search("zeppelin").hits} == {"guide.md", "faq.md"}
    finally:
        kb.close()


def test_an_answer_the_query_sync_gave_up_on_says_stale_on_the_cli(tmp_path: Path) -> None:
    from kenso_git.index.refresh import MAX_QUERY_SYNC_FILES

    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "zeppelin words. " * 20)})
    assert run(root, "ingest", "--no-lint").returncode == 0
    many = MAX_QUERY_SYNC_FILES + 1
    write(root, {f"docs/n{i}.md": doc(f"New {i}", "zeppelin too. ") for i in range(many)})
    for args in (("search", "zeppelin"), ("search", "zeppelin", "--json")):
        out = run(root, *args)
        assert out.returncode == 0, out.stderr
        assert "stale:" in out.stderr and f"{many} docs changed" in out.stderr
    failing = run(root, "search", "zeppelin", "--page-size", "5")  # the seed's search too
    assert "stale:" in failing.stderr
