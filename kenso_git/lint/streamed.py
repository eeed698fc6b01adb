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

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Sequence
from functools import partial
from pickle import HIGHEST_PROTOCOL
from pickle import dumps
from pickle import loads
from typing import TYPE_CHECKING
from zlib import compress
from zlib import decompress

from kenso_git.lint.config import LintConfig
from kenso_git.lint.corpus import slim
from kenso_git.lint.corpus import stream_facts
from kenso_git.lint.deferred import Deferred
from kenso_git.lint.deferred import Partial
from kenso_git.lint.deferred import received
from kenso_git.lint.runner import lint_alone
from kenso_git.lint.runner import lint_documents
from kenso_git.records import NamedTuple
from kenso_git.text.parse import Document

if TYPE_CHECKING:
    from kenso_git.config import Settings
    from kenso_git.lint.model import LintReport
    from kenso_git.lint.model import Violation
    from kenso_git.lint.suppress import Suppressions
    from kenso_git.repo.workspace import Workspace


class Packed(NamedTuple):
    """A document's first half as the ingest keeps it while its writer runs: its slim form,
    findings and suppressions pickled and compressed (zlib level 1 in the parse workers),
    ~0.5 kB where the pickles were ~1.0 kB and the objects ~1.2 kB, since a default ingest at
    100,000 documents keeps 100,000 of them (#32)."""

    path: str
    blob: bytes  # zlib(pickle((slim form, findings, suppressions)))


def first_half(config: LintConfig) -> Callable[[Document], Packed]:
    """What an ingest keeps of each document it parses (called in its parse workers): the
    findings of the rules that judge the file alone, beside the document's slim form."""
    return partial(_first_half, config)


def _first_half(config: LintConfig, doc: Document) -> Packed:
    part = lint_alone(doc, _slimmer(doc), config)
    kept = dumps((part.doc, part.found, part.suppressed), HIGHEST_PROTOCOL)
    return Packed(doc.path, compress(kept, 1))


def _opened(packed: Packed) -> tuple[Document, dict[str, list[Violation]], Suppressions]:
    doc, found, suppressed = loads(decompress(packed.blob))
    assert isinstance(doc, Document)
    return doc, found, suppressed


def _slim_doc(packed: Packed) -> Document:
    return _opened(packed)[0]


def _unpack(packed: Packed) -> Partial:
    return received(*_opened(packed))


def _slimmer(doc: Document) -> Document:
    """`corpus.slim`, and without the labels no corpus rule reads (tags, answers, queries,
    description): 100,000 of these wait for the summary."""
    return slim(doc)._replace(tags=(), answers=(), predicted_queries=(), description=None)


def summary(
    ws: Workspace,
    settings: Settings,
    parts: Iterable[Packed],
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

    packed = {part.path: part for part in parts}
    for sf in discover_paths(ws, settings, unparsed, scope=scope):
        loaded = load_document(sf, settings)
        if not isinstance(loaded, Skip):
            packed[loaded.path] = _first_half(config, loaded)
    order = sorted(packed)
    # the slim forms are opened one at a time, here and again when each is linted: 100,000
    # of them are never held at once (#32)
    facts = stream_facts(
        order,
        (_slim_doc(packed[path]) for path in order),
        with_mentions="KS019" in config.select,
        min_label_chars=config.thresholds.min_label_chars,
    )
    halves = _deferred(ws, settings, packed, order, scope)
    return lint_documents(halves, corpus=facts, config=config)


def _deferred(
    ws: Workspace,
    settings: Settings,
    packed: dict[str, Packed],
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
