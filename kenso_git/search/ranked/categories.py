"""The `category` filter of a search: what means "no filter", and the error for a category
no indexed document has (spec §4.1; moved out of search.cascade, #31)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from kenso_git.errors import UsageError
from kenso_git.store import chunkreads

NO_FILTER_CATEGORIES = frozenset({"all", "none", "*", ""})


def category_filter(category: str | None) -> str | None:
    """The exact category to filter on, or None for "no filter" (`all`, `none`, `*`, blank)."""
    if category is None or category.strip().lower() in NO_FILTER_CATEGORIES:
        return None
    return category


def known_categories(conn: sqlite3.Connection) -> list[str]:
    """The categories a `category` filter can match: those of the indexed chunks, sorted."""
    return chunkreads.categories(conn)


def unknown_category_error(category: str, known: Sequence[str]) -> UsageError:
    """The error for a `category` filter no indexed document has, naming the known ones
    (a case-insensitive match first)."""
    shown = ", ".join(known[:_SHOWN_CATEGORIES])
    more = len(known) - _SHOWN_CATEGORIES
    listed = f"known categories: {shown}" + (f" and {more} more" if more > 0 else "")
    close = next((c for c in known if c.casefold() == category.casefold()), None)
    hint = (f"did you mean {close!r}? " if close else "") + listed
    if not known:
        hint = "no indexed document has a category yet"
    return UsageError(
        f"no indexed document has the category {category!r} (categories match exactly)",
        hint=hint + "; `--category all` searches every one",
    )


_SHOWN_CATEGORIES = 30
