"""Character references as CommonMark reads them (`text.charrefs`): what a link
destination resolves and what signal `charrefs` reads a question as."""

from __future__ import annotations

import pytest

from kenso_git.text.charrefs import resolved


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("The &lt;add&gt; element", "The <add> element"),
        ("&#60;add&#x3E; and &#X3c;", "<add> and <"),
        ("&quot;Overview&quot; &amp; more", '"Overview" & more'),
        ("AT&T, R&D and a & b", "AT&T, R&D and a & b"),  # no reference: as written
        ("&bogus; &lt &#xZZ;", "&bogus; &lt &#xZZ;"),  # unknown, unterminated, not a number
        ("&#0; &#xD800; &#1114112;", "&#0; &#xD800; &#1114112;"),  # not decoded (markdown-it)
        ("plain words", "plain words"),
    ],
)
def test_character_references_resolve_as_commonmark_reads_them(written: str, read: str) -> None:
    assert resolved(written) == read
