"""Signal `howto` (#31, twenty-first round): a question that asks how to do something
favours the task pages, those whose file name says they show how (`how-to-...`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.search.ranked.intent import asks_how
from kenso_git.search.ranked.intent import shows_how
from kenso_git.search.ranked.rank import DEFAULT_ON
from kenso_git.search.ranked.rank import SIGNALS
from kenso_git.search.ranked.rank import TUNING
from kenso_git.search.ranked.rank import Features
from kenso_git.search.ranked.rank import boost
from kenso_git.search.ranked.rank import features
from tests.search.helpers import ranked_paths
from tests.search.helpers import topics_kb


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("Learn how to rotate an object, with code examples in C#", True),
        ("How do I rotate an object?", True),
        ("how   can you rotate it", True),
        ("HOW TO: Rotate an Object", True),
        ("Learn about transforms and how they compose", False),  # "how" alone asks no task
        ("Shows a howto page", False),
        ("somehow to rotate", False),  # a whole word
    ],
)
def test_a_question_asks_how_by_its_words(question: str, asks: bool) -> None:
    assert asks_how(question) is asks


@pytest.mark.parametrize(
    ("path", "task"),
    [
        ("wpf/graphics/how-to-rotate-an-object.md", True),
        ("guide/HowTo-Deploy.md", True),
        ("how-to/overview.md", False),  # the file's name, not its folder's
        ("wpf/graphics/transforms-overview.md", False),
    ],
)
def test_a_task_page_is_named_so(path: str, task: bool) -> None:
    assert shows_how(path) is task


def test_a_question_asking_how_lifts_the_task_page(tmp_path: Path) -> None:
    body = "Rotate an object with a RotateTransform: set its Angle and its center point.\n"
    kb = topics_kb(
        tmp_path,
        {
            "graphics/rotate-transform.md": f"# RotateTransform\n\n{body}{body}",
            "graphics/how-to-rotate-an-object.md": f"# Rotate an object\n\n{body}",
        },
    )
    paths = ["docs/graphics/rotate-transform.md", "docs/graphics/how-to-rotate-an-object.md"]

    def measured(question: str, signals: frozenset[str]) -> dict[str, Features]:
        return kb.read(lambda conn: features(conn, question, [], paths, signals))

    # on since the twenty-first round: the rule written before its held-out run held
    assert "howto" in SIGNALS and "howto" in DEFAULT_ON
    with_it = DEFAULT_ON | {"howto"}
    on = measured("Learn how to rotate an object", with_it)
    assert on[paths[1]].howto and not on[paths[0]].howto
    assert not measured("Learn how to rotate an object", with_it - {"howto"})[paths[1]].howto
    assert not measured("Learn about rotating an object", with_it)[paths[1]].howto
    gain = boost(on[paths[1]], with_it) - boost(on[paths[1]]._replace(howto=False), with_it)
    assert gain == pytest.approx(TUNING.howto)


def test_the_ranking_reads_it_when_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the concept page and the task page say the same; the file names tell them apart
    body = "# Rotate an object\n\nRotate an object with a RotateTransform: set its Angle.\n"
    kb = topics_kb(
        tmp_path,
        {"graphics/rotate-an-object.md": body, "graphics/how-to-rotate-an-object.md": body},
    )
    task, concept = "docs/graphics/how-to-rotate-an-object.md", "docs/graphics/rotate-an-object.md"

    def first(question: str, signals: str) -> str:
        monkeypatch.setenv("KENSO_GIT_RANK", signals)
        return ranked_paths(kb, question)[0]

    assert first("Learn how to rotate an object", "-howto") == concept
    assert first("Learn how to rotate an object", "+howto") == task
    # a question that asks no task: the signal says nothing
    assert first("Learn about rotating an object", "+howto") == first(
        "Learn about rotating an object", "-howto"
    )
