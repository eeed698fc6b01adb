"""A page's bytes as the agent tools serve them: refused when binary, as ingest skips it,
and read as UTF-8 whatever Unicode encoding a byte-order mark names, as ingest reads it."""

from __future__ import annotations

from kenso_git.errors import ScopeError
from kenso_git.text.parse import as_utf8
from kenso_git.text.parse import looks_binary


def page_bytes(rel: str, data: bytes) -> bytes:
    """The UTF-8 bytes of the page at `rel` read as `data` (a UTF-16 or UTF-32 page,
    which ingest indexes, is transcoded: its NUL bytes do not make it binary).

    Raises:
        ScopeError: `data` is not text (NUL bytes and no byte-order mark).
    """
    if looks_binary(data):
        raise ScopeError(f"path refused (binary): {rel!r} is not text", rule="binary", path=rel)
    return as_utf8(data)
