"""How chunk text is stored: long text as a compressed BLOB, short text as itself.

The rule is the column's type: a TEXT value is the text; a BLOB value is the byte length
of the text's UTF-8 (4 bytes, big-endian) followed by those bytes compressed by raw
deflate (zlib, no header). Readers never see the difference: the `chunks` and
`chunks_search` views and the FTS triggers read `chunk_rows.content` and `search_extra`
through the SQL function `kenso_text` (`register` adds it to a connection), so rows
written as plain text by older writers, or by tools through the `chunks` view, stay valid
beside packed ones. A connection without the function (the sqlite3 shell) cannot read
those views: register it, or read `chunk_rows` and inflate a BLOB yourself
(`zlib.decompress(value[4:], -15)`).
"""

from __future__ import annotations

import sqlite3
import zlib

FUNCTION = "kenso_text"
BYTES_FUNCTION = "kenso_text_bytes"
# Shorter text is kept as it is: deflate saves little on a line or two, and a TEXT value
# costs readers nothing.
PACK_FROM = 100  # UTF-8 bytes
# The fastest level: the docs corpus's chunk content shrinks 2.38x (level 6: 2.48x, for
# 47% more packing CPU: 305 ms against 208 on the corpus, where cold ingest is ~2.5 s).
LEVEL = 1
# zlib.compress's default state (32 KB window, memLevel 8) is ~256 KB to allocate and
# clear per call, which cost more than the compression of the ~1 KB chunks: an 8 KB window
# and memLevel 5 cut the docs corpus's packing CPU 3x for the same size (3.120 MB against
# 3.119). Inflating with the largest window reads any window size.
_WINDOW_BITS = 13
_MEM_LEVEL = 5
_WBITS = -15  # raw deflate: no 2-byte header and 4-byte checksum per value
# The text's byte length leads the BLOB, so that the index's text size (`stats`, the
# health tools) is read without inflating every chunk.
_LENGTH = 4


def pack(text: str) -> str | bytes:
    """The value to store for `text`: its compressed bytes when that is smaller, else it."""
    data = text.encode("utf-8")
    if len(data) < PACK_FROM:
        return text
    deflate = zlib.compressobj(LEVEL, zlib.DEFLATED, -_WINDOW_BITS, _MEM_LEVEL)
    packed = len(data).to_bytes(_LENGTH, "big") + deflate.compress(data) + deflate.flush()
    return packed if len(packed) < len(data) else text


def pack_optional(text: str | None) -> str | bytes | None:
    """`pack` for a nullable column."""
    return None if text is None else pack(text)


def unpack(value: str | bytes) -> str:
    """The text a stored value holds: a BLOB inflated, TEXT as it is."""
    if isinstance(value, bytes):
        return zlib.decompress(memoryview(value)[_LENGTH:], _WBITS).decode("utf-8")
    return value


def text_bytes(value: str | bytes) -> int:
    """The UTF-8 length of the text a stored value holds, without inflating it."""
    if isinstance(value, bytes):
        return int.from_bytes(value[:_LENGTH], "big")
    return len(value.encode("utf-8"))


def _sql_text(value: str | bytes | float | None) -> str | float | None:
    # NULL and numbers pass through too: the views apply it to nullable columns
    return unpack(value) if isinstance(value, bytes) else value


def _sql_bytes(value: str | bytes | float | None) -> int | None:
    return (
        None
        if value is None
        else text_bytes(value if isinstance(value, str | bytes) else str(value))
    )


def total_bytes(conn: sqlite3.Connection) -> int:
    """The UTF-8 bytes of every chunk's content, packed or not (the index's text size)."""
    # readers upgrade an older index when they open it (`open_current_reader`): the rows
    # are always in chunk_rows here
    row = conn.execute(
        f"SELECT COALESCE(SUM(CASE WHEN typeof(content) = 'blob' THEN {BYTES_FUNCTION}(content) "
        "ELSE length(CAST(content AS BLOB)) END), 0) FROM chunk_rows"
    ).fetchone()
    return int(row[0])


def register(conn: sqlite3.Connection) -> None:
    """Give `conn` the SQL functions the views and triggers read chunk text through."""
    conn.create_function(FUNCTION, 1, _sql_text, deterministic=True)
    conn.create_function(BYTES_FUNCTION, 1, _sql_bytes, deterministic=True)
