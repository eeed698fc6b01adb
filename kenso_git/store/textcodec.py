"""How chunk text is stored: long text as a raw-deflate BLOB, short text as itself.

The rule is the column's type: a TEXT value is the text, a BLOB value is its UTF-8 bytes
compressed by raw deflate (zlib, no header). Readers never see the difference: the
`chunks` and `chunks_search` views and the FTS triggers read `chunk_rows.content` and
`search_extra` through the SQL function `kenso_text` (`register` adds it to a connection),
so rows written as plain text by older writers, or by tools through the `chunks` view,
stay valid beside packed ones. A connection without the function (the sqlite3 shell)
cannot read those views: `SELECT kenso_text(content)` needs it registered, or read
`chunk_rows` and inflate the BLOBs yourself (`zlib.decompress(value, -15)`).
"""

from __future__ import annotations

import sqlite3
import zlib

FUNCTION = "kenso_text"
# Shorter text is kept as it is: deflate saves little on a line or two, and a TEXT value
# costs readers nothing.
PACK_FROM = 100  # UTF-8 bytes
# zlib's default level: on the docs corpus the content shrinks 2.45x for ~0.55 s of CPU in
# one thread; level 1 saves ~10% of that CPU for a ~10% larger index.
LEVEL = 6
_WBITS = -15  # raw deflate: no 2-byte header and 4-byte checksum per value


def pack(text: str) -> str | bytes:
    """The value to store for `text`: its compressed bytes when that is smaller, else it."""
    data = text.encode("utf-8")
    if len(data) < PACK_FROM:
        return text
    packed = zlib.compress(data, LEVEL, wbits=_WBITS)
    return packed if len(packed) < len(data) else text


def pack_optional(text: str | None) -> str | bytes | None:
    """`pack` for a nullable column."""
    return None if text is None else pack(text)


def unpack(value: str | bytes) -> str:
    """The text a stored value holds: a BLOB inflated, TEXT as it is."""
    if isinstance(value, bytes):
        return zlib.decompress(value, _WBITS).decode("utf-8")
    return value


def _sql_text(value: str | bytes | float | None) -> str | float | None:
    # NULL and numbers pass through too: the views apply it to nullable columns
    return zlib.decompress(value, _WBITS).decode("utf-8") if isinstance(value, bytes) else value


def register(conn: sqlite3.Connection) -> None:
    """Give `conn` the SQL function the views and triggers read chunk text through."""
    conn.create_function(FUNCTION, 1, _sql_text, deterministic=True)
