"""Error hierarchy and process exit codes shared by every front end."""

from __future__ import annotations

import errno
from enum import IntEnum


class ExitCode(IntEnum):
    """Exit codes of the `kenso-git` command."""

    OK = 0
    FAILURE = 1  # lint found error-severity findings, or a runtime failure
    USAGE = 2  # bad flag or config, a missing path
    NO_INDEX = 3  # no index yet (search, stats and serve never create one)
    INTERRUPTED = 130


SHOWN_CHARS = 120  # an argument echoed in an error message is cut here
# what an OSError's errno says of a failed write: the disk (or a size limit) is full, or
# the file or its folder is read-only (store.faults for the index, lint --fix for docs)
DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
READ_ONLY_ERRNOS = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})


def shown(value: object, limit: int = SHOWN_CHARS) -> str:
    """`value` quoted for an error message, cut past `limit` characters: an agent's 100,000
    character argument must not come back whole in the error (tokens spent for nothing)."""
    if not isinstance(value, str):
        text = repr(value)
        return text if len(text) <= limit else text[:limit] + "..."
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}... ({len(value):,} characters)"


class KensoError(Exception):
    """Base error: a message, an optional hint, and where it happened."""

    exit_code: ExitCode = ExitCode.FAILURE

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        path: str | None = None,
        line: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.path = path
        self.line = line

    def location(self) -> str:
        """`path:line` (or just `path`) when known, else an empty string."""
        if self.path is None:
            return ""
        return f"{self.path}:{self.line}" if self.line is not None else self.path


class UsageError(KensoError):
    """The user asked for something impossible: bad flag, bad config, missing path."""

    exit_code = ExitCode.USAGE


class ConfigError(UsageError):
    """A configuration file or environment variable holds a bad value."""


class NoIndexError(KensoError):
    """There is no index to read; reading commands never create one."""

    exit_code = ExitCode.NO_INDEX


class DatabaseError(KensoError):
    """The index database is unusable (corrupt, locked too long, newer schema)."""


class CorruptIndexError(DatabaseError):
    """The index file is damaged or not a SQLite database; `ingest --rebuild` replaces it."""


class NotAnIndexError(CorruptIndexError):
    """The file named as the index holds something else (a document, another program's
    database): it is never written into nor replaced, and the path is the user's to fix."""

    exit_code = ExitCode.USAGE


class IndexWriteError(DatabaseError):
    """A write to the index failed for a cause outside it: disk full, size limit, read-only."""


class IndexLockedError(DatabaseError):
    """Another process held the index's write lock for longer than this one would wait."""


class ScopeError(KensoError):
    """A path argument was refused by the scope gate; the message names the rule."""

    def __init__(self, message: str, *, rule: str, path: str | None = None) -> None:
        super().__init__(message, path=path)
        self.rule = rule


class GitError(KensoError):
    """Git could not answer (no repository, unreadable index)."""


class WorkerError(KensoError):
    """A process that parsed files for an ingest failed or died; nothing was written."""


class QueryError(UsageError):
    """A search the library refuses as asked; `reply` is kenso's answer text for the MCP tools."""

    def __init__(self, message: str, *, reply: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.reply = reply


class CallBudgetError(KensoError):
    """A call ran past its time budget (`call-budget`) or its CPU budget (`call-cpu-budget`)
    and was stopped."""


class BusyError(KensoError):
    """The server had no free lane for a call within its time budget."""


class EmptyQueryError(QueryError):
    """The query is empty or only whitespace."""

    def __init__(self) -> None:
        super().__init__(
            "empty query", reply="Empty query.", hint="search for a word or a short phrase"
        )


class NoQueriesError(QueryError):
    """`search_multi` was given no queries at all."""

    def __init__(self) -> None:
        super().__init__(
            "no queries given",
            reply="No queries provided.",
            hint="pass 2-5 phrasings of the question",
        )


class DocumentNotFoundError(KensoError):
    """The index holds no document at the path; `reply` is kenso's answer text."""

    def __init__(self, path: str) -> None:
        super().__init__(
            f"no document at {path} in the index",
            hint="use a file_path from a search result",
            path=path,
        )
        self.reply = f"No document found at path: {path}"
