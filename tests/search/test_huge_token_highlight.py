"""A doc holding one huge "word" (minified data, a base64 blob) gave that word whole in its
search hit's highlight: 200 KB in `search --json`, in `search_docs` and `search_multi`.
Every reader now gets at most 2,048 characters, marks paired; usual highlights are as before."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import git
from tests.helpers import run_cli
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo

BUDGET = 2_048  # search.highlightcap.HIGHLIGHT_CHARS
MARK_OPEN, MARK_CLOSE = "<mark>", "</mark>"
BLOB = "zq" + "a" * 200_000  # one 200,002-letter token
FILLER = " ".join(f"filler{i}" for i in range(40))
DOCS = {
    # a small chunk: FTS5's snippet() returned the token whole
    "docs/blob.md": f"# Title\n\nSome intro text about widgets.\n\n{BLOB} widgets end\n",
    # a chunk of 100,000 tokens, highlighted from its content: the whole word was marked
    "docs/dashed.md": "# Dashed\n\ngizmo-" + "-".join("c" * 50_000) + " done\n",
    "docs/long.md": f"# Long\n\n{FILLER} the quokka sits here {FILLER}\n",
}
# What kenso-git gave before highlights were bounded (as kenso 2.0.0 does).
NORMAL = {
    "payment service deploy": [
        (
            "docs/deploy.md",
            "How to <mark>deploy</mark> the <mark>payment</mark> <mark>service</mark> "
            "to production safely.",
        ),
        (
            "docs/billing.md",
            "Billing retries and settlement for the <mark>payment</mark> <mark>service</mark>.",
        ),
        (
            "private/plan.md",
            "## Roadmap items\n\n<mark>Deploy</mark> the <mark>payment</mark> vault next "
            "quarter with canary checks.",
        ),
    ],
    "retries": [
        (
            "docs/billing.md",
            "## <mark>Retry</mark> policy\n\n<mark>Retries</mark> happen three times with "
            "exponential backoff.",
        ),
    ],
    "quokka": [
        (
            "docs/long.md",
            "..." + " ".join(f"filler{i}" for i in range(26, 40)) + " the <mark>quokka</mark> "
            "sits here " + " ".join(f"filler{i}" for i in range(14)) + "...",
        ),
    ],
}
_PAIR = re.compile(f"{MARK_OPEN}((?:(?!{MARK_OPEN}).)*?){MARK_CLOSE}", re.S)


def is_balanced(text: str) -> bool:
    """Every `<mark>` closed before the next one opens, and no `</mark>` without one."""
    left = _PAIR.sub("", text)
    return MARK_OPEN not in left and MARK_CLOSE not in left


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The MCP tests' repository (usual docs) plus the docs of huge tokens, indexed."""
    repo = make_repo(tmp_path_factory.mktemp("huge") / "repo")
    for rel, text in DOCS.items():
        (repo / rel).write_text(text, encoding="utf-8")
    git(repo, "add", "docs")
    git(repo, "commit", "-q", "-m", "huge tokens")
    ingest(repo)
    return repo


def test_usual_highlights_are_unchanged(root: Path) -> None:
    kb = KnowledgeBase.open(root)
    for query, expected in NORMAL.items():
        assert [(h.file_path, h.highlight) for h in kb.search(query).hits] == expected


@pytest.mark.parametrize(("query", "path"), [("widgets", "blob.md"), ("gizmo", "dashed.md")])
def test_search_json_bounds_the_highlight_of_a_huge_token(
    root: Path, query: str, path: str
) -> None:
    done = run_cli(root, "search", query, "--json")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) < 4_000
    (hit,) = json.loads(done.stdout)
    assert hit["file_path"] == f"docs/{path}"
    assert len(hit["highlight"]) <= BUDGET
    assert f"{MARK_OPEN}{query}" in hit["highlight"] and is_balanced(hit["highlight"])
    assert "..." in hit["highlight"]


def test_search_text_output_bounds_the_highlight(root: Path) -> None:
    done = run_cli(root, "search", "widgets", "--color", "never")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) < 2_000
    assert f"zq{'a' * 28}...{'a' * 30} widgets end" in done.stdout


@pytest.mark.anyio
async def test_every_search_tool_answers_a_huge_token_in_bounded_text(root: Path) -> None:
    calls = [
        ("search_docs", {"query": "widgets"}),
        ("search_docs", {"query": "gizmo"}),
        ("search_docs", {"query": "widgets", "ref": "HEAD"}),
        ("search_multi", {"queries": ["widgets", "gizmo"]}),
        ("search", {"query": "widgets"}),
        ("search", {"query": "widgets", "mode": "exhaustive"}),
        ("search", {"query": "gizmo"}),
        ("search", {"query": "widgets", "ref": "HEAD"}),
        ("regex_search", {"pattern": "widgets end"}),
    ]
    async with Client(build_server(Service(root))) as client:
        for tool, args in calls:
            result = await client.call_tool(tool, args)
            assert not result.is_error, (tool, args)
            text = result.content[0].text
            assert len(text) < 4_000, (tool, args, len(text))
            body = json.loads(text)
            hits = body if isinstance(body, list) else body["results"]
            assert hits, (tool, args)
            for hit in hits:
                shown = hit.get("highlight", hit.get("snippet", ""))
                assert len(shown) <= BUDGET and is_balanced(shown), (tool, args)
