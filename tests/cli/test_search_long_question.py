"""`kenso-git search` with a question of more than 64 words: it refused it ("Query has too
many words") where kenso answers; it now answers from the question's first 64 words that are
neither stop words nor repeats, and says so under its header, from any folder with `--db`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli

BODY = (
    "Pods must not share the host process, network or IPC namespaces: a container that does "
    "can see and signal every process on the node. "
)
QUESTION = "Sharing the host namespaces lets a pod signal every process on the node. " + " ".join(
    f"detail{i} of the policy" for i in range(40)
)


def test_a_question_over_the_word_cap_is_answered_and_the_cut_is_said(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r", {"docs/host.md": doc("Host namespaces", BODY * 2)})
    assert run_cli(repo, "ingest", "--no-lint").returncode == 0
    db = str(repo / ".kenso" / "docs.db")
    plain = run_cli(tmp_path, "search", QUESTION, "--db", db)
    assert plain.returncode == 0, plain.stderr
    assert "docs/host.md" in plain.stdout
    assert "a long question: searched by its first 50 words" in plain.stdout  # distinct ones
    as_json = run_cli(tmp_path, "search", QUESTION, "--db", db, "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert [hit["file_path"] for hit in json.loads(as_json.stdout)] == ["docs/host.md"]
    short = run_cli(tmp_path, "search", "host namespaces", "--db", db)
    assert "a long question" not in short.stdout
