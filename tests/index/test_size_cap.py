"""The size cap (`max-file-size`, `KENSO_MAX_FILE_SIZE`) is the one in force at each run
(#26): a file it skipped is indexed once the cap is raised, one it indexed is skipped once
the cap is lowered, and the skip message quotes the cap of the run that wrote it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write

BIG = doc("Big Guide", "## Widgets\n\n" + "The zorbly widget turns slowly every day. " * 2500)
SMALL = doc("Small Note", "A short page about gadgets and the things they do.\n")


def _repo(tmp_path: Path, cap: int | None = None) -> Path:
    files = {"docs/big.md": BIG, "docs/small.md": SMALL}
    if cap is not None:
        files[".kenso.toml"] = f"max-file-size = {cap}\n"
    return init_repo(tmp_path / "repo", files)


def _ingest(root: Path) -> dict[str, tuple[str, str | None]]:
    kb = KnowledgeBase.open(root)
    try:
        return {r.path: (r.status, r.detail) for r in kb.ingest().results}
    finally:
        kb.close()


def _found(root: Path, word: str) -> list[str]:
    kb = KnowledgeBase.open(root)
    try:
        return [h.file_path for h in kb.search(word).hits]
    finally:
        kb.close()


def test_raising_the_cap_indexes_the_file_it_skipped(tmp_path: Path) -> None:
    root = _repo(tmp_path, cap=50_000)
    assert _ingest(root)["docs/big.md"][0] == "skipped"
    assert _found(root, "zorbly") == []
    write(root, {".kenso.toml": "max-file-size = 500000\n"})
    assert _ingest(root)["docs/big.md"][0] == "ingested"
    assert _found(root, "zorbly") == ["docs/big.md"]
    assert _ingest(root)["docs/big.md"][0] == "unchanged"  # and it stays so


def test_the_skip_message_quotes_the_cap_in_force(tmp_path: Path) -> None:
    size = len(BIG.encode())
    root = _repo(tmp_path, cap=50_000)
    assert _ingest(root)["docs/big.md"][1] == (
        f"{size:,} bytes is over the 50,000-byte cap (raise max-file-size in [tool.kenso] "
        "or KENSO_MAX_FILE_SIZE to index it)"
    )
    write(root, {".kenso.toml": "max-file-size = 100000\n"})
    status, detail = _ingest(root)["docs/big.md"]
    assert status == "skipped" and detail is not None and "over the 100,000-byte cap" in detail


def test_lowering_the_cap_skips_a_file_it_indexed(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    assert _ingest(root)["docs/big.md"][0] == "ingested"
    write(root, {".kenso.toml": "max-file-size = 50000\n"})
    assert _ingest(root)["docs/big.md"][0] == "skipped"
    assert _found(root, "zorbly") == []


def test_kenso_max_file_size_raised_for_one_cli_ingest_indexes_the_file(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    env = {**os.environ, "KENSO_MAX_FILE_SIZE": "50000"}
    cli = [sys.executable, "-m", "kenso_git"]
    first = subprocess.run(
        [*cli, "ingest", "--no-lint"], cwd=root, env=env, capture_output=True, text=True
    )
    assert "over the 50,000-byte cap" in first.stderr, first.stderr
    env["KENSO_MAX_FILE_SIZE"] = "500000"
    again = subprocess.run(
        [*cli, "ingest", "--no-lint"], cwd=root, env=env, capture_output=True, text=True
    )
    assert again.returncode == 0 and "byte cap" not in again.stdout + again.stderr
    found = subprocess.run(
        [*cli, "search", "zorbly", "--json"], cwd=root, env=env, capture_output=True, text=True
    )
    assert '"docs/big.md"' in found.stdout


def test_a_sync_under_another_cap_looks_at_every_doc_git_did_not_list(tmp_path: Path) -> None:
    """A sync asks git which docs changed (index/gitprobe.py): none did, but the cap did."""
    root = _repo(tmp_path)
    env = {**os.environ, "KENSO_QUERY_SYNC": "0"}
    cli = [sys.executable, "-m", "kenso_git"]

    def run(*args: str, cap: str | None = None) -> str:
        extra = {} if cap is None else {"KENSO_MAX_FILE_SIZE": cap}
        done = subprocess.run(
            [*cli, *args], cwd=root, env={**env, **extra}, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout + done.stderr

    run("ingest", "--no-lint")
    run("sync")  # leaves the git mark a later sync trusts
    assert "over the 50,000-byte cap" in run("sync", cap="50000")
    assert '"docs/big.md"' not in run("search", "zorbly", "--json")
    run("sync")
    assert '"docs/big.md"' in run("search", "zorbly", "--json")
