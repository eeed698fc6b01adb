"""The textual rules of the scope gate that a file's own path can break (pure, no I/O).

An agent names a document by its repo-relative path. A path holding a control character,
a percent escape (`%2e`), a backslash or a leading `~` is refused as an argument
(`repo.scope`), so a document whose own path holds one could be found but never opened:
discovery skips it (with a warning saying to rename it) and the gate never shows it.
"""

from __future__ import annotations

import re

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
