"""No call may spend more than its CPU budget, whatever the door (#27, finding 3).

A pattern like `(.*a){999}` costs RE2 about 12 us a byte on long lines: one uninterruptible
search of a 1 MB document was 12 s of CPU, and negated `re:` filters ran one such search per
filter and document. RE2 now searches windows of lines sized from the program, with the
call's budget checked between them.
"""

from __future__ import annotations

import random
import time

import pytest

from kenso_git.errors import CallBudgetError
from kenso_git.kb import KnowledgeBase
from kenso_git.search.ranked.fuzzy import Dictionary
from kenso_git.serve.service import Service
from kenso_git.store import budget
from tests.helpers import init_repo

CPU_BUDGET_MS = 300
BOUND_S = 2.0  # the target for one call: far above the budget, far below the old cost
PATHOLOGICAL = "(.*a){999}"


def _long_lines(seed: int, lines: int = 20, chars: int = 50_000) -> str:
    rng = random.Random(seed)
    words = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6)) for _ in range(500)
    ]
    out = []
    while len(out) < lines:
        line: list[str] = []
        size = 0
        while size < chars:
            word = rng.choice(words)
            line.append(word)
            size += len(word) + 1
        out.append(" ".join(line))
    return "# Long Lines\n\n" + "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Service:
    root = init_repo(
        tmp_path_factory.mktemp("cpu") / "repo",
        {
            "docs/long.md": _long_lines(1),
            "docs/short.md": "# Short\n\nA short page, long enough to be indexed as one chunk.\n",
        },
    )
    KnowledgeBase.open(root).ingest()
    svc = Service(root)
    svc.settings = svc.settings._replace(call_cpu_budget=CPU_BUDGET_MS, call_budget=60)
    svc.kb().settings = svc.kb().settings._replace(query_sync=False)
    return svc


def _cpu_of(call: object) -> tuple[float, CallBudgetError]:
    start = time.process_time()
    with pytest.raises(CallBudgetError) as caught:
        call()  # type: ignore[operator]
    return time.process_time() - start, caught.value


def test_a_pathological_regex_search_is_stopped_by_the_cpu_budget(service: Service) -> None:
    cpu, err = _cpu_of(lambda: service.regex_search(PATHOLOGICAL))
    assert f"CPU budget of {CPU_BUDGET_MS / 1000:g} s" in err.message
    assert cpu < BOUND_S  # before: 12 s in one RE2 call, then the 60 s wall budget


def test_negated_re_filters_are_stopped_by_the_cpu_budget(service: Service) -> None:
    query = " ".join(f'-re:"(.*{c}){{999}}"' for c in "aeiou")
    cpu, err = _cpu_of(lambda: service.search(query))
    assert "CPU budget" in err.message
    assert cpu < BOUND_S


def test_a_regex_still_finds_its_lines_in_windows(service: Service) -> None:
    page, _ = service.regex_search("^A short page")
    assert [(h["path"], h.get("line")) for h in page["results"]] == [("docs/short.md", 3)]
    page, _ = service.search('re:"Long Lines"')
    assert [h["path"] for h in page["results"]] == ["docs/long.md"]


def test_a_match_never_spans_a_line_break(service: Service) -> None:
    page, _ = service.regex_search("Short\\s+A short")
    assert page["results"] == []  # RE2's never_nl: `\s` does not reach into the next line


def test_the_typo_dictionary_scan_stops_when_the_budget_is_spent() -> None:
    words = [f"word{i:05d}x" for i in range(5000)]
    dictionary = Dictionary(
        frozenset(words), {len(words[0]): tuple(words)}, dict.fromkeys(words, ("docs/a.md",))
    )
    with pytest.raises(CallBudgetError), budget.call_budget(60, cpu=0.001):
        end = time.thread_time() + 0.01
        while time.thread_time() < end:
            pass
        dictionary.closest("wrod00042x")  # before: one uninterruptible difflib scan
    assert dictionary.closest("wrod00042x") == "word00042x"  # no budget: the same answer
