"""`kenso-git related PATH`: the find_related tool's answer from the terminal."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run_cli as run
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo


def test_related_lists_each_doc_with_why_as_text_and_json(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    (root / "docs" / "faq.md").write_text(
        "# FAQ\n\nSee the [deploy guide](deploy.md) before asking, it answers most things.\n"
    )
    ingest(root)
    proc = run(root, "related", "docs/deploy.md")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "docs/faq.md\tlinked_from, same_folder",
        "docs/billing.md\trelates_to, same_folder (related)",
    ]
    page = json.loads(run(root, "related", "docs/deploy.md", "--json", "--page-size", "1").stdout)
    assert page["returned"] == 1 and page["has_more"] and page["next_cursor"]
    rest = run(root, "related", "docs/deploy.md", "--json", "--cursor", page["next_cursor"])
    assert [i["path"] for i in json.loads(rest.stdout)["results"]] == ["docs/billing.md"]
    refused = run(root, "related", "ignored/notes.md")
    assert refused.returncode != 0 and "ignored/notes.md" in refused.stderr


def test_related_finds_the_repository_of_a_path_named_from_outside_it(tmp_path: Path) -> None:
    # from the folder above the repository, `related repo/docs/deploy.md` was refused as
    # inside a nested repository (the current folder's view), where `lint` finds the repo
    root = make_repo(tmp_path / "repo")
    ingest(root)
    for named in ("repo/docs/deploy.md", str(root / "docs" / "deploy.md")):
        proc = run(tmp_path, "related", named)
        assert proc.returncode == 0, proc.stderr
        assert "docs/billing.md\trelates_to, same_folder (related)" in proc.stdout.splitlines()


def test_related_outside_git_finds_the_index_holding_the_named_file(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.md").write_text("# Page A\n\nPage A links to [b](b.md) and talks at length.\n")
    (plain / "b.md").write_text("# Page B\n\nPage B is linked from page A, with enough text.\n")
    assert run(plain, "ingest", "--no-lint").returncode == 0
    for cwd, named in ((tmp_path, "plain/a.md"), (plain, "a.md")):
        proc = run(cwd, "related", named)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines() == ["b.md\tlinks_to, same_folder"]
