"""A `.kenso/` whose mode forbids writing (not a read-only mount: SQLite then says "attempt
to write a readonly database", not "unable to open") is read as it is: `search --no-sync`,
`stats` and `state` answer, a search after an edit says once that the index could not be
refreshed, and nothing is created in the folder."""

from __future__ import annotations

from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write
from tests.otheruser import as_other_user
from tests.otheruser import give_to_nobody
from tests.otheruser import shared_folder

DOCS = {f"docs/d{i}.md": doc(f"Doc {i}", f"apples number {i} grow here. " * 20) for i in range(3)}


def test_a_clean_index_in_a_folder_without_write_permission_is_read() -> None:
    with shared_folder() as shared:
        root = init_repo(shared / "repo", DOCS)
        run, other = as_other_user(root, shared / "home")
        if other:
            give_to_nobody(root)
        assert run("ingest", "--no-lint").returncode == 0
        kenso = root / ".kenso"
        before = sorted(p.name for p in kenso.iterdir())
        kenso.chmod(0o500)
        try:
            found = run("search", "apples", "--no-sync", "--json")
            assert found.returncode == 0, found.stderr
            assert "docs/d1.md" in found.stdout
            stats = run("stats", "--json")
            assert stats.returncode == 0 and '"documents": 3' in stats.stdout, stats.stderr
            state = run("state")
            assert state.returncode == 0, state.stderr
            write(root, {"docs/d1.md": doc("Doc 1", "pears replaced them. " * 20)})
            if other:
                give_to_nobody(root / "docs")
            stale = run("search", "apples")
            assert stale.returncode == 0, stale.stderr
            assert "docs/d0.md" in stale.stdout
            said = [line for line in stale.stderr.splitlines() if "stale" in line]
            assert len(said) == 1 and "read-only" in said[0], stale.stderr
            assert sorted(p.name for p in kenso.iterdir()) == before
        finally:
            kenso.chmod(0o700)
