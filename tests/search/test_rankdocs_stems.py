"""The stems of a word are worked out once per process (`rankdocs._token_memo`): the same
words whether or not the memo holds them, and the memo stays under its bound."""

from __future__ import annotations

import pytest

from kenso_git.search.ranked import rankdocs
from kenso_git.search.ranked.rankdocs import all_words


def test_a_word_stems_the_same_whether_remembered_or_not(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Configuring HttpClient pointers, C# and .NET: getStartedGuide routes"
    monkeypatch.setattr(rankdocs, "_token_memo", {})
    cold = all_words(text)
    assert rankdocs._token_memo  # remembered now
    assert all_words(text) == cold
    assert {"configur", "httpclient", "http", "client", "pointer", "csharp", "dotnet"} <= cold
    assert {"getstartedguide", "get", "start", "guide", "rout"} <= cold


def test_the_memo_is_emptied_at_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rankdocs, "_token_memo", {})
    monkeypatch.setattr(rankdocs, "TOKEN_MEMO", 5)
    all_words(" ".join(f"word{i}" for i in range(40)))
    assert 0 < len(rankdocs._token_memo) <= 5
