"""Which folders are not the project's (repo/foreign.py): a round of the gate sees the
markers as they were when it began, the next round sees new ones; a check of every folder
costs one stat a folder while the folder is unchanged."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kenso_git.config import load_settings
from kenso_git.errors import ScopeError
from kenso_git.repo import foreign
from kenso_git.repo.foreign import ENVIRONMENT
from kenso_git.repo.foreign import NESTED
from kenso_git.repo.foreign import FolderWatch
from kenso_git.repo.foreign import Foreign
from kenso_git.repo.foreign import MarkCache
from kenso_git.repo.scope import scope_for
from kenso_git.repo.workspace import find_workspace
from tests.helpers import init_repo

FOLDERS = ("a", "a/b", "a/b/c", "d")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "repo")
    for folder in FOLDERS:
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "p.md").write_text("# P\n", encoding="utf-8")
    return root


def test_a_round_sees_the_markers_made_before_it_began(tree: Path) -> None:
    marks = Foreign()
    assert marks.marks(str(tree), "a/b/c") == 0
    (tree / "a" / "b" / "pyvenv.cfg").write_text("home = /usr\n", encoding="utf-8")
    assert marks.marks(str(tree), "a/b/c") == 0  # the same round: the verdict it reached
    marks.begin()
    assert marks.marks(str(tree), "a/b/c") == ENVIRONMENT
    assert marks.marks(str(tree), "a") == 0 and marks.marks(str(tree), "a/b") == ENVIRONMENT
    (tree / "a" / ".git").mkdir()
    marks.begin()
    assert marks.marks(str(tree), "a/b/c") == ENVIRONMENT | NESTED
    assert marks.marks(str(tree), "a") == NESTED
    assert marks.marks(str(tree), "d") == 0 and marks.marks(str(tree), "") == 0


def test_the_gate_refuses_and_hides_by_the_markers_of_the_call(tree: Path) -> None:
    ws = find_workspace(tree)
    scope = scope_for(ws, load_settings(ws.root))
    gate = scope.gate()
    assert gate("a/b/c/p.md") and scope.shows("a/b/c/p.md") and scope.allows("a/b/c/p.md")
    (tree / "a" / "b" / "conda-meta").mkdir()
    gate = scope.gate()  # a new call
    assert not gate("a/b/c/p.md") and not scope.shows("a/b/c/p.md")
    assert not scope.allows("a/b/c/p.md") and gate("a/p.md")
    with pytest.raises(ScopeError) as err:
        scope.resolve("a/b/c/p.md")
    assert err.value.rule == "environment"
    (tree / "a" / "b" / "conda-meta").rmdir()
    (tree / "a" / ".git").write_text("gitdir: elsewhere\n", encoding="utf-8")  # a submodule
    gate = scope.gate()
    assert not gate("a/b/c/p.md") and not gate("a/p.md") and gate("d/p.md")
    for path in ("a/p.md", "a/b", "a"):
        with pytest.raises(ScopeError) as err:
            scope.resolve(path)
        assert err.value.rule == "nested-repo", path
        with pytest.raises(ScopeError) as err:
            scope.resolve_as_written(path)  # a path of another revision: the same folders
        assert err.value.rule == "nested-repo", path
    assert scope.resolve("d/p.md") == "d/p.md"


def _counting(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    calls = {"stat": 0, "lstat": 0}

    def counting(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(os, "stat", counting("stat", os.stat))
    monkeypatch.setattr(os, "lstat", counting("lstat", os.lstat))
    return calls


def test_an_unchanged_folder_costs_one_stat_a_check(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    later = time.time_ns() + 10 * foreign.SETTLE_NS  # the clock: every folder settled
    monkeypatch.setattr(foreign.time, "time_ns", lambda: later)
    cache = MarkCache()
    assert cache.foreign(str(tree), FOLDERS) == set()
    calls = _counting(monkeypatch)
    assert cache.foreign(str(tree), FOLDERS) == set()
    assert calls == {"stat": len(FOLDERS), "lstat": 0}  # no marker looked for
    (tree / "a" / "b" / ".git").mkdir()  # changes a/b's mtime: looked at again
    assert cache.foreign(str(tree), FOLDERS) == {"a/b", "a/b/c"}


def test_a_folder_changed_lately_is_looked_at_again(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within `SETTLE_NS` of a folder's change, a marker made in it may leave its mtime as
    it was (a coarse clock): its markers are looked at again at each check."""
    cache = MarkCache()
    assert cache.foreign(str(tree), ["d"]) == set()
    calls = _counting(monkeypatch)
    assert cache.foreign(str(tree), ["d"]) == set()
    assert calls["lstat"] == 3  # pyvenv.cfg, conda-meta, .git


def test_a_folder_watch_names_the_files_of_a_folder_that_is_ours_again(tree: Path) -> None:
    watch = FolderWatch()
    held = ["a", "a/b", "d"]
    assert watch.look(str(tree), held) == (set(), [])
    (tree / "a" / "b" / "pyvenv.cfg").write_text("home = /usr\n", encoding="utf-8")
    assert watch.look(str(tree), held) == ({"a/b"}, [])
    held = ["a", "d"]  # its docs were dropped
    assert watch.look(str(tree), held) == (set(), [])
    (tree / "a" / "b" / "pyvenv.cfg").unlink()
    assert watch.look(str(tree), held) == (set(), ["a/b/p.md"])
    assert watch.look(str(tree), held) == (set(), ["a/b/p.md"])  # until they are indexed
    assert watch.look(str(tree), ["a", "a/b", "d"]) == (set(), [])
    assert watch.look(str(tree), ["a", "d"]) == (set(), [])  # forgotten once back
