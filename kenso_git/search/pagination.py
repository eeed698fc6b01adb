"""Pages of `search` and `regex_search` hits: opaque cursors, caps and the size budget.

Ranked pages use offset cursors (`k1-<hex offset>.<generation>-<check>`), capped at
`OFFSET_CAP` hits and refused once the index changed (the offsets would rank other hits);
exhaustive pages use keyset cursors (`k2-<hex path>-<check>`: the hits strictly after that
path, so there is no cap on how far they go and a change elsewhere moves nothing), and
regex pages keyset cursors on (path, line) (`k3-<hex path>.<line>.<hits so far>.<lines>-<check>`,
`<lines>` a digest of that document's lines up to the cursor's: refused once they changed,
since the line then names another place).
`<check>` is a digest of the request, so a cursor from another query is refused instead of
silently paging something else. Every page is cut to `MAX_ANSWER_CHARS` of JSON (well
under a client's 25,000-token cap for tool results), and the cursor then resumes after the
last hit actually returned.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from collections.abc import Sequence
from typing import TYPE_CHECKING
from typing import TypeVar

from kenso_git.errors import UsageError
from kenso_git.records import NamedTuple

if TYPE_CHECKING:
    from kenso_git.search.results import AgentHit
    from kenso_git.search.results import AgentPage

OFFSET_CAP = 10_000
MAX_ANSWER_CHARS = 48_000  # ~12k tokens at 4 characters per token
CHARS_PER_TOKEN = 4
SNIPPET_CHARS = 100
MIN_PAGE, MAX_PAGE, DEFAULT_PAGE = 1, 50, 10
# A cursor's fields are read only in the form they are written, so a hand-edited one (a
# negative or signed offset, a field left out) is refused instead of paging somewhere odd.
_COUNT = re.compile(r"[1-9a-f][0-9a-f]{0,7}")  # a count of 1 or more, as f"{n:x}" writes it
_HEX = re.compile(r"(?:[0-9a-f]{2})+")  # text as bytes.hex() writes it
_DIGEST = re.compile(r"[0-9a-f]{8}")
_STAMP = re.compile(r"[0-9a-f]{6}")


class CursorError(UsageError):
    """A cursor that is malformed or belongs to another request."""

    def __init__(self, cursor: str) -> None:
        shown = cursor if len(cursor) <= 80 else cursor[:80] + "..."
        super().__init__(
            f"cursor {shown!r} is not a next_cursor of this request",
            hint="pass next_cursor from the previous page of the same query and mode, "
            "or omit cursor to start again",
        )


class StaleCursorError(CursorError):
    """A ranked cursor issued before the index last changed, or with another ref (the
    docs of another revision): its offsets rank other hits."""

    def __init__(self, cursor: str) -> None:
        UsageError.__init__(
            self,
            f"cursor {cursor[:80]!r} was issued before the index changed, or with another "
            "ref, so its offset no longer names the same hits",
            hint="omit cursor to start the query again, or give it with the ref it came with "
            "(exhaustive cursors survive changes)",
        )


class StaleLineCursorError(StaleCursorError):
    """A regex cursor issued before its document changed above its line: resuming after
    that line would return a hit again or pass one over."""

    def __init__(self, cursor: str, path: str, line: int) -> None:
        UsageError.__init__(
            self,
            f"cursor {cursor[:80]!r} was issued before {path} changed at or above its line "
            f"{line}, so its line no longer names the same place",
            hint="omit cursor to start the pattern again",
        )


def clamp_page(page_size: int | None) -> int:
    """`page_size` clamped to 1-50 (None: the default, 10)."""
    if page_size is None:
        return DEFAULT_PAGE
    return max(MIN_PAGE, min(MAX_PAGE, int(page_size)))


def request_check(*parts: object) -> str:
    """The digest a cursor carries to tie it to its request."""
    blob = json.dumps(parts, ensure_ascii=True, default=str)
    return hashlib.sha1(blob.encode("utf-8"), usedforsecurity=False).hexdigest()[:8]


def offset_cursor(offset: int, check: str, generation: object = None) -> str:
    """The ranked cursor that resumes at `offset` of the ranking of index `generation`."""
    if generation is None:
        return f"k1-{offset:x}-{check}"
    return f"k1-{offset:x}.{_stamp(generation)}-{check}"


def _stamp(generation: object) -> str:
    """What a ranked cursor keeps of the index `generation` it ranks: of
    `docmeta.generation`'s (database file, write generation), the write generation alone.
    The file names no state of the docs: a revision's index made again from the same commit
    and docs lives in a folder of its own, at the same generation (index/atref.py), and
    ranks the same hits; every other index's generation is another (a checkout's is a time
    in ns, counting up; a revision's names its commit and docs)."""
    if isinstance(generation, tuple) and len(generation) == 2:
        generation = generation[1]
    return request_check(generation)[:6]


def keyset_cursor(path: str, check: str) -> str:
    """The exhaustive cursor that resumes after `path`."""
    return f"k2-{path.encode('utf-8').hex()}-{check}"


def line_cursor(path: str, line: int, seen: int, lines: str, check: str) -> str:
    """The regex cursor that resumes after line `line` of `path`, `seen` hits in; `lines`
    is the digest of that document's lines up to `line` (`lines_digest`)."""
    return f"k3-{path.encode('utf-8').hex()}.{line:x}.{seen:x}.{lines}-{check}"


class LineCursor(NamedTuple):
    """Where a regex cursor resumes: after `line` of `path`, `seen` hits in, while the
    document's lines up to `line` still have the digest `lines` (`LinesDigest`)."""

    text: str  # the cursor as given
    path: str
    line: int
    seen: int
    lines: str


def read_line_cursor(cursor: str | None, check: str) -> LineCursor | None:
    """Where a regex cursor resumes (None without one).

    Raises:
        CursorError: the cursor is malformed or from another request.
    """
    if not cursor:
        return None
    kind, body = _split(cursor, check)
    parts = body.split(".")
    if kind != "k3" or len(parts) != 4 or not _DIGEST.fullmatch(parts[3]):
        raise CursorError(cursor)
    path = _text(parts[0], cursor)
    return LineCursor(cursor, path, _count(parts[1], cursor), _count(parts[2], cursor), parts[3])


class LinesDigest:
    """The digests a regex cursor keeps of a document's first lines, the last one without
    its line break (a break added at the end of the document changes nothing above it).
    Asked in line order, the document is hashed once."""

    __slots__ = ("_data", "_end", "_line", "_sha")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._sha = hashlib.sha1(usedforsecurity=False)
        self._end = 0  # data[:_end] is hashed: the first _line lines
        self._line = 0

    def upto(self, line: int) -> str:
        """The digest of the first `line` lines (`line` no smaller than the last asked)."""
        data, end = self._data, self._end
        while self._line < line and end < len(data):
            found = data.find(b"\n", end + 1 if self._line else 0)
            stop = len(data) if found < 0 else found
            self._sha.update(data[end:stop])
            end = stop
            self._line += 1
        self._end = end
        return self._sha.copy().hexdigest()[:8]


def read_offset(
    cursor: str | None, check: str, generation: object = None, *, limit: int | None = None
) -> int:
    """The offset of a ranked cursor (0 without one): 1 or more, and below `limit` when
    given (the cursors of a capped list are never issued at or past its cap). The cursor
    carries the stamp of index `generation` exactly when there is one.

    Raises:
        StaleCursorError: the cursor ranks an older generation of the index.
        CursorError: the cursor is malformed or from another request.
    """
    if not cursor:
        return 0
    kind, body = _split(cursor, check)
    number, dot, stamp = body.partition(".")
    if kind != "k1" or bool(dot) != (generation is not None):
        raise CursorError(cursor)  # a stamp left out would skip the check below
    offset = _count(number, cursor)
    if limit is not None and offset >= limit:
        raise CursorError(cursor)
    if dot and not _STAMP.fullmatch(stamp):
        raise CursorError(cursor)
    if dot and stamp != _stamp(generation):
        raise StaleCursorError(cursor)
    return offset


def read_keyset(cursor: str | None, check: str) -> str | None:
    """The path after which an exhaustive cursor resumes (None without one).

    Raises:
        CursorError: the cursor is malformed or from another request.
    """
    if not cursor:
        return None
    kind, body = _split(cursor, check)
    if kind != "k2":
        raise CursorError(cursor)
    return _text(body, cursor)


def _count(field: str, cursor: str) -> int:
    """A count field of `cursor`: 1 or more in lowercase hex with no sign, leading zero,
    space or underscore (int(field, 16) takes all of them: `-3` made a page loop).

    Raises:
        CursorError: the field is not such a count.
    """
    if not _COUNT.fullmatch(field):
        raise CursorError(cursor)
    return int(field, 16)


def _text(field: str, cursor: str) -> str:
    """A text field of `cursor` (a path, a key): non-empty UTF-8 in lowercase hex with
    nothing between the digits (bytes.fromhex skips spaces).

    Raises:
        CursorError: the field is not such text.
    """
    if not _HEX.fullmatch(field):
        raise CursorError(cursor)
    try:
        return bytes.fromhex(field).decode("utf-8")
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


ItemT = TypeVar("ItemT")
PageT = TypeVar("PageT")


def most_that_fit(
    items: list[ItemT],
    page: Callable[[list[ItemT], bool], PageT],
    fits: Callable[[PageT], bool],
    *,
    count: int | None = None,
) -> int:
    """How many of `items` (at least 1) a `page` with more to follow holds while it `fits`.
    An answer still too large (one item too large on its own) is refused whole later.

    With `count`, `items` are the first of `count` items, every one a page that fits could
    hold (the caller knows a longer page is too large): the answer is the one the whole
    list would give, without making or measuring a page longer than `items`."""
    low, high = 1, (len(items) if count is None else count) - 1
    while low < high:
        mid = (low + high + 1) // 2
        if mid <= len(items) and fits(page(items[:mid], True)):
            low = mid
        else:
            high = mid - 1
    while low > 1 and not fits(page(items[:low], True)):
        low -= 1  # a long path ending the page makes a long cursor: the size is not monotonic
    return low


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
