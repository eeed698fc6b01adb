"""prepare_all's worker processes: order, failures, and clean-up."""

from __future__ import annotations

import os
import time

import pytest

from kenso_git import prepare
from kenso_git.discover import SourceFile
from kenso_git.errors import WorkerError

OPTS = prepare.Options(4000, 0, 2_000_000, False)


def _jobs(count: int) -> list[prepare.Job]:
    return [
        prepare.Job(SourceFile(f"d{i:04}.md", f"/nowhere/d{i:04}.md", 1, 1, 1, i), None, None, True)
        for i in range(count)
    ]


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@pytest.fixture
def many(monkeypatch: pytest.MonkeyPatch) -> list[prepare.Job]:
    monkeypatch.setattr(prepare, "PARALLEL_FROM", 10)
    monkeypatch.setattr(prepare, "BATCH", 4)
    monkeypatch.setattr(prepare, "FIRST_BATCHES", ())
    return _jobs(50)


def test_results_come_back_in_job_order_from_worker_processes(
    many: list[prepare.Job], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        prepare, "prepare", lambda job, opts: prepare.Prepared(job.sf.path, str(os.getpid()), "x")
    )
    results = list(prepare.prepare_all(many, OPTS))
    assert [r.path for r in results] == [job.sf.path for job in many]
    pids = {r.blob for r in results}
    assert len(pids) == 2 and str(os.getpid()) not in pids
    assert _no_children_left()


def test_a_failing_worker_raises_with_its_traceback(
    many: list[prepare.Job], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(job: prepare.Job, opts: prepare.Options) -> prepare.Prepared:
        if job.sf.path == "d0030.md":
            raise ValueError("parser bug on d0030")
        return prepare.Prepared(job.sf.path, "", "x")

    monkeypatch.setattr(prepare, "prepare", broken)
    seen: list[str] = []
    with pytest.raises(WorkerError, match="parser bug on d0030"):
        seen.extend(r.path for r in prepare.prepare_all(many, OPTS))
    assert seen == [job.sf.path for job in many[:28]]  # the batches before the failing one
    assert _no_children_left()


def test_a_killed_worker_is_an_error_not_a_hang(
    many: list[prepare.Job], monkeypatch: pytest.MonkeyPatch
) -> None:
    def dies(job: prepare.Job, opts: prepare.Options) -> prepare.Prepared:
        if job.sf.path == "d0012.md":
            os.kill(os.getpid(), 9)
        return prepare.Prepared(job.sf.path, "", "x")

    monkeypatch.setattr(prepare, "prepare", dies)
    with pytest.raises(WorkerError, match="stopped early"):
        list(prepare.prepare_all(many, OPTS))
    assert _no_children_left()


def test_giving_up_early_stops_and_reaps_the_workers(
    many: list[prepare.Job], monkeypatch: pytest.MonkeyPatch
) -> None:
    def slow(job: prepare.Job, opts: prepare.Options) -> prepare.Prepared:
        time.sleep(0.05)
        return prepare.Prepared(job.sf.path, "", "x")

    monkeypatch.setattr(prepare, "prepare", slow)
    results = prepare.prepare_all(many, OPTS)
    assert next(results).path == "d0000.md"
    began = time.monotonic()
    results.close()
    assert time.monotonic() - began < 2
    assert _no_children_left()


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
    monkeypatch.setattr(
        prepare, "prepare", lambda job, opts: prepare.Prepared(job.sf.path, str(os.getpid()), "x")
    )
    results = list(prepare.prepare_all(_jobs(5), OPTS))
    assert {r.blob for r in results} == {str(os.getpid())}


def test_workers_stop_on_request_even_when_the_parent_ignores_sigterm(
    many: list[prepare.Job], monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal

    def slow(job: prepare.Job, opts: prepare.Options) -> prepare.Prepared:
        time.sleep(0.5)
        return prepare.Prepared(job.sf.path, "", "x")

    monkeypatch.setattr(prepare, "prepare", slow)
    previous = signal.signal(signal.SIGTERM, lambda *_: None)  # as a server might
    try:
        results = prepare.prepare_all(many, OPTS)
        assert next(results).path == "d0000.md"  # 2 s: both workers are into new batches
        began = time.monotonic()
        results.close()
        assert time.monotonic() - began < 1  # not the ~2 s left in their batches
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert _no_children_left()
