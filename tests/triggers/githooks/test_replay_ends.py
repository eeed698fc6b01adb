"""Leaving a stopped `git am`, merge, cherry-pick or revert: the index follows git.

`git am --abort` and `git am --skip` run only post-index-change, with `rebase-apply/`
still there, as a rebase's replayed commits do; a plain `git am` runs no post-rewrite at
the end. The shim tells them apart by git's command line and `rebase-apply/applying`.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.repo.workspace import find_workspace
from kenso_git.triggers.githooks import install
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.triggers.githooks.indexdump import BODY
from tests.triggers.githooks.indexdump import fresh_dump
from tests.triggers.githooks.indexdump import hook_env
from tests.triggers.githooks.indexdump import index_dump
from tests.triggers.githooks.indexdump import wait_for_detached_sync

APPLE = {"docs/apple.md": f"# Apple\n\nFeat apple {BODY}"}  # conflicts with main's apple
DURIAN = {"docs/durian.md": f"# Durian\n\nDurian {BODY}"}  # applies anywhere


def hooked_git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=root, env=hook_env(), capture_output=True, text=True, check=False
    )


def patches_on_main(repo: Path, out: Path, *changes: dict[str, str]) -> list[str]:
    """Patches of `changes` (one commit each) made on a branch off main, which meanwhile
    changes docs/apple.md; main checked out, the patches' paths returned in order."""
    write(repo, {"docs/apple.md": f"# Apple\n\nApple {BODY}"})
    commit_all(repo, "init")
    git(repo, "checkout", "-q", "-b", "feat")
    for number, change in enumerate(changes):
        write(repo, change)
        commit_all(repo, f"feat {number}")
    git(repo, "checkout", "-q", "main")
    write(repo, {"docs/apple.md": f"# Apple\n\nMain apple {BODY}"})
    commit_all(repo, "main")
    listed = git(repo, "format-patch", "-o", str(out), "main~1..feat")
    return listed.split()


def indexed_and_hooked(repo: Path) -> KnowledgeBase:
    kb = KnowledgeBase.open(repo)
    kb.ingest(warn=lambda *_: None)
    install.install(find_workspace(repo))
    return kb


def assert_index_follows_git(repo: Path, tmp_path: Path) -> None:
    wait_for_detached_sync(repo, timeout=10)
    state = KnowledgeBase.open(repo).state()
    assert state.as_of == git(repo, "rev-parse", "HEAD").strip()
    assert index_dump(repo) == fresh_dump(repo, tmp_path)


def test_am_abort_syncs_the_index_back_to_the_branch(repo: Path, tmp_path: Path) -> None:
    # before: `git am --abort` runs only post-index-change, with rebase-apply/ still there,
    # so the shim skipped it as a replayed commit: the index kept the stopped am's docs
    # (durian from the applied patch, apple's conflict) until the next read synced
    patches = patches_on_main(repo, tmp_path / "patches", DURIAN, APPLE)
    kb = indexed_and_hooked(repo)
    before = git(repo, "rev-parse", "HEAD").strip()
    stopped = hooked_git(repo, "am", "-3", *patches)
    assert stopped.returncode != 0 and (repo / ".git" / "rebase-apply").is_dir()
    assert "<<<<<<<" in (repo / "docs" / "apple.md").read_text(encoding="utf-8")
    kb.sync()  # a search during the conflict syncs what is on disk, at the first patch
    assert kb.state().as_of != before
    aborted = hooked_git(repo, "am", "--abort")
    assert aborted.returncode == 0, aborted.stderr
    assert git(repo, "rev-parse", "HEAD").strip() == before
    assert not (repo / ".git" / "rebase-apply").exists()
    assert_index_follows_git(repo, tmp_path)


def test_am_skip_syncs_the_patches_applied_after_it(repo: Path, tmp_path: Path) -> None:
    # before: `git am --skip` resets the conflict (post-index-change 1) and applies the rest
    # with rebase-apply/ there; a plain am runs no post-rewrite, so nothing synced at all
    patches = patches_on_main(repo, tmp_path / "patches", APPLE, DURIAN)
    kb = indexed_and_hooked(repo)
    stopped = hooked_git(repo, "am", "-3", *patches)
    assert stopped.returncode != 0
    kb.sync()  # the index now holds apple's conflict markers
    skipped = hooked_git(repo, "am", "--skip")
    assert skipped.returncode == 0, skipped.stderr
    assert not (repo / ".git" / "rebase-apply").exists()
    assert (repo / "docs" / "durian.md").is_file()
    assert_index_follows_git(repo, tmp_path)


def _merge(repo: Path) -> list[str]:
    return ["merge", "feat"]


def _cherry_pick(repo: Path) -> list[str]:
    return ["cherry-pick", "feat~1", "feat"]


def _revert(repo: Path) -> list[str]:
    # main reverts feat's commits after merging them; main's apple edit makes it conflict
    git(repo, "merge", "-q", "--no-edit", "-X", "ours", "feat")
    write(repo, {"docs/apple.md": f"# Apple\n\nLater apple {BODY}"})
    commit_all(repo, "later")
    return ["revert", "--no-edit", "feat", "feat~1"]


@pytest.mark.parametrize(
    ("verb", "stop"), [("merge", _merge), ("cherry-pick", _cherry_pick), ("revert", _revert)]
)
def test_abort_of_a_stopped_merge_cherry_pick_or_revert_syncs_the_index(
    repo: Path, tmp_path: Path, verb: str, stop: Callable[[Path], list[str]]
) -> None:
    # these were not missed: git runs post-index-change 1 with no rebase folder (merge
    # --abort itself, the other two from their `git reset --merge`); kept as guards
    patches_on_main(repo, tmp_path / "patches", DURIAN, APPLE)
    args = stop(repo)
    kb = indexed_and_hooked(repo)
    stopped = hooked_git(repo, *args)
    assert stopped.returncode != 0, stopped.stdout
    wait_for_detached_sync(repo, timeout=10)  # the stop's own sync: the conflict indexed
    kb.sync()
    aborted = hooked_git(repo, verb, "--abort")
    assert aborted.returncode == 0, aborted.stderr
    assert_index_follows_git(repo, tmp_path)


# --- what the shims call: a recording `kenso-git` stands in -------------------------------


@pytest.fixture
def calls(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    fake = bin_dir / "kenso-git"
    fake.write_text('#!/bin/sh\necho "$*" >> "$KENSO_TEST_CALLS"\n', encoding="utf-8")
    fake.chmod(0o755)
    log = tmp_path / "calls.log"
    log.write_text("", encoding="utf-8")
    return log


def recorded_git(root: Path, calls: Path, *args: str) -> list[str]:
    """Run git with the recorder first on PATH (foreground hooks only); what it recorded."""
    path = f"{calls.parent / 'fake-bin'}{os.pathsep}{os.environ['PATH']}"
    env = {"PATH": path, "KENSO_TEST_CALLS": str(calls), "KENSO_HOOK_BACKGROUND_THRESHOLD": "0"}
    subprocess.run(["git", *args], cwd=root, env={**os.environ, **env}, capture_output=True)
    lines = calls.read_text(encoding="utf-8").splitlines()
    calls.write_text("", encoding="utf-8")
    return lines


def test_a_stopped_am_calls_nothing_and_its_abort_calls_post_index_change(
    repo: Path, tmp_path: Path, calls: Path
) -> None:
    patches = patches_on_main(repo, tmp_path / "patches", DURIAN, APPLE)
    install.install(find_workspace(repo))
    assert recorded_git(repo, calls, "am", "-3", *patches) == []
    aborted = recorded_git(repo, calls, "am", "--abort")
    assert aborted and set(aborted) == {"hook post-index-change 1 0"}


def test_a_rebase_skip_through_am_waits_for_post_rewrite(
    repo: Path, tmp_path: Path, calls: Path
) -> None:
    # `git rebase --apply --skip` runs `git am --skip`, but with rebase-apply/rebasing: the
    # replay goes on and post-rewrite syncs at its end, as for any rebase
    patches_on_main(repo, tmp_path / "patches", APPLE, DURIAN)
    git(repo, "checkout", "-q", "feat")
    install.install(find_workspace(repo))
    started = recorded_git(repo, calls, "rebase", "--apply", "main")
    # the checkout of main comes before rebase-apply/ is made; the stop calls nothing more
    assert started and started[-1].startswith("hook post-checkout ")
    assert recorded_git(repo, calls, "rebase", "--skip") == ["hook post-rewrite rebase"]


def test_runner_tells_a_plain_am_skip_from_a_rebase_skip(repo: Path, tmp_path: Path) -> None:
    # what the runner decides on its own, for hook files that call `kenso-git hook` without
    # the shim's guard: a bare hook that passes git's pid as the shim does
    patches = patches_on_main(repo, tmp_path / "patches", APPLE, DURIAN)
    indexed_and_hooked(repo)
    hook = repo / ".git" / "hooks" / "post-index-change"
    hook.write_text(
        '#!/bin/sh\n[ "$1" = 1 ] || exit 0\n'
        'KENSO_GIT_PID=$PPID KENSO_HOOK_VERBOSE=1 kenso-git hook post-index-change "$@"'
        f' 2>>"{tmp_path / "said.log"}"\n',
        encoding="utf-8",
    )
    said = tmp_path / "said.log"

    def decisions(*args: str) -> set[str]:
        said.write_text("", encoding="utf-8")
        hooked_git(repo, *args)
        lines = said.read_text(encoding="utf-8").splitlines()
        return {line.split(": ", 2)[2] for line in lines if line.startswith("kenso-git: post-")}

    decisions("am", "-3", *patches)
    assert decisions("am", "--skip") == {
        "background: `git am --skip` moved the replay on; syncing after git exits"
    }
    wait_for_detached_sync(repo, timeout=10)
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    git(repo, "checkout", "-q", "feat")
    decisions("rebase", "--apply", "main")
    assert decisions("rebase", "--skip") == {
        "skip: a rebase is in progress; post-rewrite syncs once at the end"
    }
