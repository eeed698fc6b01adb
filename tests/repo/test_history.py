"""repo/history.py against real git repositories: revisions, changes with renames, last commits."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.errors import UsageError
from kenso_git.repo import history
from kenso_git.repo.workspace import find_workspace
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write

LONG = "\n".join(f"line {i} of a page long enough for rename detection" for i in range(40))


def _everything(path: str) -> bool:
    return True


def _changes(root: Path, since: str, until: str | None = None, is_doc=_everything):
    ws = find_workspace(root)
    old = history.resolve_revision(ws, since)
    new = None if until is None else history.resolve_revision(ws, until)
    return {c.path: c for c in history.changes(ws, old, new, is_doc=is_doc)}


def test_changes_name_each_doc_added_modified_deleted_and_renamed(repo: Path) -> None:
    write(repo, {"docs/a.md": LONG, "docs/b.md": "b\n", "docs/gone.md": "x\n", "src/x.py": "1\n"})
    first = commit_all(repo, "first")
    (repo / "guide").mkdir()
    git(repo, "mv", "docs/a.md", "guide/a.md")
    write(repo, {"docs/b.md": "b changed\n", "docs/new.md": "new\n", "src/x.py": "2\n"})
    git(repo, "rm", "-q", "docs/gone.md")
    second = commit_all(repo, "second: move a")

    found = _changes(repo, first, second)

    assert set(found) == {"guide/a.md", "docs/b.md", "docs/new.md", "docs/gone.md"}
    assert found["guide/a.md"].status == "renamed"
    assert found["guide/a.md"].old_path == "docs/a.md"
    assert found["docs/b.md"].status == "modified"
    assert found["docs/new.md"].status == "added"
    assert found["docs/gone.md"].status == "deleted"
    last = found["docs/b.md"].last_commit
    assert last is not None and last.id == second and last.subject == "second: move a"
    assert found["docs/b.md"].to_dict()["commits"] == 1
    assert "old_path" not in found["docs/b.md"].to_dict()


def test_commits_before_a_rename_count_under_the_new_name(repo: Path) -> None:
    write(repo, {"a.md": LONG})
    base = commit_all(repo, "base")
    write(repo, {"a.md": LONG + "\nmore\n"})
    commit_all(repo, "edit before the move")
    git(repo, "mv", "a.md", "b.md")
    moved = commit_all(repo, "move")
    write(repo, {"b.md": LONG + "\nmore\nand more\n"})
    last = commit_all(repo, "edit after the move")

    found = _changes(repo, base, "HEAD")

    assert list(found) == ["b.md"]
    assert found["b.md"].status == "renamed" and found["b.md"].old_path == "a.md"
    assert found["b.md"].commits == 3
    assert found["b.md"].last_commit is not None and found["b.md"].last_commit.id == last
    assert moved != last


def test_against_the_work_tree_uncommitted_and_untracked_docs_count(repo: Path) -> None:
    write(repo, {"a.md": "a\n", "b.md": "b\n"})
    base = commit_all(repo, "base")
    write(repo, {"a.md": "a edited\n", "draft.md": "new, not added\n"})

    found = _changes(repo, base)

    assert found["a.md"].status == "modified" and found["a.md"].uncommitted
    assert found["a.md"].last_commit is None and found["a.md"].commits == 0
    assert found["draft.md"].status == "added" and found["draft.md"].uncommitted
    assert found["draft.md"].to_dict()["uncommitted"] is True
    assert "b.md" not in found


def test_is_doc_decides_which_paths_are_listed_and_a_rename_out_of_it_is_a_delete(
    repo: Path,
) -> None:
    write(repo, {"public/a.md": LONG, "private/b.md": "secret\n"})
    base = commit_all(repo, "base")
    git(repo, "mv", "public/a.md", "private/a.md")
    write(repo, {"private/b.md": "secret, edited\n"})
    commit_all(repo, "hide a")

    found = _changes(repo, base, "HEAD", is_doc=lambda p: p.startswith("public/"))

    assert set(found) == {"public/a.md"}
    assert found["public/a.md"].status == "deleted"


def test_only_markdown_files_are_compared(repo: Path) -> None:
    write(repo, {"a.md": "a\n", "b.MARKDOWN": "b\n", "c.txt": "c\n"})
    base = commit_all(repo, "base")
    write(repo, {"a.md": "a2\n", "b.MARKDOWN": "b2\n", "c.txt": "c2\n"})
    commit_all(repo, "edit all")

    assert set(_changes(repo, base, "HEAD")) == {"a.md", "b.MARKDOWN"}


@pytest.mark.parametrize("rev", ["nope", "--output=OUT", "", "HEAD\nmain", "a" * 300, "HEAD:a.md"])
def test_a_revision_that_names_no_commit_is_refused_with_a_hint(
    repo: Path, rev: str, tmp_path: Path
) -> None:
    write(repo, {"a.md": "a\n"})
    commit_all(repo, "base")
    out = tmp_path / "written-by-git"
    rev = rev.replace("OUT", str(out))  # an option git would obey, were it passed as one

    with pytest.raises(UsageError) as caught:
        history.resolve_revision(find_workspace(repo), rev)

    assert caught.value.hint
    assert not out.exists()


def test_revisions_resolve_tags_branches_and_relative_names(repo: Path) -> None:
    write(repo, {"a.md": "a\n"})
    first = commit_all(repo, "first")
    git(repo, "tag", "v1.0")
    write(repo, {"a.md": "b\n"})
    second = commit_all(repo, "second")
    ws = find_workspace(repo)

    assert history.resolve_revision(ws, "v1.0") == first
    assert history.resolve_revision(ws, "HEAD~1") == first
    assert history.resolve_revision(ws, "HEAD") == second


def test_outside_git_a_revision_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not in a git repository"):
        history.resolve_revision(find_workspace(tmp_path), "HEAD")


def test_last_commits_name_the_commit_that_made_each_blob(repo: Path) -> None:
    write(repo, {"a.md": "a1\n", "b.md": "b1\n", "c.md": "c1\n"})
    first = commit_all(repo, "first")
    write(repo, {"b.md": "b2\n"})
    second = commit_all(repo, "second")
    write(repo, {"b.md": "b1\n"})  # back to the first version: a newer commit made it so
    third = commit_all(repo, "third: revert b")
    ws = find_workspace(repo)

    found = history.last_commits(ws, history.paths_at(ws, "HEAD"))

    assert {p: c.id for p, c in found.items()} == {"a.md": first, "b.md": third, "c.md": first}
    assert second != third


def test_last_commits_leave_out_a_blob_no_commit_made(repo: Path) -> None:
    write(repo, {"a.md": "a1\n"})
    commit_all(repo, "first")
    ws = find_workspace(repo)

    found = history.last_commits(ws, {"a.md": "0" * 40, "never.md": "1" * 40})

    assert found == {}


def test_paths_at_lists_markdown_blobs_of_a_commit_without_links(repo: Path) -> None:
    write(repo, {"a.md": "a\n", "x.py": "1\n"})
    (repo / "link.md").symlink_to("a.md")
    commit_all(repo, "first")
    ws = find_workspace(repo)

    assert set(history.paths_at(ws, "HEAD")) == {"a.md"}


@pytest.mark.parametrize("count", [3, history.MAX_LISTED_PATHS + 20])
def test_same_blobs_is_paths_at_compared_entry_by_entry(repo: Path, count: int) -> None:
    """Few paths are asked by name, many read from the whole listing; either way the answer
    is `paths_at`'s entries that hold the blob asked about (a link, an edited file, a
    file not Markdown and one not committed never do)."""
    files = {f"docs/d{n:04}.md": f"# Doc {n}\n" for n in range(count)}
    files["notes.txt"] = "not markdown\n"
    write(repo, files)
    (repo / "docs" / "link.md").symlink_to("d0000.md")
    head = commit_all(repo, "docs")
    ws = find_workspace(repo)
    at_head = history.paths_at(ws, head)
    asked = dict(at_head)
    asked["docs/d0001.md"] = "0" * 40  # edited since
    asked["docs/new.md"] = "1" * 40  # never committed
    for line in git(repo, "ls-tree", "-r", head).splitlines():  # the link's and the text's
        meta, _, path = line.partition("\t")  # own blobs: still never Markdown docs
        if path in ("docs/link.md", "notes.txt"):
            asked[path] = meta.split()[2]
    want = {p: b for p, b in asked.items() if at_head.get(p) == b}
    assert history.same_blobs(ws, head, asked) == want
    assert "docs/d0001.md" not in want and "docs/d0000.md" in want
