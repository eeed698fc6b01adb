"""An older index, committed as test data, planted in a work tree to be migrated."""

from __future__ import annotations

import shutil
from pathlib import Path

from kenso_git.kb import KnowledgeBase
from kenso_git.store import schema
from tests.helpers import connect_raw
from tests.helpers import init_repo


def plant_old_index(
    tmp_path: Path, files: dict[str, str], fixture: Path, version: int
) -> tuple[Path, Path]:
    """(fresh, old): a work tree of `files` with a fresh index, and another holding
    `fixture` (a schema-`version` index of the same files) as its index.

    The fixture was built in another folder and maybe with older parse settings: it is
    told it was built here, with the fresh index's settings (a newer links format would
    re-parse every file once, which would hide whether the migration kept the rows).
    """
    fresh = init_repo(tmp_path / "fresh", files)
    kb = KnowledgeBase.open(fresh)
    kb.ingest()
    kb.close()
    built = connect_raw(fresh / ".kenso" / "docs.db")
    key = schema.META_SETTINGS
    (settings,) = built.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    built.close()
    old = init_repo(tmp_path / "old", files)
    (old / ".kenso").mkdir()
    shutil.copy(fixture, old / ".kenso" / "docs.db")
    before = connect_raw(old / ".kenso" / "docs.db")
    assert before.execute("PRAGMA user_version").fetchone()[0] == version
    with before:
        before.execute("UPDATE meta SET value = ? WHERE key = ?", (str(old), schema.META_ROOT))
        before.execute("UPDATE meta SET value = ? WHERE key = ?", (settings, key))
    before.close()
    return fresh, old
