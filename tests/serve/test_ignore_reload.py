"""Ignore rules apply at once: a running server stops serving a doc as soon as it is ignored."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from kenso_git.config import load_settings
from kenso_git.repo.ignore import IgnoreRules
from kenso_git.repo.scope import scope_for
from kenso_git.repo.workspace import find_workspace
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service

pytestmark = pytest.mark.anyio


def _append(path: Path, line: str) -> Callable[[], None]:
    """Append `line` to `path`; the returned function restores the old text (or removes it)."""
    old = path.read_text(encoding="utf-8") if path.exists() else None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text((old or "") + line + "\n", encoding="utf-8")

    def undo() -> None:
        if old is None:
            path.unlink()
        else:
            path.write_text(old, encoding="utf-8")

    return undo


RULE_FILES = {
    ".gitignore": lambda root: root / ".gitignore",
    ".cursorignore": lambda root: root / ".cursorignore",
    "nested .gitignore": lambda root: root / "docs" / ".gitignore",
    "info/exclude": lambda root: root / ".git" / "info" / "exclude",
}


async def _visible(client: Client, path: str) -> tuple[bool, bool]:
    """(a search shows `path`, get_doc serves it), through one live MCP session."""
    hits = await client.call_tool("search_docs", {"query": "billing retries", "limit": 20})
    found = path in json.dumps(json.loads(hits.content[0].text))
    doc = await client.call_tool("get_doc", {"path": path})
    return found, not doc.is_error


@pytest.mark.parametrize("rule_file", list(RULE_FILES))
async def test_a_doc_ignored_while_serving_is_hidden_at_once(repo: Path, rule_file: str) -> None:
    target = RULE_FILES[rule_file](repo)
    line = "billing.md" if rule_file == "nested .gitignore" else "docs/billing.md"
    async with Client(build_server(Service(repo))) as client:
        assert await _visible(client, "docs/billing.md") == (True, True)
        undo = _append(target, line)
        assert await _visible(client, "docs/billing.md") == (False, False)
        refused = await client.call_tool("get_doc", {"path": "docs/billing.md"})
        assert json.loads(refused.content[0].text)["rule"] == "ignored"
        undo()
        assert await _visible(client, "docs/billing.md") == (True, True)


def test_reload_costs_nothing_when_no_rule_file_changed(repo: Path) -> None:
    ws = find_workspace(repo)
    rules = IgnoreRules.for_workspace(ws, load_settings(ws.root), watch=True)
    assert rules.is_ignored("ignored/notes.md") and not rules.is_ignored("docs/deploy.md")
    assert rules.reload_if_changed() is False
    _append(repo / ".gitignore", "docs/deploy.md")
    assert rules.reload_if_changed() is True
    assert rules.is_ignored("docs/deploy.md")
    assert rules.reload_if_changed() is False


def test_scope_reload_is_callable_by_a_watcher(repo: Path) -> None:
    ws = find_workspace(repo)
    scope = scope_for(ws, load_settings(ws.root))
    assert scope.allows("docs/deploy.md")
    _append(repo / ".gitignore", "docs/deploy.md")
    assert scope.reload_if_changed() is True  # what triggers/watcher.py may call on an event
    assert not scope.allows("docs/deploy.md")


def test_folders_that_do_not_exist_are_neither_cached_nor_watched(repo: Path) -> None:
    ws = find_workspace(repo)
    rules = IgnoreRules.for_workspace(ws, load_settings(ws.root), watch=True)
    watched = len(rules._watched)
    for i in range(100):
        rules.is_ignored("/".join(f"n{i}" for _ in range(30)) + "/x.md")
    assert len(rules._watched) == watched + 3  # the root's three names only
    new = repo / "n0" / ".gitignore"
    _append(new, "x.md")  # a folder created later is read when next consulted
    assert rules.is_ignored("n0/x.md")


def test_a_deep_missing_path_costs_a_linear_number_of_stats(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = find_workspace(repo)
    rules = IgnoreRules.for_workspace(ws, load_settings(ws.root), watch=True)
    probes = 0
    is_dir = Path.is_dir

    def counted(self: Path) -> bool:
        nonlocal probes
        probes += 1
        return is_dir(self)

    monkeypatch.setattr(Path, "is_dir", counted)
    depth = 63
    assert not rules.is_ignored("a/" * depth + "x.md")
    assert probes <= 2 * (depth + 1)  # not one per ancestor per level (~2,000)
