"""Absolute paths spelled through a link to the checkout (macOS `/tmp -> /private/tmp`, a
linked workspace): the gate reads them as the same repo-relative path, with every refusal
it makes of that path, and refuses what only a link into the checkout reaches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from kenso_git.config import load_settings
from kenso_git.errors import ScopeError
from kenso_git.repo.scope import Scope
from kenso_git.repo.scope import scope_for
from kenso_git.repo.workspace import find_workspace
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo

# repo-relative arguments, each of them served or refused by a rule of its own
ARGS = (
    "docs/deploy.md",
    "docs/billing.md",
    "docs",
    ".",
    "docs/alias.md",
    "docs/missing.md",
    "docs/./deploy.md",
    "docs//deploy.md",
    "private/plan.md",
    "ignored/notes.md",
    "build/out.md",
    "docs/out-dir/secret.md",
    "docs/escape.md",
    "docs/peek/plan.md",
    "docs/to-private.md",
    "docs/up/private/plan.md",
    "docs/up/docs/deploy.md",
    "link-out/secret.md",
    ".git/config",
    ".kenso/docs.db",
    "docs/../private/plan.md",
    "docs/%2e%2e/private/plan.md",
    "docs\\deploy.md",
)


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """(the real checkout, a link to it): docs/ is the agent scope, with links in the repo
    out of the repository, out of the scope and back to the root."""
    real = tmp_path / "real"
    root = make_repo(real / "repo", scoped=("docs",))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\ntop secret payment keys\n", encoding="utf-8")
    (root / "link-out").symlink_to(outside, target_is_directory=True)
    (root / "docs" / "out-dir").symlink_to(outside, target_is_directory=True)
    (root / "docs" / "escape.md").symlink_to(outside / "secret.md")
    (root / "docs" / "peek").symlink_to(root / "private", target_is_directory=True)
    (root / "docs" / "to-private.md").symlink_to(root / "private" / "plan.md")
    (root / "docs" / "alias.md").symlink_to(root / "docs" / "billing.md")
    (root / "docs" / "up").symlink_to("..", target_is_directory=True)
    (root / "build").mkdir()
    (root / "build" / "out.md").write_text("# Built\n\nGenerated output.\n", encoding="utf-8")
    link = tmp_path / "link"
    link.symlink_to(root, target_is_directory=True)
    return root, link


def _scope(start: Path) -> Scope:
    ws = find_workspace(start)
    return scope_for(ws, load_settings(ws.root))


def _verdict(scope: Scope, arg: str) -> str:
    try:
        return "served " + scope.resolve(arg)
    except ScopeError as err:
        return "refused " + str(err.rule)


def test_a_path_through_a_linked_checkout_is_judged_as_its_repo_relative_path(
    linked: tuple[Path, Path],
) -> None:
    root, link = linked
    scope = _scope(link)
    assert scope.root == root.resolve()
    spelled = {arg: _verdict(scope, f"{link}/{arg}") for arg in ARGS}
    real = {arg: _verdict(scope, f"{root}/{arg}") for arg in ARGS}
    relative = {arg: _verdict(scope, arg) for arg in ARGS}
    assert spelled == real == relative
    assert spelled["docs/deploy.md"] == "served docs/deploy.md"
    assert spelled["docs/up/docs/deploy.md"] == "refused nested-repo"  # `up` is the root
    assert spelled["docs/up/private/plan.md"] == "refused symlink-escape"
    assert spelled["private/plan.md"] == "refused outside-scope"
    assert spelled["docs"] == "served docs"
    assert _verdict(scope, str(link)) == _verdict(scope, ".") == "refused outside-scope"


def test_a_checkout_under_a_linked_folder_takes_paths_under_either_name(tmp_path: Path) -> None:
    # macOS: the checkout is /private/tmp/x/repo, the agent's working directory /tmp/x/repo
    root = make_repo(tmp_path / "private" / "tmp" / "repo", scoped=("docs",))
    (tmp_path / "tmp").symlink_to(tmp_path / "private" / "tmp", target_is_directory=True)
    scope = _scope(tmp_path / "tmp" / "repo")
    assert _verdict(scope, f"{tmp_path}/tmp/repo/docs/deploy.md") == "served docs/deploy.md"
    assert _verdict(scope, f"{tmp_path}/tmp/repo/private/plan.md") == "refused outside-scope"
    assert _verdict(scope, f"{root}/docs/deploy.md") == "served docs/deploy.md"


def test_only_a_link_to_the_checkout_itself_names_it(linked: tuple[Path, Path]) -> None:
    root, link = linked
    tmp = root.parent.parent
    (tmp / "to-docs").symlink_to(root / "docs", target_is_directory=True)
    (tmp / "to-private").symlink_to(root / "private", target_is_directory=True)
    (root / "private" / "up").symlink_to("..", target_is_directory=True)
    (tmp / "to-file.md").symlink_to(root / "docs" / "deploy.md")
    (tmp / "real" / "repo-evil" / "docs").mkdir(parents=True)
    scope = _scope(root)
    for arg in (
        f"{tmp}/to-docs/deploy.md",  # a link into the checkout: not its root
        f"{tmp}/to-private/up/docs/deploy.md",  # nor a way back through a hidden folder
        f"{tmp}/to-file.md",
        f"{root}-evil/docs/deploy.md",
        f"{link}-evil/docs/deploy.md",
        f"{tmp}/outside/secret.md",
        f"{tmp}/missing/repo/docs/deploy.md",
        "/etc/passwd",
        "//etc/passwd",
    ):
        assert _verdict(scope, arg) == "refused outside-root", arg


@pytest.mark.anyio
async def test_every_door_takes_an_absolute_path_through_the_linked_checkout(
    linked: tuple[Path, Path],
) -> None:
    root, link = linked
    ingest(root)
    doc = f"{link}/docs/deploy.md"
    async with Client(build_server(Service(link))) as client:
        got = await client.call_tool("get_doc", {"path": doc})
        snippet = await client.call_tool("read_snippet", {"path": doc, "query": "canary"})
        related = await client.call_tool("get_related", {"path": doc})
        found = await client.call_tool("find_related", {"path": doc})
        filtered = await client.call_tool("search", {"query": "payment", "path": f"{link}/docs"})
        hidden = await client.call_tool("get_doc", {"path": f"{link}/private/plan.md"})
    for result in (got, snippet, related, found, filtered):
        assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    assert json.loads(got.content[0].text)["title"] == "Deploy Guide"  # type: ignore[union-attr]
    assert json.loads(snippet.content[0].text)["path"] == "docs/deploy.md"  # type: ignore[union-attr]
    hits = json.loads(filtered.content[0].text)["results"]  # type: ignore[union-attr]
    assert hits
    assert {h["path"] for h in hits} <= {"docs/deploy.md", "docs/billing.md", "docs/alias.md"}
    assert hidden.is_error
    assert json.loads(hidden.content[0].text)["rule"] == "outside-scope"  # type: ignore[union-attr]
