from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from kenso_git.kb import KnowledgeBase
from tests.helpers import init_repo

KENSO_EXE = Path(sys.executable).parent / "kenso-git"

DOCS = {
    "docs/deploy.md": (
        "---\ntitle: Deploy Guide\ntags: [deploy, release]\nrelates_to: docs/billing.md\n---\n"
        "# Deploy Guide\n\nHow to deploy the payment service to production safely.\n\n"
        "## Release steps\n\nRun the pipeline and watch the canary marker alpha closely.\n"
    ),
    "docs/billing.md": (
        "# Billing Retries\n\nBilling retries and settlement for the payment service.\n\n"
        "## Retry policy\n\nRetries happen three times with exponential backoff.\n"
    ),
    "private/plan.md": (
        "# Private Plan\n\nThe private payment roadmap that agents must not see.\n\n"
        "## Roadmap items\n\nDeploy the payment vault next quarter with canary checks.\n"
    ),
    "ignored/notes.md": "# Ignored Notes\n\nPayment notes kept out of the index on purpose.\n",
    ".gitignore": "ignored/\nbuild/\n",
}


def make_repo(root: Path, *, scoped: tuple[str, ...] = (), extra: str = "") -> Path:
    init_repo(root, DOCS)
    config = ""
    if scoped:
        config += "agent-scoped-roots = [" + ", ".join(f'"{s}"' for s in scoped) + "]\n"
    config += extra
    if config:
        (root / ".kenso.toml").write_text(config, encoding="utf-8")
    return root


def ingest(root: Path) -> None:
    KnowledgeBase.open(root).ingest()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An indexed repository with docs/ (in scope), private/ and a gitignored folder."""
    root = make_repo(tmp_path / "repo")
    ingest(root)
    return root


@pytest.fixture
def scoped_repo(tmp_path: Path) -> Path:
    """Like `repo`, with agent-scoped-roots = ["docs"]."""
    root = make_repo(tmp_path / "repo", scoped=("docs",))
    ingest(root)
    return root


@pytest.fixture
def chdir_repo(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(repo)
    return repo


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("KENSO_DATABASE_URL", None)
    return env


async def structured_call(root: Path, tool: str, args: dict[str, Any]) -> tuple[bool, Any]:
    """Whether one call of `tool` on an in-memory MCP session of `root` failed, and its
    structured content (the JSON text where the tool gives none, as errors do)."""
    from mcp import Client

    from kenso_git.serve.mcp.server import build_server
    from kenso_git.serve.service import Service

    async with Client(build_server(Service(root))) as client:
        result = await client.call_tool(tool, args)
    body = result.structured_content
    if body is None:
        body = json.loads(result.content[0].text)  # type: ignore[union-attr]
    return bool(result.is_error), body
