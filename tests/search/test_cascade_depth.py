"""The first results of a search are the same whatever `limit` it asks for: `search_docs` at
its default 5 answers the first five of the ten the `search` tool's first page and the
relevance benchmark rank (`depth.ranked_depth`), and at more than ten the list the `search`
tool's pages make (`depth.listed`)."""

from __future__ import annotations

import random
from pathlib import Path

from kenso_git.search.lang.agent import SearchRequest
from kenso_git.search.ranked.depth import ranked_depth
from kenso_git.search.ranked.rank import DEFAULT_ON
from kenso_git.search.ranked.rank import FILL_DOCUMENTS
from tests.search.helpers import ranked_paths
from tests.search.helpers import topics_kb

WORDS = [
    *("element", "add", "list", "type", "static", "dynamic", "header", "filter", "request"),
    *("rule", "cache", "module", "site", "server", "compress", "mime", "provider", "trace"),
    *("area", "log", "file", "path"),
]


def _pages(rng: random.Random, count: int = 30) -> dict[str, str]:
    """`count` pages of one small vocabulary, in folders, some named `index` or `add`: the
    candidates of most questions overlap, so their document signals weigh each other."""
    pages = {}
    for i in range(count):
        folder = rng.choice(["a", "b", "c", "a/x", "b/y"])
        name = rng.choice(["index", "add", f"p{i}", f"{rng.choice(WORDS)}-{rng.choice(WORDS)}"])
        paragraphs = [
            " ".join(rng.choices(WORDS, k=rng.randint(8, 30))) + "."
            for _ in range(rng.randint(1, 4))
        ]
        sections = [
            f"## {' '.join(rng.sample(WORDS, 2))}\n\n{' '.join(rng.choices(WORDS, k=12))}"
            for _ in range(rng.randint(0, 3))
        ]
        title = " ".join(rng.sample(WORDS, 3))
        pages[f"{folder}/{name}.md"] = f"# {title}\n\n" + "\n\n".join(paragraphs + sections) + "\n"
    return pages


def test_the_depth_is_the_agents_page_at_least() -> None:
    assert "fill" in DEFAULT_ON
    assert ranked_depth(3, DEFAULT_ON) == ranked_depth(10, DEFAULT_ON) == FILL_DOCUMENTS == 10
    assert ranked_depth(25, DEFAULT_ON) == 25
    assert ranked_depth(3, DEFAULT_ON - {"fill"}) == 3  # kenso's: the limit


def test_a_shorter_limit_answers_the_first_results_of_a_longer_one(tmp_path: Path) -> None:
    rng = random.Random(5)
    kb = topics_kb(tmp_path, _pages(rng))
    questions = [" ".join(rng.sample(WORDS, rng.randint(2, 6))) for _ in range(40)]
    firsts = {q: ranked_paths(kb, q, FILL_DOCUMENTS) for q in questions}
    assert all(firsts.values())
    differ = [
        (q, limit)
        for q in questions
        for limit in (1, 3, 5, 9)
        if ranked_paths(kb, q, limit) != firsts[q][:limit]
    ]
    assert differ == []  # 19 of these 160 (14 of the 40 questions) differed before


def test_a_longer_limit_continues_the_agents_pages(tmp_path: Path) -> None:
    """Past the agent's page, `search_docs` answers what the `search` tool's pages list one
    after the other: the first ten of the ranking at 10, then what deeper rankings add. A
    ranking at 20 weighs more candidates and could put another page first."""
    rng = random.Random(7)
    kb = topics_kb(tmp_path, _pages(rng, 200))
    questions = [" ".join(rng.sample(WORDS, rng.randint(2, 6))) for _ in range(40)]
    differ, rising = [], []
    for q in questions:
        first = kb.agent_search(SearchRequest(q))
        pages = [hit["path"] for hit in first["results"]]
        scores = [hit["score"] for hit in first["results"]]
        if first["next_cursor"] is not None:
            second = kb.agent_search(SearchRequest(q, cursor=first["next_cursor"]))
            pages += [hit["path"] for hit in second["results"]]
            scores += [hit["score"] for hit in second["results"]]
        differ += [(q, n) for n in (11, 15, 20) if ranked_paths(kb, q, n) != pages[:n]]
        # each ranking scores on its own scale: the list's scores must still not rise
        listed = [h.score for h in kb.search(q, limit=20).hits]
        if listed != sorted(listed, reverse=True) or scores != sorted(scores, reverse=True):
            rising.append(q)
    assert differ == []  # 73 of these 120 differed before
    assert rising == []
