"""The document-level ranking signals of search/ranked/rank.py (#18), on real ingested folders."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.search.ranked.rank import DEFAULT_ON
from kenso_git.search.ranked.rank import ENV
from kenso_git.search.ranked.rank import SIGNALS
from kenso_git.search.ranked.rank import TUNING
from kenso_git.search.ranked.rank import Evidence
from kenso_git.search.ranked.rank import boosts
from kenso_git.search.ranked.rank import compressed
from kenso_git.search.ranked.rank import enabled_signals
from kenso_git.search.ranked.rank import words
from tests.helpers import connect_raw
from tests.helpers import docs_kb
from tests.search.helpers import topics_kb

FILLER = "Other text about layout, styling and data binding fills this paragraph out.\n\n"


def _kb(root: Path, files: dict[str, str]) -> KnowledgeBase:
    return docs_kb(root, files)


def _top(kb: KnowledgeBase, query: str) -> list[str]:
    return [h.file_path for h in kb.search(query, limit=5).hits]


@pytest.fixture
def titled(tmp_path: Path) -> KnowledgeBase:
    """`grid.md` is the page titled "Column Resizing"; `guide.md` has a section of that name
    that says the words more often."""
    return _kb(
        tmp_path,
        {
            "grid.md": "# Column Resizing\n\nDrag the edge of a header to change its width.\n\n"
            + FILLER * 3,
            "guide.md": "# Table Guide\n\n## Column Resizing\n\nColumn resizing: every column "
            "supports resizing, and column resizing of each column is fast. Resizing a column "
            "twice keeps the column resizing smooth.\n\n",
        },
    )


def test_the_document_titled_like_the_query_ranks_first(
    titled: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, "off")
    assert _top(titled, "Column Resizing")[0] == "docs/guide.md"  # kenso's order: body BM25
    monkeypatch.setenv(ENV, "-title")
    assert _top(titled, "Column Resizing")[0] == "docs/guide.md"
    monkeypatch.delenv(ENV)
    assert _top(titled, "Column Resizing")[0] == "docs/grid.md"


def test_a_heading_that_is_the_query_outweighs_one_that_only_shares_a_word(
    tmp_path: Path,
) -> None:
    kb = _kb(
        tmp_path,
        {
            "a.md": "# Alpha\n\n## Token storage and rotation\n\nKeys live in a vault.\n\n"
            + FILLER,
            "b.md": "# Beta\n\n## Token refresh\n\nThe client renews its token hourly.\n\n"
            + FILLER,
        },
    )
    paths = ["docs/a.md", "docs/b.md"]
    found = boosts(_conn(kb), "token refresh", [], paths, frozenset({"heading"}))
    assert found["docs/b.md"] == pytest.approx(TUNING.heading)  # full cover
    assert 0 < found["docs/a.md"] < found["docs/b.md"]


def _conn(kb: KnowledgeBase) -> sqlite3.Connection:
    return connect_raw(kb.db_path)


def test_spread_rewards_several_matching_chunks_up_to_a_cap(titled: KnowledgeBase) -> None:
    conn = _conn(titled)
    paths = ["docs/grid.md", "docs/guide.md"]
    many = [Evidence("docs/guide.md", 1.0, 0)] * 9 + [Evidence("docs/grid.md", 1.0, 0)]
    four = [Evidence("docs/guide.md", 1.0, 0)] * 4
    spread = boosts(conn, "zzz unrelated", many, paths, frozenset({"spread"}))
    assert spread.get("docs/grid.md", 0.0) == 0.0
    assert (
        spread["docs/guide.md"]
        == boosts(conn, "zzz", four, paths, frozenset({"spread"}))["docs/guide.md"]
    )
    assert boosts(conn, "zzz", many, paths, frozenset()) == {}


def test_an_index_page_whose_folder_the_query_names_is_boosted(tmp_path: Path) -> None:
    kb = _kb(
        tmp_path,
        {
            "widgets/index.md": "# Overview\n\nAll the pieces of the toolkit, by kind.\n\n"
            + FILLER,
            "widgets/slider.md": "# Slider\n\nA slider picks a value from a range.\n\n" + FILLER,
        },
    )
    paths = ["docs/widgets/slider.md", "docs/widgets/index.md"]
    found = boosts(_conn(kb), "widgets", [], paths, frozenset({"index"}))
    assert set(found) == {"docs/widgets/index.md"}


def test_near_duplicate_titles_keep_the_title_boost_for_the_best_path(tmp_path: Path) -> None:
    kb = _kb(
        tmp_path,
        {
            "wpf/overview.md": "# Overview\n\nThe desktop framework, from the top.\n\n" + FILLER,
            "forms/overview.md": "# Overview\n\nThe older toolkit, from the top.\n\n" + FILLER,
        },
    )
    paths = ["docs/wpf/overview.md", "docs/forms/overview.md"]
    on = frozenset({"title", "path", "dedupe"})
    found = boosts(_conn(kb), "forms overview", [], paths, on)
    assert found["docs/forms/overview.md"] > found["docs/wpf/overview.md"]
    off = boosts(_conn(kb), "forms overview", [], paths, on - {"dedupe"})
    assert off["docs/wpf/overview.md"] > found["docs/wpf/overview.md"]


def test_switch_values() -> None:
    assert enabled_signals("") == DEFAULT_ON
    assert enabled_signals("off") == frozenset()
    assert enabled_signals("all") == frozenset(SIGNALS)
    assert enabled_signals("-spread,+dedupe") == (DEFAULT_ON - {"spread"}) | {"dedupe"}
    assert enabled_signals("title,nonsense") == frozenset({"title"})


def test_words_stem_and_split_camel_case() -> None:
    assert words("DataGrid pointers") == {"datagrid", "data", "grid", "pointer"}
    assert words("how to use the index.md") == {"use", "index"}


def test_the_title_cache_follows_a_new_ingest(titled: KnowledgeBase) -> None:
    paths = ["docs/grid.md", "docs/guide.md"]
    before = boosts(_conn(titled), "column resizing", [], paths, frozenset({"title"}))
    assert set(before) == {"docs/grid.md"}
    grid = titled.workspace.root / "docs" / "grid.md"
    grid.write_text("# Row Heights\n\nDrag the edge of a row.\n\n" + FILLER, encoding="utf-8")
    titled.ingest()
    assert boosts(_conn(titled), "column resizing", [], paths, frozenset({"title"})) == {}


def test_idf_weighs_a_word_every_candidate_title_has_below_a_rare_one(tmp_path: Path) -> None:
    """npm's case: every page title starts with `npm`; a title matching only that word must
    not beat one matching the query's rare word (#18)."""
    kb = _kb(
        tmp_path,
        {
            "tool.md": "# Tool\n\nThe command line front end.\n\n" + FILLER,
            "install.md": "# Tool Install\n\nAdds a package.\n\n" + FILLER,
            "publish.md": "# Tool Publish\n\nUploads a package.\n\n" + FILLER,
            "run.md": "# Tool Run\n\nRuns a script.\n\n" + FILLER,
            "mirrors.md": "# Registry Mirrors\n\nWhere packages are fetched from.\n\n" + FILLER,
        },
    )
    paths = [f"docs/{name}.md" for name in ("tool", "install", "publish", "run", "mirrors")]
    plain = boosts(_conn(kb), "tool registry", [], paths, frozenset({"title"}))
    assert plain["docs/tool.md"] > plain["docs/mirrors.md"]  # each word counts the same
    weighed = boosts(_conn(kb), "tool registry", [], paths, frozenset({"title", "idf"}))
    assert weighed["docs/mirrors.md"] > weighed["docs/tool.md"]
    assert "idf" in DEFAULT_ON


def test_hspec_discounts_a_heading_every_candidate_shares(tmp_path: Path) -> None:
    kb = _kb(
        tmp_path,
        {
            f"{name}.md": f"# {name.title()}\n\n## Synopsis\n\nRun {name} with flags.\n\n"
            + (f"## {name.title()} output format\n\nColumns of text.\n\n" if name == "ls" else "")
            + FILLER
            for name in ("ls", "cp", "mv")
        },
    )
    paths = ["docs/ls.md", "docs/cp.md", "docs/mv.md"]
    on = frozenset({"heading", "hspec"})
    shared = boosts(_conn(kb), "synopsis", [], paths, frozenset({"heading"}))
    assert set(shared) == set(paths)  # without hspec: a full cover for each
    assert boosts(_conn(kb), "synopsis", [], paths, on) == {}
    own = boosts(_conn(kb), "ls output format", [], paths, on)
    assert own["docs/ls.md"] == pytest.approx(TUNING.heading)  # a heading of its own


def test_word_weights_sum_the_same_in_any_order() -> None:
    # a set's order follows the hash seed: a plain float sum of 0.1, 0.2 and 0.3 is 0.6 in
    # one order and 0.6000000000000001 in another, and pages tied on their signals came
    # back in a different order from one process to the next
    from kenso_git.search.ranked.weights import Weights

    weights = Weights({}, 1)
    values = {"a": 0.1, "b": 0.2, "c": 0.3}
    weights.memo.update(values)
    totals = {
        weights.summed(order) for order in (["a", "b", "c"], ["c", "b", "a"], ["b", "c", "a"])
    }
    assert totals == {0.6}


def test_compress_weighs_a_long_pages_repeated_words_less_than_a_title_that_names_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the question's words fill a long section of the overview; the page the question is
    # about is titled with one of them and says two more once
    kb = topics_kb(
        tmp_path,
        {
            "rotate.md": "# Key Rotation\n\nReplace the old pair with a new one when the "
            "certificate expires.\n\n" + FILLER,
            "overview.md": "# Security Overview\n\n## Keys\n\n"
            + "Signing keys sign each release; rotate signing keys on a schedule, and keep "
            "the certificate of every signing key. " * 8 + "\n\n",
        },
    )
    question = "rotate the signing keys before the certificate expires"
    # `compress` alone: the overview also opens with the question's words, which `opening` weighs
    monkeypatch.setenv(ENV, "-compress,-opening")
    assert _top(kb, question)[:2] == ["docs/overview.md", "docs/rotate.md"]
    monkeypatch.setenv(ENV, "-opening")
    assert _top(kb, question)[:2] == ["docs/rotate.md", "docs/overview.md"]


def test_compressed_keeps_the_best_score_and_brings_the_others_towards_it() -> None:
    assert compressed(8.0, 8.0) == 8.0  # the top score, and the labels read from it, keep scale
    assert 2.0 < compressed(2.0, 8.0) < 8.0
    assert compressed(2.0, 8.0) == pytest.approx(8.0 * 0.25**TUNING.score_power)
    assert compressed(0.0, 8.0) == 0.0 and compressed(3.0, 0.0) == 3.0
