"""The `synonyms` setting is confined to the checkout: a branch cannot point it elsewhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.serve.conftest import make_repo

pytestmark = pytest.mark.anyio

GROUPS = '{"groups": [["quasarword", "billing"]]}\n'


def _repo(tmp_path: Path, setting: str) -> Path:
    (tmp_path / "outside.json").write_text(GROUPS, encoding="utf-8")
    root = make_repo(tmp_path / "repo", extra=f"synonyms = {json.dumps(setting)}\n")
    KnowledgeBase.open(root).ingest()
    return root


async def _search(root: Path, query: str) -> tuple[bool, str]:
    async with Client(build_server(Service(root))) as client:
        result = await client.call_tool("search_docs", {"query": query})
    return bool(result.is_error), result.content[0].text


@pytest.mark.parametrize("kind", ["parent", "absolute", "symlink"])
async def test_a_synonyms_file_outside_the_checkout_is_refused(tmp_path: Path, kind: str) -> None:
    setting = {
        "parent": "../outside.json",
        "absolute": str(tmp_path / "outside.json"),
        "symlink": "docs/synonyms.json",
    }[kind]
    root = _repo(tmp_path, setting)
    if kind == "symlink":
        (root / "docs" / "synonyms.json").symlink_to(tmp_path / "outside.json")
    is_error, text = await _search(root, "quasarword")
    assert is_error, text
    body = json.loads(text)
    assert "`synonyms` setting" in body["error"] and "inside the repository" in body["error"]
    assert "KENSO_SYNONYMS_PATH" in body["hint"]
    assert "docs/billing.md" not in text


async def test_a_synonyms_file_inside_the_checkout_still_works(tmp_path: Path) -> None:
    root = _repo(tmp_path, ".kenso/syn.json")
    (root / ".kenso" / "syn.json").write_text(GROUPS, encoding="utf-8")
    is_error, text = await _search(root, "quasarword")
    assert not is_error and "docs/billing.md" in text


async def test_the_operators_env_var_may_name_any_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path, "../outside.json")
    monkeypatch.setenv("KENSO_SYNONYMS_PATH", str(tmp_path / "outside.json"))
    is_error, text = await _search(root, "quasarword")
    assert not is_error and "docs/billing.md" in text
