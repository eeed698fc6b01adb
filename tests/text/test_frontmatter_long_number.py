"""A frontmatter integer longer than Python reads from text (4300 digits) is reported as a
number too long, on its own line, with what to do (tester t48b, finding 4: the warning
quoted Python's "use sys.set_int_max_str_digits() to increase the limit", at the block's
first line)."""

from __future__ import annotations

from kenso_git.text.parse import parse_document

LONG = "9" * 5000


def test_a_too_long_number_is_named_with_its_line_and_what_to_do():
    text = f"---\ntitle: Big\nx: {LONG}\n---\n# Big\n\nBody text of the page.\n"
    doc = parse_document("bigint.md", text)
    assert [(p.line, p.message) for p in doc.problems] == [
        (
            3,
            "frontmatter number of 5,000 digits in `x` is too long to read (at most 4,300): "
            'quote it to keep it as text (`x: "999999..."`), or shorten it; simple '
            "`key: value` lines were read meanwhile",
        )
    ]
    assert doc.frontmatter["title"] == "Big"  # the other fields are still read


def test_a_too_long_number_in_a_list_names_its_field_and_line():
    text = f"---\ntitle: Big\nids:\n  - 1\n  - {LONG}\n---\n# Big\n"
    (problem,) = parse_document("ids.md", text).problems
    assert problem.line == 5
    assert problem.message.startswith("frontmatter number of 5,000 digits in `ids` is too long")
    assert "sys.set_int_max_str_digits" not in problem.message


def test_a_quoted_long_number_is_text():
    text = f'---\ntitle: Big\nx: "{LONG}"\n---\n# Big\n'
    doc = parse_document("quoted.md", text)
    assert doc.problems == ()
    assert doc.frontmatter["x"] == LONG


def test_a_value_yaml_reads_but_python_cannot_hold_is_reported_on_its_line():
    # `date: 2024-13-45` is a YAML timestamp of month 13: reported at the block's first line
    text = "---\ntitle: Dated\ntags: [a]\nlinks:\n  - x\n  - when: 2024-13-45\n---\n# D\n"
    (problem,) = parse_document("dated.md", text).problems
    assert problem.line == 6 and "month must be in 1..12" in problem.message
