"""A heading full of HTML openers that never close (`<?`, `<!--`, `<![CDATA[`, `<!X`) is
rendered in one pass, as is one full of `[` or `![` with no `]`: each kind's closer is looked
for once after a place where there is none. The tag pattern of c92cb5c read to the heading's
end once per opener, so a 160 kB heading of `<?` took 70 s in `anchors()`, and 37 s in every
lint run of a page linking to an 80 kB page with one such H2. The timeout stops the
quadratic reading (minutes at this size); the linear one takes well under a second.
"""

from __future__ import annotations

import pytest

from kenso_git.text.anchors import anchors
from kenso_git.text.anchors import slug
from kenso_git.text.headingtext import rendered
from kenso_git.text.parse import parse_document

SIZE = 100_000  # characters of the heading


@pytest.mark.timeout(15)
@pytest.mark.parametrize(
    "opener", ["<?", "<!--", "<![CDATA[", "<!X", "<!--<?<![CDATA[<!X", "[", "![", "[a]("]
)
def test_a_long_heading_of_unclosed_html_openers_renders_as_its_text(opener: str) -> None:
    heading = (opener + "a ") * (SIZE // (len(opener) + 2))
    assert rendered(heading) == heading
    page = parse_document("p.md", "# Page\n\n## " + heading + "\n\ntext\n")
    assert anchors(page) == {"page", slug(heading.strip())}


@pytest.mark.timeout(15)
def test_closers_after_many_unclosed_openers_of_another_kind_still_close() -> None:
    unclosed = "<?a [b" * (SIZE // 6)
    heading = unclosed + " <!X d> <!-- e --> <![CDATA[f]]> ![g](h) j"
    assert rendered(heading) == unclosed + "     j"


@pytest.mark.timeout(15)
@pytest.mark.parametrize("tail", ["a][b", "a](b", "a]"])
def test_a_long_heading_of_brackets_before_one_unfinished_link_renders_as_its_text(
    tail: str,
) -> None:
    heading = "[" * SIZE + tail
    assert rendered(heading) == heading
    assert rendered("!" + heading) == "!" + heading
