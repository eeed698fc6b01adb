"""prepare_all's worker processes: order, failures, and clean-up."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from collections.abc import Generator

import pytest

from kenso_git.errors import WorkerError
from kenso_git.index import prepare
from kenso_git.repo.discover import SourceFile

OPTS = prepare.Options(4000, 0, 2_000_000, False)


def _jobs(count: int) -> list[prepare.Job]:
    return [
        prepare.Job(SourceFile(f"d{i:04}.md", f"/nowhere/d{i:04}.md", 1, 1, 1, i), None, None, True)
        for i in range(count)
    ]


def _no_children_left() -> bool:
    """No forked worker of this process is left, running or unreaped. Where /proc tells,
    only children that are copies of this process count: a `git` another test of the same
    (pytest-xdist) worker started and left to the OS is none of `prepare_all`'s."""
    tasks = "/proc/self/task"
    if not os.path.isdir(tasks):
        try:
            os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return True
        return False
    mine = _comm("self")
    for tid in os.listdir(tasks):
        with open(f"{tasks}/{tid}/children", encoding="ascii") as fh:
            if any(_comm(pid) == mine for pid in fh.read().split()):
                return False
    return True


def _comm(pid: str) -> str | None:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as fh:
            return fh.read().strip()
    except OSError:
        return None  # gone and reaped meanwhile


@pytest.fixture
def many(monkeypatch: pytest.MonkeyPatch) -> list[prepare.Job]:
    monkeypatch.setattr(prepare, "PARALLEL_FROM", 10)
    monkeypatch.setattr(prepare, "BATCH", 4)
    monkeypatch.setattr(prepare, "FIRST_BATCHES", ())
    return _jobs(50)


def _fake_prepare(monkeypatch: pytest.MonkeyPatch, before: Callable[[str], object]) -> None:
    """Replace the parser: call `before(path)`, then return a result naming this process."""

    def fake(job: prepare.Job, opts: prepare.Options) -> prepare.Prepared:
        before(job.sf.path)
        return prepare.Prepared(job.sf.path, str(os.getpid()), "x")

    monkeypatch.setattr(prepare, "prepare", fake)


def _on(path: str, action: Callable[[], object]) -> Callable[[str], object]:
    return lambda seen: action() if seen == path else None


def _raise(error: Exception) -> Callable[[], object]:
    def act() -> object:
        raise error

    return act


def _stop_early(results: Generator[prepare.Prepared, None, None], within: float) -> None:
    """Take the first result, then give up: the workers must be gone within `within` s."""
    assert next(results).path == "d0000.md"
    began = time.monotonic()
    results.close()
    assert time.monotonic() - began < within
    assert _no_children_left()


def test_results_come_back_in_job_order_from_worker_processes(
    many: list[prepare.Job], monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_prepare(monkeypatch, lambda _: None)
    results = list(prepare.prepare_all(many, OPTS))
    assert [r.path for r in results] == [job.sf.path for job in many]
    pids = {r.blob for r in results}
    assert len(pids) == 2 and str(os.getpid()) not in pids
    assert _no_children_left()


def test_a_failing_worker_raises_with_its_traceback(
    many: list[prepare.Job], monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_prepare(monkeypatch, _on("d0030.md", _raise(ValueError("parser bug on d0030"))))
    seen: list[str] = []
    with pytest.raises(WorkerError, match="parser bug on d0030"):
        seen.extend(r.path for r in prepare.prepare_all(many, OPTS))
    assert seen == [job.sf.path for job in many[:28]]  # the batches before the failing one
    assert _no_children_left()


def test_a_killed_worker_is_an_error_not_a_hang(
    many: list[prepare.Job], monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_prepare(monkeypatch, _on("d0012.md", lambda: os.kill(os.getpid(), 9)))
    with pytest.raises(WorkerError, match="stopped early"):
        list(prepare.prepare_all(many, OPTS))
    assert _no_children_left()


def test_giving_up_early_stops_and_reaps_the_workers(
    many: list[prepare.Job], monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_prepare(monkeypatch, lambda _: time.sleep(0.05))
    _stop_early(prepare.prepare_all(many, OPTS), within=2)


def test_workers_stop_on_request_even_when_the_parent_ignores_sigterm(
    many: list[prepare.Job], monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal

    _fake_prepare(monkeypatch, lambda _: time.sleep(0.5))
    previous = signal.signal(signal.SIGTERM, lambda *_: None)  # as a server might
    try:
        # the first batch takes 2 s; then both workers are into new ones, ~2 s from done
        _stop_early(prepare.prepare_all(many, OPTS), within=1)
    finally:
        signal.signal(signal.SIGTERM, previous)


@pytest.mark.parametrize("count", [0, 1, 7, 8, 47, 48, 49, 1000])
def test_batches_start_small_and_cover_every_job_once_in_order(count: int) -> None:
    jobs = _jobs(count)
    batches = prepare._batches(jobs)
    assert [job for batch in batches for job in batch] == jobs
    assert all(batches)
    sizes = [len(b) for b in batches]
    planned = [*prepare.FIRST_BATCHES, *[prepare.BATCH] * len(sizes)][: len(sizes)]
    assert sizes[:-1] == planned[:-1]  # every batch but the last is full
    assert sizes[-1:] <= planned[-1:]


def test_small_runs_stay_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_prepare(monkeypatch, lambda _: None)
    results = list(prepare.prepare_all(_jobs(5), OPTS))
    assert {r.blob for r in results} == {str(os.getpid())}
