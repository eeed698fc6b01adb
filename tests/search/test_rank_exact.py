"""A section named exactly as the query outranks pages that each share part of it (#18)."""

from __future__ import annotations

from pathlib import Path

from kenso_git.kb import KnowledgeBase
from kenso_git.search.ranked.rank import DEFAULT_ON
from kenso_git.search.ranked.rank import boosts
from tests.helpers import connect_raw
from tests.helpers import docs_kb

FILLER = "Other text about layout, styling and data binding fills this paragraph out.\n\n"
QUERY = "Add code to handle events"
# the shape of a docs-desktop miss: the query is a section of the walkthrough, while the
# how-to page's title, path and first heading each hold three of its four words
FILES = {
    "events/how-to-add-an-event-handler-using-code.md": (
        "# How to add an event handler using code\n\nAttach a handler in code rather than "
        "markup, then handle the events it raises.\n\n" + FILLER
    ),
    "start/walkthrough-first-app.md": (
        "# Walkthrough: your first desktop app\n\nBuild a small expense viewer.\n\n"
        "## Add code to handle events\n\nWire the button so the handler runs on a click.\n\n"
        + FILLER
    ),
}
HOWTO, WALK = (f"docs/{p}" for p in FILES)


def _kb(root: Path) -> KnowledgeBase:
    return docs_kb(root, FILES)


def test_an_exact_heading_beats_partial_title_path_and_heading_matches(tmp_path: Path) -> None:
    kb = _kb(tmp_path)
    found = boosts(connect_raw(kb.db_path), QUERY, [], [HOWTO, WALK], DEFAULT_ON)
    assert found[WALK] > found[HOWTO] > 0
    assert kb.search(QUERY, limit=5).hits[0].file_path == WALK


def test_an_exact_title_still_beats_an_exact_heading(tmp_path: Path) -> None:
    kb = _kb(tmp_path)
    query = "How to add an event handler using code"
    found = boosts(connect_raw(kb.db_path), query, [], [HOWTO, WALK], DEFAULT_ON)
    assert found[HOWTO] > found.get(WALK, 0.0)
    assert kb.search(query, limit=5).hits[0].file_path == HOWTO
