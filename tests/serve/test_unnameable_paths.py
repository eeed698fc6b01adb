"""What an agent is shown it can name: a doc whose path no argument may name (a leading `~`,
`%XX`, a backslash, a control character) is never in an answer, since `get_doc` and
`related` would refuse the path the answer gave."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import doc
from tests.helpers import init_repo

pytestmark = pytest.mark.anyio

ODD = ["~notes.md", "50%25-off.md", "a\\b.md", "tab\there.md"]


async def test_every_path_an_answer_gives_can_be_opened(tmp_path: Path) -> None:
    files = {name: doc(f"Pangolin {i}", "pangolin notes. " * 20) for i, name in enumerate(ODD)}
    root = init_repo(tmp_path / "repo", {"docs/plain.md": doc("Pangolin", "pangolin. " * 20)})
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    KnowledgeBase.open(root).ingest()
    async with Client(build_server(Service(root))) as client:
        for tool, args in (
            ("search_docs", {"query": "pangolin", "limit": 20}),
            ("search", {"query": "pangolin"}),
        ):
            answer = await client.call_tool(tool, args)
            assert not answer.is_error, answer.content[0].text
            payload = json.loads(answer.content[0].text)
            items = payload["results"] if isinstance(payload, dict) else payload
            paths = [item.get("file_path") or item.get("path") for item in items]
            assert paths and all(p == "docs/plain.md" for p in paths), (tool, paths)
            for path in paths:
                opened = await client.call_tool("get_doc", {"path": path})
                assert not opened.is_error
