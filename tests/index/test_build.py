from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kenso_git.errors import NoIndexError
from kenso_git.index.build import KILL_AFTER_ENV
from kenso_git.kb import KnowledgeBase
from tests.helpers import check_index
from tests.helpers import connect_raw
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write


def _kb(root: Path) -> KnowledgeBase:
    return KnowledgeBase.open(root)


def _rows(kb: KnowledgeBase, sql: str) -> list[tuple[object, ...]]:
    with connect_raw(kb.db_path) as conn:
        return [tuple(r) for r in conn.execute(sql)]


def _docs(kb: KnowledgeBase) -> list[str]:
    return [r[0] for r in _rows(kb, "SELECT DISTINCT file_path FROM chunks ORDER BY 1")]


def test_ingest_creates_the_index_in_the_repo_and_excludes_it_from_git(tmp_path):
    root = init_repo(tmp_path, {"docs/a.md": doc("Alpha Guide"), "b.md": doc("Beta Notes")})
    report = _kb(root / "docs").ingest()
    assert report.count("ingested") == 2
    assert (root / ".kenso" / "docs.db").is_file()
    assert "/.kenso/" in (root / ".git" / "info" / "exclude").read_text(encoding="utf-8")
    assert _docs(_kb(root)) == ["b.md", "docs/a.md"]


def test_reingest_skips_unchanged_files_without_parsing(tmp_path):
    root = init_repo(tmp_path, {"a.md": doc("Alpha Guide"), "b.md": doc("Beta Notes")})
    kb = _kb(root)
    kb.ingest()
    again = kb.ingest(keep_documents=True)
    assert again.count("unchanged") == 2 and again.documents == []
    write(root, {"b.md": doc("Beta Notes", "Changed body text with more words than before.\n")})
    third = kb.ingest(keep_documents=True)
    assert [r.path for r in third.results if r.status == "ingested"] == ["b.md"]
    assert [d.path for d in third.documents] == ["b.md"]


def _indexed_then_touched(tmp_path: Path) -> tuple[Path, KnowledgeBase]:
    """An indexed repository whose one file then gets a new mtime but the same bytes."""
    root = init_repo(tmp_path, {"a.md": doc("Alpha Guide")})
    kb = _kb(root)
    kb.ingest()
    later = time.time() + 5
    os.utime(root / "a.md", (later, later))
    return root, kb


def test_touching_a_file_without_changing_it_does_not_reparse(tmp_path):
    _root, kb = _indexed_then_touched(tmp_path)
    report = kb.ingest(keep_documents=True)
    assert report.count("unchanged") == 1 and report.documents == []


def test_ingesting_a_folder_then_the_root_never_duplicates(tmp_path):
    root = init_repo(tmp_path, {"docs/a.md": doc("Alpha Guide"), "b.md": doc("Beta Notes")})
    kb = _kb(root)
    kb.ingest([root / "docs"])
    assert _docs(kb) == ["docs/a.md"]
    report = kb.ingest()
    assert report.count("unchanged") == 1 and report.count("ingested") == 1
    assert _docs(kb) == ["b.md", "docs/a.md"]
    kb.ingest([root / "docs"])
    assert _docs(kb) == ["docs/a.md"]


def test_deleted_folder_and_shrunk_file_are_removed(tmp_path):
    root = init_repo(
        tmp_path,
        {
            "guides/a.md": doc("Alpha Guide"),
            "guides/deep/b.md": doc("Beta Notes"),
            "c.md": doc("Gamma"),
        },
    )
    kb = _kb(root)
    kb.ingest()
    import shutil

    shutil.rmtree(root / "guides")
    (root / "c.md").write_text("# tiny\n", encoding="utf-8")
    report = kb.ingest()
    assert sorted(r.path for r in report.results if r.status == "removed") == [
        "guides/a.md",
        "guides/deep/b.md",
    ]
    assert _docs(kb) == []
    assert _rows(kb, "SELECT status FROM files WHERE path = 'c.md'") == [("short",)]


def test_links_follow_relates_to_edits_and_are_normalised(tmp_path):
    files = {
        "docs/a.md": doc("Alpha Guide", relates_to=["./b.md", "../top.md", "docs/b.md"]),
        "docs/b.md": doc("Beta Notes"),
        "top.md": doc("Top Level"),
    }
    root = init_repo(tmp_path, files)
    kb = _kb(root)
    kb.ingest()
    links = _rows(kb, "SELECT source_path, target_path, relation_type FROM links ORDER BY 2")
    assert links == [("docs/a.md", "docs/b.md", "related"), ("docs/a.md", "top.md", "related")]
    write(root, {"docs/a.md": doc("Alpha Guide")})
    kb.ingest()
    assert _rows(kb, "SELECT * FROM links") == []


def test_link_to_a_missing_target_resolves_once_the_target_appears(tmp_path):
    root = init_repo(tmp_path, {"docs/a.md": doc("Alpha Guide", relates_to=["guides/new.md"])})
    kb = _kb(root)
    kb.ingest()
    assert _rows(kb, "SELECT target_path FROM links") == [("guides/new.md",)]
    write(root, {"docs/guides/new.md": doc("New Guide")})
    kb.ingest()
    assert _rows(kb, "SELECT target_path FROM links") == [("docs/guides/new.md",)]


def test_frontmatter_title_reaches_the_title_column(tmp_path):
    text = (
        "---\ntitle: Settlement Lifecycle\n---\n# Trades\n\n"
        "Some body text about trades and money.\n"
    )
    root = init_repo(tmp_path, {"a.md": text, "b.md": doc("Other Document")})
    kb = _kb(root)
    kb.ingest()
    hits = kb.search("lifecycle").hits
    assert [h.file_path for h in hits] == ["a.md"]


def test_malformed_frontmatter_warns_with_file_and_line_and_still_indexes(tmp_path):
    text = (
        "---\ntitle: [unclosed\ntags: a\n---\n# Broken Frontmatter\n\n"
        "The body is still indexed here.\n"
    )
    root = init_repo(tmp_path, {"bad.md": text})
    warnings: list[str] = []
    _kb(root).ingest(warn=warnings.append)
    assert warnings and warnings[0].startswith("bad.md:")
    assert _kb(root).search("body indexed").hits[0].file_path == "bad.md"


def test_reading_commands_never_create_an_index(tmp_path):
    root = init_repo(tmp_path, {"a.md": doc("Alpha Guide")})
    kb = _kb(root)
    with pytest.raises(NoIndexError):
        kb.search("alpha")
    with pytest.raises(NoIndexError):
        kb.state()
    assert not (root / ".kenso").exists()


def test_database_url_environment_variable_wins(tmp_path, monkeypatch):
    root = init_repo(tmp_path / "repo", {"a.md": doc("Alpha Guide")})
    target = tmp_path / "elsewhere" / "x.db"
    monkeypatch.setenv("KENSO_DATABASE_URL", str(target))
    kb = _kb(root)
    kb.ingest()
    assert kb.db_path == target and target.is_file()
    assert not (root / ".kenso").exists()


def test_plain_folder_without_git_works(tmp_path, monkeypatch):
    write(tmp_path / "notes", {"a.md": doc("Alpha Guide")})
    monkeypatch.chdir(tmp_path)
    kb = _kb(tmp_path / "notes")
    assert not kb.workspace.is_git
    report = kb.ingest()
    assert report.count("ingested") == 1
    row = _rows(kb, "SELECT blob_id FROM files")[0]
    data = (tmp_path / "notes" / "a.md").read_bytes()
    import hashlib

    assert row[0] == hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


def test_state_reports_freshness(tmp_path):
    root = init_repo(tmp_path, {"a.md": doc("Alpha Guide")})
    kb = _kb(root)
    kb.ingest()
    state = kb.state()
    assert state.documents == 1 and state.stale is False and state.as_of is not None
    write(root, {"b.md": doc("Beta Notes")})
    assert kb.state().stale is True
    kb.sync()
    assert kb.state().stale is False


def test_chunk_size_change_rechunks_everything(tmp_path, monkeypatch):
    body = "Intro paragraph that is long enough to stand on its own.\n\n" + (
        "## Section One\n\n" + "word " * 300 + "\n\n" + "more " * 300 + "\n"
    )
    root = init_repo(tmp_path, {"a.md": doc("Alpha Guide", body)})
    _kb(root).ingest()
    before = _rows(_kb(root), "SELECT COUNT(*) FROM chunks")[0][0]
    monkeypatch.setenv("KENSO_CHUNK_SIZE", "1000")
    report = _kb(root).sync()
    assert report.count("ingested") == 1
    assert _rows(_kb(root), "SELECT COUNT(*) FROM chunks")[0][0] > before


_INGEST = """
import sys
from kenso_git.kb import KnowledgeBase
KnowledgeBase.open(sys.argv[1]).ingest()
"""


def _write_version(root: Path, marker: str, count: int) -> None:
    body = f"This page belongs to {marker} of the corpus and says so clearly.\n\n" + (
        f"## Part about {marker}\n\n" + "filler words for the chunker " * 40 + "\n"
    )
    write(root, {f"d{i:04}.md": doc(f"Page {i}", body) for i in range(count)})


def test_kill_dash_nine_mid_ingest_leaves_the_previous_index(tmp_path):
    root = init_repo(tmp_path, {"seed.md": doc("Seed Page")})
    _write_version(root, "versionalpha", 600)
    _kb(root).ingest()
    _write_version(root, "versionbravo", 600)
    outcomes = set()
    for files in (1, 300, 599):  # the writer kills itself after this many of the 600 files
        env = {**os.environ, KILL_AFTER_ENV: str(files)}
        proc = subprocess.run([sys.executable, "-c", _INGEST, str(root)], env=env, check=False)
        assert proc.returncode == -signal.SIGKILL  # died mid-transaction, not after it
        with connect_raw(_kb(root).db_path) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        kb = _kb(root)
        alpha = len(kb.search("versionalpha", limit=20).hits)
        bravo = len(kb.search("versionbravo", limit=20).hits)
        assert (alpha, bravo) in {(20, 0), (0, 20)}, (alpha, bravo)
        outcomes.add("old" if alpha else "new")
        kb.close()
    assert "old" in outcomes  # at least one kill landed mid-transaction
    assert outcomes == {"old"}  # every kill did: the previous index stays whole
    _kb(root).ingest()
    assert len(_kb(root).search("versionbravo", limit=20).hits) == 20


def test_ingest_json_output_shape(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from kenso_git.cli.main import cli

    root = init_repo(tmp_path, {"a.md": doc("Alpha Guide")})
    monkeypatch.chdir(root)
    result = CliRunner().invoke(cli, ["ingest", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["ingest"]["ingested"] == 1
    assert data["ingest"]["files"][0] == {
        "path": "a.md",
        "status": "ingested",
        "chunks": 2,
        "title": "Alpha Guide",
        "category": "general",
    }
    assert "lint" in data


def test_search_and_stats_exit_3_without_an_index(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from kenso_git.cli.main import main

    root = init_repo(tmp_path, {"a.md": doc("Alpha Guide")})
    monkeypatch.chdir(root)
    for args in (["search", "alpha"], ["stats"]):
        with pytest.raises(SystemExit) as exc:
            main(args)
        assert exc.value.code == 3
    assert not (root / ".kenso").exists()
    del CliRunner


def test_corrupt_database_is_a_clear_error_not_a_traceback(tmp_path, monkeypatch):
    from kenso_git.cli.main import main

    root = init_repo(tmp_path, {"a.md": doc("Alpha Guide")})
    _kb(root).ingest()
    db_file = root / ".kenso" / "docs.db"
    for suffix in ("-wal", "-shm"):
        Path(f"{db_file}{suffix}").unlink(missing_ok=True)
    db_file.write_bytes(b"this is not a database" * 100)
    monkeypatch.chdir(root)
    for args in (["search", "alpha"], ["ingest"]):
        with pytest.raises(SystemExit) as exc:
            main(args)
        assert exc.value.code == 1


def test_bare_repository_is_a_usage_error(tmp_path):
    from kenso_git.errors import UsageError
    from tests.helpers import git

    git(tmp_path, "init", "-q", "--bare", "store.git")
    with pytest.raises(UsageError, match="bare git repository"):
        KnowledgeBase.open(tmp_path / "store.git")


def test_detached_head_and_unborn_branch_are_handled(tmp_path):
    from tests.helpers import git

    unborn = init_repo(tmp_path / "unborn", {"a.md": doc("Alpha Guide")}, commit=False)
    state_kb = _kb(unborn)
    state_kb.ingest()
    assert state_kb.state().as_of is None
    repo = init_repo(tmp_path / "repo", {"a.md": doc("Alpha Guide")})
    git(repo, "checkout", "-q", "--detach")
    kb = _kb(repo)
    kb.ingest()
    assert kb.state().as_of == git(repo, "rev-parse", "HEAD").strip()


def _blob_of(kb: KnowledgeBase, path: str) -> str:
    return str(_rows(kb, f"SELECT blob_id FROM files WHERE path = '{path}'")[0][0])


def test_blob_ids_equal_git_hash_object_with_and_without_filters(tmp_path):
    from tests.helpers import git

    plain = init_repo(tmp_path / "plain", {"a.md": doc("Alpha Guide")})
    kb = _kb(plain)
    kb.ingest()
    assert _blob_of(kb, "a.md") == git(plain, "hash-object", "a.md").strip()

    crlf = init_repo(tmp_path / "crlf", commit=False)
    git(crlf, "config", "core.autocrlf", "true")
    (crlf / "b.md").write_bytes(doc("Beta Notes").replace("\n", "\r\n").encode())
    kb = _kb(crlf)
    kb.ingest()
    assert _blob_of(kb, "b.md") == git(crlf, "hash-object", "b.md").strip()

    attrs = init_repo(tmp_path / "attrs", commit=False)
    write(attrs, {".gitattributes": "*.md text eol=lf\n"})
    (attrs / "c.md").write_bytes(doc("Gamma Page").replace("\n", "\r\n").encode())
    kb = _kb(attrs)
    kb.ingest()
    assert _blob_of(kb, "c.md") == git(attrs, "hash-object", "c.md").strip()


def test_bulk_and_single_file_updates_keep_the_fts_index_consistent(tmp_path):
    body = "Topic zq{}zq explained at length, with enough words to be indexed.\n"
    files = {f"d{i:03}.md": doc(f"Page {i}", body.format(i)) for i in range(80)}
    root = init_repo(tmp_path, files)
    kb = _kb(root)
    kb.ingest()  # 80 files: the bulk path
    assert [h.file_path for h in kb.search("zq7zq").hits] == ["d007.md"]
    write(root, {"d007.md": doc("Page 7", "Now about giraffes instead, with enough words here.\n")})
    kb.ingest()  # one file: the trigger path
    assert not kb.search("zq7zq").hits
    assert [h.file_path for h in kb.search("giraffes").hits] == ["d007.md"]
    with connect_raw(kb.db_path) as conn:
        check_index(conn)
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")
        triggers = {r[0] for r in rows}
    assert triggers >= {"chunks_ai", "chunks_ad", "chunks_au"}  # the bulk path restored them


def test_repository_path_with_uri_characters_works(tmp_path):
    root = init_repo(tmp_path / "we ird?#%dir", {"a.md": doc("Odd Folder Guide")})
    kb = _kb(root)
    kb.ingest()
    assert [h.file_path for h in kb.search("odd folder").hits] == ["a.md"]


def test_large_ingest_uses_worker_processes_and_matches_a_serial_one(tmp_path, monkeypatch):
    from kenso_git.index import prepare

    body = "Shared words about widgets, plus the unique marker qq{}qq for this page.\n"
    files = {f"p{i:03}/d.md": doc(f"Page {i}", body.format(i)) for i in range(60)}
    root = init_repo(tmp_path / "repo", files)
    monkeypatch.setattr(prepare, "PARALLEL_FROM", 10)
    parallel = _kb(root)
    parallel.ingest()
    serial = KnowledgeBase.open(root, db=str(tmp_path / "serial.db"))
    monkeypatch.setattr(prepare, "PARALLEL_FROM", 10_000)
    serial.ingest()
    query = "SELECT file_path, chunk_index, title, content, search_extra FROM chunks ORDER BY 1, 2"
    assert _rows(parallel, query) == _rows(serial, query)
    assert [h.file_path for h in parallel.search("qq42qq").hits] == ["p042/d.md"]


def test_touched_but_unchanged_file_does_not_make_the_index_stale(tmp_path):
    root, kb = _indexed_then_touched(tmp_path)
    assert kb.state().stale is False
    write(root, {"a.md": doc("Alpha Guide", "A different body, long enough to index.\n")})
    assert kb.state().stale is True


def test_targeted_sync_looks_only_at_the_given_paths(tmp_path):
    root = init_repo(tmp_path, {"a.md": doc("Alpha Guide"), "b.md": doc("Beta Notes")})
    kb = _kb(root)
    kb.settings = kb.settings._replace(query_sync=False)  # the searches must not sync b.md
    kb.ingest()
    write(root, {"a.md": doc("Alpha Guide", "Zanzibar is now the topic of this page.\n")})
    write(root, {"b.md": doc("Beta Notes", "Quokka is now the topic of this page.\n")})
    (root / "c.md").write_text(doc("Gamma Page"), encoding="utf-8")
    report = kb.sync(paths=["a.md", "c.md", "gone.md"])
    assert sorted(r.path for r in report.results if r.status == "ingested") == ["a.md", "c.md"]
    assert [h.file_path for h in kb.search("zanzibar").hits] == ["a.md"]
    assert not kb.search("quokka").hits  # b.md was not in the list: left as it was
    assert kb.state().stale is True
    kb.sync()
    assert [h.file_path for h in kb.search("quokka").hits] == ["b.md"]
    (root / "c.md").unlink()
    kb.sync(paths=["c.md"])
    assert _docs(kb) == ["a.md", "b.md"]


def test_synonyms_file_named_in_tool_kenso_is_used(tmp_path):
    files = {
        "a.md": doc("Cluster Guide", "How we run kubernetes clusters in production today.\n"),
        "pyproject.toml": '[tool.kenso]\nsynonyms = "docs/synonyms.json"\n',
        "docs/synonyms.json": '{"groups": [["kubernetes", "k8s", "kube"]]}',
    }
    root = init_repo(tmp_path, files)
    kb = _kb(root)
    kb.ingest()
    assert [h.file_path for h in kb.search("k8s").hits] == ["a.md"]


def test_sync_records_whether_the_docs_differ_from_head(tmp_path):
    from tests.helpers import git

    root = init_repo(tmp_path, {"a.md": doc("Alpha Guide")})
    kb = _kb(root)
    kb.ingest()
    assert kb.state().worktree_differs is False
    write(root, {"a.md": doc("Alpha Guide", "Edited but not committed, long enough text.\n")})
    kb.sync()
    assert kb.state().worktree_differs is True
    git(root, "commit", "-qam", "edit")
    kb.sync()
    assert kb.state().worktree_differs is False


def test_kill_dash_nine_during_a_first_build_leaves_no_half_index(tmp_path):
    root = init_repo(tmp_path, {"seed.md": doc("Seed Page")})
    _write_version(root, "versionalpha", 600)
    db_dir = root / ".kenso"
    for delay in (0.1, 0.3):
        proc = subprocess.Popen([sys.executable, "-c", _INGEST, str(root)])
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        db_file = db_dir / "docs.db"
        if db_file.exists():  # the build finished before the kill: it must be complete
            assert len(_kb(root).search("versionalpha", limit=20).hits) == 20
            db_file.unlink()
        else:
            with pytest.raises(NoIndexError):
                _kb(root).search("versionalpha")
    _kb(root).ingest()
    assert sorted(p.name for p in db_dir.iterdir() if "building" in p.name) == []
    assert len(_kb(root).search("versionalpha", limit=20).hits) == 20


def test_an_edit_rewrites_only_the_chunks_that_changed(tmp_path):
    sections = "".join(
        f"## Part {n}\n\n" + f"Section {n} talks about topic{n} in detail. " * 12 + "\n\n"
        for n in range(4)
    )
    root = init_repo(tmp_path, {"guide.md": f"# Guide\n\nIntro text for the guide.\n\n{sections}"})
    kb = _kb(root)
    kb.ingest()
    query = (
        "SELECT id, chunk_index, content_hash FROM chunks WHERE file_path = 'guide.md' ORDER BY 2"
    )
    before = _rows(kb, query)
    assert len(before) >= 4
    edited = (root / "guide.md").read_text(encoding="utf-8").replace("topic2", "zebras")
    write(root, {"guide.md": edited})
    kb.ingest()
    after = _rows(kb, query)
    assert [r[1] for r in after] == [r[1] for r in before]
    assert [r[0] for r in after] == [r[0] for r in before]  # rewritten in place, ids kept
    assert len({r[2] for r in after}) == 1 and after[0][2] != before[0][2]  # one file hash
    assert [h.section_path for h in kb.search("zebras").hits] == ["Guide > Part 2"]
    assert not kb.search("topic2").hits
    assert [h.file_path for h in kb.search("topic3").hits] == ["guide.md"]
    with connect_raw(kb.db_path) as conn:
        check_index(conn)
    shorter = edited.split("## Part 3")[0]
    write(root, {"guide.md": shorter})
    kb.ingest()
    assert len(_rows(kb, query)) == len(after) - 1
    assert not kb.search("topic3").hits


def test_an_index_with_the_old_broad_update_trigger_gets_the_narrow_one(tmp_path):
    root = init_repo(tmp_path, {"a.md": doc("Alpha Guide")})
    kb = _kb(root)
    kb.ingest()
    with connect_raw(kb.db_path) as conn:
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_au'").fetchone()[0]
        conn.execute("DROP TRIGGER chunks_au")
        conn.execute(
            sql.replace(
                " OF title, doc_title, section_path, tags, category, content, search_extra", ""
            )
        )
    write(root, {"a.md": doc("Alpha Guide", "A new body for the alpha guide, long enough.\n")})
    kb.ingest()
    after = _rows(kb, "SELECT sql FROM sqlite_master WHERE name = 'chunks_au'")[0][0]
    assert after == sql
    assert [h.file_path for h in kb.search("alpha body").hits] == ["a.md"]


def _differs_as_before(ws, settings, scope, blobs):  # type: ignore[no-untyped-def]
    """The comparison as it was written with dictionaries of both sides (before #32)."""
    from kenso_git.repo import git as gitrepo
    from kenso_git.repo.ignore import IgnoreRules
    from kenso_git.repo.workspace import in_scope
    from kenso_git.repo.workspace import is_markdown

    head = gitrepo.head_blob_ids(ws)
    if head is None:
        return None
    rules = IgnoreRules.for_workspace(ws, settings)
    tracked = {
        p: b
        for p, b in head.items()
        if is_markdown(p) and in_scope(p, scope) and not rules.is_ignored(p)
    }
    unknown = {p for p, b in blobs.items() if not b}
    indexed = {p: b for p, b in blobs.items() if p not in unknown}
    return indexed != {p: b for p, b in tracked.items() if p not in unknown}


def test_differs_from_head_streamed_answers_as_the_dictionaries_did(tmp_path: Path) -> None:
    from kenso_git.config import load_settings
    from kenso_git.index.run import differs_from_head
    from kenso_git.repo import git as gitrepo
    from kenso_git.repo.workspace import find_workspace

    root = init_repo(
        tmp_path / "r",
        {"a.md": "# A\n", "docs/b.md": "# B\n", "docs/sub/c.md": "# C\n", "notes.txt": "x\n"},
    )
    os.symlink("a.md", root / "link.md")
    (root / ".kensoignore").write_text("docs/sub/\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "more")
    ws = find_workspace(root)
    settings = load_settings(root)
    head = gitrepo.head_blob_ids(ws)
    assert head is not None
    same = {p: b for p, b in head.items() if p.endswith(".md") and not p.startswith("docs/sub")}
    cases = [
        same,
        {**same, "a.md": "0" * 40},  # edited
        {**same, "new.md": "1" * 40},  # indexed, not in HEAD
        {p: b for p, b in same.items() if p != "docs/b.md"},  # in HEAD, not indexed
        {**same, "a.md": ""},  # not hashed: left out on both sides
        {**same, "huge.md": ""},
        {},
    ]
    for scope in ([""], ["docs"]):
        for blobs in cases:
            scoped = {p: b for p, b in blobs.items() if scope == [""] or p.startswith("docs/")}
            assert differs_from_head(ws, settings, scope, scoped) == _differs_as_before(
                ws, settings, scope, scoped
            ), (scope, scoped)
    assert differs_from_head(ws, settings, [""], same) is False
    assert differs_from_head(ws, settings, [""], cases[1]) is True
    # in HEAD, not indexed: a difference, unless discovery always skips it (by its name)
    unindexed = {p: b for p, b in same.items() if p != "docs/b.md"}
    assert differs_from_head(ws, settings, [""], unindexed) is True
    (root / "b%41.md").write_text("# Percent\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a name no agent may use")
    assert differs_from_head(ws, settings, [""], same) is False
