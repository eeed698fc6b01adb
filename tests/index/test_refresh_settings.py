"""An index whose chunks were parsed by another kenso-git version or with other chunk
settings (its recorded settings fingerprint is not the running code's) is answered from as
it is, flagged stale with what to do, until a sync parses every doc again. The query-time
check looked only at changed files, so a search answered from the old parse and called it
fresh; a query does not re-parse every doc itself (a whole re-chunk)."""

from __future__ import annotations

import json
from pathlib import Path

from kenso_git.index import freshness
from kenso_git.index.freshness import REPARSE_DUE
from kenso_git.index.freshness import settings_fingerprint
from kenso_git.kb import KnowledgeBase
from kenso_git.store import schema
from tests.helpers import connect_raw
from tests.helpers import doc
from tests.helpers import run_cli

# what a kenso-git that did not read Hugo's TOML front matter recorded
OLD = json.dumps({"chunk_size": 4000, "overlap": 0, "links": 2, "fences": 2, "frontmatter": 1})


def set_recorded(db: Path, value: str | None) -> None:
    """Record `value` as the index's settings fingerprint (None: record none, as an index
    made before fingerprints)."""
    conn = connect_raw(db)
    with conn:
        conn.execute("DELETE FROM meta WHERE key = ?", (schema.META_SETTINGS,))
        if value is not None:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)", (schema.META_SETTINGS, value)
            )
    conn.close()


def recorded(db: Path) -> str | None:
    conn = connect_raw(db)
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (schema.META_SETTINGS,)).fetchone()
    conn.close()
    return None if row is None else str(row[0])


def _paths(kb: KnowledgeBase, query: str) -> list[str]:
    return [h.file_path for h in kb.search(query).hits]


def test_a_search_of_an_older_parse_is_flagged_stale_until_a_sync(root: Path) -> None:
    db = root / ".kenso" / "docs.db"
    set_recorded(db, OLD)
    kb = KnowledgeBase.open(root)
    assert _paths(kb, "original") == ["docs/a.md"]  # answered from the index as it is
    assert kb.freshness is not None and kb.freshness.stale
    assert kb.freshness.reason == REPARSE_DUE
    assert "kenso-git sync" in REPARSE_DUE and str(root) not in REPARSE_DUE
    assert "original" in kb.get_doc("docs/a.md")["content"]
    assert kb.freshness.stale and kb.freshness.reason == REPARSE_DUE
    assert recorded(db) == OLD  # the query parsed nothing again
    kb.sync()
    assert recorded(db) == settings_fingerprint(kb.settings)
    assert _paths(kb, "original") == ["docs/a.md"]
    assert kb.freshness is not None and not kb.freshness.stale


def test_a_query_syncs_no_edit_while_every_doc_awaits_a_parse(root: Path) -> None:
    db = root / ".kenso" / "docs.db"
    set_recorded(db, OLD)
    (root / "docs/a.md").write_text(
        doc("Alpha", "Alpha now says something rewritten instead.\n"), "utf-8"
    )
    kb = KnowledgeBase.open(root)
    # a sync of the edit would parse every doc again (build's `rechunk_all`): not a query's
    assert _paths(kb, "rewritten") == []
    assert kb.freshness is not None and kb.freshness.reason == REPARSE_DUE
    assert recorded(db) == OLD
    kb.sync()
    assert _paths(kb, "rewritten") == ["docs/a.md"]
    assert kb.freshness is not None and not kb.freshness.stale


def test_other_chunk_settings_flag_the_index_stale(root: Path) -> None:
    kb = KnowledgeBase.open(root)
    kb.settings = kb.settings._replace(chunk_size=1000)  # the config changed since the sync
    assert _paths(kb, "original") == ["docs/a.md"]
    assert kb.freshness is not None and kb.freshness.reason == REPARSE_DUE
    assert kb.state().stale_reason == REPARSE_DUE  # query-time check or not


def test_an_index_that_recorded_no_settings_is_not_flagged(root: Path) -> None:
    """As a sync takes it: made by these settings (no re-parse of every doc)."""
    db = root / ".kenso" / "docs.db"
    set_recorded(db, None)
    kb = KnowledgeBase.open(root)
    assert _paths(kb, "original") == ["docs/a.md"]
    assert kb.freshness is not None and not kb.freshness.stale
    state = kb.state()
    assert state.stale is False and state.stale_reason is None
    assert not freshness.reparse_due({}, kb.settings)


def test_a_sync_of_a_few_paths_parses_every_doc_again(root: Path) -> None:
    """What a git hook's sync (the paths of a commit) does with an older parse."""
    db = root / ".kenso" / "docs.db"
    set_recorded(db, OLD)
    kb = KnowledgeBase.open(root)
    report = kb.sync(paths=["docs/a.md"])
    assert report.count("ingested") == 2  # both docs, not only the path asked for
    assert recorded(db) == settings_fingerprint(kb.settings)


def test_stats_state_and_search_say_stale_with_the_reason_until_a_sync(
    root: Path, tmp_path: Path
) -> None:
    db = root / ".kenso" / "docs.db"
    set_recorded(db, OLD)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for cwd, extra in ((root, ()), (elsewhere, ("--db", str(db)))):
        for command in ("stats", "state"):
            out = run_cli(cwd, command, *extra, "--json")
            assert out.returncode == 0, out.stderr
            payload = json.loads(out.stdout)
            assert payload["stale"] is True, (command, extra)
            assert payload["stale_reason"] == REPARSE_DUE, (command, extra)
        out = run_cli(cwd, "stats", *extra)
        assert f"stale: {REPARSE_DUE}" in out.stdout
        out = run_cli(cwd, "search", "original", *extra, "--json")
        assert out.returncode == 0, out.stderr
        assert [r["file_path"] for r in json.loads(out.stdout)] == ["docs/a.md"]
        assert f"kenso-git: stale: {REPARSE_DUE}" in out.stderr
    # a search at a revision copies the index as it is and records the copy's own parse:
    # it answers, and leaves the checkout's index as it was
    out = run_cli(root, "search", "original", "--ref", "HEAD", "--json")
    assert out.returncode == 0, out.stderr
    assert [r["file_path"] for r in json.loads(out.stdout)] == ["docs/a.md"]
    assert recorded(db) == OLD
    out = run_cli(root, "sync")
    assert out.returncode == 0, out.stderr
    for command in ("stats", "state"):
        payload = json.loads(run_cli(elsewhere, command, "--db", str(db), "--json").stdout)
        assert payload["stale"] is False and payload["stale_reason"] is None, command
    out = run_cli(root, "search", "original")
    assert out.returncode == 0 and "stale" not in out.stderr
