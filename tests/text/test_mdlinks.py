"""`text.mdlinks.region_list` is `regions` as a list, whatever fences and comments a body
has (#30: lint's path rules and anchors take the list; most bodies have no comment)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.text.mdlinks import region_list
from kenso_git.text.mdlinks import regions
from kenso_git.text.parse import parse_document

_PIECE = st.sampled_from(
    [
        "text ",
        "\n",
        "```\n",
        "~~~\n",
        "```md\ncode\n```\n",
        "<!--",
        "-->",
        "<!-- c -->",
        "[a](b.md)",
        "    [c](d.md)\n",
        "- item\n",
        "\t",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECE, max_size=20))
def test_region_list_is_regions(pieces: list[str]) -> None:
    doc = parse_document("d.md", "".join(pieces))
    assert region_list(doc) == list(regions(doc))


def test_a_body_that_is_all_fence_or_empty_has_no_region() -> None:
    for text in ("", "```\ncode\n```"):
        doc = parse_document("d.md", text)
        assert region_list(doc) == list(regions(doc)) == []
