"""Soak: random edits, commits with hooks, syncs, ingests, kills and concurrent readers.

Outside every default run (the `soak` marker, skipped unless KENSO_SOAK=1):
    KENSO_SOAK=1 KENSO_SOAK_SECONDS=180 .venv/bin/python -m pytest -m soak tests/e2e/test_soak.py
runs it for KENSO_SOAK_SECONDS (default 1800). It ends with the index equal to a fresh
ingest of the work tree and `PRAGMA integrity_check` ok; readers must never see an error
other than "no index yet" (while `rm -rf .kenso` has it gone).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kenso_git.errors import NoIndexError
from kenso_git.kb import KnowledgeBase
from kenso_git.repo.workspace import find_workspace
from kenso_git.triggers.githooks import install
from kenso_git.triggers.githooks.runner import wait_until_idle
from tests.triggers.githooks.indexdump import fresh_dump
from tests.triggers.githooks.indexdump import hook_env
from tests.triggers.githooks.indexdump import index_dump

# Read at import: tests/conftest.py removes every KENSO_* variable before each test runs.
ENABLED = os.environ.get("KENSO_SOAK") == "1"
SECONDS = float(os.environ.get("KENSO_SOAK_SECONDS", "1800"))
SEED = int(os.environ.get("KENSO_SOAK_SEED", str(int(time.time()))))

pytestmark = [
    pytest.mark.soak,
    pytest.mark.skipif(not ENABLED, reason="set KENSO_SOAK=1 to soak"),
    pytest.mark.timeout(0),
]

WORDS = ("widget", "pipeline", "cache", "router", "ledger", "beacon", "harbor", "quartz", "delta")
SIGNALS = (signal.SIGKILL, signal.SIGTERM, signal.SIGINT)
STEP = ["setup"]  # the step running now: a reader's error report names it


class Soak:
    """The repository, the random source and the counts the report prints."""

    def __init__(self, root: Path, seed: int) -> None:
        self.root = root
        self.rng = random.Random(seed)
        self.env = hook_env(KENSO_HOOK_BACKGROUND_THRESHOLD=str(self.rng.choice((3, 50))))
        self.counts: dict[str, int] = {}

    def count(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            args, cwd=self.root, env=self.env, capture_output=True, text=True, timeout=300
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"{' '.join(args)}: {proc.returncode}\n{proc.stderr}")
        return proc

    def kenso(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "kenso_git", *args]

    def text(self) -> str:
        words = " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(20, 400)))
        title = self.rng.choice(WORDS).title()
        return f"# {title} page\n\n{words}.\n\n## {title} details\n\nMore {words[:200]}.\n"

    def edit(self) -> None:
        docs = sorted(self.root.glob("docs/**/*.md"))
        roll = self.rng.random()
        if roll < 0.2 and len(docs) > 5:
            self.rng.choice(docs).unlink()
        elif roll < 0.5 or not docs:
            folder = self.root / "docs" / self.rng.choice(("a", "b", "c/d"))
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"p{self.rng.randint(0, 400)}.md").write_text(self.text(), encoding="utf-8")
        else:
            self.rng.choice(docs).write_text(self.text(), encoding="utf-8")
        self.count("edit")

    def commit(self) -> None:
        self.run("git", "add", "-A")
        self.run("git", "commit", "-q", "--allow-empty", "-m", "soak")
        self.count("commit (hooks)")

    def checkout(self) -> None:
        branch = self.rng.choice(("main", "side"))
        self.run("git", "add", "-A")
        self.run("git", "commit", "-q", "--allow-empty", "-m", "before checkout")
        self.run("git", "checkout", "-q", "-B", branch)
        self.count("checkout (hooks)")

    def killed(self, *args: str) -> None:
        """Start a writer and kill it at a random moment (SIGKILL, SIGTERM or SIGINT)."""
        proc = subprocess.Popen(
            self.kenso(*args),
            cwd=self.root,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(self.rng.uniform(0, 0.6))  # the fault injection itself: a random moment
        sig = self.rng.choice(SIGNALS)
        proc.send_signal(sig)
        proc.wait(timeout=300)
        self.count(f"{' '.join(args)} killed by {sig.name}")

    def step(self) -> None:
        roll = self.rng.random()
        STEP[0] = f"step {roll:.3f}"
        if roll < 0.35:
            self.edit()
        elif roll < 0.55:
            self.commit()
        elif roll < 0.62:
            self.checkout()
        elif roll < 0.75:
            self.run(*self.kenso("sync", "--quiet"))
            self.count("sync")
        elif roll < 0.88:
            self.killed(*self.rng.choice((("sync",), ("ingest", "--no-lint"))))
        elif roll < 0.93:
            self.killed("ingest", "--rebuild", "--no-lint")
        elif roll < 0.97:
            self.run(*self.kenso("ingest", "--rebuild", "--no-lint"))
            self.count("ingest --rebuild")
        else:
            shutil.rmtree(self.root / ".kenso", ignore_errors=True)
            self.run(*self.kenso("ingest", "--no-lint"))
            self.count("rm -rf .kenso && ingest")


def _reader(root: Path, stop: threading.Event, errors: list[str], reads: list[int]) -> None:
    kb = KnowledgeBase.open(root)
    rng = random.Random(threading.get_ident())
    try:
        while not stop.is_set():
            try:
                kb.search(rng.choice(WORDS), limit=5)
                if rng.random() < 0.1:
                    kb.state(check_stale=False)
                reads[0] += 1
            except NoIndexError:
                continue  # between `rm -rf .kenso` and the ingest after it
            except Exception as err:
                import traceback

                code = getattr(err, "sqlite_errorname", None) or getattr(
                    err.__cause__, "sqlite_errorname", ""
                )
                errors.append(f"{err!r} {code} (during {STEP[0]})\n{traceback.format_exc()}")
    finally:
        kb.close()


def test_soak(tmp_path: Path) -> None:
    seconds, seed = SECONDS, SEED
    root = tmp_path / "repo"
    root.mkdir()
    soak = Soak(root, seed)
    soak.run("git", "init", "-q", "-b", "main")
    for _ in range(30):
        soak.edit()
    soak.commit()
    soak.run(*soak.kenso("ingest", "--no-lint"))
    install.install(find_workspace(root))
    stop, errors, reads = threading.Event(), [], [0]
    readers = [threading.Thread(target=_reader, args=(root, stop, errors, reads)) for _ in range(3)]
    for thread in readers:
        thread.start()
    deadline = time.monotonic() + seconds
    steps = 0
    try:
        while time.monotonic() < deadline and not errors:
            soak.step()
            steps += 1
    finally:
        stop.set()
        for thread in readers:
            thread.join(timeout=60)
    assert not errors, "\n".join(errors[:3])
    assert wait_until_idle(find_workspace(root), timeout=300)
    soak.run(*soak.kenso("sync", "--quiet"))
    db = root / ".kenso" / "docs.db"
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    assert index_dump(root) == fresh_dump(root, tmp_path)
    assert not list(db.parent.glob("docs.db.building-*"))
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(soak.counts.items()))
    sys.stderr.write(f"\nsoak seed {seed}: {steps} steps, {reads[0]} reads; {summary}\n")
