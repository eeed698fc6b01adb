"""Signal `lead` (#31, thirteenth round): the question's words standing together in a page's
lead (the first words of its first chunk) are evidence that the page is the one asked for."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.search.ranked.lead import LEAD_WORDS
from kenso_git.search.ranked.lead import WINDOW
from kenso_git.search.ranked.lead import lead_cover
from kenso_git.search.ranked.lead import leads
from kenso_git.search.ranked.lead import pairs
from kenso_git.search.ranked.rank import DEFAULT_ON
from kenso_git.search.ranked.rank import ENV
from tests.search.helpers import ranked_paths
from tests.search.helpers import topics_kb

QUESTION = "rotate the signing keys of the cluster certificates"
FILLER = "Other matters are described in other sections of this guide. " * 3


def test_pairs_are_the_consecutive_content_words_stemmed() -> None:
    assert pairs(QUESTION) == (
        ("rotate", "sign"),
        ("sign", "keys"),
        ("keys", "cluster"),
        ("cluster", "certificat"),
    )
    assert pairs("keys keys") == ()  # a word next to itself is no pair
    assert pairs("the of and") == ()  # stop words only


def _pages() -> dict[str, str]:
    """`together.md` says the question's words together in its lead, once, then goes on about
    other things; `apart.md` names each of them twice, far apart and after its lead."""
    filler = " ".join(["lorem ipsum dolor sit amet consectetur adipiscing elit"] * 30)
    spaced = " ".join(["sed do eiusmod tempor incididunt"] * 2)
    apart_words = " ".join(
        f"{word} {spaced}" for word in ("rotate", "signing", "keys", "cluster", "certificates") * 2
    )
    return {
        "ops/together.md": "# Operations one\n\nTo rotate signing keys for cluster certificates, "
        f"run the tool once a year.\n\n{filler}\n\n{filler}\n",
        "ops/apart.md": f"# Operations two\n\n{filler}\n\n{apart_words}\n",
    }


def test_lead_cover_counts_the_pairs_standing_together_in_the_lead(tmp_path: Path) -> None:
    kb = topics_kb(tmp_path, _pages())
    cover = kb.read(
        lambda conn: lead_cover(
            QUESTION, leads(conn, ["docs/ops/together.md", "docs/ops/apart.md"])
        )
    )
    assert cover == {"docs/ops/together.md": 1.0}


def test_the_page_whose_lead_says_the_question_ranks_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = topics_kb(tmp_path, _pages())
    assert "lead" not in DEFAULT_ON  # opt-in: it cost a held-out corpus one first place
    # `lead` alone (`opening` also lifts the page whose first words hold the question's)
    monkeypatch.setenv(ENV, "-opening")
    assert ranked_paths(kb, QUESTION)[0] == "docs/ops/apart.md"  # more of the words: BM25
    monkeypatch.setenv(ENV, "-opening,+lead")
    assert ranked_paths(kb, QUESTION)[0] == "docs/ops/together.md"


def test_words_past_the_lead_or_the_window_do_not_count(tmp_path: Path) -> None:
    gap = " ".join(["lorem"] * (WINDOW + 1))
    late = " ".join(["ipsum"] * LEAD_WORDS)
    files = {
        "a/far.md": f"# Far\n\nrotate {gap} signing\n",
        "a/late.md": f"# Late\n\n{late} rotate signing\n",
        "a/near.md": f"# Near\n\nsigning {' '.join(['lorem'] * (WINDOW - 1))} rotate\n",
    }
    kb = topics_kb(tmp_path, files)
    paths = [f"docs/a/{name}.md" for name in ("far", "late", "near")]
    assert kb.read(lambda conn: lead_cover("rotate signing", leads(conn, paths))) == {
        "docs/a/near.md": 1.0
    }
