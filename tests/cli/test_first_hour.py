"""What a newcomer met in their first hour (#26): an unknown category said nothing, scores
printed as `3e-06`, `state` printed `synced_at` as a float of seconds."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

from tests.helpers import doc
from tests.helpers import init_repo

EXE = [sys.executable, "-m", "kenso_git"]
# A word in every document: FTS5 gives it a near-zero bm25 (its idf is floored at 1e-6).
COMMON = "dotnet"


def _kenso(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EXE, *args], cwd=cwd, capture_output=True, text=True, check=False)


def _repo(tmp_path: Path) -> Path:
    files = {
        f"docs/{folder}/page{i}.md": doc(
            f"Page {folder} {i}", f"The {COMMON} runtime notes for {folder} number {i}, in full."
        )
        for folder in ("controls", "data", "events")
        for i in range(3)
    }
    root = init_repo(tmp_path / "repo", files)
    done = _kenso(root, "ingest", "--no-lint")
    assert done.returncode == 0, done.stderr
    return root


def test_an_unknown_category_is_named_and_the_known_ones_listed(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    for extra in ([], ["--json"]):
        result = _kenso(root, "search", COMMON, "--category", "nope", *extra)
        assert result.returncode == 2, result.stdout + result.stderr
        assert "no indexed document has the category 'nope'" in result.stderr
        assert "known categories: controls, data, events" in result.stderr
        assert result.stdout == ""
    close = _kenso(root, "search", COMMON, "--category", "Data")
    assert close.returncode == 2 and "did you mean 'data'?" in close.stderr
    known = _kenso(root, "search", COMMON, "--category", "data", "--json")
    assert known.returncode == 0 and {h["category"] for h in json.loads(known.stdout)} == {"data"}
    unmatched = _kenso(root, "search", "zzzunmatched", "--category", "data")
    assert unmatched.returncode == 0 and "0 results" in unmatched.stdout  # a known one


def test_scores_print_readably_in_every_format(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    outputs = [
        _kenso(root, "search", COMMON).stdout,
        _kenso(root, "search", COMMON, "--json").stdout,
        _kenso(root, "search", COMMON, "--format", "text").stdout,
        _kenso(root, "search", COMMON, "--format", "tsv").stdout,
        _kenso(root, "search", COMMON, "--format", "json").stdout,
    ]
    for out in outputs:
        assert COMMON in out or "page" in out, out
        assert not re.search(r"\de-\d", out), out  # no 3e-06
    page = json.loads(outputs[4])
    assert page["results"] and all(round(h["score"], 4) == h["score"] for h in page["results"])


def test_state_prints_synced_at_as_a_time(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    text = _kenso(root, "state").stdout
    line = next(x for x in text.splitlines() if x.startswith("synced_at:"))
    assert re.fullmatch(r"synced_at: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d", line), line
    data = json.loads(_kenso(root, "state", "--json").stdout)
    assert abs(data["synced_at"] - time.time()) < 600  # scripts keep the number
