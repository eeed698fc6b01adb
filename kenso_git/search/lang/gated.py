"""The indexed documents a scope gate lets through, each judged when first looked up.

A ranked page looks up the few documents it shows (and those its ranking judges on the way
to filling it), so the gate is asked about those, not about every indexed document: on a
repository of 50,000 documents that was most of a warm search's time. An exhaustive
listing asks it about the matches its filters kept (`indexed` looks a document up without
it). Iterating or counting the mapping asks the gate about every document.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping

from kenso_git.search.docmeta import Doc


class GatedDocs(Mapping[str, Doc]):
    """path -> `Doc` of the documents of `docs` that `gate` lets through (None: all).

    Each verdict is asked once and kept as long as the mapping: a per-call gate's for the
    call, a lasting gate's (`Scope.allows`) for as long as a cache keeps the mapping, as it
    kept the dictionary this replaces. Dict operations are atomic: threads may share one.
    """

    __slots__ = ("_docs", "_gate", "_verdicts")

    def __init__(self, docs: Mapping[str, Doc], gate: Callable[[str], bool] | None) -> None:
        self._docs = docs
        self._gate = gate
        self._verdicts: dict[str, bool] = {}

    def __getitem__(self, path: str) -> Doc:
        doc = self._docs[path]
        if not self._passes(path):
            raise KeyError(path)
        return doc

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and path in self._docs and self._passes(path)

    def __iter__(self) -> Iterator[str]:
        return (path for path in self._docs if self._passes(path))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def shown(self, path: str) -> Doc | None:
        """The document at `path` when there is one and the gate lets it through (`get`
        without the exception a refused path costs `Mapping.get`)."""
        doc = self._docs.get(path)
        return doc if doc is not None and self._passes(path) else None

    def unjudged(self) -> Iterable[Doc]:
        """Every indexed document, the gate not asked: a caller looks one up (`get`) before
        it shows it, so the gate judges only what passed the caller's cheaper checks."""
        return self._docs.values()

    def indexed(self, path: str) -> Doc | None:
        """The document at `path`, the gate not asked (as `unjudged`): a caller asks `shown`
        before it shows it, once its cheaper checks have passed."""
        return self._docs.get(path)

    def _passes(self, path: str) -> bool:
        if self._gate is None:
            return True
        verdict = self._verdicts.get(path)
        if verdict is None:
            verdict = self._verdicts[path] = bool(self._gate(path))
        return verdict
