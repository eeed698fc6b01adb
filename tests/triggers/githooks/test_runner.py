"""The hook runtime against real repositories and real indexes."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.repo.workspace import find_workspace
from kenso_git.triggers.githooks import install
from kenso_git.triggers.githooks import runner as hooks
from kenso_git.triggers.githooks.runner import HookCall
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.triggers.githooks.indexdump import fresh_dump
from tests.triggers.githooks.indexdump import hook_env
from tests.triggers.githooks.indexdump import index_dump
from tests.triggers.githooks.indexdump import ingest
from tests.triggers.githooks.indexdump import is_stale
from tests.triggers.githooks.indexdump import wait_for_detached_sync

TEXT = (
    "{t} explains the widget pipeline in enough words to be indexed properly.\n\n## {t} usage\n\n"
)


def doc(title: str, extra: str = "") -> str:
    return f"# {title}\n\n" + TEXT.format(t=title) + f"Use {title} with care. {extra}\n"


@pytest.fixture
def indexed(repo: Path) -> Path:
    write(repo, {f"docs/d{i}.md": doc(f"Doc {i}") for i in range(4)})
    commit_all(repo, "docs")
    ingest(repo)
    return repo


def run_git_with_hooks(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args],
        cwd=root,
        env=hook_env(**env),
        capture_output=True,
        text=True,
        check=True,
    )


def test_pre_commit_variables_map_to_git_hooks() -> None:
    env = {
        "PRE_COMMIT_FROM_REF": "a" * 40,
        "PRE_COMMIT_TO_REF": "b" * 40,
        "PRE_COMMIT_CHECKOUT_TYPE": "1",
    }
    assert hooks.from_pre_commit(env) == HookCall("post-checkout", ("a" * 40, "b" * 40, "1"))
    rewrite = hooks.from_pre_commit({"PRE_COMMIT_REWRITE_COMMAND": "rebase"})
    assert rewrite == HookCall("post-rewrite", ("rebase",))
    squash = hooks.from_pre_commit({"PRE_COMMIT_IS_SQUASH_MERGE": "0"})
    assert squash == HookCall("post-merge", ("0",))
    assert hooks.from_pre_commit({}) == HookCall("post-commit", ())


def test_plan_skips_during_a_rebase_but_not_in_post_rewrite(indexed: Path) -> None:
    ws = find_workspace(indexed)
    assert ws.git_dir is not None
    (ws.git_dir / "rebase-merge").mkdir()
    (ws.git_dir / "rebase-merge" / "done").write_text("noop\n", encoding="utf-8")
    # a fast-forward rebase rewrites nothing and fires no post-rewrite: sync at once
    fg = {hooks.THRESHOLD_ENV: "100000"}
    merge = HookCall("post-merge", ("0",))
    assert hooks.plan(ws, merge, fg).action == hooks.Mode.FOREGROUND
    (ws.git_dir / "rebase-merge" / "git-rebase-todo").write_text("pick abc x\n", "utf-8")
    assert hooks.plan(ws, merge, {}).action == hooks.Mode.SKIP
    assert hooks.plan(ws, HookCall("post-rewrite", ("amend",)), {}).action == hooks.Mode.FOREGROUND


def test_plan_sizes_the_change(indexed: Path) -> None:
    ws = find_workspace(indexed)
    old = git(indexed, "rev-parse", "HEAD").strip()
    write(indexed, {f"docs/n{i}.md": doc(f"New {i}") for i in range(3)})
    new = commit_all(indexed, "three more")
    checkout = HookCall("post-checkout", (old, new, "1"))
    assert hooks.plan(ws, checkout, {}).action == hooks.Mode.FOREGROUND
    small = {hooks.THRESHOLD_ENV: "2"}
    assert hooks.plan(ws, checkout, small).action == hooks.Mode.BACKGROUND
    same = HookCall("post-checkout", (new, new, "1"))
    assert hooks.plan(ws, same, {}).action == hooks.Mode.SKIP
    unknown = HookCall("post-index-change", ("1", "0"))
    assert hooks.plan(ws, unknown, {}).action == hooks.Mode.BACKGROUND
    # git moves HEAD after writing the index: post-index-change always syncs after git exits
    assert hooks.plan(ws, unknown, {hooks.THRESHOLD_ENV: "100000"}).action == hooks.Mode.BACKGROUND
    assert hooks.plan(ws, HookCall("post-index-change", ("0", "0")), {}).action == hooks.Mode.SKIP


def test_plan_skips_without_an_index(repo: Path) -> None:
    write(repo, {"a.md": doc("A")})
    commit_all(repo)
    decided = hooks.plan(find_workspace(repo), HookCall("post-merge", ("0",)), {})
    assert decided.action == hooks.Mode.SKIP
    assert "no index" in decided.reason


def test_post_commit_is_retired_and_the_next_read_records_the_commit(
    indexed: Path, tmp_path: Path
) -> None:
    # An older version's post-commit shim still calls `hook post-commit`: a no-op now.
    ws = find_workspace(indexed)
    write(indexed, {"docs/d1.md": doc("Doc 1", "Committed without any sync, words enough.")})
    git(indexed, "commit", "-q", "-am", "edit")
    assert hooks.plan(ws, HookCall("post-commit", ()), {}).action == hooks.Mode.SKIP
    assert hooks.from_pre_commit({}) == HookCall("post-commit", ())  # pre-commit's commit stage
    kb = KnowledgeBase.open(indexed)
    assert [h.file_path for h in kb.search("committed without").hits] == ["docs/d1.md"]
    assert kb.state().as_of == git(indexed, "rev-parse", "HEAD").strip()
    assert index_dump(indexed) == fresh_dump(indexed, tmp_path)


def test_second_run_marks_dirty_and_the_holder_syncs_again(indexed: Path) -> None:
    ws = find_workspace(indexed)
    runs: list[bool] = []

    def sync(_ws: object, _paths: object) -> None:
        if not runs:  # a concurrent hook arrives while we hold the lock
            runs.append(hooks.coalesced_sync(ws, sync=lambda *_: runs.append(True)))
        else:
            runs.append(True)

    assert hooks.coalesced_sync(ws, sync=sync)
    assert runs == [False, True]  # the nested call deferred; the holder ran once more
    assert hooks.is_idle(ws)


def test_a_held_lock_defers_the_sync_to_its_holder(indexed: Path) -> None:
    ws = find_workspace(indexed)
    folder = hooks.state_dir(ws)
    fd = os.open(folder / hooks.LOCK_FILE, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert not hooks.coalesced_sync(ws, sync=lambda *_: pytest.fail("must not run"))
        assert (folder / hooks.DIRTY_FILE).exists()
        assert not hooks.is_idle(ws)
    finally:
        os.close(fd)
    assert hooks.coalesced_sync(ws, sync=lambda *_: None)
    assert hooks.is_idle(ws)


def test_hooked_commit_and_checkout_keep_the_index_exact(indexed: Path, tmp_path: Path) -> None:
    install.install(find_workspace(indexed))
    write(indexed, {"docs/d1.md": doc("Doc 1", "Changed."), "docs/new.md": doc("New")})
    (indexed / "docs" / "d2.md").unlink()
    run_git_with_hooks(indexed, "add", "-A")
    run_git_with_hooks(indexed, "commit", "-q", "-m", "edit")
    assert is_stale(indexed)  # no post-commit hook: the next read syncs the commit
    KnowledgeBase.open(indexed).search("doc")
    assert index_dump(indexed) == fresh_dump(indexed, tmp_path)
    assert is_stale(indexed) is False
    run_git_with_hooks(indexed, "checkout", "-q", "HEAD~1")
    wait_for_detached_sync(indexed)  # the sync runs detached from git
    assert index_dump(indexed) == fresh_dump(indexed, tmp_path)
    assert is_stale(indexed) is False
    # KENSO_HOOK_BACKGROUND_THRESHOLD set: the sync of a few docs is done when git returns
    run_git_with_hooks(indexed, "checkout", "-q", "-", KENSO_HOOK_BACKGROUND_THRESHOLD="50")
    assert index_dump(indexed) == fresh_dump(indexed, tmp_path)


def test_a_checkout_does_not_wait_for_its_sync_and_a_search_right_after_answers_fresh(
    indexed: Path, tmp_path: Path
) -> None:
    """git returns before the hook's sync (the shim runs it detached): with the index's write
    lock held by another writer, a foreground hook would hold git for HOOK_WAIT_S. A search
    meanwhile checks freshness first, so it answers from the branch git just checked out."""
    install.install(find_workspace(indexed))
    git(indexed, "checkout", "-q", "-b", "zebra")
    write(indexed, {"docs/d1.md": doc("Doc 1", "Zebras live on this branch only.")})
    git(indexed, "commit", "-q", "-am", "zebras")
    git(indexed, "checkout", "-q", "main")
    KnowledgeBase.open(indexed).sync()
    folder = hooks.state_dir(find_workspace(indexed))
    held = hooks.try_lock(folder / hooks.LOCK_FILE)
    assert held is not None
    try:
        started = time.monotonic()
        run_git_with_hooks(indexed, "checkout", "-q", "zebra")
        assert time.monotonic() - started < hooks.HOOK_WAIT_S  # git did not wait for the lock
    finally:
        os.close(held)
    hits = KnowledgeBase.open(indexed).search("zebras").hits
    assert [hit.file_path for hit in hits] == ["docs/d1.md"]
    wait_for_detached_sync(indexed)
    assert index_dump(indexed) == fresh_dump(indexed, tmp_path)
    log = (folder / hooks.LOG_FILE).read_text(encoding="utf-8")
    assert "Traceback" not in log


def test_a_checkout_hook_landing_after_a_commit_syncs_what_the_commit_changed(
    indexed: Path, tmp_path: Path
) -> None:
    # before: the (detached) sync looked only at the paths the checkout changed and recorded
    # the HEAD it found, a commit made since, whose new doc it never read
    old = git(indexed, "rev-parse", "HEAD").strip()
    git(indexed, "checkout", "-q", "-b", "feat")
    write(indexed, {"docs/banana.md": doc("Banana")})
    new = commit_all(indexed, "banana")
    write(indexed, {"docs/durian.md": doc("Durian")})
    after = commit_all(indexed, "durian")
    proc = subprocess.run(
        [sys.executable, "-m", "kenso_git", "hook", "post-checkout", old, new, "1"],
        cwd=indexed,
        env=hook_env(KENSO_HOOK_BACKGROUND_THRESHOLD="50"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    assert KnowledgeBase.open(indexed).state().as_of == after
    assert index_dump(indexed) == fresh_dump(indexed, tmp_path)


def test_hook_scrubs_git_dir_and_index_file(indexed: Path, tmp_path: Path) -> None:
    write(indexed, {"docs/d3.md": doc("Doc 3", "Edited.")})
    git(indexed, "commit", "-q", "-am", "edit")
    assert is_stale(indexed)
    old, new = git(indexed, "rev-parse", "HEAD~1", "HEAD").split()
    proc = subprocess.run(
        [sys.executable, "-m", "kenso_git", "hook", "post-checkout", old, new, "1"],
        cwd=indexed,
        env=hook_env(GIT_DIR=str(tmp_path / "nowhere"), GIT_INDEX_FILE=str(tmp_path / "idx")),
        capture_output=True,
        text=True,
        check=False,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert is_stale(indexed) is False
    assert index_dump(indexed) == fresh_dump(indexed, tmp_path)


def test_hook_never_fails_git(indexed: Path) -> None:
    (indexed / ".kenso" / "docs.db").write_bytes(b"not a database" * 100)
    for name in ("post-merge", "no-such-hook"):
        proc = subprocess.run(
            [sys.executable, "-m", "kenso_git", "hook", name, "0"],
            cwd=indexed,
            env=hook_env(KENSO_HOOK_BACKGROUND_THRESHOLD="100000"),
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0
        assert proc.stdout == ""
        assert len(proc.stderr.splitlines()) == 1, proc.stderr


def test_background_sync_finishes_with_the_index_exact(indexed: Path, tmp_path: Path) -> None:
    install.install(find_workspace(indexed))
    git(indexed, "checkout", "-q", "-b", "side")
    write(indexed, {f"docs/d{i}.md": doc(f"Doc {i}", "Side.") for i in range(4)})
    commit_all(indexed, "side")
    run_git_with_hooks(indexed, "checkout", "-q", "main", KENSO_HOOK_BACKGROUND_THRESHOLD="1")
    ws = find_workspace(indexed)
    assert hooks.wait_until_idle(ws, timeout=30)
    assert index_dump(indexed) == fresh_dump(indexed, tmp_path)
    log = (hooks.state_dir(ws) / hooks.LOG_FILE).read_text(encoding="utf-8")
    assert "done in" in log


def test_reset_hard_syncs_after_git_moved_head(indexed: Path, tmp_path: Path) -> None:
    install.install(find_workspace(indexed))
    write(indexed, {"docs/extra.md": doc("Extra")})
    run_git_with_hooks(indexed, "add", "-A")
    run_git_with_hooks(indexed, "commit", "-q", "-m", "extra")
    run_git_with_hooks(indexed, "reset", "-q", "--hard", "HEAD~1")
    assert hooks.wait_until_idle(find_workspace(indexed), timeout=30)
    assert is_stale(indexed) is False
    assert index_dump(indexed) == fresh_dump(indexed, tmp_path)


@pytest.mark.parametrize(
    ("runner", "slow"),
    [
        # through the click CLI: never the MCP stack
        (
            "from kenso_git.cli.main import main\n"
            "try:\n    main(['hook', 'post-checkout', *sys.argv[1:]])\nexcept SystemExit:\n"
            "    pass\n",
            {"mcp", "pydantic", "anyio"},
        ),
        # what `kenso-git hook` runs (the entry's fast path): these cost 10-20 ms each to
        # import, paid on every checkout and commit
        (
            "from kenso_git.triggers.githooks.runner import hook_main\n"
            "hook_main('post-checkout', sys.argv[1:])\n",
            {"dataclasses", "inspect", "subprocess", "click", "pygit2", "mcp", "yaml"},
        ),
    ],
)
def test_hook_path_skips_slow_imports(indexed: Path, runner: str, slow: set[str]) -> None:
    write(indexed, {"docs/d0.md": doc("Doc 0", "Edited again.")})
    git(indexed, "commit", "-q", "-am", "edit")
    code = (
        f"import sys\n{runner}"
        f"sys.stderr.write(repr(sorted({{m.split('.')[0] for m in sys.modules}} & {slow!r})))\n"
    )
    old, new = git(indexed, "rev-parse", "HEAD~1", "HEAD").split()
    proc = subprocess.run(
        [sys.executable, "-c", code, old, new, "1"],
        cwd=indexed,
        env=hook_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stderr == "[]"
    assert is_stale(indexed) is False


def test_verbose_hook_line_names_the_mode_by_its_plain_word(indexed: Path) -> None:
    install.install(find_workspace(indexed))
    write(indexed, {"docs/d1.md": doc("Doc 1", "Changed again.")})
    run_git_with_hooks(indexed, "add", "-A")
    run_git_with_hooks(indexed, "commit", "-q", "-m", "edit")
    line = "kenso-git: post-checkout: foreground: 1 Markdown paths changed\n"
    foreground = {"KENSO_HOOK_VERBOSE": "1", hooks.THRESHOLD_ENV: "50"}
    done = run_git_with_hooks(indexed, "checkout", "-q", "HEAD~1", **foreground)
    assert line in done.stderr
    # detached from git (the default): the line goes to the log beside the index
    done = run_git_with_hooks(indexed, "checkout", "-q", "-", KENSO_HOOK_VERBOSE="1")
    assert line not in done.stderr
    wait_for_detached_sync(indexed)
    log = hooks.state_dir(find_workspace(indexed)) / hooks.LOG_FILE
    deadline = time.monotonic() + 10  # said as the hook ends, after its sync
    while not (log.is_file() and line in log.read_text(encoding="utf-8")):
        assert time.monotonic() < deadline, "the detached hook's line never reached the log"
        time.sleep(0.02)
    assert [str(mode) for mode in hooks.Mode] == ["skip", "foreground", "background"]


def test_a_detached_hook_restarts_a_log_grown_past_its_limit(indexed: Path) -> None:
    install.install(find_workspace(indexed))
    log = hooks.state_dir(find_workspace(indexed)) / hooks.LOG_FILE
    log.write_bytes(b"old line\n" * (hooks.LOG_LIMIT // 9 + 1))
    write(indexed, {"docs/d1.md": doc("Doc 1", "Changed for the log.")})
    run_git_with_hooks(indexed, "commit", "-q", "-am", "edit")
    line = "kenso-git: post-checkout: foreground: 1 Markdown paths changed\n"
    run_git_with_hooks(indexed, "checkout", "-q", "HEAD~1", KENSO_HOOK_VERBOSE="1")
    wait_for_detached_sync(indexed)
    deadline = time.monotonic() + 10
    while line not in _text_or_nothing(log):  # the detached hook may be restarting it
        assert time.monotonic() < deadline, "the detached hook's line never reached the log"
        time.sleep(0.02)
    assert log.stat().st_size < 1000  # the old lines are gone: the log restarted


def _text_or_nothing(log: Path) -> str:
    """The log's text; "" in the moment a restart has removed it and not made it again."""
    try:
        return log.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def test_hooked_switches_bring_back_a_symlinked_doc_whose_target_returns(
    repo: Path, tmp_path: Path
) -> None:
    """docs/link.md links to docs/guide/a.md, which branch `gone` deletes. Two quick
    switches (`checkout main && checkout gone`) land both their syncs on `gone`: the
    first's finds HEAD moved (a whole sync, dropping the dangling link), the second's is
    its rerun. The switch back to main then names only the target (the link's own blob
    never changes): the link must still be read again, by the hook's sync itself, not
    left out with `sync` finding nothing to do while `stats` says stale."""
    write(repo, {"docs/guide/a.md": doc("Alpha", "The quokka lives on main only.")})
    os.symlink("guide/a.md", repo / "docs" / "link.md")
    commit_all(repo, "docs")
    ingest(repo)
    git(repo, "checkout", "-q", "-b", "gone")
    git(repo, "rm", "-q", "docs/guide/a.md")
    git(repo, "commit", "-q", "-m", "gone")
    install.install(find_workspace(repo))
    run_git_with_hooks(repo, "checkout", "-q", "main")
    run_git_with_hooks(repo, "checkout", "-q", "gone")
    wait_for_detached_sync(repo)
    run_git_with_hooks(repo, "checkout", "-q", "main")
    wait_for_detached_sync(repo)
    assert index_dump(repo) == fresh_dump(repo, tmp_path)
    assert is_stale(repo) is False
