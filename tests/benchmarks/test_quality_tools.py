"""`benchmarks/quality_tools.ours` asks kenso-git each known-item question: a question over
the query caps (a 131-word description in a policy catalog) raised `QueryError` and ended
the whole run. It now counts as a question kenso-git gives no answer to, on both surfaces,
and the run goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.quality_queries import Page
from benchmarks.quality_queries import build_queries
from benchmarks.quality_queries import strip_copy
from benchmarks.quality_tools import ours
from kenso_git.text.parse import parse_document


def test_a_question_over_the_caps_is_a_miss_and_the_run_goes_on(tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    page = "# Rotate TLS\n\nRotate the TLS certificates of a cluster once a year, in time.\n"
    (corpus / "tls.md").write_text(page, encoding="utf-8")
    long_question = " ".join(f"word{i}" for i in range(131))
    runs = ours(corpus, tmp_path / "kb.db", [long_question, "rotate certificates"], [])
    assert runs["search_docs"] == [[], ["tls.md"]]
    assert runs["search"] == [[], ["tls.md"]]


# `benchmarks/quality_queries.py` read YAML front matter only: a Hugo page's `+++` TOML
# block (which kenso-git reads as front matter) gave no description question, and nothing
# was cut from the copy the index reads. It reads the block as kenso-git does now, and cuts
# a top-level `key = value` statement as it cuts a YAML field.

TOML_PAGE = (
    "+++\n"
    'title = "Go FAQ"\n'
    'description = "A list of frequently asked questions"\n'
    "weight = 620\n"
    "+++\n"
    "\n"
    "# Go FAQ\n"
    "\n"
    "Answers to the questions people ask about the Go language and its tools.\n"
)
YAML_PAGE = (
    "---\n"
    "title: Rust FAQ\n"
    "description: >\n"
    "  Answers about the borrow checker\n"
    "  and lifetimes\n"
    "weight: 5\n"
    "---\n"
    "\n"
    "Answers to the questions people ask about the Rust language and its tools.\n"
)


def _front(text: str) -> dict[str, object]:
    """The front matter as kenso-git reads it."""
    return dict(parse_document("page.md", text).frontmatter)


def _cut(page: Page, key: str) -> str:
    cut = page.field_cut(key)
    assert cut is not None
    rel, start, end = cut
    assert rel == page.rel
    return page.text[:start] + page.text[end:]


def test_a_toml_pages_description_is_read_and_cut_leaving_valid_toml() -> None:
    page = Page("faq.md", TOML_PAGE)
    assert page.front == {
        "title": "Go FAQ",
        "description": page.string("description"),
        "weight": 620,
    }
    assert page.string("description") == "A list of frequently asked questions"
    assert page.title() == "Go FAQ"
    left = _cut(page, "description")
    assert left == TOML_PAGE.replace('description = "A list of frequently asked questions"\n', "")
    assert _front(left) == {"title": "Go FAQ", "weight": 620}
    assert Page("faq.md", left).front == {"title": "Go FAQ", "weight": 620}
    assert left.endswith(TOML_PAGE[TOML_PAGE.index("+++\n\n") :])  # the body untouched


def test_a_toml_pages_description_is_asked_and_stripped_like_a_yaml_pages(
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "go.md").write_text(TOML_PAGE, encoding="utf-8")
    (corpus / "rust.md").write_text(YAML_PAGE, encoding="utf-8")
    stripped = [q for q in build_queries(corpus, 0, 7) if q.kind == "description-stripped"]
    asked = {q.text: set(q.answers) for q in stripped}
    assert asked == {
        "A list of frequently asked questions": {"go.md"},
        "Answers about the borrow checker and lifetimes": {"rust.md"},
    }
    assert strip_copy(corpus, stripped) == 2
    for name in ("go.md", "rust.md"):
        text = (corpus / name).read_text(encoding="utf-8")
        assert "description" not in _front(text)
        assert "weight" in _front(text)
        assert "Answers to the questions" in text


@pytest.mark.parametrize("quotes", ['"""', "'''"])
def test_a_multi_line_toml_string_is_cut_whole(quotes: str) -> None:
    text = (
        "+++\n"
        'title = "Go FAQ"\n'
        f"description = {quotes}\n"
        "A list of frequently\n"
        f"asked questions{quotes}  # what the list page shows\n"
        "aliases = [\n"
        '  "/doc/go_faq",\n'
        '  "the Go FAQ page",\n'
        "]\n"
        "+++\n"
        "Body.\n"
    )
    page = Page("faq.md", text)
    assert page.string("description") == "A list of frequently asked questions"
    left = _cut(page, "description")
    assert left == text.replace(text[text.index("description") : text.index("aliases")], "")
    assert _front(left) == {"title": "Go FAQ", "aliases": ["/doc/go_faq", "the Go FAQ page"]}
    assert page.phrases("aliases") == ["the Go FAQ page"]
    left = _cut(page, "aliases")  # a multi-line array
    assert left == text[: text.index("aliases")] + "+++\nBody.\n"


def test_a_key_inside_a_toml_table_is_not_top_level() -> None:
    text = (
        "+++\n"
        'title = "Go FAQ"\n'
        "[params]\n"
        'description = "A list of frequently asked questions"\n'
        "+++\n"
    )
    page = Page("faq.md", text)
    assert page.string("description") is None
    assert page.field_cut("description") is None
    # a top-level key of the same name is the one cut; the table's is left
    text = text.replace("[params]\n", 'description = "The questions people ask"\n[params]\n')
    page = Page("faq.md", text)
    assert page.string("description") == "The questions people ask"
    left = _cut(page, "description")
    assert _front(left) == {
        "title": "Go FAQ",
        "params": {"description": "A list of frequently asked questions"},
    }


def test_a_cut_that_would_change_the_other_keys_is_refused() -> None:
    # dotted keys: cutting one line of `description` would leave the rest of it
    text = '+++\ndescription.en = "Questions"\ndescription.fr = "Questions"\n+++\n'
    assert Page("faq.md", text).field_cut("description") is None


@pytest.mark.parametrize(
    "text",
    [
        '+++\ntitle = "Go FAQ\ndescription = "A list of frequently asked questions"\n+++\n',
        '+++\ntitle = "Go FAQ"\ntitle = "Again"\n+++\n',
        '+++\ntitle: "Go FAQ"\n+++\n',
    ],
    ids=["unclosed-string", "duplicate-key", "yaml-inside"],
)
def test_toml_that_does_not_parse_is_no_front_matter(text: str) -> None:
    page = Page("faq.md", text + "# Heading\n")
    assert page.front == {} == _front(text)
    assert page.string("title") is None
    assert page.field_cut("title") is None
    assert page.title() == "Heading"


@pytest.mark.parametrize(
    "text",
    [
        '\ufeff+++\ndescription = "With a byte order mark"\n+++\nBody.\n',
        '+++\r\ndescription = "With Windows line ends"\r\n+++\r\nBody.\r\n',
        '+++\ndescription = "Closed at the end of the file"\n+++',
        '+++\ndescription = "Closed by a fence with a space after it"\n+++ \nBody.\n',
        '+++ \ndescription = "Opened by a fence with a space after it"\n+++\nBody.\n',
        '+++\ndescription = "Never closed"\n',
        "+++\n+++\nAn empty block.\n",
    ],
    ids=["bom", "crlf", "eof", "closed-by-space", "opened-by-space", "unclosed", "empty"],
)
def test_toml_front_matter_is_read_as_kenso_git_reads_it(text: str) -> None:
    page = Page("page.md", text)
    assert page.front == _front(text)
    if page.front:
        left = _cut(page, "description")
        assert _front(left) == {}
        assert "description" not in left


def test_yaml_pages_are_read_and_cut_as_before() -> None:
    page = Page("rust.md", YAML_PAGE)
    assert page.front == {
        "title": "Rust FAQ",
        "description": "Answers about the borrow checker and lifetimes\n",
        "weight": 5,
    }
    assert page.field_cut("description") == ("rust.md", 20, 86)
    assert _cut(page, "description") == YAML_PAGE.replace(
        "description: >\n  Answers about the borrow checker\n  and lifetimes\n", ""
    )
    assert page.body_start == YAML_PAGE.index("\nAnswers to")


def test_a_section_page_left_under_the_floor_is_counted_as_unanswerable(tmp_path: Path) -> None:
    from benchmarks.quality_queries import under_floor

    docs = tmp_path / "docs"
    (docs / "sql").mkdir(parents=True)
    section = "---\ntitle: SQL\ndescription: User guides covering analyzing SQL statements\n---\n"
    guide = "---\ntitle: Explain\ndescription: How to read a query plan\n---\n\n" + "Text. " * 20
    (docs / "sql" / "_index.md").write_text(section)
    (docs / "sql" / "explain.md").write_text(guide)
    queries = [q for q in build_queries(docs, 0, 7) if q.kind == "description-stripped"]
    assert {q.text for q in queries} == {
        "User guides covering analyzing SQL statements",
        "How to read a query plan",
    }
    strip_copy(docs, queries)
    floor = {q.text for q in queries if under_floor(docs, q.answers)}
    # the section page's copy is its title alone; the guide keeps its body
    assert floor == {"User guides covering analyzing SQL statements"}
