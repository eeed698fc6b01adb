from __future__ import annotations

import pytest

from kenso_git.search.preview import clean_highlight
from kenso_git.search.preview import content_highlight
from kenso_git.search.preview import content_preview
from kenso_git.search.preview import first_sentence
from kenso_git.search.preview import match_source
from kenso_git.search.preview import plain_line
from kenso_git.search.preview import query_terms
from kenso_git.search.preview import smart_preview
from tests.shapes import best_time
from tests.shapes import size_for


def test_query_terms_keep_two_character_tokens_and_stop_words() -> None:
    assert query_terms("How to a CI?") == ["how", "to", "ci"]


def test_match_source_prefers_title_then_section_tags_category() -> None:
    assert match_source(["deploy"], "Deployment Guide", "Deployment Guide", [], "ops") == "title"
    assert match_source(["retry"], "Payments", "Payments > Retry", [], "ops") == "section_path"
    assert match_source(["helm"], "Payments", "", ["helm charts"], "ops") == "tags"
    assert match_source(["ops"], "Payments", "", ["helm"], "ops") == "category"
    assert match_source(["zzz"], "Payments", "", ["helm"], "ops") == "content"


def test_match_source_matches_at_word_starts_only() -> None:
    # kenso: "to" matched "Tokens" and "ken" matched "Tokens" as substrings
    assert match_source(["to"], "Tokens", "", [], "general") == "content"
    assert match_source(["ken"], "Tokens", "", [], "general") == "content"
    assert match_source(["tok"], "Tokens", "", [], "general") == "title"
    assert match_source(["to"], "How to deploy", "", [], "general") == "title"
    assert match_source(["commit"], "pre-commit hooks", "", [], "general") == "title"


def test_smart_preview_skips_headings_fences_and_tables() -> None:
    text = "## Heading\n\n```bash\nmake build\n```\n| a | b |\nFirst line.\n  Second line.  \n"
    assert smart_preview(text, 200) == "make build First line. Second line."


def test_smart_preview_cuts_to_the_budget() -> None:
    text = "word " * 100
    preview = smart_preview(text, 20)
    assert preview == ("word " * 100).strip()[:20] + "..."


def test_smart_preview_of_only_skipped_lines_falls_back_to_raw_text() -> None:
    assert smart_preview("# Title\n| x |", 5) == "# Tit..."


def test_first_sentence_cuts_after_the_first_period_space() -> None:
    assert first_sentence("One sentence here. Another one.", 100) == "One sentence here."
    assert first_sentence("No period at all", 100) == "No period at all"


def test_content_preview_title_rule() -> None:
    content = "Failed payments are retried. Then they fail."
    preview = content_preview(
        "title",
        title="Payments",
        section_path="",
        tags=[],
        category="ops",
        content=content,
        terms=["payments"],
        budget=200,
    )
    assert preview == "Payments — Failed payments are retried."
    short = content_preview(
        "title",
        title="T" * 190,
        section_path="",
        tags=[],
        category="",
        content=content,
        terms=[],
        budget=200,
    )
    assert short == "T" * 190


def test_content_preview_tags_and_category_prefixes() -> None:
    common = {"title": "X", "section_path": "", "content": "Body text. More.", "budget": 200}
    tags = content_preview("tags", tags=["helm", "kube"], category="", terms=["helm"], **common)
    assert tags == "Tags: helm — Body text."
    cat = content_preview("category", tags=[], category="ops", terms=["ops"], **common)
    assert cat == "Category: ops — Body text."


def test_highlight_cut_before_an_internal_label() -> None:
    content = "Deploying needs a cluster."
    snippet = "<mark>Deploying</mark> needs a cluster.\n\nKeywords: <mark>deploy</mark>"
    assert clean_highlight(snippet, content, ["deploying"]) == (
        "<mark>Deploying</mark> needs a cluster."
    )


def test_highlight_inside_internal_lines_is_rebuilt_from_content() -> None:
    content = "Intro words here. The orderMatchingEngine pairs bids."
    snippet = "...\n\nExpanded terms: order <mark>matching</mark> engine"
    assert clean_highlight(snippet, content, ["matching"]) == (
        "Intro words here. The <mark>orderMatchingEngine</mark> pairs bids."
    )


def test_a_snippet_that_marks_nothing_is_rebuilt_from_content() -> None:
    """The index matched the chunk's expanded terms, which its external content does not
    show (schema 5): FTS5's snippet is then the text's tail, unmarked."""
    content = "Intro words here. The orderMatchingEngine pairs bids. " + "More words. " * 10
    assert clean_highlight("...More words.", content, ["matching"]) == (
        content_highlight(content, ["matching"])
    )
    assert "<mark>orderMatchingEngine</mark>" in content_highlight(content, ["matching"])


def test_content_highlight_windows_long_content() -> None:
    content = " ".join(f"w{i}" for i in range(100)) + " target " + "tail " * 50
    text = content_highlight(content, ["target"])
    assert text.startswith("...") and text.endswith("...")
    assert "<mark>target</mark>" in text
    assert len(text.strip(".").split()) == 32


def test_previews_are_plain_text_without_ragged_lines() -> None:
    text = (
        "> **Note:** see [the guide](docs/guide.md) and `make build`.\n"
        "- first   item with ~~old~~ <br> words\n"
        "1. ![diagram](d.png) numbered\n"
    )
    assert smart_preview(text, 200) == (
        "Note: see the guide and make build. first item with old words diagram numbered"
    )
    assert smart_preview("# Title\n\n| a |\n|  b |", 200) == "# Title | a | | b |..."
    assert "snake_case_name" in smart_preview("Call snake_case_name here.", 200)


def test_previews_drop_directive_markup_as_they_drop_markdown() -> None:
    """#26: DocFX directives and cross-references reached previews as markup."""
    text = (
        "> [!NOTE]\n"
        "> Bind to the <xref:System.Windows.Forms.BindingSource> component first.\n"
        ':::image type="content" source="media/a.png" alt-text="A window with a button":::\n'
        ':::code language="csharp" source="snippets/App.cs" id="Create":::\n'
        "Call <xref:System.Windows.MessageBox.Show%2A?displayProperty=fullName> or set "
        "<xref:System.Windows.Application.StartupUri%2A?displayProperty=nameWithType>.\n"
        'Set its :::no-loc text="width"::: in a <xref:System.Collections.Generic.List%601>.\n'
        "[!INCLUDE [cas-unsupported](~/wpf/includes/cas-unsupported.md)]\n"
        '[!div class="checklist"]\n'
        ':::zone pivot="dotnet"\n'
        ":::image-end:::\n"
    )
    assert smart_preview(text, 400) == (
        "Bind to the BindingSource component first. A window with a button "
        "Call System.Windows.MessageBox.Show or set Application.StartupUri. "
        "Set its width in a List."
    )


def test_colons_that_open_no_directive_are_left_as_written() -> None:
    assert smart_preview("Ratios 3:::4 and a:::b stay.", 200) == "Ratios 3:::4 and a:::b stay."


_DIRECTIVE_SHAPES = {
    "open directives": lambda n: " :::image alt-text=" * n,
    "unclosed xrefs": lambda n: "<xref:" * n,
    "xrefs": lambda n: "<xref:System.A.B?displayProperty=fullName> " * n,
    "includes": lambda n: "[!INCLUDE [" * n,
    "alerts": lambda n: "[!div [!NOTE" * n,
}


@pytest.mark.parametrize("name", sorted(_DIRECTIVE_SHAPES))
def test_directive_markup_costs_linear_time_on_one_long_line(name: str) -> None:
    """CPU time of 4x the input stays under 8x (quadratic work would take ~16x)."""
    shape = _DIRECTIVE_SHAPES[name]
    n = size_for(shape, 16_000)
    small, large = shape(n), shape(4 * n)
    ratio = min(
        best_time(lambda: plain_line(large), 3) / max(best_time(lambda: plain_line(small), 3), 1e-6)
        for _ in range(3)
    )
    assert ratio < 8, f"{name}: x4 input took x{ratio:.1f} time"
