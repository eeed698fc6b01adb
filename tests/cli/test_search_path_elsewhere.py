"""`kenso-git search --db INDEX --path P` run outside INDEX's work tree (from another
repository, say) reads `.`, `./x` and `../x` from the current folder as the same folder
given absolutely is read: outside the index's repository, the same usage error. `--path .`
searched every doc, and `--path ./b1.md` answered nothing with exit 0 (t47a, defect 4). A
path written as a search result prints it (`docs/guide`) is still repo-relative."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import run_cli

BODY = "This page talks about apples in enough words to pass the minimum chunk size. " * 3


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    top = tmp_path_factory.mktemp("elsewhere")
    a = init_repo(
        top / "a",
        {
            "docs/a1.md": doc("A one", BODY),
            "docs/guide/setup.md": doc("Setup", BODY),
            "notes/n.md": doc("Notes", BODY),
        },
    )
    b = init_repo(top / "b", {"docs/b1.md": doc("B one", BODY), "b.md": doc("B", BODY)})
    proc = run_cli(a, "ingest", "--no-lint")
    assert proc.returncode == 0, proc.stderr
    return a, b


def _search(cwd: Path, a: Path, path: str) -> tuple[int, list[str], str]:
    db = str(a / ".kenso" / "docs.db")
    proc = run_cli(cwd, "search", "apples", "--db", db, "--path", path, "--format", "json")
    hits = [h["path"] for h in json.loads(proc.stdout)["results"]] if proc.stdout else []
    return proc.returncode, hits, proc.stderr


@pytest.mark.parametrize(
    ("cwd", "written"),
    [
        ("docs", "."),
        ("docs", "./"),
        ("docs", "./b1.md"),
        ("docs", "b1.md"),  # names a file here, and nothing in the index's repository
        ("docs", ".."),
        ("", "./docs"),
        ("", "../b"),
        ("docs", "ABS"),
    ],
)
def test_a_path_from_the_current_folder_outside_the_repository_is_refused(
    repos: tuple[Path, Path], cwd: str, written: str
) -> None:
    a, b = repos
    here = b / cwd
    path = str(here) if written == "ABS" else written

    code, hits, err = _search(here, a, path)

    assert code == 2, hits
    assert f"kenso-git: error: --path {path!r} is outside the repository ({a})" in err
    assert "hint: give a folder inside it" in err


@pytest.mark.parametrize(
    ("cwd", "written", "found"),
    [
        ("", "docs", ["docs/a1.md", "docs/guide/setup.md"]),  # a result's path: a's docs
        ("docs", "docs/guide", ["docs/guide/setup.md"]),
        ("docs", "notes/n.md", ["notes/n.md"]),
        ("docs", "../../a/notes", ["notes/n.md"]),  # from here, into a's work tree
        ("", "../a/docs/guide/", ["docs/guide/setup.md"]),
    ],
)
def test_a_path_into_the_repository_or_written_as_a_result_still_searches(
    repos: tuple[Path, Path], cwd: str, written: str, found: list[str]
) -> None:
    a, b = repos

    code, hits, err = _search(b / cwd, a, written)

    assert code == 0, err
    assert sorted(hits) == found


def test_a_nested_repository_named_by_path_says_where_its_docs_are_searched(
    tmp_path: Path,
) -> None:
    # from a repository (or a plain folder) holding another, `--path` into the other was
    # refused with the gate's words alone; it now says how to search that repository
    top = init_repo(tmp_path / "top", {"docs/t.md": doc("Top", BODY)})
    init_repo(top / "inner", {"docs/i.md": doc("Inner", BODY)})
    assert run_cli(top, "ingest", "--no-lint").returncode == 0
    proc = run_cli(top, "search", "apples", "--path", "inner")
    assert proc.returncode == 2
    assert "--path 'inner' is inside another repository" in proc.stderr
    assert "cd inner" in proc.stderr and "inner/.kenso/docs.db" in proc.stderr


def test_from_a_plain_folder_a_repository_named_by_path_is_no_other_repository(
    tmp_path: Path,
) -> None:
    # outside git the folder searched is in no repository: "another repository" misled
    top = tmp_path / "plain"
    (top / "docs").mkdir(parents=True)
    (top / "docs" / "t.md").write_text(doc("Top", BODY))
    init_repo(top / "inner", {"docs/i.md": doc("Inner", BODY)})
    assert run_cli(top, "ingest", "--no-lint").returncode == 0
    proc = run_cli(top, "search", "apples", "--path", "inner")
    assert proc.returncode == 2
    assert "another repository" not in proc.stderr
    said = f"--path 'inner' is inside a git repository, whose docs the index of {top} "
    assert said + "(a folder in no repository) does not hold" in proc.stderr
    assert "cd inner" in proc.stderr and "inner/.kenso/docs.db" in proc.stderr
