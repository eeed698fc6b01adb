"""Signal `inlinks` (#31): the text other pages link to a page with is a field of that page."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.search.ranked.inlinks import field
from kenso_git.search.ranked.inlinks import gather
from kenso_git.search.ranked.rank import DEFAULT_ON
from kenso_git.search.ranked.rank import ENV
from kenso_git.search.ranked.rankdocs import path_words
from kenso_git.search.ranked.rankdocs import words
from tests.search import test_rank_kenso_eval as kenso_eval
from tests.search.helpers import ranked_paths
from tests.search.helpers import topics_kb
from tests.search.test_rank_kenso_eval import Eval
from tests.search.test_rank_kenso_eval import eval_kb  # noqa: F401  # the fixture, shared

QUESTION = "rotate the expiring certificates of the service mesh"


def _site(link: str) -> dict[str, str]:
    """A long runbook that links the mTLS page in a sentence with `link`; the mTLS page
    itself never says "rotate" nor "expiring"."""
    chores = "".join(
        f"## Chore {i}\n\nRestart worker {i}, clear its queue, read the gateway's logs and "
        "compare the counts with last week's.\n\n"
        for i in range(12)
    )
    return {
        "ops/runbook.md": "# Runbook\n\n## Daily checks\n\nLook at the dashboards each "
        f"morning. When the proxies report a problem, {link}.\n\n{chores}",
        "security/mtls.md": "# Mutual TLS\n\nEach proxy of the service mesh holds "
        "certificates that the control plane signs. The certificates of the mesh are short "
        "lived; a proxy presents its certificates to its peers in the mesh.\n",
        "security/policy.md": "# Authorization policy\n\nA policy says which service may "
        "call which; the mesh checks it at the proxy.\n",
        "mesh/install.md": "# Install the mesh\n\nInstall the control plane, then the "
        "proxies of each service.\n",
    }


LINK = "[rotate the expiring certificates](../security/mtls.md)"


def test_a_page_named_only_by_the_links_to_it_ranks_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = topics_kb(tmp_path, _site(LINK))
    monkeypatch.delenv(ENV, raising=False)
    assert "inlinks" not in DEFAULT_ON  # the tuning half did not earn it (#31, tenth round)
    assert ranked_paths(kb, QUESTION)[0] == "docs/ops/runbook.md"
    monkeypatch.setenv(ENV, "+inlinks")
    assert ranked_paths(kb, QUESTION)[0] == "docs/security/mtls.md"


@pytest.mark.parametrize(
    "link",
    [
        "[see here](../security/mtls.md)",  # generic
        "[Mutual TLS](../security/mtls.md)",  # only the target's title
        "[mtls](../security/mtls.md)",  # only its file name
        "[https://example.com/x](../security/mtls.md)",  # a bare URL
        "[rotate the expiring certificates](nowhere.md)",  # names no indexed page
    ],
)
def test_link_texts_that_say_nothing_more_are_not_gathered(tmp_path: Path, link: str) -> None:
    kb = topics_kb(tmp_path, _site(link))
    path = "docs/security/mtls.md"
    assert field(kb.read(gather), path, words("Mutual TLS") | path_words(path)) == frozenset()


def test_a_page_linking_to_itself_is_not_its_own_evidence(tmp_path: Path) -> None:
    files = {"a/page.md": "# Page\n\nSee [rotate certificates](page.md) and [more](#x).\n"}
    kb = topics_kb(tmp_path, files)
    assert "docs/a/page.md" not in kb.read(gather).texts


@pytest.mark.parametrize(
    ("href", "layout"),
    [
        ("/security/mtls/", "site"),  # a site URL, resolved under the content folder
        ('{{< ref "/security/mtls.md" >}}', "site"),  # a Hugo shortcode
        ("../security/mtls.md#rotation", "docs"),  # a relative path with a fragment
    ],
)
def test_links_resolve_as_the_anchors_signal_resolves_them(
    tmp_path: Path, href: str, layout: str
) -> None:
    files = _site(f"[rotate the expiring certificates]({href})")
    if layout == "site":
        files = {f"content/{p}": text for p, text in files.items()}
    kb = topics_kb(tmp_path, files)
    target = "docs/content/security/mtls.md" if layout == "site" else "docs/security/mtls.md"
    assert kb.read(gather).texts[target] == (words("rotate the expiring certificates"),)


def test_a_reference_style_link_resolves_through_its_definition(tmp_path: Path) -> None:
    files = _site("[rotate the expiring certificates][rotation]")
    files["ops/runbook.md"] += "\n[rotation]: ../security/mtls.md\n"
    kb = topics_kb(tmp_path, files)
    assert kb.read(gather).texts["docs/security/mtls.md"] == (
        words("rotate the expiring certificates"),
    )


@pytest.mark.parametrize(
    "href",
    [
        "https://example.com/docs/<VERSION>/security/mtls/",  # the site's address, versioned
        "../../security/mtls/",  # relative to the page's published URL
    ],
)
def test_a_url_written_another_way_names_the_one_page_its_last_names_name(
    tmp_path: Path, href: str
) -> None:
    kb = topics_kb(tmp_path, _site(f"[rotate the expiring certificates]({href})"))
    assert kb.read(gather).texts["docs/security/mtls.md"] == (
        words("rotate the expiring certificates"),
    )


@pytest.mark.parametrize(
    "text",
    [
        "Mutual TLS of the mesh",  # the title and one word more
        "certificate rotation",  # the name of one of its sections
    ],
)
def test_a_text_that_repeats_the_title_or_a_section_is_no_field(tmp_path: Path, text: str) -> None:
    files = _site(f"[{text}](../security/mtls.md)")
    files["security/mtls.md"] += "\n## Certificate rotation\n\nThe control plane signs anew.\n"
    kb = topics_kb(tmp_path, files)
    links = kb.read(gather)
    path = "docs/security/mtls.md"
    assert links.texts[path] == (words(text),)
    own = words("Mutual TLS") | path_words(path)
    assert field(links, path, own, [words("Mutual TLS"), words("Certificate rotation")]) == set()


def test_kensos_eval_stays_perfect_with_inlinks(
    eval_kb: Eval,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kenso_eval.test_kensos_36_query_eval_hit5_and_mrr_are_perfect(eval_kb, "+inlinks", monkeypatch)
