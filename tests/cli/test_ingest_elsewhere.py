"""`ingest /other/folder` run inside a repository builds that folder's own index there: one
line says which root it indexes and where its index went (it was silent)."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli


def test_ingest_of_a_folder_outside_the_repository_says_where_its_index_goes(
    tmp_path: Path,
) -> None:
    repo = init_repo(tmp_path / "repo", {"a.md": doc("Alpha", "apples grow here. " * 10)})
    plain = tmp_path / "plain" / "docs"
    plain.mkdir(parents=True)
    (plain / "h.md").write_text(doc("Hedgehogs", "hedgehogs roll into balls. " * 10))
    proc = run_cli(repo, "ingest", str(plain), "--no-lint")
    assert proc.returncode == 0, proc.stderr
    assert (
        f"kenso-git: indexing {plain}, not this repository ({repo}), into its own index: "
        f"{plain / '.kenso' / 'docs.db'}"
    ) in proc.stderr.splitlines()
    inside = run_cli(repo, "ingest", "a.md", "--no-lint")
    assert inside.returncode == 0 and "not this repository" not in inside.stderr
