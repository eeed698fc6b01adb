"""File statuses the index records: one small module, so that importing them costs nothing.

`store/` (which writes them) and `repo/discover` (which decides most of them) both import
this; importing `discover` would pull the parser into every reader of the `files` table.
"""

from __future__ import annotations

from enum import StrEnum


class FileStatus(StrEnum):
    """What the index records for a file it has seen (the `files.status` column)."""

    INDEXED = "indexed"
    SHORT = "short"  # under kenso's 50-character floor
    BINARY = "binary"
    LARGE = "large"  # over max-file-size
    UNREADABLE = "unreadable"
