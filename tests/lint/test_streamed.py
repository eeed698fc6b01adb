"""An ingest's lint summary is streamed (#32): each document is linted alone where it is
parsed and only its slim form is kept, so the summary's memory does not grow with the
corpus text (1.17 GB at 30x the docs corpus before), and it says what `lint` says."""

from __future__ import annotations

import gc
import json
import re
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenso_git.cli.main import cli
from kenso_git.lint.report import report_to_json
from kenso_git.lint.session import run_lint
from tests.helpers import init_repo
from tests.helpers import write

SECTION = "## Section {i}\n\n" + "Plain words about the topic of this guide. " * 40 + "\n\n"


def _repo(root: Path, files: int) -> Path:
    body = "".join(SECTION.format(i=i) for i in range(40))  # ~70 kB a file
    return init_repo(root, {f"docs/d{n:04}.md": f"# Guide {n}\n\n{body}" for n in range(files)})


def _held_ingest(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, object]]:
    """Run `ingest --json`; the memory held when its lint summary starts (all the writer has
    let go by then: what the run kept of the documents for the summary is what is left)."""
    from kenso_git.cli import index_cmd

    real = index_cmd.lint_for_ingest
    held: list[int] = []

    def measured(kb, report, *rest):  # the real summary, with the memory held as it starts
        gc.collect()
        held.append(tracemalloc.get_traced_memory()[0])
        return real(kb, report, *rest)

    monkeypatch.setattr(index_cmd, "lint_for_ingest", measured)
    monkeypatch.chdir(root)
    tracemalloc.start()
    try:
        result = CliRunner().invoke(cli, ["ingest", "--json"], catch_exceptions=False)
    finally:
        tracemalloc.stop()
    assert result.exit_code == 0, result.output
    return held[0], json.loads(result.output)


def test_the_ingest_lint_summary_does_not_hold_every_parse(tmp_path, monkeypatch) -> None:
    _held_ingest(_repo(tmp_path / "warm", 10), monkeypatch)  # the process-wide caches
    small, small_out = _held_ingest(_repo(tmp_path / "small", 30), monkeypatch)
    large, large_out = _held_ingest(_repo(tmp_path / "large", 120), monkeypatch)
    assert small_out["lint"]["files"] == 30 and large_out["lint"]["files"] == 120  # type: ignore[index]
    # Before: every parsed document (~70 kB of text each, and its parse) kept for the summary
    assert large - small < 90 * 10_000, f"held {small:,} -> {large:,} bytes"


def test_the_ingest_lint_summary_says_what_lint_says(tmp_path, monkeypatch) -> None:
    root = init_repo(tmp_path / "r", {})
    write(
        root,
        {
            "docs/a.md": "---\ncategory: guides\nrelates_to:\n  - missing.md\n---\n# A\n\n"
            "Text long enough to be indexed by the tool, about Guide B.\n",
            "docs/b.md": "---\ncategory: guidez\n---\n# Guide B\n\n## Setup\n\nx\n",
            "docs/c.md": "# C\n\nsee [b](b.md) and more words to be indexed here.\n",
            "docs/d.md": "no heading at all, but text long enough to be indexed.\n",
        },
    )
    monkeypatch.chdir(root)
    result = CliRunner().invoke(cli, ["ingest", "--json"], catch_exceptions=False)
    summary = json.loads(result.output)["lint"]
    alone = run_lint([]).report
    assert summary == report_to_json(alone)  # every finding, line and column
    assert alone.errors + alone.warnings > 0


# What the ingest holds a document at its summary's peak (traced from the ingest's start):
# 2,263 bytes with the halves in memory, 2,165 with them in a file; most of it is the
# report's findings (#32). Beyond the summary's start, it was 2,214 bytes before the slim
# forms were streamed into the facts and the halves handed over, 1,121 after.
PEAK_PER_DOC = 2_400

SMALL_DOC = (
    "# Guide {n}\n\n## Example\n\nThe following is a word about guide {n}.\n\n"
    "## Reference\n\nThis is a second short section.\n"
)


def test_what_the_summary_keeps_of_a_document_is_small(tmp_path, monkeypatch) -> None:
    """At 100,000 documents every byte the summary keeps of one is 100 kB: what the summary
    keeps while the writer runs is each document's first half pickled and compressed
    (~0.4 kB), its strings shared across documents when unpacked (#32)."""

    def held(name: str, files: int) -> int:
        files_ = {f"docs/g{n % 7}/d{n:05}.md": SMALL_DOC.format(n=n) for n in range(files)}
        return _held_ingest(init_repo(tmp_path / name, files_), monkeypatch)[0]

    held("warm", 10)  # the process-wide caches
    small, large = held("small", 100), held("large", 400)
    per_doc = (large - small) / 300
    # 2,737 bytes before; 1,648 with the strings shared, 1,360 packed, 959 (915 here)
    # compressed, 494 with the compressed halves in a file (most of it the ingest report's
    # own row and path)
    assert per_doc < 650, f"held {small:,} -> {large:,} bytes: {per_doc:.0f} a document"


def _summary_peak(root: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """The memory the ingest holds at its lint summary's peak (traced from the ingest's
    start: the halves it kept for the summary and what the summary adds to them)."""
    from kenso_git.cli import index_cmd
    from kenso_git.lint import streamed

    # the summary made in this process, as a small run or a failed forked one makes it
    monkeypatch.setattr(streamed, "BACKGROUND_FROM", 10**9)
    real = index_cmd.lint_for_ingest
    peaks: list[int] = []

    def measured(kb, report, *rest):  # type: ignore[no-untyped-def]
        gc.collect()
        tracemalloc.reset_peak()
        try:
            return real(kb, report, *rest)
        finally:
            peaks.append(tracemalloc.get_traced_memory()[1])

    monkeypatch.setattr(index_cmd, "lint_for_ingest", measured)
    monkeypatch.chdir(root)
    tracemalloc.start()
    try:
        result = CliRunner().invoke(cli, ["ingest"], catch_exceptions=False)
    finally:
        tracemalloc.stop()
    assert result.exit_code == 0, result.output
    return peaks[0]


def test_the_summary_never_holds_every_slim_document_at_once(tmp_path, monkeypatch) -> None:
    """The corpus facts are built from the slim forms read one at a time, and each packed
    half is let go once linted (the ingest report no longer holds them all): at 100,000
    documents the summary's peak was ~90 MB above the writer's (#32)."""

    def peak(name: str, files: int) -> int:
        files_ = {f"docs/g{n % 7}/d{n:05}.md": SMALL_DOC.format(n=n) for n in range(files)}
        return _summary_peak(init_repo(tmp_path / name, files_), monkeypatch)

    peak("warm", 10)
    small, large = peak("small", 100), peak("large", 400)
    per_doc = (large - small) / 300
    assert per_doc < PEAK_PER_DOC, f"peak {small:,} -> {large:,} bytes: {per_doc:.0f} a document"


def test_the_halves_wait_in_an_unnamed_file_beside_the_index(tmp_path) -> None:
    """#32: the first halves (~0.8 kB a document compressed, 80 MB at 100,000) wait for the
    summary in a temporary file with no name in the index's folder, not in memory; where
    no file can be made there, they stay in memory."""
    from kenso_git.lint.streamed import HalvesFile
    from kenso_git.lint.streamed import Packed
    from kenso_git.lint.streamed import Spilled

    folder = tmp_path / ".kenso"
    folder.mkdir()
    halves = HalvesFile(folder)
    blobs = [bytes([n]) * (n * 37 % 500 + 1) for n in range(200)]
    held = [halves.hold(Packed(f"d{n}.md", blob)) for n, blob in enumerate(blobs)]
    assert all(isinstance(part, Spilled) for part in held)
    assert list(folder.iterdir()) == []  # no name: nothing to clean up after a crash
    assert [halves.read(part) for part in reversed(held)] == blobs[::-1]  # type: ignore[arg-type]
    halves.close()

    nowhere = HalvesFile(tmp_path / "missing")
    packed = Packed("a.md", b"xyz")
    assert nowhere.hold(packed) is packed


def test_a_half_the_disk_refuses_stays_in_memory(tmp_path, monkeypatch) -> None:
    import errno
    import os

    from kenso_git.lint.streamed import HalvesFile
    from kenso_git.lint.streamed import Packed
    from kenso_git.lint.streamed import Spilled

    halves = HalvesFile(tmp_path)
    first = halves.hold(Packed("a.md", b"first half"))
    real = os.pwrite

    def full(fd: int, data: bytes, offset: int) -> int:
        if data.startswith(b"refused"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data[:3], offset)  # a short write: the rest follows

    monkeypatch.setattr(os, "pwrite", full)
    refused = Packed("b.md", b"refused half")
    assert halves.hold(refused) is refused
    third = halves.hold(Packed("c.md", b"third half"))
    assert isinstance(first, Spilled) and isinstance(third, Spilled)
    assert (halves.read(first), halves.read(third)) == (b"first half", b"third half")
    halves.close()


def test_an_ingest_leaves_nothing_beside_its_index(tmp_path, monkeypatch) -> None:
    def listing(name: str, *flags: str) -> list[str]:
        root = _repo(tmp_path / name, 12)
        monkeypatch.chdir(root)
        result = CliRunner().invoke(cli, ["ingest", "--json", *flags], catch_exceptions=False)
        assert json.loads(result.output)["ingest"]["total_files"] == 12
        # the status copy's name carries a key of the repository's git dir (statusindex)
        return sorted(re.sub(r"-[0-9a-f]{16}", "-KEY", p.name) for p in (root / ".kenso").iterdir())

    assert listing("linted") == listing("unlinted", "--no-lint")


def test_a_large_ingest_summary_made_beside_the_writer_says_what_lint_says(
    tmp_path, monkeypatch
) -> None:
    """From BACKGROUND_FROM parsed documents the summary runs in a forked process while the
    writer finishes (#32): its result is the one printed, and it is `lint`'s."""
    from kenso_git.lint.background import Forked
    from kenso_git.lint.streamed import BACKGROUND_FROM

    files = {f"docs/g{n % 7}/d{n:05}.md": SMALL_DOC.format(n=n) for n in range(BACKGROUND_FROM)}
    files["docs/a.md"] = "---\nrelates_to:\n  - missing.md\n---\n# A\n\nsee [b](g1/b.md), words.\n"
    files["docs/g1/b.md"] = "---\ncategory: guidez\n---\n# Guide B\n\n## Setup\n\nx\n"
    root = init_repo(tmp_path / "r", files)
    used: list[object] = []
    real = Forked.result

    def watched(self: Forked[object]) -> object:  # the real result, noted
        used.append(real(self))
        return used[-1]

    monkeypatch.setattr(Forked, "result", watched)
    monkeypatch.chdir(root)
    result = CliRunner().invoke(cli, ["ingest", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert len(used) == 1 and used[0] is not None  # made in the child, and used
    alone = run_lint([]).report
    assert json.loads(result.output)["lint"] == report_to_json(alone)
    assert alone.errors + alone.warnings > 0


def test_a_summary_of_more_documents_than_the_cap_is_made_in_the_writer(
    tmp_path, monkeypatch
) -> None:
    """Past BACKGROUND_UP_TO parsed documents nothing is forked: the child's resident set
    would be the writer's and the summary's together (316 MB at 100,000 docs, #32)."""
    from kenso_git.kb import KnowledgeBase
    from kenso_git.lint import streamed
    from kenso_git.lint.background import Forked
    from kenso_git.lint.config import load_lint_config

    started: list[object] = []
    real = Forked.start.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(
        Forked, "start", classmethod(lambda cls, *a: started.append(a) or real(cls, *a))
    )
    monkeypatch.setattr(streamed, "BACKGROUND_FROM", 1)
    root = init_repo(tmp_path / "r", {f"docs/d{n}.md": SMALL_DOC.format(n=n) for n in range(3)})
    kb = KnowledgeBase.open(root)
    for cap, forked in ((3, 1), (2, 0)):
        monkeypatch.setattr(streamed, "BACKGROUND_UP_TO", cap)
        started.clear()
        with streamed.FirstHalves(load_lint_config(kb.settings), kb.db_path.parent) as halves:
            kb.ingest(digest=halves, rebuild=True)
        assert len(started) == forked


def test_a_summary_started_for_other_halves_is_not_used(tmp_path, monkeypatch) -> None:
    from kenso_git.kb import KnowledgeBase
    from kenso_git.lint import streamed
    from kenso_git.lint.config import load_lint_config

    monkeypatch.setattr(streamed, "BACKGROUND_FROM", 1)
    root = init_repo(tmp_path / "r", {f"docs/d{n}.md": SMALL_DOC.format(n=n) for n in range(3)})
    kb = KnowledgeBase.open(root)
    with streamed.FirstHalves(load_lint_config(kb.settings), kb.db_path.parent) as halves:
        report = kb.ingest(digest=halves)
        inputs = streamed.summary_inputs(report)
        assert inputs is not None
        parts, unparsed = inputs
        assert halves.ahead(parts[1:], unparsed) is None  # not these: the caller makes it
        assert halves.ahead(parts, unparsed) is None  # taken once only
    assert list(kb.db_path.parent.glob("tmp*")) == []


def test_a_forked_call_gives_its_result_or_none_when_it_failed(tmp_path) -> None:
    import time

    from kenso_git.lint.background import Forked

    ok = Forked.start(lambda: {"a": [1, 2]}, tmp_path)
    failed = Forked.start(lambda: 1 // 0, tmp_path)
    assert ok is not None and failed is not None
    assert ok.result() == {"a": [1, 2]}
    assert failed.result() is None  # the caller runs it itself, where the error raises
    slow = Forked.start(lambda: time.sleep(60), tmp_path)
    assert slow is not None
    started = time.monotonic()
    slow.cancel()  # stopped and reaped, not waited for
    assert time.monotonic() - started < 5
    assert list(tmp_path.iterdir()) == []  # the result files had no name


def test_a_half_kept_in_memory_is_compressed_and_reads_back_the_same(tmp_path) -> None:
    """The parse workers send each half uncompressed (zlib cost them 30 ms of the docs
    corpus's ingest); one the writer cannot write out to its halves file is compressed where
    it is held, and both forms open to the same half."""
    from kenso_git.lint import streamed
    from kenso_git.lint.config import LintConfig
    from kenso_git.repo.discover import document_from_bytes

    doc = document_from_bytes("docs/a.md", SMALL_DOC.format(n=1).encode())
    config = LintConfig()
    raw = streamed._first_half(config, doc)
    assert not raw.zipped
    kept_in_file = streamed.FirstHalves(config, tmp_path)
    spilled = kept_in_file.hold(raw)
    assert isinstance(spilled, streamed.Spilled) and not spilled.zipped
    nowhere = streamed.FirstHalves(config, tmp_path / "missing")
    in_memory = nowhere.hold(raw)
    assert isinstance(in_memory, streamed.Packed) and in_memory.zipped
    assert len(in_memory.blob) < len(raw.blob)
    assert streamed._opened(in_memory) == streamed._opened(raw) == streamed._opened(spilled)
    kept_in_file.halves.close()


def test_a_report_sent_as_tuples_is_made_again_the_same(tmp_path, monkeypatch) -> None:
    """The forked summary sends its report as plain tuples (they unpickle in C): made
    again, it is the report, findings, fixes and severities included."""
    import pickle

    from kenso_git.lint import streamed

    root = init_repo(
        tmp_path / "r",
        {
            "docs/a.md": "---\nrelates_to:\n  - missing.md\n---\n# A\n\nThis section is short.\n",
            "docs/b.md": "---\ncategory: guidez\n---\n# Guide B\n\n## Setup\n\nIt is x.\n",
        },
    )
    monkeypatch.chdir(root)
    report = run_lint([]).report
    assert {v.severity for v in report.violations()} > set() and report.files
    sent_ = pickle.loads(pickle.dumps(streamed._sent_report(report)))
    assert streamed._received_report(sent_) == report
