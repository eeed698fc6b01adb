"""What changed between revisions, and agent instruction drift, as the scope shows them.

`changed_docs` lists only docs the agent scope shows today: a path hidden now (outside
`agent-scoped-roots`, or matched by `.cursorignore`, `.kensoignore`, `.gitignore` or
`exclude`) stays hidden at every revision, renamed to or from, deleted or not. The check
is on the path as written, as git names it, and for a symbolic link on where it leads at
each side, as the gate decides there: in a commit, as the index of that revision takes a
link (`tree_blobs`: a Markdown file of the commit the scope shows); in the work tree, as
ingest takes one (`discover_paths`) and the gate serves it. A link to `.env`, into
`.git/`, out of the checkout, to an ignored doc or into a nested repository is not a doc
there, so it is not listed at that side. `commits` counts only the commits that left the
doc under a name the scope shows, or moved it from such a name to one it hides. A range's
list is kept for its later pages while its commits, the work tree's status and the rule files
stay as they were (`_changes`); each page judges the paths it lists by the scope again.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from collections.abc import Hashable
from collections.abc import Iterable
from typing import TYPE_CHECKING
from typing import cast

from kenso_git.api.git import discover_paths
from kenso_git.api.git import drift as drift_mod
from kenso_git.api.git import head_commit
from kenso_git.api.git import history
from kenso_git.api.git import tree_blobs
from kenso_git.api.search import keyset_cursor
from kenso_git.api.search import most_that_fit
from kenso_git.api.search import read_keyset
from kenso_git.api.search import request_check
from kenso_git.api.workspace import is_markdown
from kenso_git.errors import UsageError
from kenso_git.errors import shown
from kenso_git.serve import caps
from kenso_git.serve.keptlists import KeptLists
from kenso_git.serve.keptlists import Same

if TYPE_CHECKING:
    from kenso_git.api.git import Drift
    from kenso_git.api.results import ChangedDoc
    from kenso_git.api.results import ChangedDocs
    from kenso_git.api.results import DriftResult
    from kenso_git.serve.service import Service

MAX_CHANGES = 1000  # results in one MCP answer, before the size fit; `limit` is clamped to it


def changed_docs(
    service: Service,
    since: str,
    until: str | None,
    limit: int | None = None,
    cursor: str | None = None,
    *,
    whole: bool = False,
) -> ChangedDocs:
    """The docs the scope shows that differ from `since` to `until` (or the work tree), in
    path order from the one after `cursor`'s: at most `limit` (clamped to 1..`MAX_CHANGES`,
    default the most), and fewer when their JSON would pass the result cap; `truncated` and
    `next_cursor` then say that more follow. `whole` (the command line): no size fit, and
    every change but for `limit` (None: no cap).

    The cursor names no file: it only says where in the list the scope let through the
    answer resumes, so a forged one shows nothing the list does not.

    Raises:
        UsageError: a revision is unknown, the checkout is not a git work tree, or the
            cursor is not a next_cursor of this range.
        GitError: git failed.
    """
    scope = service.scope
    scope.reload_if_changed()

    def is_doc(path: str) -> bool:
        return is_markdown(path) and scope.shows(path)

    old = history.resolve_revision(service.workspace, since)
    new = None if until is None else history.resolve_revision(service.workspace, until)
    check = request_check("changed_docs", old, new)
    after = _resumes_after(cursor, check)
    found = _changes(service, old, new, is_doc)
    rest = found if after is None else [c for c in found if c.path > after]
    if whole:
        cap = len(rest) if limit is None else max(1, int(limit))
    else:
        cap = MAX_CHANGES if limit is None else max(1, min(int(limit), MAX_CHANGES))

    def page(kept: list[ChangedDoc], more: bool) -> ChangedDocs:
        resume = keyset_cursor(kept[-1]["path"], check) if more and kept else None
        return {
            "since": old,
            "until": new,
            "results": kept,
            "total": len(found),
            "truncated": resume is not None,
            "next_cursor": resume,
        }

    if whole:
        return page([_item(c) for c in rest[:cap]], len(rest) > cap)
    count = min(cap, len(rest))
    could, sizes = _could_fit(rest[:count])

    def chars(kept: list[ChangedDoc], more: bool) -> int:
        """len(json.dumps(page(kept, more), indent=2)): the page with no results, less its
        empty list, plus each result after a line break and four spaces, commas between
        them, and the list's brackets, the closing one on its own line after two spaces."""
        frame = page(kept, more)
        frame["results"] = []
        listed = sizes[len(kept)] + 6 * len(kept) + 4 if kept else 2
        return len(json.dumps(frame, indent=2, ensure_ascii=False)) - 2 + listed

    if len(could) == count and _fits(chars(could, len(rest) > cap)):  # the whole rest fits
        return page(could, len(rest) > cap)
    fit = most_that_fit(could, chars, _fits, count=count)
    return page(could[:fit] if fit <= len(could) else [_item(c) for c in rest[:fit]], True)


_KEPT: KeptLists[history.Change] = KeptLists()


def _changes(
    service: Service, old: str, new: str | None, is_doc: Callable[[str], bool]
) -> list[history.Change]:
    """`history.changes` of the range, the list kept by an earlier page when the range's
    commits, the work tree's git status (for the work tree's side), the scope and its rule
    files are all as they were then, and each path it names is still one the scope shows;
    else made (and kept) afresh."""
    ws = service.workspace
    sides = _sides_key(service, old, new)
    rules = service.scope.rules_generation
    if sides is not None:
        kept = _KEPT.get((sides, rules))
        if kept is not None and all(_still_shown(c, is_doc) for c in kept):
            return kept
    found = history.changes(
        ws, old, new, is_doc=is_doc, hidden_links=_hidden_links(service, is_doc)
    )
    if sides is not None and service.scope.rules_generation == rules:
        _KEPT.put((sides, rules), found)  # not when the rules were read again meanwhile
    return found


def _sides_key(service: Service, old: str, new: str | None) -> Hashable | None:
    """What the list of `old`..`new` depends on besides the rule files: the commits, the
    scope and settings of this server, and for the work tree's side HEAD and its status
    signature (None when git cannot tell: nothing is kept)."""
    ws = service.workspace
    base = (str(ws.root), old, new, Same(service.scope), Same(service.settings))
    if new is not None:
        return base
    signature = history.worktree_signature(ws)
    return None if signature is None else (*base, head_commit(ws), signature)


def _still_shown(change: history.Change, is_doc: Callable[[str], bool]) -> bool:
    return is_doc(change.path) and (change.old_path is None or is_doc(change.old_path))


def _item(change: history.Change) -> ChangedDoc:
    return cast("ChangedDoc", change.to_dict())


def _could_fit(changes: list[history.Change]) -> tuple[list[ChangedDoc], list[int]]:
    """The results of the first `changes` a page that fits could hold, and `sizes`:
    sizes[k] is the characters of the first k in a page's JSON. They are added up until
    they pass the result cap (a page holding one more would pass it too), so a long list
    is neither made nor measured past its first page's worth."""
    items: list[ChangedDoc] = []
    sizes = [0]
    for change in changes:
        item = _item(change)
        size = sizes[-1] + _nested_chars(item)
        if size > caps.MAX_RESULT_CHARS:
            break
        items.append(item)
        sizes.append(size)
    return items, sizes


def _nested_chars(item: ChangedDoc) -> int:
    """The characters of `item` in a page's JSON, two levels deep (indent 2): its one-line
    JSON with a space after each colon, plus the line breaks and indents of its layout."""
    return len(json.dumps(item, ensure_ascii=False, separators=(",", ": "))) + _layout(item, 2)


def _layout(value: object, level: int) -> int:
    """The characters `json.dumps(indent=2)` adds to a value `level` deep: before each
    entry of a non-empty object or array a line break and its indent, and before the
    closing bracket a line break and the indent of the level above."""
    if isinstance(value, dict):
        inner: Iterable[object] = value.values()
    elif isinstance(value, list):
        inner = value
    else:
        return 0
    if not value:
        return 0
    return len(value) * (2 * level + 3) + 2 * level + 1 + sum(_layout(v, level + 1) for v in inner)


def _fits(chars: int) -> bool:
    return chars <= caps.MAX_RESULT_CHARS


def _hidden_links(
    service: Service, is_doc: Callable[[str], bool]
) -> Callable[[str | None, list[str]], set[str]]:
    """Of doc paths at a side of a diff (a commit id; None: the work tree), the symbolic
    links that lead to nothing the gate would serve there."""
    ws = service.workspace

    def hidden(side: str | None, paths: list[str]) -> set[str]:
        if side is None:
            links = [p for p in paths if os.path.islink(os.path.join(ws.root, p))]
            if not links:
                return set()
            kept = {sf.path for sf in discover_paths(ws, service.settings, links)}
            return {p for p in links if p not in kept or not service.scope.allows(p)}
        links = history.links_at(ws, side, paths)
        if not links:
            return set()
        served = tree_blobs(ws, side, [""], lambda path: not is_doc(path))
        return {p for p in links if p not in served}

    return hidden


def _resumes_after(cursor: str | None, check: str) -> str | None:
    """The path after which `cursor` resumes the list (None without one).

    Raises:
        UsageError: the cursor is not a next_cursor of this range.
    """
    try:
        return read_keyset(cursor, check)
    except UsageError:
        raise UsageError(
            f"cursor {shown(cursor)} is not a next_cursor of changed_docs for this range",
            hint="pass next_cursor of the previous answer with the same since and until "
            "(once a branch they name moved, omit cursor to list the changes again)",
        ) from None


def instruction_drift(service: Service) -> Drift:
    """`repo.drift` of the checkout, keeping only instruction files the scope shows."""
    found = drift_mod.drift(service.workspace)
    shows = service.scope.shows
    return found._replace(files=tuple(f for f in found.files if shows(f.path)))


DRIFT_TTL_S = 30.0  # health_check asks often; the upstream ref moves only on a fetch
_drift_cache: dict[tuple[str, str | None], tuple[float, DriftResult]] = {}


def health_drift(service: Service) -> DriftResult:
    """`instruction_drift` for `health_check`, reused for `DRIFT_TTL_S` while HEAD stays;
    a failure is a reason, never an error (health never raises)."""
    from kenso_git.api.git import head_commit
    from kenso_git.errors import KensoError

    key = (str(service.workspace.root), head_commit(service.workspace))
    now = time.monotonic()
    cached = _drift_cache.get(key)
    if cached is not None and now - cached[0] < DRIFT_TTL_S:
        return cached[1]
    try:
        found = cast("DriftResult", instruction_drift(service).to_dict())
    except KensoError as err:
        found = {
            "drifted": False,
            "upstream": None,
            "upstream_commit": None,
            "behind": 0,
            "files": [],
            "reason": service.shown(err.message),
        }
    _drift_cache.clear()  # one checkout per server
    _drift_cache[key] = (now, found)
    return found
