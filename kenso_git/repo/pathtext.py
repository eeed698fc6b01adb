"""The textual rules of the scope gate that a file's own path can break (pure, no I/O).

An agent names a document by its repo-relative path. A path holding a control character,
a percent escape (`%2e`), a backslash or a leading `~` is refused as an argument
(`repo.scope`), so a document whose own path holds one could be found but never opened:
discovery skips it (with a warning saying to rename it) and the gate never shows it.
`check_text` is those checks on an argument, with the length and depth caps; `unindexable`
is them on a file's own path.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from kenso_git.errors import ScopeError

MAX_PATH_CHARS = 4096
# Ignore matching checks every ancestor folder against every ignore file above it, so its
# cost grows with the square of the depth: 2,000 components cost 22-48 s of CPU. No real
# docs tree is 64 folders deep.
MAX_PATH_DEPTH = 64
PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def unnameable(rel: str) -> str | None:
    """Why no path argument may name `rel` as written (a short phrase), or None."""
    if CONTROL.search(rel):
        return "a control character"
    if PERCENT_ESCAPE.search(rel):
        return "a percent escape such as %2e"
    if "\\" in rel:
        return "a backslash"
    if rel.startswith("~"):
        return "a leading ~"
    return None


def oversized(rel: str) -> str | None:
    """Which of the gate's path caps `rel` passes (`too-deep`, `too-long`), or None."""
    if rel.count("/") >= MAX_PATH_DEPTH:
        return f"more than {MAX_PATH_DEPTH} components"
    if len(rel) > MAX_PATH_CHARS:
        return f"more than {MAX_PATH_CHARS} characters"
    return None


def unindexable(rel: str) -> str | None:
    """Why no agent may name the file at `rel` (a short phrase), or None: what the gate
    refuses in a path's text, so neither discovery nor the sync indexes it, and the gate
    never shows it."""
    return oversized(rel) or unnameable(rel)


def refuse(rule: str, text: str, why: str) -> ScopeError:
    """The gate's refusal of `text` by `rule`, saying why (the path cut to 200 characters)."""
    shown = text if len(text) <= 200 else text[:200] + "..."
    return ScopeError(f"path refused ({rule}): {shown!r}: {why}", rule=rule, path=shown)


def check_text(raw: object) -> str:
    """`raw` as a path argument's text, or the gate's refusal of what no path may hold."""
    if not isinstance(raw, str):
        raise ScopeError("path refused (not-a-string)", rule="not-a-string")
    if raw == "" or raw.strip() == "":
        raise ScopeError(
            "path refused (empty-path): give a repo-relative path such as docs/guide.md",
            rule="empty-path",
        )
    if "\x00" in raw:
        raise refuse("nul-byte", raw.replace("\x00", "\\0"), "the path contains a NUL byte")
    if CONTROL.search(raw):
        shown = raw.encode("unicode_escape").decode()
        raise refuse("control-character", shown, "the path contains a control character")
    if len(raw) > MAX_PATH_CHARS:
        raise refuse("too-long", raw, f"paths are limited to {MAX_PATH_CHARS} characters")
    if raw.count("/") >= MAX_PATH_DEPTH:
        raise refuse("too-deep", raw, f"paths are limited to {MAX_PATH_DEPTH} components")
    if PERCENT_ESCAPE.search(raw):
        raise refuse(
            "percent-encoding",
            raw,
            "percent-encoded paths are not decoded; pass the plain path (a file whose name "
            "holds %XX is not served: rename it)",
        )
    if "\\" in raw:
        raise refuse(
            "backslash",
            raw,
            "use forward slashes in repo-relative paths (a file whose name holds a backslash "
            "is not served: rename it)",
        )
    if raw.startswith("~"):
        raise refuse(
            "home-expansion",
            raw,
            "`~` is not expanded; pass a repo-relative path (a file whose name starts with `~` "
            "is not served: rename it)",
        )
    if ".." in PurePosixPath(raw).parts:
        raise refuse("parent-traversal", raw, "`..` components are not allowed")
    return raw
