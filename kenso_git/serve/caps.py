"""What one answer may hold: the result cap, lists cut to it, refusals, and bounded reads.

`Service` (the gate) shapes every tool's answer through these: a payload's JSON stays under
`MAX_RESULT_CHARS` (hits dropped from the end, `truncated` said in the structured copy), a
refused request is kenso's `{"error": ...}`, and a file is read from the descriptor the scope
opened, at most `max-file-size` bytes.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
from typing import TYPE_CHECKING
from typing import TypeVar

from kenso_git.api.page import page_bytes
from kenso_git.errors import KensoError
from kenso_git.errors import ScopeError

if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterator

    from kenso_git.api.results import CorrectedMulti
    from kenso_git.api.results import CorrectedSearch
    from kenso_git.api.results import DocResult
    from kenso_git.api.results import ErrorResult
    from kenso_git.api.results import HitList
    from kenso_git.api.results import SearchDocsResult
    from kenso_git.api.results import SearchItem
    from kenso_git.api.results import SearchMultiResult
    from kenso_git.api.search import Scope
    from kenso_git.errors import DocumentNotFoundError
    from kenso_git.errors import QueryError
    from kenso_git.kb import KnowledgeBase

MAX_RESULT_CHARS = 48_000  # ~12k tokens: well under the ~25k tokens clients accept
GET_DOC_MAX_CHARS = 40_000

TextT = TypeVar("TextT")
StructuredT = TypeVar("StructuredT")
ItemT = TypeVar("ItemT")
# The answer types are for type checkers only: importing them makes TypedDict classes, ~10 ms
# a server's first answer need not wait for (#32).

Reply = tuple[TextT, StructuredT]  # (kenso's JSON text payload, MCP structured content)
if TYPE_CHECKING:
    SearchReply = Reply[
        SearchDocsResult | SearchMultiResult | ErrorResult,
        HitList | CorrectedSearch | CorrectedMulti | ErrorResult,
    ]


def fits(payload: object) -> bool:
    return len(json.dumps(payload, indent=2, ensure_ascii=False)) <= MAX_RESULT_CHARS


def fitted_doc(
    kb: KnowledgeBase,
    rel: str,
    cap: int,
    file_stat: Callable[[str], os.stat_result | None] | None = None,
    *,
    in_work_tree: bool = True,
) -> DocResult:
    """`kb.get_doc(rel)` cut to `cap` characters, halved until its JSON fits the result cap
    (escaping, quotes and non-ASCII, can inflate it beyond the length).

    Raises:
        DocumentNotFoundError: the index holds no document at `rel`.
    """
    doc = kb.get_doc(rel, max_length=cap, file_stat=file_stat, in_work_tree=in_work_tree)
    while not fits(doc) and cap > 1000:
        cap //= 2
        doc = kb.get_doc(rel, max_length=cap, file_stat=file_stat, in_work_tree=in_work_tree)
    return doc


def fit_list(items: list[ItemT]) -> tuple[list[ItemT], bool]:
    """Drop trailing items until the JSON fits the result cap."""
    if fits(items):
        return items, False
    kept = list(items)
    while kept and not fits(kept):
        kept.pop()
    return kept, True


def capped_hits(raw: list[SearchItem]) -> Reply[list[SearchItem], HitList]:
    """A hit list cut to the size budget: as text, and as `{"results": ...}` structured."""
    items, cut = fit_list(raw)
    out: HitList = {"results": items}
    if cut:
        out["truncated"] = True
    return items, out


def capped_corrected(
    raw: CorrectedSearch | CorrectedMulti,
) -> Reply[CorrectedSearch | CorrectedMulti, CorrectedSearch | CorrectedMulti]:
    """A corrected-query object with its results cut to the budget; `truncated` only in the
    structured copy, as kenso's text shape has no such key."""
    text = raw.copy()
    text["results"], cut = fit_list(raw["results"])
    structured = text.copy()
    if cut:
        structured["truncated"] = True
    return text, structured


def capped(
    raw: SearchDocsResult | SearchMultiResult,
) -> Reply[
    list[SearchItem] | CorrectedSearch | CorrectedMulti, HitList | CorrectedSearch | CorrectedMulti
]:
    """`search_docs`'s or `search_multi`'s answer cut to the result cap (see `capped_hits`)."""
    return capped_hits(raw) if isinstance(raw, list) else capped_corrected(raw)


def refusal(
    err: QueryError | DocumentNotFoundError, near: list[str] | None = None
) -> Reply[ErrorResult, ErrorResult]:
    """kenso's contract error payload for a request the library refused; for a path that
    names no document, the documents it may have meant (`near`, each one the scope gate
    serves) as `did_you_mean`, and a hint naming them."""
    body: ErrorResult = {"error": err.reply}
    if near:
        body["hint"] = near_hint(near)
        body["did_you_mean"] = list(near)
    return body, body


def near_hint(near: list[str]) -> str:
    """The hint of a path that names no document but may have meant those of `near`."""
    return f"did you mean {', '.join(near)}? Paths are relative to the checkout's root"


def resolved(scope: Scope, kb: Callable[[], KnowledgeBase], path: str) -> str:
    """`scope.resolve(path)`; a path refused only for lying outside `agent-scoped-roots`
    leaves hinting at the scoped documents it may have meant (`docs/x.md` for `x.md`)."""
    try:
        return scope.resolve(path)
    except ScopeError as err:
        if err.rule == "outside-scope" and err.hint is None:
            try:
                index = kb()
                with scope.gating(index.same_file()) as gate:
                    near = index.near_paths(path, path_filter=gate)
            except KensoError:  # no index, an unreadable one: the refusal says enough
                near = []
            if near:
                err.hint = near_hint(near)
        raise


@contextlib.contextmanager
def suggesting(kb: KnowledgeBase, rel: str, gate: Callable[[str], bool]) -> Iterator[None]:
    """Run the block; a `DocumentNotFoundError` for `rel` leaves it hinting at the indexed
    documents `rel` may have meant that `gate` (the scope gate) lets through."""
    from kenso_git.errors import DocumentNotFoundError

    try:
        yield
    except DocumentNotFoundError as err:
        near = kb.near_paths(rel, path_filter=gate)
        if near:
            err.hint = near_hint(near)
        raise


def read_limited(scope: Scope, rel: str, limit: int) -> bytes:
    """The bytes of the file at `rel`'s approved real path, read from the one descriptor
    `Scope.open_file` opened without following a link (#27: never what a link swapped in
    after the check leads to)."""
    try:
        with os.fdopen(scope.open_file(rel), "rb") as handle:
            data = handle.read(limit + 1)
    except FileNotFoundError:
        raise KensoError(
            f"no file at {rel}", hint="use a file_path from search_docs", path=rel
        ) from None
    except IsADirectoryError:
        raise KensoError(f"{rel} is a folder", hint="pass a Markdown file", path=rel) from None
    except OSError as err:
        if err.errno == errno.EINVAL:
            raise KensoError(
                f"{rel} is not a regular file", hint="pass a Markdown file", path=rel
            ) from None
        raise KensoError(f"cannot read {rel}: {err.strerror}", path=rel) from None
    if len(data) > limit:
        raise ScopeError(
            f"path refused (too-large): {rel!r} is larger than max-file-size ({limit} bytes)",
            rule="too-large",
            path=rel,
        )
    return page_bytes(rel, data)
