"""`kenso-git serve` driven by the TypeScript MCP SDK's Client, over stdio and HTTP.

The TS SDK (used by the MCP Inspector and Gemini CLI) validates `structuredContent` against
each tool's declared output schema, which the Python SDK does not: an error result whose
structured content does not fit the schema reaches the agent as `-32602` instead of the
server's message. Each call's outcome is checked against the same call made in-process.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kenso_git.errors import KensoError
from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.tools import by_name
from kenso_git.serve.service import Service
from tests.serve.conftest import KENSO_EXE
from tests.serve.conftest import make_repo
from tests.serve.http_helpers import running_http_server
from tests.serve.http_helpers import server_env

HERE = Path(__file__).parent
SDK = "@modelcontextprotocol/sdk@1"

Call = tuple[str, dict[str, Any]]

# Every tool once on success, then each error path an agent can hit.
INDEXED_CALLS: list[Call] = [
    ("search_docs", {"query": "deploy"}),
    ("search_multi", {"queries": ["deploy", "billing retries"]}),
    ("get_doc", {"path": "docs/deploy.md"}),
    ("get_related", {"path": "docs/deploy.md"}),
    ("read_snippet", {"path": "docs/deploy.md", "query": "canary"}),
    ("health_check", {}),
    ("index_state", {}),
    ("search", {"query": 'deploy in:"docs"', "page_size": 2}),
    # over the word cap with a phrase, and a filter past the 64th word (longquery)
    ("search", {"query": '"payment service" ' + "deploy safely " * 40 + 'in:"docs"'}),
    ("regex_search", {"pattern": "canar(y|ies)"}),
    ("find_related", {"path": "docs/deploy.md", "page_size": 5}),
    ("changed_docs", {"since": "HEAD"}),
    ("reindex", {}),
    ("search", {"query": "tag:"}),  # malformed query language
    ("search", {"query": "deploy", "path": "../outside"}),  # refused path
    ("search", {"query": "deploy " * 70 + "in:../outside"}),  # refused past the word cap
    ("regex_search", {"pattern": "(unclosed"}),  # bad pattern
    ("find_related", {"path": "docs/missing.md"}),  # missing doc
    ("find_related", {"path": "ignored/notes.md"}),  # refused: gitignored
    ("search_docs", {"query": ""}),  # empty query
    ("search_multi", {"queries": []}),
    ("get_doc", {"path": "docs/missing.md"}),  # missing doc
    ("get_doc", {"path": "../outside.md"}),  # refused path
    ("get_related", {"path": "ignored/notes.md"}),  # refused: gitignored
    ("read_snippet", {"path": ".gitignore", "query": ""}),  # not Markdown
    ("read_snippet", {"path": "docs/deploy.md", "query": "no such words anywhere"}),
    ("changed_docs", {"since": "no-such-revision"}),  # unknown revision
]
NO_INDEX_CALLS: list[Call] = [
    ("search_docs", {"query": "deploy"}),
    ("get_doc", {"path": "docs/deploy.md"}),
    ("read_snippet", {"path": "docs/deploy.md", "query": "canary"}),
    ("health_check", {}),
    ("reindex", {}),
]


@pytest.fixture(scope="session")
def ts_sdk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with @modelcontextprotocol/sdk installed from npm (once per session)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip("node and npm are needed for the TypeScript SDK client")
    folder = tmp_path_factory.mktemp("ts-sdk")
    (folder / "package.json").write_text('{"name": "kenso-ts-e2e", "private": true}\n')
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", SDK],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"npm install {SDK} failed: {done.stderr}"
    shutil.copy(HERE / "ts_client.mjs", folder / "ts_client.mjs")
    return folder


def _run_ts(sdk: Path, transport: dict[str, Any], calls: list[Call]) -> dict[str, Any]:
    plan = {"transport": transport, "calls": [{"name": n, "arguments": a} for n, a in calls]}
    plan_file = sdk / "plan.json"
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    done = subprocess.run(
        ["node", str(sdk / "ts_client.mjs"), str(plan_file)],
        cwd=sdk,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, f"the TS client failed: {done.stderr}"
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _in_process(service: Service, name: str, args: dict[str, Any]) -> tuple[str, object]:
    """("error", message) or ("ok", text payload): what the server should send for this call."""
    try:
        payload, _ = by_name(name).run(service, **args)  # the registry's own function
    except KensoError as err:
        return "error", err.message
    if isinstance(payload, dict) and "error" in payload:
        return "error", payload["error"]
    return "ok", payload


def _tools(*, http: bool) -> set[str]:
    return {name for name, _ in INDEXED_CALLS} - ({"reindex"} if http else set())


def _check(root: Path, got: dict[str, Any], calls: list[Call], *, http: bool) -> None:
    assert set(got["tools"]) == _tools(http=http)
    service = Service(root)
    assert len(got["calls"]) == len(calls)
    for (name, args), outcome in zip(calls, got["calls"], strict=True):
        assert "thrown" not in outcome, f"{name}({args}) broke the TS client: {outcome['thrown']}"
        kind, want = _in_process(service, name, args)
        if kind == "error":
            assert outcome["isError"], f"{name}({args}) should be a tool error"
            assert str(want) in outcome["text"], f"{name}({args}): {outcome['text']}"
        else:
            assert not outcome["isError"], f"{name}({args}): {outcome['text']}"
            assert outcome["structured"] is not None
            if name not in {"health_check", "index_state", "search", "regex_search"}:
                # timestamps move (search's as_of is the sync time, and reindex syncs)
                assert json.loads(outcome["text"]) == want


@pytest.fixture
def repos(tmp_path: Path) -> tuple[Path, Path]:
    """An indexed repository and one without an index, both allowing `reindex` over stdio."""
    extra = "allow-reindex = true\n"
    indexed = make_repo(tmp_path / "indexed", extra=extra)
    KnowledgeBase.open(indexed).ingest()
    bare = make_repo(tmp_path / "bare", extra=extra)
    return indexed, bare


def test_ts_client_over_stdio_reads_every_result_and_error(
    ts_sdk: Path, repos: tuple[Path, Path]
) -> None:
    for root, calls in zip(repos, (INDEXED_CALLS, NO_INDEX_CALLS), strict=True):
        transport = {
            "kind": "stdio",
            "command": str(KENSO_EXE),
            "args": ["serve"],
            "cwd": str(root),
            "env": server_env(),
        }
        _check(root, _run_ts(ts_sdk, transport, calls), calls, http=False)


def test_ts_client_over_http_reads_every_result_and_error(
    ts_sdk: Path, repos: tuple[Path, Path]
) -> None:
    for root, all_calls in zip(repos, (INDEXED_CALLS, NO_INDEX_CALLS), strict=True):
        calls = [c for c in all_calls if c[0] in _tools(http=True)]
        with running_http_server(root) as server:
            transport = {"kind": "http", "url": server.url, "token": server.token}
            got = _run_ts(ts_sdk, transport, calls)
        _check(root, got, calls, http=True)
