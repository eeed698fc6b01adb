"""`lint --fix` writes a file only over the bytes its fixes were worked out from: a write
landing between the read and the rewrite (an editor's autosave, an appended line) is kept,
the file is left unfixed and named, and the next run fixes it.

The tester's case (3,000 pages linking to a renamed one, lines appended to one of them while
`--fix` ran) lost 70 appended lines: the page was replaced by the text read a second before
plus its fix.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from kenso_git.lint.fix import FixOutcome
from kenso_git.lint.fix import write_fixes
from kenso_git.lint.session import run_lint
from tests.gitrepo import commit_all
from tests.gitrepo import git
from tests.gitrepo import write
from tests.lint.test_cli import run

TARGET = "# Target page title here\n\nSome text that is long enough to be a document for lint.\n"
PAGE = "# Page {} about things\n\nLink to [target](target.md) and some words to make it long.\n"
LATE = "a line saved while lint --fix ran\n"
CHANGED = "changed while lint --fix ran; run lint --fix again"


def _moved(repo: Path, pages: int) -> None:
    """docs/p1.md .. docs/pN.md link to docs/target.md, which a commit renames to moved.md."""
    write(repo, {"docs/target.md": TARGET})
    write(repo, {f"docs/p{i}.md": PAGE.format(i) for i in range(1, pages + 1)})
    commit_all(repo, "init")
    git(repo, "mv", "docs/target.md", "docs/moved.md")
    commit_all(repo, "mv")


def _plan(repo: Path, monkeypatch: pytest.MonkeyPatch) -> FixOutcome:
    """The fixes `lint --fix` works out for `repo` (its own plan, as `--diff` shows it)."""
    monkeypatch.chdir(repo)
    fixes = run_lint([repo / "docs"], diff=True).fixes
    assert fixes is not None
    assert [f.path for f in fixes.files] == ["docs/p1.md", "docs/p2.md"]
    return fixes


def _append(page: Path) -> None:
    with page.open("a", encoding="utf-8") as stream:
        stream.write(LATE)


def _save_as_new_file(page: Path) -> None:
    """An editor's save: the same bytes written to a new file renamed over the page."""
    fresh = page.with_name(".p1.md.save")
    fresh.write_bytes(page.read_bytes())
    os.replace(fresh, page)


CHANGES: dict[str, tuple[Callable[[Path], None], Callable[[Path], str | None]]] = {
    "appended": (_append, lambda _: PAGE.format(1) + LATE),
    "saved as a new file": (_save_as_new_file, lambda _: PAGE.format(1)),
    "deleted": (Path.unlink, lambda _: None),
}


@pytest.mark.parametrize("linked", [False, True], ids=["replaced", "hard-linked"])
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_fix_leaves_a_page_that_changed_after_it_was_read(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str, linked: bool
) -> None:
    """Planned, then changed, then written: the change stays and the page is named as not
    rewritten (a hard-linked page is written in place, the others through a new file)."""
    _moved(repo, 2)
    page = repo / "docs" / "p1.md"
    if linked:
        os.link(page, tmp_path / "elsewhere.md")
    plan = _plan(repo, monkeypatch)
    make, expected = CHANGES[change]
    make(page)

    done = write_fixes(repo, plan)

    text = page.read_text(encoding="utf-8") if page.exists() else None
    assert text == expected(page)
    assert [f.path for f in done.files] == ["docs/p2.md"]
    assert done.unfixed == (("docs/p1.md", CHANGED),)
    assert done.applied == 1
    assert "[target](moved.md)" in (repo / "docs" / "p2.md").read_text(encoding="utf-8")


def test_fix_says_a_page_that_changed_is_not_rewritten_and_the_next_run_fixes_it(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second run reads the page as it is now: the fix and the late line both stand."""
    _moved(repo, 2)
    page = repo / "docs" / "p1.md"
    plan = _plan(repo, monkeypatch)
    _append(page)
    write_fixes(repo, plan)

    again = run(repo, "--fix", "--select", "KS024", "docs")

    assert again.returncode == 0, again.stdout + again.stderr
    assert "kenso-git: fixed 1 finding in 1 file" in again.stderr
    fixed = PAGE.format(1).replace("target.md", "moved.md")
    assert page.read_text(encoding="utf-8") == fixed + LATE


def test_fix_counts_a_page_hard_linked_in_the_repo_fixed_once_under_both_names(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/p2.md is another name of docs/p1.md: fixing one fixes the other, which then
    holds the fixed text, not the text read: it is fixed, not 'changed'."""
    _moved(repo, 1)
    os.link(repo / "docs" / "p1.md", repo / "docs" / "p2.md")
    plan = _plan(repo, monkeypatch)

    done = write_fixes(repo, plan)

    assert [f.path for f in done.files] == ["docs/p1.md", "docs/p2.md"]
    assert done.unfixed == ()
    assert "[target](moved.md)" in (repo / "docs" / "p2.md").read_text(encoding="utf-8")
    assert (repo / "docs" / "p2.md").stat().st_nlink == 2


def test_fix_never_loses_a_line_appended_while_it_runs(repo: Path) -> None:
    """The tester's r1.sh, shortened: lines are appended to docs/p1.md for as long as
    `kenso-git lint --fix` runs. Whenever the page is rewritten or left, every line is
    there, in order (this can only fail by losing one)."""
    _moved(repo, 300)
    page = repo / "docs" / "p1.md"
    stop = threading.Event()
    appended = 0

    def append() -> None:
        nonlocal appended
        while not stop.is_set():
            with page.open("a", encoding="utf-8") as stream:
                stream.write(f"line-{appended + 1}\n")
            appended += 1
            stop.wait(0.001)  # pacing only: no assertion depends on it

    appender = threading.Thread(target=append)
    appender.start()
    try:
        result = run(repo, "--fix", "--select", "KS024", "docs")
    finally:
        stop.set()
        appender.join()

    lines = re.findall(r"^line-(\d+)$", page.read_text(encoding="utf-8"), re.MULTILINE)
    assert [int(n) for n in lines] == list(range(1, appended + 1))
    left = "kenso-git: warning: docs/p1.md: not rewritten: " + CHANGED
    assert result.returncode == (1 if left in result.stderr else 0), result.stderr
    fixed = 299 if left in result.stderr else 300
    assert f"kenso-git: fixed {fixed} findings in {fixed} files" in result.stderr, result.stderr
    assert "[target](moved.md)" in (repo / "docs" / "p300.md").read_text(encoding="utf-8")
