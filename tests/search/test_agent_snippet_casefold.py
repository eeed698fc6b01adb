"""The `search` snippet holds the matched word when letters before it casefold to more
characters (German ß -> ss, Turkish İ -> i̇, ligatures). The match was found in
`content.casefold()` and its offset applied to the original text, so the window drifted one
character right per such letter: 48 ß pushed the word out of the 100-character snippet."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.search.lang.agent import SearchRequest
from tests.helpers import init_repo

AFTER = "und dann noch etwas Text danach, damit der Absatz lang genug ist. " + (
    "Weiterer Text folgt hier. " * 10
)


@pytest.mark.parametrize(
    ("sentence", "query"),
    [
        ("Die große Straße ist groß und weiß.", "Ventilsteuerung"),  # 4 ß a sentence: 48
        ("İstanbul İzmir İnebolu İskele.", "ventilsteuerung"),  # İ -> i + combining dot
        ("Die ﬁrma ﬂießt oﬀen.", "VENTILSTEUERUNG"),  # ligatures fold to 2 or 3 letters
    ],
)
def test_the_snippet_holds_the_match_after_letters_that_casefold_longer(
    tmp_path: Path, sentence: str, query: str
) -> None:
    before = " ".join([sentence] * 12)
    text = f"# Anleitung\n\n{before} Hier steht das Zielwort Ventilsteuerung {AFTER}\n"
    root = init_repo(tmp_path / "repo", {"docs/de.md": text})
    kb = KnowledgeBase.open(root)
    kb.ingest()
    for mode in ("ranked", "exhaustive"):
        hit = kb.agent_search(SearchRequest(query, mode=mode))["results"][0]
        # before: 'dann noch etwas Text danach, ...' (ß), the word cut off or left out
        assert "Ventilsteuerung" in hit["snippet"], (mode, hit["snippet"])
        assert hit["snippet"].startswith("Hier steht das Zielwort"), hit["snippet"]
