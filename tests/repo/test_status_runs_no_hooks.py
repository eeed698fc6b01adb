"""A read runs none of the user's git hooks. kenso-git's statuses run on its copy of git's
index (repo/statusindex.py), which git rewrites as it refreshes the stat data of a touched
file, and git runs `post-index-change` whenever it writes an index: `kenso-git search` ran
the user's hook (t47, defect 1). Every status now runs with the hooks turned off, as the
work tree's diffs of `changed` do (repo/worktreediff.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.repo import statusindex
from kenso_git.repo.gitstatus import status_paths
from kenso_git.repo.workspace import find_workspace
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli
from tests.serve.conftest import structured_call

TEXT = "Some text about the harbour, long enough for the index to keep it. " * 4
LONG_AGO_NS = 1_600_000_000 * 10**9  # a file mtime no index entry records


def _repo(tmp_path: Path, *, indexed: bool = True) -> tuple[Path, Path]:
    """An (indexed) repository whose post-index-change hook appends to the log returned."""
    root = init_repo(
        tmp_path / "repo", {f"docs/{n}.md": doc(n.upper(), f"{n} {TEXT}") for n in "ab"}
    )
    if indexed:
        KnowledgeBase.open(root).ingest()
    log = tmp_path / "hook.log"
    hook = root / ".git" / "hooks" / "post-index-change"
    hook.write_text(f'#!/bin/sh\necho "post-index-change $*" >> "{log}"\n', encoding="utf-8")
    hook.chmod(0o755)
    git(root, "status")  # git's index now holds the stat data of every file
    log.unlink(missing_ok=True)
    return root, log


def _touch(root: Path, round_: int) -> None:
    """Give every doc a new mtime, its content unchanged: git must refresh its stat data."""
    for name in ("a", "b"):
        stamp = LONG_AGO_NS + round_ * 10**9
        os.utime(root / "docs" / f"{name}.md", ns=(stamp, stamp))


def _hook_runs(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def test_hook_fixture_runs_on_a_plain_git_status(tmp_path: Path) -> None:
    root, log = _repo(tmp_path, indexed=False)
    _touch(root, 1)

    git(root, "status")

    assert _hook_runs(log), (
        "the hook must run when git rewrites its index (else the test sees nothing)"
    )


@pytest.mark.parametrize(
    "args",
    [
        ("search", "harbour", "--json"),
        ("search", "harbour"),
        ("stats",),
        ("stats", "--json"),
        ("changed", "--since", "HEAD", "--json"),
    ],
    ids=lambda a: " ".join(a),
)
def test_cli_reads_of_touched_docs_run_no_hook(tmp_path: Path, args: tuple[str, ...]) -> None:
    root, log = _repo(tmp_path)
    for round_ in range(1, 3):  # the first read makes the copy, the second updates it
        _touch(root, round_)

        proc = run_cli(root, *args)

        assert proc.returncode == 0, proc.stderr
        assert _hook_runs(log) == []


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("get_doc", {"path": "docs/a.md"}),
        ("search_docs", {"query": "harbour"}),
        ("changed_docs", {"since": "HEAD"}),
    ],
    ids=["get_doc", "search_docs", "changed_docs"],
)
async def test_mcp_reads_of_touched_docs_run_no_hook(
    tmp_path: Path, tool: str, args: dict[str, object]
) -> None:
    root, log = _repo(tmp_path)
    for round_ in range(1, 3):
        _touch(root, round_)

        failed, body = await structured_call(root, tool, args)

        assert not failed, body
        assert _hook_runs(log) == []


def test_a_refreshing_status_on_git_own_index_runs_no_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where no copy can be made (here: its folder does not exist), a command the user ran
    lets git refresh its own index (`refresh`): that write runs no hook either."""
    root, log = _repo(tmp_path, indexed=False)
    ws = find_workspace(root)
    assert ws.git_dir is not None
    monkeypatch.setattr(statusindex, "_placed", {})  # this process's placing, undone after
    statusindex.place(str(ws.git_dir), str(tmp_path / "no-such-folder"))
    _touch(root, 1)
    before = (root / ".git" / "index").stat().st_mtime_ns

    assert status_paths(ws, (), refresh=True) == []

    assert (root / ".git" / "index").stat().st_mtime_ns != before  # git did refresh it
    assert _hook_runs(log) == []
