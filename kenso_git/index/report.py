"""What one ingest or sync run did: a result per file, and the callbacks it reports on."""

from __future__ import annotations

from collections.abc import Callable

from kenso_git.records import NamedTuple
from kenso_git.repo.status import FileStatus
from kenso_git.repo.workspace import in_scope
from kenso_git.store.files import FileRow

Progress = Callable[[int, int], None]


Warn = Callable[[str], None]


class FileResult(NamedTuple):
    """What one run did with one file."""

    path: str
    status: str  # ingested | unchanged | skipped | error | removed
    chunks: int = 0
    detail: str | None = None
    title: str | None = None
    category: str | None = None


class IngestReport:
    """The outcome of one ingest or sync run."""

    __slots__ = ("carried", "documents", "elapsed", "head", "results", "scope", "scope_before")

    def __init__(self, scope: list[str], head: str | None = None) -> None:
        self.scope = scope
        self.head = head
        self.scope_before: list[str] | None = None  # the index's scope before (None: new)
        self.results: list[FileResult] = []
        # parsed in this run: each Document, or what the run's `digest` kept of it
        self.documents: list[object] = []
        self.elapsed = 0.0
        # files a sync did not look at (git said they hold HEAD's text), by result status
        self.carried: dict[str, int] = {}

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status) + self.carried.get(status, 0)

    @property
    def total(self) -> int:
        """Files the index holds after the run: those looked at and those carried over."""
        return len(self.results) + sum(self.carried.values())

    @property
    def changed(self) -> bool:
        return any(r.status in {"ingested", "removed"} for r in self.results)

    @property
    def scope_changed(self) -> bool:
        """Whether this run narrowed or widened the index's scope (`ingest docs/` after an
        ingest of the whole tree, or the other way)."""
        return self.scope_before is not None and sorted(self.scope_before) != sorted(self.scope)

    def removed_outside(self) -> int:
        """The files this run removed from the index because they lie outside its scope."""
        return sum(
            1 for r in self.results if r.status == "removed" and not in_scope(r.path, self.scope)
        )

    @property
    def total_chunks(self) -> int:
        return sum(r.chunks for r in self.results)


def unchanged_result(row: FileRow) -> FileResult:
    """The result of a file the run found as the index last saw it."""
    if row.status == FileStatus.INDEXED:
        return FileResult(row.path, "unchanged", row.chunks)
    return FileResult(row.path, "skipped", 0, row.detail)
