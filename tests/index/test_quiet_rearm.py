"""What makes the query-time check's watch walk the tree again (index/quiet.py): only what
can change the settings or the folders the walk enters."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from kenso_git.index.quiet import QuietWatch
from kenso_git.kb import KnowledgeBase
from tests.index.test_quiet import _paths
from tests.index.test_quiet import _warm

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")


def rearmed(watch: QuietWatch, times: int) -> None:
    """Wait (60 s at most) until the watch has walked the tree `times` times in all."""
    deadline = time.monotonic() + 60
    while watch.armed < times:
        assert time.monotonic() < deadline, "the watch never armed again"
        time.sleep(0.01)


@linux_only
@pytest.mark.parametrize("name", ["pyproject.toml", ".kenso.toml"])
def test_a_settings_file_outside_the_root_does_not_walk_the_tree_again(
    root: Path, name: str
) -> None:
    """Only the root's settings files are read (`config.read_config_table`): one in a
    folder below changes no setting and no folder the walk enters."""
    kb = KnowledgeBase.open(root)
    watch = _warm(kb)
    (root / "docs" / name).write_text('[tool.kenso]\nexclude = ["docs/"]\n', encoding="utf-8")
    assert _paths(kb, "alpha") == ["docs/a.md"]  # a change in a watched folder: checked
    before = watch.vouched
    assert _paths(kb, "alpha") == ["docs/a.md"]
    assert watch.vouched == before + 1, "trusted again at once, with no walk"
    assert watch.armed == 1


@linux_only
def test_the_roots_settings_file_and_a_nested_ignore_file_still_walk_it_again(
    root: Path,
) -> None:
    kb = KnowledgeBase.open(root)
    watch = _warm(kb)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    _paths(kb, "alpha")  # its check starts the walk
    rearmed(watch, 2)
    (root / "docs" / ".gitignore").write_text("b.md\n", encoding="utf-8")
    assert _paths(kb, "bravo") == []
    rearmed(watch, 3)
    before = watch.vouched
    _paths(kb, "alpha")  # the first check on the new queue
    assert _paths(kb, "alpha") == ["docs/a.md"]
    assert watch.vouched == before + 1
