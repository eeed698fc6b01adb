"""0 leaks through any tool, over stdio and HTTP, from a real `kenso-git serve` process.

The repository is planted with in-scope symlinks (docs/) to `.env`, `.git/config`, an
ignored doc and an out-of-scope doc; the real MCP SDK client calls every read tool with
arguments aimed at them, and no answer may hold their text or name them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from kenso_git.kb import KnowledgeBase
from tests.serve.conftest import KENSO_EXE
from tests.serve.conftest import make_repo
from tests.serve.http_helpers import running_http_server
from tests.serve.test_symlink_gate import HIDDEN_PATHS
from tests.serve.test_symlink_gate import HIDDEN_WORDS
from tests.serve.test_symlink_gate import plant

pytestmark = pytest.mark.anyio

Calls = list[tuple[str, dict[str, Any]]]
LINKS = ("to-env.md", "to-git.md", "to-ignored.md", "to-private.md", "loop.md")
TARGETS = (".env", ".git/config", "ignored/notes.md", "private/plan.md")

# Calls that name no hidden path: their answers may not even mention one.
SEARCHING: Calls = [
    *(("search_docs", {"query": word, "limit": 20}) for word in HIDDEN_WORDS),
    ("search_docs", {"query": "payment roadmap vault", "limit": 20}),
    ("search_docs", {"query": "zebracorm gryphonpas"}),  # typos of hidden words
    ("search_multi", {"queries": [*HIDDEN_WORDS, "payment"], "limit": 20}),
    ("search_docs", {"query": "to-private.md to-env.md"}),
    *(("search", {"query": word}) for word in ("zebracorn", "gryphonpass", "roadmap")),
    ("search", {"query": "payment", "mode": "exhaustive"}),
    ("regex_search", {"pattern": "zebracorn|gryphonpass|roadmap|kept out"}),
    ("regex_search", {"pattern": "payment"}),
    ("get_related", {"path": "docs/deploy.md", "depth": 3}),
    ("get_related", {"path": "docs/alias.md", "depth": 3}),
    ("index_state", {}),
    ("health_check", {}),
]
# Calls aimed at a hidden file: refused, and never with its text.
AIMED: Calls = [
    call
    for path in (*(f"docs/{name}" for name in LINKS), *TARGETS)
    for call in (
        ("get_doc", {"path": path}),
        ("read_snippet", {"path": path, "query": ""}),
        ("read_snippet", {"path": path, "query": "zebracorn"}),
        ("get_related", {"path": path}),
    )
]


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """docs/ (the scope) with links to .env, .git/config, ignored/ and private/ docs."""
    root = make_repo(tmp_path / "repo", scoped=("docs",))
    (root / "ignored" / "notes.md").write_text(
        "# Ignored Notes\n\nPayment notes kept out of the index on purpose, long enough.\n",
        encoding="utf-8",
    )
    plant(root)
    KnowledgeBase.open(root).ingest()
    return root


def _env() -> dict[str, str]:
    keep = ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "PATH")
    return {k: os.environ[k] for k in keep if k in os.environ}


async def _ask(client: Client, calls: Calls) -> list[tuple[bool, str]]:
    out = []
    for name, args in calls:
        result = await client.call_tool(name, args)
        out.append((bool(result.is_error), "".join(c.text for c in result.content)))  # type: ignore[union-attr]
    return out


def _check(searching: list[tuple[bool, str]], aimed: list[tuple[bool, str]]) -> None:
    for (name, args), (_, text) in zip(SEARCHING, searching, strict=True):
        for secret in (*HIDDEN_WORDS, *HIDDEN_PATHS):
            assert secret not in text, (name, args, secret)
    for (name, args), (is_error, text) in zip(AIMED, aimed, strict=True):
        body = None if is_error else json.loads(text)
        assert is_error or body == [] or "error" in body, (name, args, text)  # [] reveals nothing
        for secret in HIDDEN_WORDS:
            assert secret not in text, (name, args, secret)
    answered = " ".join(text for _, text in searching)
    assert "docs/alias.md" in answered and "docs/deploy.md" in answered  # not an empty server


async def test_no_leak_over_stdio(planted: Path) -> None:
    params = StdioServerParameters(command=str(KENSO_EXE), args=["serve"], cwd=planted, env=_env())
    async with Client(params) as client:
        searching = await _ask(client, SEARCHING)
        aimed = await _ask(client, AIMED)
    _check(searching, aimed)


async def test_no_leak_over_http(planted: Path) -> None:
    with running_http_server(planted) as server:
        async with (
            httpx2.AsyncClient(headers=server.auth()) as http,
            Client(streamable_http_client(server.url, http_client=http)) as client,
        ):
            searching = await _ask(client, SEARCHING)
            aimed = await _ask(client, AIMED)
    _check(searching, aimed)
