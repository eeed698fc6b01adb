"""A tool call's time budget stops SQLite and the search's Python stages (#13)."""

from __future__ import annotations

from pathlib import Path

import pytest

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
