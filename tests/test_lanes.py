"""The test lanes: `pytest -m "not slow"` is the default run, tests/e2e/ is the slow lane."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_docs import TEST_JOB

E2E = Path(__file__).parent / "e2e"


def test_slow_tests_live_in_e2e_and_everything_there_is_slow(
    request: pytest.FixtureRequest,
) -> None:
    # Checks the items this run selected: the full suite sees every test; the default run
    # would see an unmarked e2e test that slipped past the deselection.
    for item in request.session.items:
        is_slow = item.get_closest_marker("slow") is not None
        assert is_slow == item.path.is_relative_to(E2E), item.nodeid


def test_ci_runs_the_documented_test_command() -> None:
    root = Path(__file__).resolve().parents[1]
    ci = (root / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == TEST_JOB
    # coverage doubles the in-process tests' time on 3.11: CI runs without it, and the
    # contributing guide says how to get the report
    assert "--cov" not in TEST_JOB
    guide = (root / "docs" / "contributing.md").read_text(encoding="utf-8")
    assert "--cov --cov-report=term:skip-covered" in guide
    assert f"```bash\n{TEST_JOB}\n```" in (root / "CONTRIBUTING.md").read_text(encoding="utf-8")
