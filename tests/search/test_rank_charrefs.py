"""Signal `charrefs` (#31, twenty-second round): a question holding character references
(`&lt;add&gt;`, pasted from a page's source or frontmatter) is read as the characters they
stand for, by the cascade and by every signal alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.search.ranked.cascade import asked
from kenso_git.search.ranked.rank import DEFAULT_ON
from kenso_git.search.ranked.rank import SIGNALS
from tests.search.helpers import ranked_paths
from tests.search.helpers import topics_kb


def test_only_the_signal_resolves_them() -> None:
    # on since the twenty-second round: the rule written before its held-out run held
    assert "charrefs" in SIGNALS and "charrefs" in DEFAULT_ON
    assert asked("&lt;add&gt;", frozenset({"charrefs"})) == "<add>"
    assert asked("&lt;add&gt;", frozenset()) == "&lt;add&gt;"  # `off`: kenso's reading


def test_a_question_with_references_ranks_as_the_characters_it_means(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = topics_kb(
        tmp_path,
        {
            "config/add.md": "# Add\n\nThe `<add>` element adds a MIME type to the list.\n",
            "config/lt-gt.md": (
                "# The lt and gt element\n\nThe lt and gt operators compare an element "
                "with a value: lt is less than, gt is greater than.\n"
            ),
        },
    )
    add, operators = "docs/config/add.md", "docs/config/lt-gt.md"
    question = "The &lt;add&gt; element"

    def ranked(text: str, signals: str) -> list[str]:
        monkeypatch.setenv("KENSO_GIT_RANK", signals)
        return ranked_paths(kb, text)

    assert ranked(question, "-charrefs")[0] == operators  # the words `lt` and `gt`
    assert ranked(question, "+charrefs")[0] == add
    assert ranked(question, "+charrefs") == ranked("The <add> element", "+charrefs")
    assert ranked(question, "") == ranked(question, "+charrefs")  # the defaults
    hit = kb.search(question, limit=1).hits[0]
    assert hit.file_path == add and "lt" not in hit.highlight.lower().split()
