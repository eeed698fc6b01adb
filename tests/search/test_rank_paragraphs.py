"""Signal `paragraphs` (#31): a hub's entry written as a paragraph whose first line is a lone
link (`[Sync](sync.md)` and a hard break, then what the page does) is the linked page's
evidence, as a list item that starts with its link is under `anchors`."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.search.ranked.anchors import _ENTRY
from kenso_git.search.ranked.anchors import _LONE
from kenso_git.search.ranked.anchors import MAX_LINE
from kenso_git.search.ranked.anchors import _ends_paragraph
from kenso_git.search.ranked.anchors import _link_lines
from kenso_git.search.ranked.anchors import link_targets_of
from kenso_git.search.ranked.rank import DEFAULT_ON
from kenso_git.search.ranked.rank import ENV
from tests.search.helpers import ranked_paths
from tests.search.helpers import topics_kb

QUESTION = "Flush cached data to disk."


def _catalog(entry: str) -> dict[str, str]:
    """A catalog of thirty tools, one paragraph each (Sysinternals' `downloads/index.md`),
    `entry` the last; the tool's own page says what it does in other words."""
    items = "".join(
        f"[Tool {i}](tool{i}.md)  \n*v1.{i} (July 4, 2016)*  \nResets counter {i} of a device.\n\n"
        for i in range(30)
    )
    files = {
        "tools/index.md": f"# Tools\n\n## Every tool\n\n{items}{entry}",
        "tools/sync.md": "# Sync\n\nUNIX provides a standard command for writing buffers out "
        "before a volume is unplugged; this one does so on Windows for every volume.\n",
    }
    for i in range(30):
        files[f"tools/tool{i}.md"] = f"# Tool {i}\n\nA page.\n"
    return files


def test_a_paragraph_opened_by_a_lone_link_is_that_pages_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = topics_kb(tmp_path, _catalog("[Sync](sync.md)  \n*v2.2 (July 4, 2016)*  \n" + QUESTION))
    monkeypatch.setenv(ENV, "-paragraphs")
    assert ranked_paths(kb, QUESTION)[0] == "docs/tools/index.md"
    monkeypatch.delenv(ENV)
    assert "paragraphs" in DEFAULT_ON  # it earned on the tuning and the held-out half (#31)
    assert ranked_paths(kb, QUESTION)[:2] == ["docs/tools/sync.md", "docs/tools/index.md"]


def test_a_link_inside_a_sentence_opens_no_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = topics_kb(tmp_path, _catalog(f"See [Sync](sync.md): {QUESTION}\n"))
    monkeypatch.setenv(ENV, "+paragraphs")
    assert ranked_paths(kb, QUESTION)[0] == "docs/tools/index.md"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        # the link's paragraph, its lines joined; the next lone link opens the next entry
        (
            "[Sync](sync.md)  \nFlush cached\ndata.\n[Du](du.md)\nDisk usage.\n",
            [
                ("[Sync](sync.md) Flush cached data.", ["sync.md"]),
                ("[Du](du.md) Disk usage.", ["du.md"]),
            ],
        ),
        ("**[Sync](sync.md)**\\\nFlush.\n", [("**[Sync](sync.md)**\\ Flush.", ["sync.md"])]),
        # a link with nothing said of it, or followed by a block that is no paragraph
        ("[Sync](sync.md)\n\nFlush.\n", []),
        ("[Sync](sync.md)\n## Flush\n", []),
        ("[Sync](sync.md)\n- Flush\n", []),
        ("[Sync](sync.md)\n```\nflush\n```\n", []),
        # a lone link is one link and nothing else on its line
        ("[Sync](sync.md) flushes\ndata.\n", []),
    ],
)
def test_paragraph_entries(content: str, expected: list[tuple[str, list[str]]]) -> None:
    assert _link_lines(content, paragraphs=True) == expected
    # none of them is a list item or a table row (a bold link line is read as one)
    assert _link_lines(content) == (
        [] if not content.startswith("**") else [(content[:20], ["sync.md"])]
    )


def test_a_paragraph_longer_than_an_entry_is_not_one() -> None:
    long = "[Sync](sync.md)\n" + "word " * (MAX_LINE // 5) + "\n"
    assert _link_lines(long, paragraphs=True) == []


def test_list_entries_are_read_as_before() -> None:
    content = "- [Sync](sync.md): flush.\n[Du](du.md)\nDisk usage.\n"
    assert _link_lines(content) == [("- [Sync](sync.md): flush.", ["sync.md"])]
    assert len(_link_lines(content, paragraphs=True)) == 2


def _link_lines_line_by_line(content: str, *, paragraphs: bool) -> list[tuple[str, list[str]]]:
    """`_link_lines` as it was first written, every line read in turn: the reference the
    scan of only the lines holding a `[` must agree with."""
    out = []
    lines = content.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if len(line) > MAX_LINE:
            continue
        if paragraphs and _LONE.fullmatch(line) is not None:
            start = i
            while i < len(lines) and lines[i].strip() and not _ends_paragraph(lines[i]):
                i += 1
            line = " ".join([line.strip(), *(s.strip() for s in lines[start:i])])
            if i == start or len(line) > MAX_LINE:
                continue
        elif _ENTRY.match(line) is None:
            continue
        hrefs = link_targets_of(line)  # what a line links to is not what changed
        if hrefs:
            out.append((line, hrefs))
    return out


LINES = [
    "[Sync](sync.md)  ",
    "[Sync](sync.md) [x](y.md)",
    "- [Sync](sync.md): flush.",
    "| [Row](row.md) | says |",
    "  1. [One](one.md)",
    "Flushes the cache to disk.",
    "  see [the page](page.md) here",
    "## Heading",
    "> quote [q](q.md)",
    "```",
    '{{< ref "x/y.md" >}} [a](b.md)',
    "",
    "   ",
    "\r",
    "[" + "long " * 130 + "](l.md)",
    "words " * 110,
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=40), st.booleans(), st.booleans())
def test_only_the_lines_holding_a_bracket_are_read_and_the_entries_are_the_same(
    lines: list[str], paragraphs: bool, trailing: bool
) -> None:
    content = "\n".join(lines) + ("\n" if trailing else "")
    assert _link_lines(content, paragraphs=paragraphs) == _link_lines_line_by_line(
        content, paragraphs=paragraphs
    )
