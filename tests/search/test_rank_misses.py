"""The signals for issue #31's miss classes, each on a small corpus where it decides the order."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.search.ranked import rank
from kenso_git.search.ranked.rank import DEFAULT_ON
from kenso_git.search.ranked.rank import ENV
from kenso_git.search.ranked.rank import cascade_threshold
from kenso_git.search.ranked.rankdocs import redirect_words
from kenso_git.search.ranked.rankdocs import summary_words
from tests.helpers import docs_kb
from tests.helpers import ranked_without
from tests.search.helpers import ranked_paths
from tests.search.helpers import topics_kb


def test_fill_threshold_is_a_page_whatever_the_limit() -> None:
    assert "fill" in DEFAULT_ON
    assert cascade_threshold(5, DEFAULT_ON) == 10
    assert cascade_threshold(50, DEFAULT_ON) == 10
    assert cascade_threshold(5, DEFAULT_ON - {"fill"}) == 3
    assert cascade_threshold(1, frozenset()) == 1


def test_fill_finds_the_page_that_lacks_one_word_of_the_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # three pages hold every word of the question ("describes" included) in passing; the
    # page the question is about lacks the lead-in "describes"
    passing = "This page describes many things, among them a retry policy for a sidecar. "
    files = {f"misc{i}.md": f"# Misc {i}\n\n{passing}Unrelated notes {i}.\n" for i in range(3)}
    files["retry.md"] = (
        "# Sidecar Retry Policy\n\nThe sidecar retry policy sets how often a failed call "
        "is tried again and how long it waits in between.\n"
    )
    kb = topics_kb(tmp_path, files)
    question = "describes the retry policy of a sidecar"
    monkeypatch.setenv(ENV, "-fill")  # kenso's threshold: the AND stage's 3 pages are enough
    assert "docs/retry.md" not in ranked_paths(kb, question)
    monkeypatch.delenv(ENV)
    assert ranked_paths(kb, question)[0] == "docs/retry.md"


def test_a_sibling_summary_sharing_half_the_question_does_not_outrank_its_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the question describes slash.md (whose own description is not in the index); urls.md's
    # description shares half its words ("every generated link URL")
    kb = topics_kb(
        tmp_path,
        {
            "slash.md": "---\ntitle: Link Normalization\n---\n\n# Link Normalization\n\nThe "
            "builder can drop the trailing slash of each generated URL so that links stay "
            "canonical. Set the option once.\n",
            "urls.md": "---\ntitle: URL Settings\ndescription: Settings for every generated "
            "link and URL of the site.\n---\n\n# URL Settings\n\nThe base address, the ports "
            "and the language prefixes are configured here.\n",
        },
    )
    question = "remove the trailing slash from every generated link URL"
    monkeypatch.setattr(rank, "TUNING", rank.TUNING._replace(summary_power=1.0))  # partial = whole
    assert ranked_paths(kb, question)[0] == "docs/urls.md"
    monkeypatch.undo()
    assert ranked_paths(kb, question)[:2] == ["docs/slash.md", "docs/urls.md"]


def test_parallel_pages_are_told_apart_by_the_word_only_their_path_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # one page per language with the same text; the js page's body shares one more word of
    # the question after the opening they share, the question names python, which only the
    # path says
    body = (
        "# Exporters\n\nSend telemetry to a backend with an exporter. Install the exporter "
        "package, then register it when the SDK starts. Exporter settings are read from the "
        "environment, and each one can be changed later in the configuration file that the "
        "SDK reads at start.\n"
    )
    languages = {
        f"languages/{('python', 'js')[i % 2]}/topic{i}.md": f"# Topic {i}\n\nSubject {i}.\n"
        for i in range(12)
    }
    kb = docs_kb(
        tmp_path,
        {
            **languages,
            "languages/js/exporters.md": body + "\nThe exporter batches telemetry and retries.\n",
            "languages/python/exporters.md": body,
            "languages/go/exporters.md": body + "\nGo modules pin the version.\n",
        },
    )
    question = "python exporter batches retries"
    monkeypatch.setattr(rank, "TUNING", rank.TUNING._replace(path=0.1))  # before #31
    assert ranked_paths(kb, question)[0] == "docs/languages/js/exporters.md"
    monkeypatch.setenv(ENV, "+parallel")  # the opt-in signal decides it too
    assert ranked_paths(kb, question)[0] == "docs/languages/python/exporters.md"
    monkeypatch.undo()
    assert ranked_paths(kb, question)[0] == "docs/languages/python/exporters.md"


def _hub_files() -> dict[str, str]:
    """A hub page whose headings link to each topic over that topic's summary (PowerShell's
    About.md), long enough that each heading is a chunk of its own; the topics' own
    summaries are not in the index."""
    names = [f"about_Thing{i}" for i in range(50)]
    sections = "".join(
        f"### [{n}]({n}.md)\n\nExplains how thing number {i} is configured and reset.\n\n"
        for i, n in enumerate(names)
    )
    files = {
        "about/About.md": f"# About topics\n\n## About Topics\n\n{sections}"
        "### [about_Aliases](about_Aliases.md)\n\nDescribes how to use alternate names for "
        "cmdlets and commands in the shell.\n\n",
        "about/about_Aliases.md": "# about_Aliases\n\n## Long description\n\nAn alias is an "
        "alternate name for a cmdlet, function or script. The shell ships with many, and "
        "you can add your own for a session or a profile.\n",
    }
    for n in names:
        files[f"about/{n}.md"] = f"# {n}\n\nA topic page.\n"
    return files


def test_a_hub_heading_linking_to_a_page_is_that_pages_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = topics_kb(tmp_path, _hub_files())
    question = "Describes how to use alternate names for cmdlets and commands"
    monkeypatch.setenv(ENV, "-linked")
    assert ranked_paths(kb, question)[0] == "docs/about/About.md"
    monkeypatch.delenv(ENV)
    assert ranked_paths(kb, question)[:2] == ["docs/about/about_Aliases.md", "docs/about/About.md"]


def test_a_linked_page_the_scope_hides_is_not_handed_the_evidence(tmp_path: Path) -> None:
    kb = topics_kb(tmp_path, _hub_files())
    question = "Describes how to use alternate names for cmdlets and commands"
    hidden = "docs/about/about_Aliases.md"
    shown = ranked_without(kb, question, hidden)
    assert shown[0] == "docs/about/About.md"
    assert hidden not in shown


def test_url_aliases_are_summary_words_only_under_redirects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a static site's redirect path holds the question's words; the page that answers it
    # says them in its text
    kb = topics_kb(
        tmp_path,
        {
            "resiliency/policies.md": "---\ntitle: Resiliency Policies\n---\n\n# Resiliency "
            "Policies\n\nConfigure a retry policy to say how often an application tries a "
            "failed call again, and a timeout policy how long it may take.\n",
            "resiliency/overview.md": "---\ntitle: Resiliency Overview\naliases:\n  - "
            "/developing-applications/retry-policy-configure/\n---\n\n# Resiliency Overview"
            "\n\nApplications fail in many ways; this section shows what helps them recover.\n",
        },
    )
    question = "configure the retry policy of an application"
    labels = "Also known as: /a/retry-policy/, gcm, x.html"
    assert summary_words(labels) == {"gcm", "x", "html"}
    assert redirect_words(labels) == {"retry", "policy"}  # "a" is a stop word
    assert "redirects" in DEFAULT_ON  # the old URLs' words helped the tuning half
    assert ranked_paths(kb, question)[0] == "docs/resiliency/overview.md"
    monkeypatch.setenv(ENV, "-redirects")
    assert ranked_paths(kb, question)[0] == "docs/resiliency/policies.md"


def test_an_include_snippet_ranks_below_the_page_that_includes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = topics_kb(
        tmp_path,
        {
            "_includes/retry-note.md": "---\n---\n\nA failed call is retried three times, "
            "waiting longer before each retry.\n",
            "calls/retries.md": "---\ntitle: Retries\n---\n\n# Retries\n\nA failed call is "
            "retried, with a wait between attempts.\n\n[!INCLUDE [note](../_includes/"
            "retry-note.md)]\n",
        },
    )
    question = "how long does a failed call wait before each retry"
    assert "include" in DEFAULT_ON  # on since #31's eighteenth round
    monkeypatch.setenv(ENV, "-include")
    assert ranked_paths(kb, question)[0] == "docs/_includes/retry-note.md"
    monkeypatch.delenv(ENV)
    assert ranked_paths(kb, question)[:2] == [
        "docs/calls/retries.md",
        "docs/_includes/retry-note.md",
    ]


def _overview_files() -> dict[str, str]:
    # the product's overview page names it in its title and throughout; the printing page
    # says what it is about once, and abbreviates the product as its siblings do
    body = "Windows Presentation Foundation (WPF) is a user interface framework. "
    return {
        "overview.md": "---\ntitle: What is Windows Presentation Foundation\n---\n\n"
        f"# Windows Presentation Foundation\n\n{body * 3}It has controls, layout, data "
        "binding, graphics and documents.\n",
        "printing.md": "---\ntitle: Printing overview\n---\n\n# Printing overview\n\n"
        "Print documents and manage the print system from a WPF app.\n",
        "layout.md": "---\ntitle: Layout\n---\n\n# Layout\n\nHow a WPF window arranges "
        "its elements.\n",
    }


def test_a_name_spelt_out_and_abbreviated_is_one_word_of_the_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = topics_kb(tmp_path, _overview_files())
    question = "Learn about the printing and print system management APIs in Windows "
    question += "Presentation Foundation (WPF)."
    monkeypatch.setenv(ENV, "-abbrev")  # four words: the overview's title covers three
    assert ranked_paths(kb, question)[0] == "docs/overview.md"
    monkeypatch.delenv(ENV)
    assert ranked_paths(kb, question)[:2] == ["docs/printing.md", "docs/overview.md"]


def test_only_a_run_of_words_its_letters_spell_is_an_abbreviation() -> None:
    from kenso_git.search.ranked.abbrev import spelled_out

    found = spelled_out("Tabs in the Integrated Scripting Environment ISE and the CLI")
    assert [(sorted(s.long), s.short) for s in found] == [
        (["environment", "integrat", "script"], "ise")
    ]
    assert spelled_out("the ise of WPF in Windows") == ()  # lower case; letters not spelt
    assert spelled_out("OpenTelemetry OTel") == ()  # not an initialism
