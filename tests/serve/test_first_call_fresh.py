"""The first tool call of a server answers from the work tree as it is when the call
arrives: the `git status` the server started with its process (to have the index checked
before the first call) predates a page created since, and the first call answered from it."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import init_repo
from tests.serve.rpc import INIT
from tests.serve.rpc import INITIALIZED
from tests.serve.rpc import answer
from tests.serve.rpc import send
from tests.serve.rpc import spawn_stdio
from tests.serve.rpc import tool_call


def test_a_page_created_after_the_server_started_is_in_its_firstanswer(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha", "Alpha words. " * 20)})
    KnowledgeBase.open(root).ingest()
    proc = spawn_stdio(root)
    try:
        send(proc, INIT)
        answer(proc, INIT["id"])  # type: ignore[arg-type]
        send(proc, INITIALIZED)
        time.sleep(0.3)  # the agent reads the tool list, the developer saves a new page
        page = root / "docs" / "new.md"
        temp = page.with_name(".new.md.tmp")
        temp.write_text(doc("New", "The wombat page, new since the server started. " * 5))
        os.replace(temp, page)
        call = tool_call(7, "search_docs", {"query": "wombat", "limit": 5})
        send(proc, call)
        reply = answer(proc, 7)
        hits = json.loads(reply["result"]["content"][0]["text"])  # type: ignore[index]
        assert [h["file_path"] for h in hits] == ["docs/new.md"]
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=60)
        if proc.stdout is not None:
            proc.stdout.close()
