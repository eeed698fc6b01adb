"""Property: with the hooks installed, after any git operation the index equals a fresh ingest.

Random sequences of real git operations (branch and file checkout, merge, rebase, cherry-pick,
reset --hard, stash and pop, commits of renames, deleted folders and .gitignore edits) run on a
temporary repository; after each one the index must hold the same paths, blob ids, chunks and
links as a brand-new full ingest of the work tree, with no manual step. Plain edits fire no hook:
the index must then report itself stale, and `kenso-git sync` must make it exact again.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import Phase
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.kb import KnowledgeBase
from kenso_git.repo.workspace import find_workspace
from kenso_git.triggers.githooks import install
from kenso_git.triggers.githooks.runner import wait_until_idle
from tests.triggers.githooks.indexdump import fresh_dump
from tests.triggers.githooks.indexdump import hook_env
from tests.triggers.githooks.indexdump import index_dump
from tests.triggers.githooks.indexdump import ingest
from tests.triggers.githooks.indexdump import is_stale

FOLDERS = ("docs/a", "docs/b", "notes")
WORDS = ("widget", "pipeline", "cache", "router", "ledger", "beacon", "harbor", "quartz")


def doc(name: str, seed: int, link: str | None = None) -> str:
    word = WORDS[seed % len(WORDS)]
    front = f"---\ntitle: {name} {word}\nrelates_to: {link}\n---\n" if link else ""
    body = f"{name} describes the {word} subsystem in enough words to be indexed ({seed}).\n"
    see = f"\nSee [the other page](/{link}) for more.\n" if link else ""
    return f"{front}# {name}\n\n{body}\n## {word.title()} usage\n\nUse the {word} daily.{see}"


class World:
    """A repository with hooks installed, driven by git commands."""

    def __init__(self, root: Path, scratch: Path) -> None:
        self.root = root
        self.scratch = scratch
        self.counter = 0
        self.env = hook_env(KENSO_HOOK_BACKGROUND_THRESHOLD="100000")

    def git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            ["git", *args], cwd=self.root, env=self.env, capture_output=True, text=True, check=False
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {proc.stdout}{proc.stderr}")
        return proc

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def docs(self, ref: str | None = None) -> list[str]:
        if ref is None:
            out = self.git("ls-files", "-z", "--", "*.md").stdout
        else:
            out = self.git("ls-tree", "-r", "-z", "--name-only", ref, "--", "*.md").stdout
        return sorted(p for p in out.split("\0") if p)

    def branch(self) -> str | None:
        proc = self.git("symbolic-ref", "-q", "--short", "HEAD", check=False)
        return proc.stdout.strip() or None

    def other(self) -> str:
        return "side" if self.branch() == "main" else "main"

    def new_doc(self, seed: int) -> str:
        self.counter += 1
        existing = self.docs()
        link = existing[seed % len(existing)] if existing else None
        rel = f"{FOLDERS[seed % len(FOLDERS)]}/n{self.counter} {seed % 7}.md"
        self.write(rel, doc(f"Note {self.counter}", seed, link))
        return rel

    def commit(self, message: str) -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        # No post-commit hook (#16): a commit changes no file, and the next read records it.
        # A read right after each commit stands for that, so the hooks alone keep the index
        # exact through every other operation.
        kb = KnowledgeBase.open(self.root)
        try:
            kb.refresh()
        finally:
            kb.close()

    def clean(self) -> None:
        """Finish any half-done operation so the next one starts from a clean tree."""
        for cmd in ("rebase", "merge", "cherry-pick"):
            self.git(cmd, "--abort", check=False)
        if self.git("status", "--porcelain").stdout.strip():
            self.commit("tidy")

    def rebase_stopped(self) -> bool:
        git_dir = self.root / ".git"
        return (git_dir / "rebase-merge").is_dir() or (git_dir / "rebase-apply").is_dir()

    def check(self, what: str) -> None:
        # post-index-change (reset --hard, stash, merge conflicts) syncs once git has exited
        assert wait_until_idle(find_workspace(self.root), timeout=60), what
        have, want = index_dump(self.root), fresh_dump(self.root, self.scratch)
        assert have["files"] == want["files"], what
        assert have == want, what


def op_checkout_branch(w: World, seed: int) -> None:
    w.git("checkout", "-q", w.other())


def has_parent(w: World) -> bool:
    return w.git("rev-parse", "-q", "--verify", "HEAD~1", check=False).returncode == 0


def op_detach(w: World, seed: int) -> None:
    w.git("checkout", "-q", "--detach", "HEAD~1" if seed % 2 and has_parent(w) else w.other())


def op_file_checkout(w: World, seed: int) -> None:
    theirs = w.docs(w.other())
    if theirs:
        w.git("checkout", "-q", w.other(), "--", theirs[seed % len(theirs)])


def op_commit_edit(w: World, seed: int) -> None:
    mine = w.docs()
    if mine:
        w.write(mine[seed % len(mine)], doc("Edited", seed))
    w.new_doc(seed)
    w.commit("edit")


def op_commit_rename(w: World, seed: int) -> None:
    mine = w.docs()
    if mine:
        source = mine[seed % len(mine)]
        target = f"{FOLDERS[(seed + 1) % len(FOLDERS)]}/moved {w.counter} {seed}.md"
        if (w.root / target).exists() or source == target:
            return  # the same rename drawn twice (after a reset): nothing new to test
        (w.root / target).parent.mkdir(parents=True, exist_ok=True)
        w.git("mv", source, target)
        w.commit("rename")


def op_delete_folder(w: World, seed: int) -> None:
    folder = FOLDERS[seed % len(FOLDERS)]
    if any(p.startswith(folder + "/") for p in w.docs()):
        w.git("rm", "-r", "-q", "--", folder)
        w.commit("delete folder")


def op_gitignore(w: World, seed: int) -> None:
    path = w.root / ".gitignore"
    line = f"/{FOLDERS[seed % len(FOLDERS)]}/\n"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    path.write_text(text.replace(line, "") if line in text else text + line, encoding="utf-8")
    w.commit("gitignore")


def op_merge(w: World, seed: int) -> None:
    w.git("merge", "-q", "--no-edit", "-X", "theirs", w.other(), check=False)


def op_rebase(w: World, seed: int) -> None:
    w.git("rebase", "-q", w.other(), check=False)


def op_cherry_pick(w: World, seed: int) -> None:
    w.git("cherry-pick", "-X", "theirs", w.other(), check=False)


def op_reset_hard(w: World, seed: int) -> None:
    w.git("reset", "-q", "--hard", "HEAD~1" if has_parent(w) else "HEAD")


def op_stash_pop(w: World, seed: int) -> None:
    mine = w.docs()
    if mine:
        w.write(mine[seed % len(mine)], doc("Stashed", seed))
    w.git("stash", "-q")
    w.check("after git stash")
    w.git("stash", "pop", "-q", check=False)


def op_amend(w: World, seed: int) -> None:
    w.new_doc(seed)
    w.git("add", "-A")
    w.git("commit", "-q", "--amend", "--no-edit")


def op_plain_edit(w: World, seed: int) -> None:
    mine = w.docs()
    if len(mine) > 1:
        (w.root / mine[seed % len(mine)]).unlink()
    w.counter += 1
    w.write(f"top {w.counter}.md", doc(f"Top {w.counter}", seed))  # no .gitignore covers it
    assert is_stale(w.root), "plain edits must leave the index stale"
    proc = subprocess.run(
        [sys.executable, "-m", "kenso_git", "sync"],
        cwd=w.root,
        env=w.env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    w.check("after kenso-git sync")
    w.commit("plain edits")


OPS = {
    f.__name__.removeprefix("op_"): f
    for f in (
        op_checkout_branch,
        op_detach,
        op_file_checkout,
        op_commit_edit,
        op_commit_rename,
        op_delete_folder,
        op_gitignore,
        op_merge,
        op_rebase,
        op_cherry_pick,
        op_reset_hard,
        op_stash_pop,
        op_amend,
        op_plain_edit,
    )
}


def build(root: Path) -> World:
    scratch = root.parent / "scratch"
    scratch.mkdir()
    w = World(root, scratch)
    root.mkdir()
    w.git("init", "-q", "-b", "main")
    for i in range(4):
        w.new_doc(i)
    w.commit("start")
    w.git("checkout", "-q", "-b", "side")
    for i in range(4, 7):
        w.new_doc(i)
    w.commit("side")
    w.git("checkout", "-q", "main")
    ingest(root)
    install.install(find_workspace(root))
    return w


@pytest.mark.slow
@settings(
    max_examples=15,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking real git runs is slow
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.lists(
        st.tuples(st.sampled_from(sorted(OPS)), st.integers(0, 10_000)), min_size=2, max_size=6
    )
)
def test_index_equals_a_fresh_ingest_after_every_git_operation(
    steps: list[tuple[str, int]],
) -> None:
    with tempfile.TemporaryDirectory(prefix="kenso-prop-") as tmp:
        w = build(Path(tmp) / "repo")
        w.check("after install")
        for name, seed in steps:
            OPS[name](w, seed)
            if not w.rebase_stopped():
                # A rebase stopped on a conflict is still in progress: the hooks wait for it
                # to finish (post-rewrite) or be aborted, which `clean` does next.
                w.check(f"after {name}")
            w.clean()
            w.check(f"after {name} and clean-up")
        assert is_stale(w.root) is False
