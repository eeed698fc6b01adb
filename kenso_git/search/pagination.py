"""Pages of `search` and `regex_search` hits: opaque cursors, caps and the size budget.

Ranked pages use offset cursors (`k1-<hex offset>-<check>`), capped at `OFFSET_CAP` hits;
exhaustive pages use keyset cursors (`k2-<hex path>-<check>`: the hits strictly after that
path, so there is no cap on how far they go). `<check>` is a digest of the request, so a
cursor from another query is refused instead of silently paging something else. Every
page is cut to `MAX_ANSWER_CHARS` of JSON (well under a client's 25,000-token cap for tool
results), and the cursor then resumes after the last hit actually returned.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from collections.abc import Sequence
from typing import NotRequired
from typing import TypedDict

from kenso_git.errors import UsageError

OFFSET_CAP = 10_000
MAX_ANSWER_CHARS = 48_000  # ~12k tokens at 4 characters per token
CHARS_PER_TOKEN = 4
SNIPPET_CHARS = 100
MIN_PAGE, MAX_PAGE, DEFAULT_PAGE = 1, 50, 10


class CursorError(UsageError):
    """A cursor that is malformed or belongs to another request."""

    def __init__(self, cursor: str) -> None:
        shown = cursor if len(cursor) <= 80 else cursor[:80] + "..."
        super().__init__(
            f"cursor {shown!r} is not a next_cursor of this request",
            hint="pass next_cursor from the previous page of the same query and mode, "
            "or omit cursor to start again",
        )


class AgentHit(TypedDict):
    """One hit of `search` or `regex_search`."""

    path: str
    score: float
    snippet: str
    snippet_truncated: bool
    match_type: str  # Content, FileName, Both, Filter, Regex
    size: int
    modified: int  # Unix seconds
    title: str | None
    section: str | None
    line: NotRequired[int]  # regex_search: the 1-based line of the match


class AgentPage(TypedDict):
    """A page of hits and how to get the next one."""

    results: list[AgentHit]
    total: int
    total_is_lower_bound: bool
    mode: str
    returned: int
    page_size: int
    next_cursor: str | None
    has_more: bool
    token_budget: int
    as_of: int | None  # Unix seconds of the index's last sync
    cursor_limit_reached: NotRequired[bool]


def clamp_page(page_size: int | None) -> int:
    """`page_size` clamped to 1-50 (None: the default, 10)."""
    if page_size is None:
        return DEFAULT_PAGE
    return max(MIN_PAGE, min(MAX_PAGE, int(page_size)))


def request_check(*parts: object) -> str:
    """The digest a cursor carries to tie it to its request."""
    blob = json.dumps(parts, ensure_ascii=True, default=str)
    return hashlib.sha1(blob.encode("utf-8"), usedforsecurity=False).hexdigest()[:8]


def offset_cursor(offset: int, check: str) -> str:
    """The ranked cursor that resumes at `offset`."""
    return f"k1-{offset:x}-{check}"


def keyset_cursor(path: str, check: str) -> str:
    """The exhaustive cursor that resumes after `path`."""
    return f"k2-{path.encode('utf-8').hex()}-{check}"


def read_offset(cursor: str | None, check: str) -> int:
    """The offset of a ranked cursor (0 without one).

    Raises:
        CursorError: the cursor is malformed or from another request.
    """
    if not cursor:
        return 0
    kind, body = _split(cursor, check)
    if kind != "k1" or not body or len(body) > 8:
        raise CursorError(cursor)
    try:
        return int(body, 16)
    except ValueError:
        raise CursorError(cursor) from None


def read_keyset(cursor: str | None, check: str) -> str | None:
    """The path after which an exhaustive cursor resumes (None without one).

    Raises:
        CursorError: the cursor is malformed or from another request.
    """
    if not cursor:
        return None
    kind, body = _split(cursor, check)
    if kind != "k2" or not body:
        raise CursorError(cursor)
    try:
        return bytes.fromhex(body).decode("utf-8")
    except ValueError:
        raise CursorError(cursor) from None


def _split(cursor: str, check: str) -> tuple[str, str]:
    if len(cursor) > 10_000:
        raise CursorError(cursor)
    kind, _, rest = cursor.partition("-")
    body, _, digest = rest.rpartition("-")
    if digest != check:
        raise CursorError(cursor)
    return kind, body


def cut_snippet(text: str, at: int = 0) -> tuple[str, bool]:
    """At most `SNIPPET_CHARS` of `text` from a word start up to 30 characters before
    character `at`, whitespace collapsed, and whether anything was left out."""
    window = text[: SNIPPET_CHARS * 4] if at < SNIPPET_CHARS * 2 else None
    if window is not None and len(window) == len(text):
        whole = " ".join(text.split())
        if len(whole) <= SNIPPET_CHARS:
            return whole, False
    start = max(0, at - 30)
    if start > 0:
        space = text.find(" ", start, at)
        start = space + 1 if space >= 0 else start
    flat = " ".join(text[start : start + SNIPPET_CHARS * 4].split())
    snippet = flat[:SNIPPET_CHARS].rstrip()
    rest = len(text) > start + SNIPPET_CHARS * 4
    return snippet, start > 0 or len(flat) > SNIPPET_CHARS or rest


def make_page(
    hits: Sequence[AgentHit],
    *,
    mode: str,
    page_size: int,
    total: int,
    lower_bound: bool,
    more_after: bool,
    cursor_for: Callable[[int], str | None],
    as_of: int | None,
) -> AgentPage:
    """The page of the first `page_size` of `hits`, cut to the size budget.

    `more_after` says whether hits exist beyond `hits[:page_size]`; `cursor_for(n)` is the
    cursor that resumes after the first `n` hits of this page (None: the cap is reached).
    `returned` and `token_budget` (the answer's size in tokens, at 4 characters each) are
    set from what was kept.
    """
    page: AgentPage = {
        "results": list(hits[:page_size]),
        "total": total,
        "total_is_lower_bound": lower_bound,
        "mode": mode,
        "returned": 0,
        "page_size": page_size,
        "next_cursor": None,
        "has_more": False,
        "token_budget": 0,
        "as_of": as_of,
    }
    wanted = len(page["results"])
    while True:
        kept = len(page["results"])
        more = more_after or kept < wanted
        cursor = cursor_for(kept) if more else None
        page["has_more"] = cursor is not None
        page["next_cursor"] = cursor
        if more and cursor is None:
            page["cursor_limit_reached"] = True
        else:
            page.pop("cursor_limit_reached", None)
        page["returned"] = kept
        page["token_budget"] = MAX_ANSWER_CHARS // CHARS_PER_TOKEN  # as wide as it can get
        size = len(json.dumps(page, indent=2, ensure_ascii=False))
        if size <= MAX_ANSWER_CHARS or kept <= 1:
            break
        page["results"].pop()
    page["token_budget"] = -(-size // CHARS_PER_TOKEN)
    return page
