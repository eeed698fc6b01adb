"""`ingest docs/` after an ingest of the whole tree (or a plain `ingest` after `ingest
docs/`) says the index's scope changed, in one line and in --json `scope_changed`; a run
that keeps the scope says nothing of it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli

DOCS = {
    "docs/a.md": doc("Alpha", "apples and orchards grow here. " * 10),
    "notes/b.md": doc("Beta", "bees and hives hum there. " * 10),
    "notes/c.md": doc("Gamma", "cherries ripen over there. " * 10),
}


def test_narrowing_then_widening_the_scope_is_said(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", DOCS)
    first = run_cli(root, "ingest", "--no-lint")
    assert first.returncode == 0 and "scope:" not in first.stdout, first.stdout
    narrow = run_cli(root, "ingest", "docs/", "--no-lint")
    assert narrow.returncode == 0, narrow.stderr
    assert (
        "scope: docs/ (was: the whole repository); 2 pages outside it removed from the index"
        in narrow.stdout.splitlines()
    )
    same = run_cli(root, "ingest", "docs/", "--no-lint")
    assert "scope:" not in same.stdout
    wide = run_cli(root, "ingest", "--no-lint", "--json")
    assert wide.returncode == 0, wide.stderr
    assert json.loads(wide.stdout)["ingest"]["scope_changed"] == {
        "scope": [""],
        "was": ["docs"],
        "removed_outside": 0,
    }
    again = run_cli(root, "ingest", "--no-lint", "--json")
    assert json.loads(again.stdout)["ingest"]["scope_changed"] is None


def test_ingesting_an_ignored_folder_is_refused_and_keeps_the_index(tmp_path: Path) -> None:
    # it narrowed the scope to the ignored folder, removed every page and exited 0; later
    # syncs and hooks then kept the index empty
    root = init_repo(tmp_path / "repo", {**DOCS, ".gitignore": "drafts/\n", "drafts/d.md": ""})
    (root / "drafts" / "d.md").write_text(doc("Draft", "an unfinished draft page. " * 10))
    assert run_cli(root, "ingest", "--no-lint").returncode == 0
    for target in ("drafts", "drafts/d.md", "docs drafts"):
        refused = run_cli(root, "ingest", *target.split(), "--no-lint")
        assert refused.returncode == 2, refused.stdout
        assert "drafts" in refused.stderr and "ignored" in refused.stderr, refused.stderr
    found = run_cli(root, "search", "apples", "--json")
    assert [hit["file_path"] for hit in json.loads(found.stdout)] == ["docs/a.md"]
    assert run_cli(root, "sync").returncode == 0
    found = run_cli(root, "search", "bees", "--json")
    assert [hit["file_path"] for hit in json.loads(found.stdout)] == ["notes/b.md"]
