"""A full sync starts its `git status` before it opens the index (#16: at 48,600 docs git's
lstat of every file and the index's opening overlap), and never uses an answer that moved."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.repo import gitrun
from kenso_git.repo import gitstatus
from kenso_git.repo.workspace import find_workspace
from tests.helpers import branched_repo
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.triggers.githooks.indexdump import fresh_dump
from tests.triggers.githooks.indexdump import index_dump


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files: dict[str, str | bytes] = {
        f"docs/d{i}.md": doc(f"Doc {i}", f"Body {i} words.\n") for i in range(6)
    }
    change = {"docs/d1.md": doc("Other one", "The other branch rewrote it.\n"), "docs/d2.md": None}
    return branched_repo(tmp_path / "repo", files, "other", change)


def _subcommand(argv: list[str]) -> str:
    """The git command of `git -C ROOT [OPTIONS] COMMAND ...` (`-c NAME=VALUE` included)."""
    args = iter(argv[3:])
    for arg in args:
        if arg == "-c":
            next(args)
        elif not arg.startswith("-"):
            return arg
    return ""


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The order in which this process starts git commands and opens SQLite files."""
    events: list[str] = []
    real_spawn = gitrun.Spawned.__init__
    real_connect = sqlite3.connect

    def spawn(self: gitrun.Spawned, argv: list[str], env: Any) -> None:
        events.append("git " + _subcommand(argv))
        real_spawn(self, argv, env)

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        events.append("open")
        return real_connect(*args, **kwargs)

    monkeypatch.setattr(gitrun.Spawned, "__init__", spawn)
    monkeypatch.setattr(sqlite3, "connect", connect)
    return events


def test_a_full_sync_starts_git_status_before_it_opens_the_index_and_asks_once(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "docs/d3.md").write_text(doc("Doc 3", "Edited before the sync.\n"))
    events = _spy(monkeypatch)
    KnowledgeBase.open(repo).sync()
    monkeypatch.undo()
    assert events.count("git status") == 1, events
    assert events.index("git status") < events.index("open"), events
    assert index_dump(repo) == fresh_dump(repo, tmp_path)


@pytest.mark.parametrize("moved", ["head", "age"])
def test_an_early_status_that_moved_is_not_used(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, moved: str
) -> None:
    """HEAD moved after git looked (a checkout), or the sync waited past the age bound (for
    the write lock): the sync asks git again, and the index equals a fresh ingest."""
    ws = find_workspace(repo)
    kb = KnowledgeBase.of_workspace(ws)
    head = kb._head()
    early = gitstatus.start_status(ws, head=head)
    assert early is not None
    if moved == "head":
        git(repo, "checkout", "-q", "other")
    else:
        monkeypatch.setattr(gitstatus.EarlyStatus, "MAX_AGE_NS", -1)
        (repo / "docs/d4.md").write_text(doc("Doc 4", "Edited while the sync waited.\n"))
    events = _spy(monkeypatch)
    from kenso_git.index.build import run_index

    run_index(ws, kb.settings, kb.db_path, head=kb._head(), early=early)
    early.discard()
    monkeypatch.undo()
    assert events.count("git status") == 1, events  # the new one, not the early one
    assert early.run.pid is None
    assert index_dump(repo) == fresh_dump(repo, tmp_path)


def test_an_early_status_never_holds_the_git_index_lock_and_leaves_no_child(
    repo: Path,
) -> None:
    """Its answer is read later: the user's git commands meanwhile must not find
    `index.lock` taken (a status that may refresh the index takes it)."""
    ws = find_workspace(repo)
    for path in repo.glob("docs/*.md"):
        os.utime(path)  # stat data a refreshing status would rewrite under index.lock
    early = gitstatus.start_status(ws, head=None)
    assert early is not None
    pid = early.run.pid
    git(repo, "checkout", "-q", "other")  # at once: git is running, or blocked on its pipe
    early.discard()
    early.discard()  # idempotent
    with pytest.raises(ChildProcessError):
        os.waitpid(pid or 0, os.WNOHANG)  # reaped: no zombie left behind


PROBE = """
import sys
from kenso_git.repo import prestart
real = prestart.spawn
def spawn(argv, env, **options):
    loaded = "kenso_git.store.connection" in sys.modules
    command = [a for a in argv[3:] if a in ("status", "--no-optional-locks", "ls-tree")]
    sys.stderr.write(f"spawn {command} sqlite-layer-loaded={loaded}\\n")
    first = not hasattr(prestart, "spawned")
    prestart.spawned = True
    if first and "typing" in sys.modules and "coverage" not in sys.modules:  # coverage: typing
        sys.stderr.write("typing-loaded\\n")
    return real(argv, env, **options)
prestart.spawn = spawn
from kenso_git.entry import main
sys.argv = ["kenso-git", "sync", "--quiet"]
main()
"""


def _probe(root: Path, *argv: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """`kenso-git ARGV...` as the process's own command (os._exit at the end), in `root`,
    reporting each process it spawns (PROBE); `extra`: environment variables to set."""
    script = PROBE.replace('"sync", "--quiet"', ", ".join(f'"{arg}"' for arg in argv))
    env = {k: v for k, v in os.environ.items() if not k.startswith("KENSO_")} | extra
    return subprocess.run(
        [sys.executable, "-c", script], cwd=root, env=env, capture_output=True, text=True
    )


def _spawned_first(proc: subprocess.CompletedProcess[str], *later: str) -> None:
    """The first git spawned is the whole tree's status, before typing and SQLite load;
    `later`, the git commands the sync runs after it (none for a sync with its own status)."""
    assert proc.returncode == 0, proc.stderr
    spawns = [line for line in proc.stderr.splitlines() if line.startswith("spawn")]
    # on kenso-git's copy of the index: no `--no-optional-locks` (repo/statusindex.py)
    assert spawns[0] == "spawn ['status'] sqlite-layer-loaded=False", spawns
    assert [s.split("]")[0] + "]" for s in spawns[1:]] == [f"spawn ['{c}']" for c in later]
    assert "typing-loaded" not in proc.stderr  # git starts before typing loads (prestart.py)


def test_the_sync_command_starts_git_before_it_loads_the_index_code(repo: Path) -> None:
    """`kenso-git sync`'s ~30 ms of imports (the database layer, the indexer) run while
    git's status of the tree runs: git starts first."""
    _spawned_first(_probe(repo, "sync", "--quiet"))


def test_a_search_after_an_edit_starts_its_one_git_status_before_loading_the_index_code(
    repo: Path,
) -> None:
    """`kenso-git search`'s freshness check takes the status started at process start (git
    runs while the search modules load), and prints the edit's text; the
    process leaves without the interpreter's teardown, its output whole."""
    edited = repo / "docs/d3.md"
    edited.write_text(doc("Doc 3", "A zqearlyword appeared after the last sync.\n"))
    proc = _probe(repo, "search", "zqearlyword", "--json")
    # and one `git ls-tree` of the synced doc: is it HEAD's version? (its last commit, #29)
    _spawned_first(proc, "ls-tree")
    hits = json.loads(proc.stdout)
    assert [hit["file_path"] for hit in hits] == ["docs/d3.md"]


def test_a_search_without_query_sync_starts_no_git(repo: Path) -> None:
    words = "The zqquietword section is long enough for the index to keep it as a chunk."
    (repo / "docs/d4.md").write_text(doc("Doc 4", words + "\n"))
    KnowledgeBase.open(repo).sync()
    proc = _probe(repo, "search", "zqquietword", "--no-sync", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "spawn" not in proc.stderr
    assert "docs/d4.md" in [hit["file_path"] for hit in json.loads(proc.stdout)]


def test_a_fast_command_that_fails_keeps_its_exit_code_and_message(tmp_path: Path) -> None:
    """Leaving without teardown (os._exit) still flushes the error and exits 3."""
    root = init_repo(tmp_path / "bare", {"a.md": doc("Alpha")})
    proc = _probe(root, "search", "alpha")
    assert proc.returncode == 3, proc.stderr
    assert "no search index" in proc.stderr


@pytest.mark.parametrize("how", ["environment", "settings file"])
def test_a_search_with_query_sync_turned_off_does_not_wait_for_a_status(
    repo: Path, how: str
) -> None:
    """KENSO_QUERY_SYNC=0 starts no git; `query-sync = false` in the settings (read after git
    started) stops the status unread: a stopped git leaves no lock and no child."""
    words = "The zqoffword section is long enough for the index to keep it as a chunk."
    (repo / "docs/d5.md").write_text(doc("Doc 5", words + "\n"))
    KnowledgeBase.open(repo).sync()
    extra = {"KENSO_QUERY_SYNC": "0"} if how == "environment" else {}
    if how == "settings file":
        (repo / ".kenso.toml").write_text("query-sync = false\n")
    proc = _probe(repo, "search", "zqoffword", "--json", **extra)
    assert proc.returncode == 0, proc.stderr
    spawns = [line for line in proc.stderr.splitlines() if line.startswith("spawn")]
    assert len(spawns) == (0 if how == "environment" else 1)
    assert "docs/d5.md" in [hit["file_path"] for hit in json.loads(proc.stdout)]
    assert not (repo / ".git/index.lock").exists()
