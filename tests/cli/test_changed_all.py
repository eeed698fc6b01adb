"""`kenso-git changed` past 1,000 docs: the text stopped at 1,000 saying "--json lists the
first ones", and `--json` stopped at 1,000 as well, with no way to the rest. Now both list
every change, and `--limit N` lists N and names the `--cursor` of the next ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli as run
from tests.helpers import write

MANY = 1_200


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = init_repo(tmp_path_factory.mktemp("changed") / "repo", {"docs/start.md": "# Start\n"})
    git(root, "tag", "base")
    write(root, {f"docs/p{i:04}.md": f"# Page {i}\n\nText {i}.\n" for i in range(MANY)})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "add 1,200 docs")
    return root


EVERY = [f"docs/p{i:04}.md" for i in range(MANY)]


def test_changed_lists_every_doc_as_text_and_json(many: Path) -> None:
    text = run(many, "changed", "--since", "base")
    assert text.returncode == 0, text.stderr
    assert [line.split()[1] for line in text.stdout.splitlines()] == EVERY
    assert text.stderr == ""
    shown = run(many, "changed", "--since", "base", "--json")
    assert shown.returncode == 0, shown.stderr
    payload = json.loads(shown.stdout)
    assert [item["path"] for item in payload["results"]] == EVERY
    assert payload["total"] == MANY
    assert payload["truncated"] is False and payload["next_cursor"] is None


def test_changed_limit_lists_n_and_names_the_cursor_of_the_rest(many: Path) -> None:
    first = run(many, "changed", "--since", "base", "--limit", "1000", "--json")
    assert first.returncode == 0, first.stderr
    page = json.loads(first.stdout)
    assert [item["path"] for item in page["results"]] == EVERY[:1000]
    assert page["total"] == MANY and page["truncated"] is True
    rest = run(many, "changed", "--since", "base", "--json", "--cursor", page["next_cursor"])
    assert [item["path"] for item in json.loads(rest.stdout)["results"]] == EVERY[1000:]
    text = run(many, "changed", "--since", "base", "-n", "3")
    assert text.returncode == 0, text.stderr
    assert [line.split()[1] for line in text.stdout.splitlines()] == EVERY[:3]
    assert text.stderr.startswith("... 1200 changed in all; the next ones: --cursor k2-")
    assert text.stderr.endswith(" (every one: leave --limit out)\n")
    cursor = text.stderr.split("--cursor ")[1].split()[0]
    more = run(many, "changed", "--since", "base", "-n", "2", "--cursor", cursor)
    assert [line.split()[1] for line in more.stdout.splitlines()] == EVERY[3:5]


def test_changed_refuses_a_limit_below_1_and_a_foreign_cursor(many: Path) -> None:
    for bad in ("0", "-5"):
        proc = run(many, "changed", "--since", "base", "--limit", bad)
        assert proc.returncode == 2, proc.stdout
        assert "Invalid value for --limit: must be 1 or more" in proc.stderr
    proc = run(many, "changed", "--since", "base", "--cursor", "k2-00-nope")
    assert proc.returncode == 2
    assert "is not a next_cursor of changed_docs" in proc.stderr
