"""chunk.py: kenso's chunking rules (spec §3) and the §8.1/§8.2 fixes."""

from __future__ import annotations

import pytest

from kenso_git.text.chunk import Chunk
from kenso_git.text.chunk import chunk_document
from kenso_git.text.chunk import is_dropped_section
from kenso_git.text.chunk import searchable_content
from kenso_git.text.parse import decode
from kenso_git.text.parse import parse_document
from tests.helpers import require_corpus

P = "Lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor."  # 78 chars
TAIL = "adipiscing elit sed do eiusmod tempor."


def chunks_of(text: str, path: str = "doc.md", **kwargs: int) -> list[tuple[str, str, str]]:
    doc = parse_document(path, text)
    return [(c.title, c.section_path, c.content) for c in chunk_document(doc, **kwargs)]


def test_appendix_b_payments_example_gives_exactly_one_chunk():
    body = (
        "# Payment Retries\nShort intro.\n## Retry Policy\n"
        "Failed card payments are retried three times.\n## Notes\nab\n"
    )
    title = "Payment Retries > Retry Policy"
    content = "Short intro.\n\n## Retry Policy\nFailed card payments are retried three times."
    assert chunks_of(body, "payments.md") == [(title, title, content)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("## Notes\nab", True),  # 11 chars: the Appendix B case
        ("## Heading\n12345678", True),  # 19
        ("## Heading\n123456789", False),  # 20
        ("   ## Heading\n123456789   ", False),
    ],
)
def test_is_dropped_section_counts_the_heading_line(text, expected):
    assert is_dropped_section(text) is expected


def test_whole_document_without_h2_is_one_chunk_with_its_h1_line():
    assert chunks_of("\n# Title\n\nSome body text.\n") == [
        ("Title", "Title", "# Title\n\nSome body text.")
    ]


def test_preamble_of_50_chars_becomes_the_overview_chunk():
    preamble = "x" * 50
    text = f"# Doc\n{preamble}\n## Section One\nsection body text\n"
    assert chunks_of(text) == [
        ("Doc — Overview", "Doc", preamble),
        ("Doc > Section One", "Doc > Section One", "## Section One\nsection body text"),
    ]


def test_preamble_of_49_chars_is_merged_into_the_first_chunk():
    preamble = "x" * 49
    text = f"# Doc\n{preamble}\n## Section One\nsection body text\n"
    assert chunks_of(text) == [
        (
            "Doc > Section One",
            "Doc > Section One",
            f"{preamble}\n\n## Section One\nsection body text",
        )
    ]


def test_preamble_h1_lines_are_removed_but_text_around_them_kept():
    text = "Before\n# Doc\nAfter\n## Section One\nsection body text\n"
    assert chunks_of(text)[0][2] == "Before\n\nAfter\n\n## Section One\nsection body text"


def test_every_short_section_dropped_leaves_the_whole_body():
    text = "# Doc\n## A\nab\n## B\ncd\n"
    assert chunks_of(text) == [("Doc", "Doc", "# Doc\n## A\nab\n## B\ncd")]


def test_no_h2_oversized_body_is_packed_into_paragraph_parts_without_overlap():
    text = "# Plain Doc\n\n" + "\n\n".join([P] * 6) + "\n"
    result = chunks_of(text, max_size=200, overlap=40)
    assert result == [
        ("Plain Doc", "Plain Doc", f"# Plain Doc\n\n{P}\n\n{P}"),
        ("Plain Doc (cont.)", "Plain Doc", f"{P}\n\n{P}"),
        ("Plain Doc (cont.)", "Plain Doc", f"{P}\n\n{P}"),
    ]


def test_oversized_h2_keeps_code_and_tables_whole_and_overlaps_parts():
    # Expected output recorded from kenso 2.0.0 (KENSO_CHUNK_SIZE=200, KENSO_CHUNK_OVERLAP=40).
    text = (
        "# Tables Doc\n\nIntro paragraph long enough to become an overview chunk for the doc.\n\n"
        f"## Big Table Section\n\n{P}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nafter table {P}\n\n"
        f"```\ncode\n\nmore code {P}\n```\n\n{P}\n\n{P}\n"
    )
    name = "Tables Doc > Big Table Section"
    overview_tail = "become an overview chunk for the doc."
    assert chunks_of(text, max_size=200, overlap=40) == [
        (
            "Tables Doc — Overview",
            "Tables Doc",
            "Intro paragraph long enough to become an overview chunk for the doc.",
        ),
        (name, name, f"{overview_tail}\n\n## Big Table Section\n\n{P}"),
        (
            name + " (cont.)",
            name,
            f"{TAIL}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nafter table {P}",
        ),
        (name + " (cont.)", name, f"{TAIL}\n\n```\ncode\n\nmore code {P}\n```\n\n{P}"),
        (name + " (cont.)", name, f"{TAIL}\n\n{P}"),
    ]


def test_a_single_paragraph_longer_than_the_limit_stays_whole():
    long_paragraph = "word " * 100
    text = f"# Doc\n## Long Section\n{long_paragraph.strip()}\n\nshort tail\n"
    result = chunks_of(text, max_size=100)
    assert [r[0] for r in result] == ["Doc > Long Section", "Doc > Long Section (cont.)"]
    assert result[0][2].endswith("word")
    assert result[1][2] == "short tail"


def test_overlap_skips_overview_chunks_and_cuts_at_the_first_space():
    # Expected output recorded from kenso 2.0.0 (KENSO_CHUNK_SIZE=200, KENSO_CHUNK_OVERLAP=40).
    text = (
        "# Over Doc\n\nThis preamble is definitely long enough to be an overview chunk here.\n\n"
        f"## First Section\n\n{P}\n\n## Second Section\n\n{P}\n\n## Third Section\n\nshort words\n"
    )
    result = chunks_of(text, max_size=200, overlap=40)
    assert [r[2] for r in result] == [
        "This preamble is definitely long enough to be an overview chunk here.",
        f"enough to be an overview chunk here.\n\n## First Section\n\n{P}",
        f"{TAIL}\n\n## Second Section\n\n{P}",
        f"{TAIL}\n\n## Third Section\n\nshort words",
    ]


def test_overlap_takes_all_of_a_short_previous_chunk():
    text = "# D\n## First Section\nabcdefghij\n## Second Section\nklmnopqrst\n"
    result = chunks_of(text, overlap=100)
    assert result[1][2] == "## First Section\nabcdefghij\n\n## Second Section\nklmnopqrst"


def test_comment_in_a_bash_fence_is_not_a_title_and_stays_in_the_chunk():
    text = (
        "---\ntitle: Install Guide\n---\n"
        "## Install the tool\n\n```bash\n# install the package\npip install it\n```\n"
    )
    result = chunks_of(text, "install.md")
    assert result == [
        (
            "Install Guide > Install the tool",
            "Install Guide > Install the tool",
            "## Install the tool\n\n```bash\n# install the package\npip install it\n```",
        )
    ]


def test_preamble_keeps_hash_lines_inside_code():
    text = (
        "# Real\n```sh\n# keep this comment line in the overview\n```\n"
        "Enough preamble text here.\n## Section One\nsection body text\n"
    )
    overview = chunks_of(text)[0]
    assert overview[0] == "Real — Overview"
    assert "# keep this comment line" in overview[2]


def test_fenced_h2_lines_do_not_split_sections():
    text = "# D\n## Real Section\n```md\n## not a section\n```\nmore text\n"
    assert [r[0] for r in chunks_of(text)] == ["D > Real Section"]


def test_oversized_h2_with_h3s_keeps_its_intro_and_full_paths():
    text = (
        "# Deep Doc\nshort\n## Parent Section\n\nIntro text of the parent section that is long.\n\n"
        f"### Child One\n\n{P}\n\n{P}\n\n### Child Two\n\n{P}\n\n"
        f"#### Grand\n\n{P}\n\n{P}\n\n{P}\n\n## Tiny\nab\n## Last Section\n\n{P}\n"
    )
    parent = "Deep Doc > Parent Section"
    grand = f"{parent} > Child Two > Grand"
    assert chunks_of(text, max_size=200) == [
        (
            parent,
            parent,
            "short\n\n## Parent Section\n\nIntro text of the parent section that is long.",
        ),
        (f"{parent} > Child One", f"{parent} > Child One", f"### Child One\n\n{P}\n\n{P}"),
        (f"{parent} > Child Two", f"{parent} > Child Two", f"### Child Two\n\n{P}"),
        (grand, grand, f"#### Grand\n\n{P}\n\n{P}"),
        (grand + " (cont.)", grand, P),
        ("Deep Doc > Last Section", "Deep Doc > Last Section", f"## Last Section\n\n{P}"),
    ]


def test_heading_only_intro_of_a_split_section_is_not_a_chunk():
    text = f"# D\n## A heading that is quite long\n### Sub Heading One\n{P}\n"
    text += f"### Sub Heading Two\n{P}\n"
    titles = [r[0] for r in chunks_of(text, max_size=120)]
    assert titles == [
        "D > A heading that is quite long > Sub Heading One",
        "D > A heading that is quite long > Sub Heading Two",
    ]


def test_short_sub_sections_are_dropped():
    text = f"# D\n## Parent Section\n### Tiny\nab\n### Sub Heading Two\n{P}\n"
    titles = [r[0] for r in chunks_of(text, max_size=80)]
    assert titles == ["D > Parent Section > Sub Heading Two"]


def test_h5_headings_never_split():
    text = f"# D\n## Parent Section\n##### Five\n{P}\n\n##### Six\n{P}\n"
    titles = [r[0] for r in chunks_of(text, max_size=100)]
    assert titles == ["D > Parent Section", "D > Parent Section (cont.)"]


def test_title_prefers_h1_then_frontmatter_title_then_stem():
    assert chunks_of("---\ntitle: FM\n---\n# H1 Title\nbody text here\n")[0][0] == "H1 Title"
    assert chunks_of("---\ntitle: FM\n---\nbody text here\n")[0][0] == "FM"
    assert chunks_of("body text here\n", "dir/my-doc.md")[0][0] == "my-doc"


def test_crlf_documents_split_like_lf_documents():
    lf = f"# D\n## Section One\n{P}\n\n{P}\n\n{P}\n"
    assert chunks_of(lf.replace("\n", "\r\n"), max_size=100) == chunks_of(lf, max_size=100)


# --- searchable_content -----------------------------------------------------------------------


def test_searchable_content_adds_labelled_metadata_in_order():
    doc = parse_document(
        "docs/pay.md",
        "---\naliases: [retry, backoff]\nanswers: [How?, Why?]\n"
        "predicted_queries: [q1, q2]\ndescription: About retries.\ntags: [a, b]\n---\n"
        "# Payment Retries\nUse orderMatchingEngine and README.md now.\n",
    )
    chunk = chunk_document(doc)[0]
    assert searchable_content(doc, chunk) == "\n\n".join(
        [
            chunk.content,
            "Also known as: retry, backoff",
            "Questions this document answers: How? | Why?",
            "Predicted search queries: q1 | q2",
            "About retries.",
            "Keywords: a, b",
            "Source: docs/pay.md",
            "Expanded terms: order matching engine readme md",
        ]
    )


def test_searchable_content_always_has_the_source_line():
    doc = parse_document("a.md", "plain words only here\n")
    chunk = Chunk("a", "a", "plain words only here")
    assert searchable_content(doc, chunk) == "plain words only here\n\nSource: a.md"


# --- the real corpus --------------------------------------------------------------------------


@pytest.mark.corpus
def test_every_corpus_file_parses_and_chunks():
    corpus = require_corpus()
    count = 0
    for path in sorted(corpus.rglob("*.md")):
        rel = path.relative_to(corpus).as_posix()
        doc = parse_document(rel, decode(path.read_bytes())[0])
        chunks = chunk_document(doc)
        assert chunks, rel
        for chunk in chunks:
            assert chunk.title.startswith(doc.display_title), rel
            searchable_content(doc, chunk)
        count += 1
    assert count > 0
