"""A tool call's time and CPU budgets stop SQLite and the search's Python stages (#13, #27)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from kenso_git.errors import BusyError
from kenso_git.errors import CallBudgetError
from kenso_git.kb import KnowledgeBase
from kenso_git.serve.service import Service
from kenso_git.store import budget
from kenso_git.store.connection import open_reader
from tests.helpers import doc
from tests.helpers import init_repo

# About ten seconds of SQLite work without a budget: far past the budgets below.
SLOW = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000000) "
    "SELECT count(*) FROM c"
)


TEXT = "Gateway keys rotate every quarter, and old keys expire a week later.\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = init_repo(
        tmp_path / "repo",
        {f"docs/d{i}.md": doc(f"Doc {i}", TEXT) for i in range(5)},
    )
    KnowledgeBase.open(repo).ingest()
    return repo


def test_a_statement_past_the_budget_is_stopped_with_the_setting_named(root: Path) -> None:
    conn = open_reader(root / ".kenso" / "docs.db")
    with pytest.raises(CallBudgetError) as caught, budget.call_budget(0.2):
        conn.execute(SLOW).fetchone()
    assert "time budget of 0.2 s" in caught.value.message
    assert caught.value.hint is not None and "call-budget" in caught.value.hint
    assert conn.execute("SELECT count(*) FROM files").fetchone()[0] == 5  # still usable


def test_without_a_budget_the_reader_is_not_interrupted(root: Path) -> None:
    conn = open_reader(root / ".kenso" / "docs.db")
    quick = SLOW.replace("100000000", "100000")
    assert conn.execute(quick).fetchone()[0] == 100000


def test_every_search_door_answers_with_the_budget_error(root: Path) -> None:
    service = Service(root)
    service.settings = service.settings._replace(call_budget=0)  # spent before it starts
    service.kb().settings = service.kb().settings._replace(query_sync=False)
    for call in (
        lambda: service.search_docs("gateway keys", None, 5),
        lambda: service.search_multi(["gateway", "keys"], None, 5),
        lambda: service.search("gateway"),
        lambda: service.regex_search("Gate.ay"),
    ):
        with pytest.raises(CallBudgetError, match="time budget"):
            call()
    service.settings = service.settings._replace(call_budget=10)
    assert service.search_docs("gateway keys", None, 5)[1]  # a normal budget: answers


# --- the CPU budget and the quantum (#27) -----------------------------------------------


def _burn(seconds: float) -> None:
    """Spend `seconds` of this thread's CPU in Python."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_a_statement_past_the_cpu_budget_is_stopped_with_the_setting_named(root: Path) -> None:
    conn = open_reader(root / ".kenso" / "docs.db")
    with pytest.raises(CallBudgetError) as caught, budget.call_budget(60, cpu=0.05):
        conn.execute(SLOW).fetchone()
    assert "CPU budget of 0.05 s" in caught.value.message
    assert caught.value.hint is not None and "call-cpu-budget" in caught.value.hint


def test_python_work_past_the_cpu_budget_stops_at_the_next_check() -> None:
    with pytest.raises(CallBudgetError, match="CPU budget"), budget.call_budget(60, cpu=0.02):
        _burn(0.03)
        budget.check()


def test_a_shared_cache_build_does_not_count_against_the_cpu_budget(root: Path) -> None:
    conn = open_reader(root / ".kenso" / "docs.db")
    spent = []
    with pytest.raises(CallBudgetError, match="CPU budget"), budget.call_budget(60, cpu=0.05):
        with budget.exempt():
            _burn(0.1)  # twice the budget, but every later call's
            budget.check()
        budget.check()
        spent.append(budget.cpu_used())
        conn.execute(SLOW).fetchone()  # the call's own work still counts
    assert spent[0] >= 0.1


def test_the_quantum_hook_runs_once_when_the_call_has_used_its_quantum(root: Path) -> None:
    conn = open_reader(root / ".kenso" / "docs.db")
    calls: list[float] = []
    quick = SLOW.replace("100000000", "3000000")
    with budget.call_budget(60, quantum=0.01, on_quantum=lambda: calls.append(budget.cpu_used())):
        budget.check()
        assert calls == []  # not yet used
        conn.execute(quick).fetchone()  # tenths of a second: many progress-handler checks
        _burn(0.02)
        budget.check()
    assert len(calls) == 1 and calls[0] > 0.01


def test_an_error_of_the_quantum_hook_stops_the_statement_with_that_error(root: Path) -> None:
    conn = open_reader(root / ".kenso" / "docs.db")

    def refuse() -> None:
        raise BusyError("the server is busy", hint="retry")

    with (
        pytest.raises(BusyError, match="busy"),
        budget.call_budget(60, quantum=0.001, on_quantum=refuse),
    ):
        conn.execute(SLOW).fetchone()
    assert conn.execute("SELECT count(*) FROM files").fetchone()[0] == 5  # still usable
