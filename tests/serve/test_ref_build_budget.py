"""Building the index of another revision is not the query's cost (#29's `ref`).

A call with `ref` whose revision differs from the checkout in many docs first builds that
revision's index. That work was charged to the call's CPU budget: on 1,200 docs rewritten
by each commit, the first call at each revision failed with "the call used its CPU budget
... narrow the query", and rotating over more revisions than `revision-copies` made every
call fail. The build now runs outside the call's budgets (`store.budget.aside`); the query
after it still has its whole budget, and is still stopped when it overruns it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from mcp import Client

from kenso_git.errors import CallBudgetError
from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from kenso_git.store import budget
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write

pytestmark = pytest.mark.anyio

DOCS = 400
CPU_BUDGET_MS = 25  # far below a build of DOCS rewritten docs (~100 ms), above a search (~5)
WORDS = ("walrus", "seal", "otter", "heron")


def _pages(rev: int) -> dict[str, str]:
    line = "The {word} colony beacon{i:03d} census, rev {rev}. "
    return {
        f"docs/p{i:03d}.md": doc(f"Page {i}", line.format(word=WORDS[rev], i=i, rev=rev) * 30)
        for i in range(DOCS)
    }


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Tags r0..r2 and HEAD (r3), each commit rewriting every doc."""
    root = init_repo(tmp_path_factory.mktemp("refbuild") / "repo", _pages(0))
    git(root, "tag", "r0")
    for rev in (1, 2, 3):
        write(root, _pages(rev))
        git(root, "commit", "-qam", f"rev {rev}")
        git(root, "tag", f"r{rev}")
    KnowledgeBase.open(root).ingest()
    return root


@pytest.fixture(autouse=True)
def _cpu_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    # from the environment, as a served setting is: a setting changed in memory only is read
    # again from the configuration by the first call (serve/mcp/configstamp.py)
    monkeypatch.setenv("KENSO_CALL_CPU_BUDGET", str(CPU_BUDGET_MS))


def _service(root: Path) -> Service:
    service = Service(root)
    assert service.settings.call_cpu_budget == CPU_BUDGET_MS
    return service


async def test_calls_at_revisions_never_kept_are_not_stopped_by_the_build(repo: Path) -> None:
    service = _service(repo)
    async with Client(build_server(service)) as client:
        await client.call_tool("search", {"query": "beacon001"})  # imports, connections
        # three revisions, two copies kept: every call builds its revision's index
        for ref in ("r0", "r1", "r2") * 2:
            result = await client.call_tool("search", {"query": "beacon007", "ref": ref})
            body = json.loads(result.content[0].text)  # type: ignore[union-attr]
            assert not result.is_error, body  # before: "the call used its CPU budget of 0.025 s"
            assert [h["path"] for h in body["results"]] == ["docs/p007.md"]
            assert WORDS[int(ref[1])] in body["results"][0]["snippet"]
    service.revisions.close()


async def test_the_query_after_a_build_is_still_held_to_its_budget(repo: Path) -> None:
    service = _service(repo)
    query = " ".join(f'-re:"(.*{c}){{999}}"' for c in "aeiou")
    async with Client(build_server(service)) as client:
        result = await client.call_tool("search", {"query": query, "ref": "r1"})
    body = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert result.is_error
    assert body["error"] == "the call used its CPU budget of 0.025 s and was stopped"
    service.revisions.close()


def test_cpu_spent_aside_is_not_charged_to_the_call() -> None:
    with budget.call_budget(60, cpu=0.01):
        with budget.aside():
            end = time.thread_time() + 0.05
            while time.thread_time() < end:
                pass
            budget.check()  # no CPU check while aside
        budget.check()  # the call has spent next to nothing of its own
        with pytest.raises(CallBudgetError):
            end = time.thread_time() + 0.05
            while time.thread_time() < end:
                pass
            budget.check()


def test_the_deadline_moves_on_by_the_time_spent_aside() -> None:
    with budget.call_budget(0.3):
        with budget.aside():
            end = time.monotonic() + 0.4  # past the call's deadline
            while time.monotonic() < end:
                pass
            budget.check()
        budget.check()  # the call's own 0.3 s start after the work aside
