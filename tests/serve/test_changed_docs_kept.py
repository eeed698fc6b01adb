"""Paging through `changed_docs`. Every page ran git's diff and log of the whole range again
(and `ls-files`, `ls-tree`, the work tree's diffs) to cut 20 results from it: N pages cost N
times the range. The list is now kept between pages while the range's commits, the work
tree's git status, the scope and its rule files are as they were, so a later page only
resolves the revisions (and, for the work tree, asks one `git status`); the answers stay
those a fresh server gives. git's runs are counted by a `git` on PATH that logs and runs git."""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kenso_git.serve.service import Service
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write

ADDED = 300
LIMIT = 20  # 15+ pages
RANGE_WORK = {"diff", "log", "ls-files", "ls-tree", "update-index", "read-tree"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """`base`: 20 docs; a commit adding 300 and changing 5; a work tree changing 3 more."""
    root = init_repo(
        tmp_path / "repo", {f"kept/doc-{i:02d}.md": f"# Kept {i}\n\nKept {i}.\n" for i in range(20)}
    )
    (root / ".kenso.toml").write_text("watch = false\n", encoding="utf-8")
    git(root, "tag", "base")
    write(
        root, {f"docs/page-{i:04d}.md": f"# Page {i}\n\nPage number {i}.\n" for i in range(ADDED)}
    )
    write(root, {f"kept/doc-{i:02d}.md": f"# Kept {i}\n\nKept {i}, changed.\n" for i in range(5)})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "add pages")
    write(root, {f"kept/doc-{i:02d}.md": f"# Kept {i}\n\nKept {i}, edited.\n" for i in (10, 11)})
    write(root, {"zz/new.md": "# New\n\nUntracked.\n"})
    return root


@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The log of every git run: a `git` first on PATH that writes its arguments and runs git."""
    real = shutil.which("git")
    assert real is not None
    folder = tmp_path / "bin"
    folder.mkdir()
    log = tmp_path / "git-runs.log"
    log.touch()
    script = folder / "git"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    yield log


def _verb(line: str) -> str:
    words = iter(line.split())
    for word in words:
        if word in ("-C", "-c"):
            next(words, None)
        elif not word.startswith("-"):
            return word
    return ""


def _paged(service: Service, until: str | None, log: Path) -> tuple[list[Any], list[list[str]]]:
    """Every page of `base`..`until` with the verbs of the git runs each made."""
    pages: list[Any] = []
    verbs: list[list[str]] = []
    cursor = None
    while not pages or cursor is not None:
        log.write_text("")
        page = service.changed_docs("base", until, LIMIT, cursor)[0]
        verbs.append([_verb(line) for line in log.read_text().splitlines()])
        pages.append(page)
        cursor = page["next_cursor"]
    return pages, verbs


def _bytes(pages: list[Any]) -> list[str]:
    return [json.dumps(page, indent=2, ensure_ascii=False) for page in pages]


@pytest.mark.parametrize("until", ["HEAD", None])
def test_later_pages_are_cut_from_the_kept_list_without_diff_or_log(
    repo: Path, runs: Path, until: str | None
) -> None:
    service = Service(repo)
    pages, verbs = _paged(service, until, runs)
    assert len(pages) >= 15
    assert {"diff", "log"} <= set(verbs[0])  # the first page lists the range
    for k, made in enumerate(verbs[1:], 1):
        assert not RANGE_WORK & set(made), (k, made)
        # the revisions resolved again, and the work tree's status
        assert set(made) <= {"rev-parse", "status"}, (k, made)
        assert len(made) <= 3, (k, made)
    # every page is the one a server that kept nothing gives
    cursors = [None] + [page["next_cursor"] for page in pages[:-1]]
    fresh = [Service(repo).changed_docs("base", until, LIMIT, c)[0] for c in cursors]
    assert _bytes(pages) == _bytes(fresh)
    rows = [row["path"] for page in pages for row in page["results"]]
    assert len(rows) == pages[0]["total"] == ADDED + 5 + (3 if until is None else 0)


def test_the_work_tree_changing_between_pages_lists_the_range_again(repo: Path, runs: Path) -> None:
    service = Service(repo)
    first = service.changed_docs("base", None, LIMIT)[0]
    write(repo, {"aaa/late.md": "# Late\n\nMade between two pages.\n"})  # untracked
    write(repo, {"kept/doc-15.md": "# Kept 15\n\nEdited between two pages.\n"})
    again = service.changed_docs("base", None, LIMIT)[0]
    assert again["total"] == first["total"] + 2
    assert _bytes([again]) == _bytes([Service(repo).changed_docs("base", None, LIMIT)[0]])
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "late")  # HEAD moves: the same status, other commits
    committed = service.changed_docs("base", None, LIMIT)[0]
    assert committed["results"][0]["path"] == "aaa/late.md"
    assert committed["results"][0]["commits"] == 1
    assert _bytes([committed]) == _bytes([Service(repo).changed_docs("base", None, LIMIT)[0]])


def test_a_rule_file_edited_between_pages_hides_what_it_ignores(repo: Path, runs: Path) -> None:
    service = Service(repo)
    first = service.changed_docs("base", "HEAD", LIMIT)[0]
    assert first["results"][0]["path"].startswith("docs/")
    (repo / ".kensoignore").write_text("docs/page-00*\n", encoding="utf-8")
    later = service.changed_docs("base", "HEAD", LIMIT)[0]
    assert later["total"] == first["total"] - 100
    assert not any(r["path"].startswith("docs/page-00") for r in later["results"])
    assert _bytes([later]) == _bytes([Service(repo).changed_docs("base", "HEAD", LIMIT)[0]])
    (repo / ".kensoignore").unlink()
    assert _bytes([service.changed_docs("base", "HEAD", LIMIT)[0]]) == _bytes([first])
