"""The POSIX shims on their own: a stand-in `kenso-git` records what git made them call."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from kenso_git.repo.workspace import find_workspace
from kenso_git.triggers.githooks import install
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write

RECORDER = '#!/bin/sh\necho "$*" >> "$KENSO_TEST_CALLS"\n'


@pytest.fixture
def calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put a recording `kenso-git` first on PATH; return the file it appends its args to."""
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    fake = bin_dir / "kenso-git"
    fake.write_text(RECORDER, encoding="utf-8")
    fake.chmod(0o755)
    log = tmp_path / "calls.log"
    log.write_text("", encoding="utf-8")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("KENSO_TEST_CALLS", str(log))
    return log


def take(log: Path) -> list[str]:
    lines = log.read_text(encoding="utf-8").splitlines()
    log.write_text("", encoding="utf-8")
    return lines


def _hook_processes(log: Path) -> list[str]:
    """The processes git's hooks started in this test, a detached `kenso-git` among them:
    each carries `KENSO_TEST_CALLS=log` in the environment it started with, and no other
    process does (Linux /proc, as the shims themselves read it)."""
    marker = f"\0KENSO_TEST_CALLS={log}\0".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()  # empty once it has exited
        except OSError:
            continue
        if marker in b"\0" + environ:
            found.append(entry.name)
    return found


def take_background(log: Path, timeout: float = 30.0, *, count: int = 1) -> list[str]:
    """Calls the shim handed to the background, once `count` of them are logged and every
    process git's hooks started has ended: the shim forks its detached call before it
    exits, so when git returns nothing more can show up after that (one more call would be
    a bug). The count is waited for too: on a loaded machine (tests in parallel) /proc may
    show a process between fork and exec with no environment yet."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and (
        _hook_processes(log) or len(log.read_text(encoding="utf-8").splitlines()) < count
    ):
        time.sleep(0.02)
    return take(log)


def take_checkouts(log: Path, count: int, timeout: float = 10.0) -> list[str]:
    """The calls so far, once the background syncs of the last `count` checkouts have landed:
    a detached post-checkout may still be on its way when git returns."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.read_text(encoding="utf-8").count(" post-checkout ") >= count:
            break
        time.sleep(0.02)
    return take(log)


def installed_repo(repo: Path, exe: str | None = None) -> Path:
    write(repo, {"a.md": "# A\n"})
    commit_all(repo, "a")
    install.install(find_workspace(repo), exe=exe)
    return repo


def test_rebase_runs_kenso_git_once_in_post_rewrite(repo: Path, calls: Path) -> None:
    installed_repo(repo)
    git(repo, "checkout", "-q", "-b", "side")
    for i in range(3):
        write(repo, {f"s{i}.md": f"# S{i}\n"})
        commit_all(repo, f"s{i}")
    git(repo, "checkout", "-q", "main")
    write(repo, {"m.md": "# M\n"})
    commit_all(repo, "m")
    git(repo, "checkout", "-q", "side")
    take_checkouts(calls, 3)
    git(repo, "rebase", "-q", "main")
    # the shim hands a rebase's sync to the background: it may land after git returns
    assert take_background(calls) == ["hook post-rewrite rebase"]


def test_a_stopped_rebase_calls_nothing_and_its_abort_calls_post_index_change(
    repo: Path, calls: Path
) -> None:
    # before: the abort's only hook (post-index-change, rebase-merge/ still there) was skipped
    installed_repo(repo)
    git(repo, "checkout", "-q", "-b", "side")
    write(repo, {"a.md": "# A side\n", "s.md": "# S\n"})
    commit_all(repo, "side")
    git(repo, "checkout", "-q", "main")
    write(repo, {"a.md": "# A main\n"})
    commit_all(repo, "main")
    git(repo, "checkout", "-q", "side")
    take_checkouts(calls, 3)
    stopped = subprocess.run(["git", "rebase", "main"], cwd=repo, capture_output=True, check=False)
    assert stopped.returncode != 0
    assert take_background(calls, count=0) == []
    git(repo, "-C", str(repo), "rebase", "--abort")
    assert take(calls) == ["hook post-index-change 1 0"]


def test_fast_forward_rebase_syncs_from_its_checkout(repo: Path, calls: Path) -> None:
    installed_repo(repo)
    git(repo, "checkout", "-q", "-b", "side")
    write(repo, {"s.md": "# S\n"})
    commit_all(repo, "s")
    git(repo, "checkout", "-q", "main")
    take_checkouts(calls, 2)
    git(repo, "rebase", "-q", "side")  # main is behind side: nothing is rewritten
    assert "post-checkout" in [c.split(" ")[1] for c in take_checkouts(calls, 1)]


def test_index_only_writes_do_not_call_kenso_git(repo: Path, calls: Path) -> None:
    installed_repo(repo)
    write(repo, {"b.md": "# B\n"})
    take(calls)
    git(repo, "status")
    git(repo, "add", "b.md")
    git(repo, "reset", "-q", "b.md")
    assert take(calls) == []


def test_reset_hard_and_stash_call_post_index_change(repo: Path, calls: Path) -> None:
    installed_repo(repo)
    write(repo, {"a.md": "# A changed\n"})
    take(calls)
    git(repo, "stash", "-q")
    assert set(take(calls)) == {"hook post-index-change 1 0"}
    git(repo, "stash", "pop", "-q")
    assert set(take(calls)) == {"hook post-index-change 1 0"}
    git(repo, "reset", "-q", "--hard")
    assert take(calls) == ["hook post-index-change 1 0"]


def test_branch_checkout_calls_only_post_checkout(repo: Path, calls: Path) -> None:
    installed_repo(repo)
    first = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "side")
    write(repo, {"b.md": "# B\n"})
    second = commit_all(repo, "b")
    take_checkouts(calls, 1)
    git(repo, "checkout", "-q", "main")
    # a checkout's sync runs detached from git: it may land after git returns
    assert take_background(calls) == [f"hook post-checkout {second} {first} 1"]


@pytest.mark.parametrize(
    "command",
    [
        ("checkout", "-q", "main"),
        ("switch", "-q", "main"),
        ("-c", "advice.detachedHead=false", "checkout", "-q", "main"),
        ("-C", ".", "checkout", "-q", "main"),
        ("--no-pager", "switch", "-q", "main"),
    ],
)
def test_every_form_of_a_branch_switch_skips_post_index_change(
    repo: Path, calls: Path, command: tuple[str, ...]
) -> None:
    installed_repo(repo)
    git(repo, "checkout", "-q", "-b", "side")
    write(repo, {"b.md": "# B\n"})
    commit_all(repo, "b")
    take_checkouts(calls, 1)
    git(repo, *command)
    assert [line.split()[1] for line in take_background(calls)] == ["post-checkout"]


def test_chained_hook_runs_first_with_its_exit_status(repo: Path, calls: Path) -> None:
    folder = repo / ".git" / "hooks"
    user = folder / "post-checkout"
    user.write_text('#!/bin/sh\necho "user $*" >> "$KENSO_TEST_CALLS"\nexit 3\n', encoding="utf-8")
    user.chmod(0o755)
    installed_repo(repo)
    take(calls)
    proc = subprocess.run(["git", "checkout", "-q", "-b", "side"], cwd=repo, check=False)
    assert proc.returncode == 1  # git reports the user hook's failure, as without us
    head = git(repo, "rev-parse", "HEAD").strip()
    expected = [f"user {head} {head} 1", f"hook post-checkout {head} {head} 1"]
    assert take_background(calls, count=2) == expected  # ours after the user's, in the background


def test_shim_uses_the_recorded_executable_when_not_on_path(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = tmp_path / "elsewhere" / "kenso-git"
    recorder.parent.mkdir()
    recorder.write_text(RECORDER, encoding="utf-8")
    recorder.chmod(0o755)
    log = tmp_path / "calls.log"
    log.write_text("", encoding="utf-8")
    monkeypatch.setenv("KENSO_TEST_CALLS", str(log))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    installed_repo(repo, exe=str(recorder))
    write(repo, {"b.md": "# B\n"})
    commit_all(repo, "b")
    take(log)
    git(repo, "checkout", "-q", "HEAD~1")
    old, new = git(repo, "rev-parse", "HEAD@{1}", "HEAD").split()
    assert take_background(log) == [f"hook post-checkout {old} {new} 1"]


def test_shim_without_kenso_git_prints_one_hint_and_exits_0(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    installed_repo(repo, exe="/nonexistent/kenso-git")
    write(repo, {"b.md": "# B\n"})
    commit_all(repo, "b")
    proc = subprocess.run(
        ["git", "checkout", "-q", "HEAD~1"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1
    assert "kenso-git is not on PATH" in lines[0]


def test_kenso_hooks_off_disables_the_shims(
    repo: Path, calls: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed_repo(repo)
    monkeypatch.setenv("KENSO_HOOKS", "0")
    write(repo, {"b.md": "# B\n"})
    take(calls)
    commit_all(repo, "b")
    assert take(calls) == []
