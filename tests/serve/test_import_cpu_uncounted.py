"""Importing a module is not a call's work: the first call to use lazily imported code
(search, ranking, RE2, git) is not charged for loading it (`store.budget.uncounted`).

With no bytecode to read (a code update, an install whose `__pycache__` cannot be written)
the first `search_docs` of a server compiled its modules on the call's thread, and on a large
repository that CPU stopped the call with "the call used its CPU budget ... narrow the query".
"""

from __future__ import annotations

import inspect
import json
import sys
from importlib.machinery import SourceFileLoader
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.store import budget
from tests.serve.conftest import make_repo
from tests.serve.rpc import INIT
from tests.serve.rpc import INITIALIZED
from tests.serve.rpc import spawn_stdio
from tests.serve.rpc import tool_call

# A module whose body costs far more CPU than the budget below: what compiling the search
# modules costs a call on a large repository, made certain on any machine.
COSTLY_BODY = (
    "import time\n"
    "_start = time.thread_time()\n"
    "while time.thread_time() - _start < 0.3:\n"
    "    pass\n"
    "def shown():\n"
    "    return 'loaded'\n"
)
FIRST_CALLS = [
    ("search_docs", {"query": "canary"}),
    ("search", {"query": "payment retries"}),
    ("regex_search", {"pattern": "canary m.rker"}),
    ("get_related", {"path": "docs/deploy.md"}),
]


@pytest.fixture
def costly_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The name of a module no one has imported yet, whose import costs 0.3 s of CPU."""
    name = f"costly_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(COSTLY_BODY, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return name


def test_a_call_is_not_stopped_for_the_cpu_of_a_module_it_imports(costly_module: str) -> None:
    with budget.call_budget(60, cpu=0.01):
        module = __import__(costly_module)
        budget.check()  # raised CallBudgetError: the import's 0.3 s against 0.01 s
        assert module.shown() == "loaded"


def test_a_module_imported_by_a_call_keeps_its_kind_of_loader(costly_module: str) -> None:
    with budget.call_budget(60):
        module = __import__(costly_module)
    assert isinstance(module.__loader__, SourceFileLoader)
    assert "def shown" in inspect.getsource(module)


def test_a_new_servers_first_calls_are_not_charged_for_compiling_what_they_import(
    tmp_path: Path,
) -> None:
    root = make_repo(tmp_path / "repo", extra="call-cpu-budget = 20\n")
    KnowledgeBase.open(root).ingest()
    # an empty bytecode cache: every module the server loads is compiled, as after an update
    server = spawn_stdio(root, PYTHONPYCACHEPREFIX=str(tmp_path / "no-bytecode-yet"))
    calls = [tool_call(10 + i, name, args) for i, (name, args) in enumerate(FIRST_CALLS)]
    lines = "".join(json.dumps(m) + "\n" for m in [INIT, INITIALIZED, *calls])
    out, _ = server.communicate(lines, timeout=120)
    answers = {a["id"]: a for a in map(json.loads, out.splitlines())}
    for i, (name, _) in enumerate(FIRST_CALLS):
        result = answers[10 + i]["result"]
        assert not result.get("isError"), (name, result["content"][0]["text"])
