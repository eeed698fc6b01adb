from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kenso_git.errors import GitError
from kenso_git.repo import git as gitrepo
from kenso_git.repo import gitrun
from kenso_git.repo import gitstatus
from kenso_git.repo.git import blob_id
from kenso_git.repo.git import head_state
from kenso_git.repo.git import hooks_dir
from kenso_git.repo.git import worktree_blob_ids
from kenso_git.repo.prestart import scrubbed_env
from kenso_git.repo.workspace import find_workspace
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write


def hash_object(root: Path, path: str) -> str:
    return git(root, "hash-object", "--", path).strip()


def test_blob_id_matches_git_hash_object(tmp_path: Path) -> None:
    (tmp_path / "x.md").write_bytes(b"hello\n")
    expected = subprocess.run(
        ["git", "hash-object", "--no-filters", "x.md"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert blob_id(b"hello\n") == expected


def test_unchanged_modified_and_untracked_files_get_git_ids(repo: Path) -> None:
    write(repo, {"a.md": "# A\n", "b.md": "# B\n", "docs/c.md": "# C\n"})
    commit_all(repo)
    write(repo, {"b.md": "# B changed\n", "new dir/d é.md": "# D\n"})
    ws = find_workspace(repo)
    paths = ["a.md", "b.md", "docs/c.md", "new dir/d é.md"]
    ids = worktree_blob_ids(ws, paths)
    assert ids == {p: hash_object(repo, p) for p in paths}


def test_crlf_file_under_autocrlf_gets_the_same_id_as_git(repo: Path) -> None:
    git(repo, "config", "core.autocrlf", "true")
    write(repo, {"win.md": b"# Title\r\n\r\nbody\r\n"})
    commit_all(repo)
    write(repo, {"win.md": b"# Title\r\n\r\nchanged body\r\n", "new.md": b"x\r\ny\r\n"})
    ws = find_workspace(repo)
    ids = worktree_blob_ids(ws, ["win.md", "new.md"])
    assert ids["win.md"] == hash_object(repo, "win.md")
    assert ids["new.md"] == hash_object(repo, "new.md")
    assert ids["new.md"] == blob_id(b"x\ny\n")


def test_repository_without_commits(repo: Path) -> None:
    write(repo, {"a.md": "# A\n", "staged.md": "# S\n"})
    git(repo, "add", "staged.md")
    ws = find_workspace(repo)
    assert worktree_blob_ids(ws, ["a.md", "staged.md"]) == {
        "a.md": hash_object(repo, "a.md"),
        "staged.md": hash_object(repo, "staged.md"),
    }
    state = head_state(ws)
    assert state.unborn
    assert state.commit is None
    assert state.branch == "main"
    assert not state.detached


def test_head_state_on_a_branch_and_detached(repo: Path) -> None:
    write(repo, {"a.md": "# A\n"})
    first = commit_all(repo)
    ws = find_workspace(repo)
    state = head_state(ws)
    assert (state.commit, state.branch, state.detached, state.unborn) == (
        first,
        "main",
        False,
        False,
    )
    git(repo, "checkout", "-q", "--detach")
    state = head_state(ws)
    assert (state.commit, state.branch, state.detached) == (first, None, True)


def test_missing_paths_and_folders_are_left_out(repo: Path) -> None:
    write(repo, {"a.md": "# A\n"})
    commit_all(repo)
    (repo / "a.md").unlink()
    (repo / "folder.md").mkdir()
    assert worktree_blob_ids(find_workspace(repo), ["a.md", "folder.md", "nope.md"]) == {}


def test_linked_worktree_ids_head_and_hooks(repo: Path, tmp_path: Path) -> None:
    write(repo, {"a.md": "# A\n"})
    commit_all(repo)
    linked = tmp_path / "linked wt"
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked))
    write(linked, {"a.md": "# A in side\n", "b.md": "# B\n"})
    ws = find_workspace(linked)
    assert ws.git_dir != ws.common_dir
    ids = worktree_blob_ids(ws, ["a.md", "b.md"])
    assert ids == {"a.md": hash_object(linked, "a.md"), "b.md": hash_object(linked, "b.md")}
    assert head_state(ws).branch == "side"
    assert hooks_dir(ws) == (repo / ".git" / "hooks").resolve()


def test_submodule_gitlink_is_skipped(repo: Path, tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    git(sub, "init", "-q")
    write(sub, {"inner.md": "# inner\n"})
    commit_all(sub)
    write(repo, {"a.md": "# A\n"})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "mod")
    commit_all(repo)
    ws = find_workspace(repo)
    ids = worktree_blob_ids(ws, ["a.md", "mod"])
    assert ids == {"a.md": hash_object(repo, "a.md")}


def test_unchanged_tracked_file_is_not_read(repo: Path) -> None:
    write(repo, {"a.md": "# A\n"})
    commit_all(repo)
    expected = hash_object(repo, "a.md")
    (repo / "a.md").chmod(0)  # unreadable, but its stat data still matches the index
    try:
        assert worktree_blob_ids(find_workspace(repo), ["a.md"]) == {"a.md": expected}
    finally:
        (repo / "a.md").chmod(0o644)


def test_unsupported_index_falls_back_to_hashing(repo: Path) -> None:
    write(repo, {"a.md": "# A\n", "b.md": "# B\n"})
    commit_all(repo)
    (repo / ".git" / "index").write_bytes(b"DIRC garbage that libgit2 cannot read")
    ids = worktree_blob_ids(find_workspace(repo), ["a.md", "b.md"])
    assert ids == {"a.md": blob_id(b"# A\n"), "b.md": blob_id(b"# B\n")}


def test_outside_git_plain_blob_ids(tmp_path: Path) -> None:
    write(tmp_path, {"a.md": "# A\n"})
    ws = find_workspace(tmp_path)
    assert not ws.is_git
    assert worktree_blob_ids(ws, ["a.md", "gone.md"]) == {"a.md": blob_id(b"# A\n")}


def test_hooks_dir_honours_core_hooks_path(repo: Path) -> None:
    ws = find_workspace(repo)
    assert hooks_dir(ws) == repo / ".git" / "hooks"
    git(repo, "config", "core.hooksPath", ".githooks")
    assert hooks_dir(ws) == repo / ".githooks"
    git(repo, "config", "core.hooksPath", str(repo.parent / "shared-hooks"))
    assert hooks_dir(ws) == repo.parent / "shared-hooks"


def test_scrubbed_env_drops_repository_variables_and_keeps_git_config() -> None:
    env = scrubbed_env(
        {"GIT_DIR": "x", "GIT_INDEX_FILE": "y", "GIT_CONFIG_COUNT": "1", "PATH": "/bin"}
    )
    assert env == {"GIT_CONFIG_COUNT": "1", "PATH": "/bin"}


@pytest.mark.parametrize("module", ["kenso_git.repo.git"])
def test_importing_gitrepo_does_not_import_pygit2(module: str) -> None:
    code = f"import sys, {module}; print('pygit2' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"


def test_capture_separates_streams_and_reports_the_exit_status() -> None:
    status, out, err = gitrun.capture(
        ["sh", "-c", "printf 'out\\0put'; printf oops >&2; exit 3"], dict(os.environ), 10
    )
    assert (status, out, err) == (3, b"out\0put", b"oops")


def test_capture_reads_large_output_on_both_streams_without_deadlock() -> None:
    script = "head -c 300000 /dev/zero; head -c 300000 /dev/zero >&2"
    status, out, err = gitrun.capture(["sh", "-c", script], dict(os.environ), 30)
    assert (status, len(out), len(err)) == (0, 300000, 300000)


def test_capture_kills_a_program_that_outlives_the_timeout() -> None:
    with pytest.raises(TimeoutError):
        gitrun.capture(["sleep", "30"], dict(os.environ), 0.2)


def test_capture_of_a_missing_program_raises_oserror() -> None:
    with pytest.raises(OSError):
        gitrun.capture(["kenso-no-such-program"], dict(os.environ), 5)


def test_run_git_failure_names_the_command(repo: Path) -> None:
    with pytest.raises(GitError, match="git rev-parse no-such-ref failed"):
        gitrun.run_git(find_workspace(repo), "rev-parse", "no-such-ref")


def test_blob_ids_of_small_and_big_files_match_git(tmp_path: Path) -> None:
    # Small ones take CPython's SHA-1, big ones OpenSSL's: both must be git's id.
    for size in (0, 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 7):
        data = bytes(i % 251 for i in range(size))
        (tmp_path / "x.bin").write_bytes(data)
        assert blob_id(data) == hash_object(tmp_path, "x.bin"), size


def test_status_paths_lists_the_files_of_untracked_folders_as_uall_would(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(
        root, {"docs/kept.md": "# Kept\n", "docs/edited.md": "# Edited\n", ".gitignore": "*.tmp\n"}
    )
    commit_all(root, "docs")
    write(
        root,
        {
            "docs/edited.md": "# Edited again\n",
            "docs/new.md": "# New\n",
            "docs/fresh/a.md": "# A\n",
            "docs/fresh/deeper/b.md": "# B\n",
            "docs/fresh/skip.tmp": "ignored\n",
            "docs/[odd]/c.md": "# C\n",
            "only-ignored/x.tmp": "ignored\n",
        },
    )
    ws = find_workspace(root)
    oracle = git(root, "status", "--porcelain=v1", "-z", "-uall", "--no-renames").split("\0")
    expected = sorted(record[3:] for record in oracle if len(record) > 3)
    assert sorted(gitstatus.status_paths(ws, []) or []) == expected
    assert "docs/fresh/deeper/b.md" in expected and "docs/[odd]/c.md" in expected
    assert sorted(gitstatus.status_paths(ws, ["docs/fresh"]) or []) == [
        "docs/fresh/a.md",
        "docs/fresh/deeper/b.md",
    ]


def test_a_large_work_tree_without_the_untracked_cache_is_told_about_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`hooks install` passes the tip on: at 48,600 files git's scan of every folder for
    untracked files was ~100 of the ~230 ms of each status (#16)."""
    root = tmp_path / "repo"
    write(root, {f"d{i}.md": f"# D{i}\n" for i in range(5)})
    git(root.parent, "init", "-q", str(root))
    commit_all(root)
    ws = find_workspace(root)
    assert gitrepo.index_entries(ws) == 5
    assert gitrepo.untracked_cache_tip(ws) is None  # small: not worth a word
    monkeypatch.setattr(gitrepo, "MANY_FILES", 5)
    tip = gitrepo.untracked_cache_tip(ws)
    assert tip is not None and "git config core.untrackedCache true" in tip and "5 files" in tip
    for key, value in (("core.untrackedCache", "false"), ("feature.manyFiles", "true")):
        git(root, "config", key, value)
        assert gitrepo.untracked_cache_tip(ws) is None  # the user decided
        git(root, "config", "--unset", key)
    assert gitrepo.untracked_cache_tip(ws) is not None


def test_a_program_no_one_will_read_is_stopped_and_reaped_at_once() -> None:
    """EarlyStatus.discard stops git rather than waiting for its whole scan of the tree."""
    run = gitrun.Spawned(["sleep", "30"], dict(os.environ))
    pid = run.pid
    assert pid is not None
    run.stop()
    run.stop()  # idempotent
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no zombie, and it did not run its 30 s
    assert run.pid is None


def test_status_paths_names_a_staged_deletion_once_beside_a_new_folder_of_untracked_docs(
    tmp_path: Path,
) -> None:
    """The folder's only tracked doc deleted and staged, a new doc beside it: git lists the
    folder as untracked, and the second status of its files lists the deletion again (found
    by tests/repo/test_statusindex.py's property test)."""
    root = tmp_path / "repo"
    write(root, {"docs/a/x.md": "# X\n", "docs/b/y.md": "# Y\n"})
    git(root.parent, "init", "-q", str(root))
    commit_all(root)
    (root / "docs/b/y.md").unlink()
    git(root, "add", "-A")
    (root / "docs/b/new.md").write_text("# New\n")
    listed = gitstatus.status_paths(find_workspace(root), [])
    assert listed is not None
    assert sorted(listed) == ["docs/b/new.md", "docs/b/y.md"]


def test_missing_from_head_equals_a_lookup_in_heads_listing(repo: Path, tmp_path: Path) -> None:
    # #32: the last step of a cold ingest asked for a dictionary of every file of HEAD (path
    # -> blob id, ~50 MB with its pieces at 100,000 docs) to ask which paths HEAD lacks
    ws = find_workspace(repo)
    assert gitrepo.missing_from_head(ws, ["a.md"]) == {"a.md"}  # unborn: HEAD holds nothing
    write(repo, {"a.md": "# A\n", "sub/b c.md": "# B\n", "sub/ü.md": "# U\n"})
    commit_all(repo)
    write(repo, {"new.md": "# N\n"})
    asked = ["a.md", "sub/b c.md", "sub/ü.md", "new.md", "sub", "gone.md"]
    head = gitrepo.head_blob_ids(ws)
    assert head is not None
    assert gitrepo.missing_from_head(ws, asked) == {p for p in asked if p not in head}
    assert gitrepo.missing_from_head(ws, iter([])) == set()
    write(tmp_path / "plain", {"a.md": "# A\n"})
    assert gitrepo.missing_from_head(find_workspace(tmp_path / "plain"), ["a.md"]) is None


def test_missing_from_head_holds_no_dictionary_of_heads_files(repo: Path) -> None:
    import tracemalloc

    write(repo, {f"docs/area-{i % 9}/page-{i:04}.md": f"# {i}\n" for i in range(3000)})
    commit_all(repo)
    ws = find_workspace(repo)
    paths = [f"docs/area-{i % 9}/page-{i:04}.md" for i in range(3000)]

    def peak(ask: object) -> int:
        tracemalloc.start()
        try:
            ask()  # type: ignore[operator]
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    listed = peak(lambda: gitrepo.head_blob_ids(ws))
    missing = peak(lambda: gitrepo.missing_from_head(ws, paths))
    assert gitrepo.missing_from_head(ws, paths) == set()
    # the listing's text and a set of the paths asked: under half the dictionary's peak
    assert missing < listed / 2, (missing, listed)


def test_a_failing_command_with_many_arguments_is_named_by_its_first_few(repo: Path) -> None:
    # #32: lint named 20,000 paths in one git call; its error repeated all of them (2 MB)
    ws = find_workspace(repo)
    with pytest.raises(GitError) as caught:
        gitrun.run_git(ws, "log", "--no-such-option", *[f"p{i}.md" for i in range(5000)])
    message = str(caught.value)
    assert message.startswith("git log --no-such-option p0.md") and "(4990 more)" in message
    assert len(message) < 500, len(message)
