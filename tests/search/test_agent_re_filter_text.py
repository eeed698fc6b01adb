"""What `re:` reads is what the query language says it reads (#49). It runs over the indexed
text (the chunks' text, one after another: no frontmatter, no H1 title line), while the
reference promised "documents whose text matches", which `regex_search` reads as the whole
file: `re:"Deploy Guide"` answered total 0, claimed exact, beside a `regex_search` hit.
Through the real MCP SDK client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.search.lang.querylang import FIELDS
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import init_repo

pytestmark = pytest.mark.anyio

DEPLOY = """---
title: Deploy Guide
tags: [deploy, release]
relates_to:
  - path: docs/rollback.md
    relation: feeds_into
---
# Deploy Guide

How the payment service goes from a merged pull request to production.

## Canary checks

The canary is promoted when its error rate stays under 0.1%.
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    files: dict[str, str | bytes] = {
        "docs/deploy.md": DEPLOY,
        "docs/rollback.md": "# Rollback\n\nHow a release is rolled back when its canary fails.\n",
    }
    root = init_repo(tmp_path / "repo", files)
    KnowledgeBase.open(root).ingest()
    return root


async def _call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    body: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert not result.is_error, body
    return body


def _paths(body: dict[str, Any]) -> list[str]:
    return sorted({hit["path"] for hit in body["results"]})


@pytest.mark.parametrize(
    ("pattern", "in_body"),
    [
        ("Deploy Guide", False),  # the H1 title line
        ("^# Deploy Guide$", False),
        ("feeds_into", False),  # the frontmatter
        ("Canary checks", True),  # an H2 heading, in the body
        ("payment service", True),
    ],
)
async def test_re_reads_the_indexed_body_as_its_reference_says(
    repo: Path, pattern: str, in_body: bool
) -> None:
    meaning = next(f.meaning for f in FIELDS if f.name == "re")
    # before: "Only documents whose text matches ...", which regex_search reads as the file
    assert "indexed text" in meaning
    assert "not the frontmatter and not the H1 title line" in meaning
    assert "`regex_search` greps whole files" in meaning
    async with Client(build_server(Service(repo))) as client:
        grep = await _call(client, "regex_search", {"pattern": pattern})
        ranked = await _call(client, "search", {"query": f're:"{pattern}"'})
        listed = await _call(client, "search", {"query": f're:"{pattern}"', "mode": "exhaustive"})
    assert _paths(grep) == ["docs/deploy.md"]
    expected = ["docs/deploy.md"] if in_body else []
    for page in (ranked, listed):
        assert _paths(page) == expected
        assert page["total"] == len(expected) and not page["total_is_lower_bound"]
