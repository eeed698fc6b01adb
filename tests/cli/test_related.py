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
