"""The lint summary of an ingest, streamed: each document is linted by the rules that judge
it alone where it is parsed (the ingest's parse workers), and only its slim form is kept.

A default `ingest` used to keep every parsed document for its lint summary: peak RSS 66 MB
at 1x, 401 MB at 10x and 1.17 GB at 30x the docs corpus, and the lint ran after the
writer, in its process (#32). Now `first_half` runs in the worker beside the parse (the
rules that judge a file alone, `runner.lint_alone`), and `summary` judges the slim forms
against the corpus facts (`runner.lint_rest`), reading a document again only when a corpus
rule reports on it and needs its text for the line, as `kenso-git lint` does past
`corpus.KEEP_CHARS`.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from pickle import HIGHEST_PROTOCOL
from pickle import dumps
from pickle import loads
from typing import TYPE_CHECKING
from typing import BinaryIO
from zlib import compress
from zlib import decompress

from kenso_git.lint.background import Forked
from kenso_git.lint.config import LintConfig
from kenso_git.lint.corpus import slim
from kenso_git.lint.corpus import stream_facts
from kenso_git.lint.deferred import Deferred
from kenso_git.lint.deferred import Partial
from kenso_git.lint.deferred import Sent
from kenso_git.lint.deferred import received
from kenso_git.lint.deferred import sent
from kenso_git.lint.deferred import sent_violation
from kenso_git.lint.deferred import violation
from kenso_git.lint.model import FileResult
from kenso_git.lint.model import LintReport
from kenso_git.lint.runner import lint_alone
from kenso_git.lint.runner import lint_documents
from kenso_git.records import NamedTuple
from kenso_git.text.parse import Document

if TYPE_CHECKING:
    from kenso_git.config import Settings
    from kenso_git.index.report import IngestReport
    from kenso_git.lint.suppress import Suppressions
    from kenso_git.repo.workspace import Workspace


class Packed(NamedTuple):
    """A document's first half as the ingest keeps it while its writer runs: its slim form,
    findings and suppressions pickled (~0.55 kB, where the objects were ~1.2 kB), since a
    default ingest at 100,000 documents keeps 100,000 of them (#32). Written out to the
    halves file as it is; one kept in memory is compressed (zlib level 1, ~0.35 kB), which
    cost the parse workers 30 ms of the docs corpus's cold ingest for every half."""

    path: str
    blob: bytes  # pickle((slim form, findings, suppressions)), zlib-compressed if `zipped`
    zipped: bool = False


class Spilled(NamedTuple):
    """A first half the writer wrote to its halves file: where its blob lies there."""

    path: str
    at: int
    size: int
    store: HalvesFile
    zipped: bool = False  # as the Packed blob written


class HalvesFile:
    """The first halves an ingest keeps while its writer runs, in an unnamed temporary file
    in the index's folder rather than in memory: ~0.8 kB a document, 80 MB of a writer's
    peak at 100,000 documents (#32). The file has no name (it is gone when closed or when
    the process ends). Each half is written whole at its offset before its record is made;
    where no file can be made, or a write fails (a full disk), the half stays in memory."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._file: BinaryIO | None = None
        self._end = 0
        self._failed = False

    def hold(self, packed: Packed) -> Packed | Spilled:
        if self._file is None and not self._failed:
            try:  # unbuffered: a record is made only for bytes written
                self._file = tempfile.TemporaryFile(dir=self._folder, buffering=0)  # noqa: SIM115
            except OSError:
                self._failed = True
        if self._file is None:
            return packed
        blob, at = packed.blob, self._end
        try:
            written = 0
            while written < len(blob):
                written += os.pwrite(self._file.fileno(), blob[written:], at + written)
        except OSError:
            return packed
        self._end = at + len(blob)
        return Spilled(packed.path, at, len(blob), self, packed.zipped)

    def read(self, part: Spilled) -> bytes:
        """The half's bytes back (OSError if the file cannot be read)."""
        assert self._file is not None
        return os.pread(self._file.fileno(), part.size, part.at)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


# Parsed documents from which an ingest's summary starts in a forked process as soon as
# the last one is held (`FirstHalves.parsed_all`): where the parse workers ran. Up to
# BACKGROUND_UP_TO only: a forked child maps every page the writer holds, so its resident
# set is the writer's plus the summary's own (316 MB at 100,000 docs against the writer's
# 182 and the 250 MB cap of #32), while the summary in the writer peaks at 210 MB.
BACKGROUND_FROM = 300
BACKGROUND_UP_TO = 20_000


class FirstHalves:
    """What an ingest keeps of each document it parses (an `index.prepare.Digest`): the
    findings of the rules that judge the file alone beside its slim form, computed in the
    parse workers, and held in the writer's halves file. A large run's summary starts in
    a forked process once all are held (`parsed_all`, `ahead`). Closed on leaving `with`."""

    def __init__(self, config: LintConfig, folder: Path) -> None:
        self.config = config
        self.folder = folder
        self.halves = HalvesFile(folder)
        # the summary started by `parsed_all`, and the halves and paths it was started with
        self._ahead: tuple[tuple[list[int], list[str]], Forked[SentReport]] | None = None

    def __call__(self, doc: Document) -> Packed:
        return _first_half(self.config, doc)

    def hold(self, kept: object) -> object:
        if not isinstance(kept, Packed):
            return kept
        held = self.halves.hold(kept)
        if held is kept and not kept.zipped:  # not written out: held in memory, compressed
            return kept._replace(blob=compress(kept.blob, 1), zipped=True)
        return held

    def parsed_all(self, ws: Workspace, settings: Settings, report: IngestReport) -> None:
        """Every document of the run is parsed and held: a large run's summary starts now,
        in a forked process, while the writer does its last work (links, commit)."""
        self.cancel()
        inputs = summary_inputs(report)
        if inputs is None or (os.cpu_count() or 1) < 2:
            return
        if not BACKGROUND_FROM <= len(inputs[0]) <= BACKGROUND_UP_TO:
            return
        parts, unparsed = inputs
        config, scope = self.config, report.scope
        forked = Forked.start(
            lambda: _sent_report(summary(ws, settings, parts, unparsed, scope, config)),
            self.folder,
        )
        if forked is not None:
            self._ahead = (_key(parts, unparsed), forked)

    def ahead(self, parts: list[Packed | Spilled], unparsed: list[str]) -> LintReport | None:
        """The summary `parsed_all` started, when it was of these very halves and paths
        (waits for it); None when there is none to use: the caller makes it."""
        if self._ahead is None:
            return None
        key, forked = self._ahead
        self._ahead = None
        if key != _key(parts, unparsed):
            forked.cancel()
            return None
        done = forked.result()
        return None if done is None else _received_report(done)

    def cancel(self) -> None:
        """Stop a summary `parsed_all` started and nobody took."""
        if self._ahead is not None:
            self._ahead[1].cancel()
            self._ahead = None

    def __enter__(self) -> FirstHalves:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.cancel()
        self.halves.close()


def _key(parts: list[Packed | Spilled], unparsed: list[str]) -> tuple[list[int], list[str]]:
    return [id(part) for part in parts], unparsed


# A LintReport as the forked summary sends it: plain tuples, which unpickle in C (the
# report's dataclasses unpickle through Python, one call per violation: 29 ms of the
# writer's last work on the docs corpus, 11 ms so with the report made again here).
SentReport = tuple[
    list[tuple[str, int, list[tuple[str, Sent]]]],
    int,
    int,
    int,
    int,
    int,
    int | None,
    tuple[tuple[str, int], ...],
]


def _sent_report(done: LintReport) -> SentReport:
    files = [
        (f.path, f.score, [(v.path, sent_violation(v)) for v in f.violations]) for f in done.files
    ]
    counts = (done.score, done.errors, done.warnings, done.info, done.baselined)
    return (files, *counts, done.fail_under, done.skipped)


def _received_report(sent_: SentReport) -> LintReport:
    files, score, errors, warnings, info, baselined, fail_under, skipped = sent_
    return LintReport(
        tuple(
            FileResult(path, file_score, tuple(violation(at, v) for at, v in found))
            for path, file_score, found in files
        ),
        score,
        errors,
        warnings,
        info,
        baselined,
        fail_under,
        skipped,
    )


def summary_inputs(
    report: IngestReport, *, always: bool = False
) -> tuple[list[Packed | Spilled], list[str]] | None:
    """What `summary` lints after an ingest: the halves it kept and the paths it did not
    parse; None when nothing was (re)indexed (the summary would not change) unless
    `always` (`ingest --lint`: every path, read again)."""
    if not always and not any(r.status == "ingested" for r in report.results):
        return None
    parts = [part for part in report.documents if isinstance(part, Packed | Spilled)]
    parsed = {part.path for part in parts}
    unparsed = [r.path for r in report.results if r.status != "removed" and r.path not in parsed]
    return parts, unparsed


def _first_half(config: LintConfig, doc: Document, *, zipped: bool = False) -> Packed:
    part = lint_alone(doc, _slimmer(doc), config)
    kept = dumps((part.doc, sent(part.found), part.suppressed), HIGHEST_PROTOCOL)
    return Packed(doc.path, compress(kept, 1), True) if zipped else Packed(doc.path, kept)


def _blob(part: Packed | Spilled) -> bytes:
    return part.blob if isinstance(part, Packed) else part.store.read(part)


def _opened(packed: Packed | Spilled) -> tuple[Document, dict[str, list[Sent]], Suppressions]:
    blob = _blob(packed)
    doc, found, suppressed = loads(decompress(blob) if packed.zipped else blob)
    assert isinstance(doc, Document)
    return doc, found, suppressed


def _slim_doc(packed: Packed | Spilled) -> Document:
    return _opened(packed)[0]


def _unpack(packed: Packed | Spilled) -> Partial:
    return received(*_opened(packed))


def _slimmer(doc: Document) -> Document:
    """`corpus.slim`, and without the labels no corpus rule reads (tags, answers, queries,
    description): 100,000 of these wait for the summary."""
    return slim(doc)._replace(tags=(), answers=(), predicted_queries=(), description=None)


def summary(
    ws: Workspace,
    settings: Settings,
    parts: Iterable[Packed | Spilled],
    unparsed: Sequence[str],
    scope: Sequence[str],
    config: LintConfig,
) -> LintReport:
    """Lint the whole corpus: the documents the run parsed (`parts`, their first half done)
    and the `unparsed` paths it left as they were, each read, linted alone and slimmed in
    turn (one full parse in memory at a time).

    Two passes over the packed halves: their slim forms for the corpus facts, then each
    half unpacked whole, linted and let go, so the halves are never all held unpacked."""
    from kenso_git.repo.discover import Skip
    from kenso_git.repo.discover import discover_paths
    from kenso_git.repo.discover import load_document

    packed: dict[str, Packed | Spilled] = {part.path: part for part in parts}
    for sf in discover_paths(ws, settings, unparsed, scope=scope):
        loaded = load_document(sf, settings)
        if not isinstance(loaded, Skip):
            packed[loaded.path] = _first_half(config, loaded, zipped=True)  # held here
    order = sorted(packed)
    # the slim forms are opened one at a time, here and again when each is linted: 100,000
    # of them are never held at once (#32)
    facts = stream_facts(
        order,
        (_slim_doc(packed[path]) for path in order),
        with_mentions="KS019" in config.select,
        min_label_chars=config.thresholds.min_label_chars,
    )
    stores = {id(part.store): part.store for part in packed.values() if isinstance(part, Spilled)}
    try:
        halves = _deferred(ws, settings, packed, order, scope)
        return lint_documents(halves, corpus=facts, config=config)
    finally:
        for store in stores.values():
            store.close()


def _deferred(
    ws: Workspace,
    settings: Settings,
    packed: dict[str, Packed | Spilled],
    order: Sequence[str],
    scope: Sequence[str],
) -> Iterator[Deferred]:
    for path in order:
        part = _unpack(packed.pop(path))  # let go of each as it is linted
        yield Deferred(part, partial(_reread, ws, settings, part.doc, scope))


def _reread(
    ws: Workspace, settings: Settings, slim_doc: Document, scope: Sequence[str]
) -> Document:
    """The document's full parse again (its slim form if it is gone or unreadable now)."""
    from kenso_git.repo.discover import Skip
    from kenso_git.repo.discover import discover_paths
    from kenso_git.repo.discover import load_document

    for sf in discover_paths(ws, settings, [slim_doc.path], scope=scope):
        loaded = load_document(sf, settings)
        return slim_doc if isinstance(loaded, Skip) else loaded
    return slim_doc
