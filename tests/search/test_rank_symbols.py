"""Language names spelt with symbols (`C++`, `C#`, `F#`, `.NET`) meet the path words of the
pages about them (`cpp`, `csharp`, `fsharp`, `dotnet`): one page per language (#31)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.search.ranked.rankdocs import path_words
from kenso_git.search.ranked.rankdocs import words
from tests.search.helpers import ranked_paths
from tests.search.helpers import topics_kb


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Instrumentation for OpenTelemetry C++", "cpp"),
        ("Samples in C# and Visual Basic", "csharp"),
        ("(F#)", "fsharp"),
        ("Windows Forms for .NET.", "dotnet"),
        ("C++/CLI", "cpp"),
    ],
)
def test_a_symbol_name_is_the_word_its_path_uses(text: str, word: str) -> None:
    assert word in words(text)
    assert word in path_words(f"docs/languages/{word}/instrumentation.md")


@pytest.mark.parametrize("text", ["example.net", "ASP.NET Core", "c++17", "E#", "a+b"])
def test_symbols_inside_words_and_host_names_stay_as_they_were(text: str) -> None:
    assert not words(text) & {"cpp", "csharp", "fsharp", "dotnet"}


def test_the_question_naming_cpp_finds_the_cpp_page_of_its_parallels(tmp_path: Path) -> None:
    # one page per language with the same text; the language is only in the folder name
    # (and, for C++, spelt with symbols in the question)
    text = (
        "---\ntitle: Instrumentation\n---\n\n# Instrumentation\n\nAdd spans and metrics to "
        "your service with the SDK: create a tracer, start a span around each request and "
        "record its attributes.\n"
    )
    files = {f"languages/{lang}/instrumentation.md": text for lang in ("ada", "basic", "cpp")}
    files.update(
        {
            f"languages/{lang}/registry.md": text.replace("Instrumentation", "Registry")
            for lang in ("ada", "basic", "cpp")
        }
    )
    kb = topics_kb(tmp_path, files)
    assert ranked_paths(kb, "Instrumentation for OpenTelemetry C++")[0] == (
        "docs/languages/cpp/instrumentation.md"
    )
