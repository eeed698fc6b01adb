"""KS025's typo suggestion (`TreeIndex.near`) costs a bounded number of difflib comparisons
per missing code path, however many names its folder holds: before, each missing path was
compared with every name of its folder (a page of 600 misspelled paths into a folder of 600
files: 360,000 comparisons, quadratic in the page and the folder)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.lint.rules._typo import Guesser
from kenso_git.lint.treeindex import TreeIndex
from tests.gitrepo import commit_all
from tests.gitrepo import write
from tests.lint.helpers import comparisons
from tests.lint.helpers import lint_compared

FRONT = "---\ntitle: Code path page\ntags: [a, b, c]\n---\n# Code path page\n\nIntro.\n\n"


def _files(count: int) -> dict[str, str]:
    return {f"src/module_number_{i}.py": "x = 1\n" for i in range(count)}


def _page(paths: list[str]) -> str:
    return FRONT + "".join(f"See `{p}` here.\n\n" for p in paths)


def _compared(repo: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[str]]:
    """The difflib comparisons (names set against a missing path) a KS025 lint makes, and
    its findings' messages."""
    return lint_compared(repo, monkeypatch, "KS025")


@pytest.mark.parametrize("size", [300, 600])
def test_code_path_suggestions_cost_linear_work_in_the_paths(repo, monkeypatch, size):
    typos = [f"src/module_number_{i}x.py" for i in range(size)]
    write(repo, {**_files(size), "docs/doc.md": _page(typos)})
    commit_all(repo, "folder and page")
    calls, messages = _compared(repo, monkeypatch)
    # every misspelled path is still reported, with the name it misspells
    assert sorted(messages) == sorted(
        f"code path `src/module_number_{i}x.py` is not in the tree; "
        f"did you mean `src/module_number_{i}.py`?"
        for i in range(size)
    )
    # before: each path was compared with every name of the folder (size x size)
    assert calls <= 40 * size, calls


def test_a_page_repeating_one_typo_pays_for_it_once(repo, monkeypatch):
    write(repo, {**_files(600), "docs/doc.md": _page(["src/module_number_7x.py"] * 600)})
    commit_all(repo, "folder and page")
    calls, messages = _compared(repo, monkeypatch)
    assert len(messages) == 600
    assert calls <= 40, calls


def test_a_small_folder_is_compared_whole_as_before(repo, monkeypatch):
    # a typo in the first characters: only a comparison with every name finds it
    files = {f"src/{w}.py": "x = 1\n" for w in ("alpha", "beta", "gamma", "delta")}
    typos = ["src/xlpha.py", "src/gamna.py", "src/zetta", "src/unrelated.py"]
    write(repo, {**files, "src/zeta/a.py": "", "docs/doc.md": _page(typos)})
    commit_all(repo, "folder and page")
    _, messages = _compared(repo, monkeypatch)
    assert sorted(messages) == [
        "code path `src/gamna.py` is not in the tree; did you mean `src/gamma.py`?",
        "code path `src/xlpha.py` is not in the tree; did you mean `src/alpha.py`?",
        "code path `src/zetta` is not in the tree; did you mean `src/zeta`?",
    ]


def test_a_documents_lookups_each_cost_bounded_work_and_all_answer(monkeypatch):
    tree = TreeIndex(_files(600))
    guesser = Guesser()
    count = comparisons(monkeypatch)
    found = [tree.near(f"src/module_number_{i % 600}x.py", guesser) for i in range(5000)]
    calls = count[0]
    # each lookup is bounded (linear in the lookups), rather than a document's lookups
    # sharing one budget that left the later ones without an answer
    assert calls <= 40 * 5000, calls
    assert found[0] == "src/module_number_0.py"
    assert found[-1] == f"src/module_number_{4999 % 600}.py"
