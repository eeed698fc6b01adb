"""Hugo's TOML front matter (`+++` lines, Hugo's default format): kenso reads only YAML, so
a `+++` block was indexed as body text. The search preview began `+++ title = ...`, and the
signals never read its title, description, tags or aliases. A block opened by a `+++` line
is now read as TOML. A TOML error is reported at its line, as a YAML error is."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.text.parse import FRONTMATTER
from kenso_git.text.parse import parse_document
from tests.helpers import connect_raw
from tests.helpers import docs_kb
from tests.helpers import init_repo

TOML_PAGE = """\
+++
title = "Scaling with KEDA"
description = "How the scaler picks the replica count of a deployment from an event source."
tags = ["scaling", "autoscaler"]
aliases = ["/docs/scaling/"]
weight = 10
date = 2024-05-01T10:00:00Z

[params]
toc = true
+++

# Scaling

The scaler reads the queue length and decides how many replicas the deployment runs,
between the minimum and the maximum you set for it.
"""


def test_a_toml_block_gives_the_fields_and_the_body_starts_after_it() -> None:
    doc = parse_document("docs/scale.md", TOML_PAGE)
    assert doc.has_frontmatter and not doc.problems
    assert doc.fm_title == "Scaling with KEDA"
    assert doc.description is not None and doc.description.startswith("How the scaler")
    assert doc.tags == ("scaling", "autoscaler")
    assert doc.aliases == ("/docs/scaling/",)
    assert doc.body.startswith("# Scaling")
    assert doc.body_line == TOML_PAGE.split("\n").index("# Scaling") + 1
    assert "+++" not in doc.body


def test_a_toml_error_names_its_line_and_no_field_is_read() -> None:
    text = '+++\ntitle = "Fine"\ndescription = "never closed\nweight = 3\n+++\n\n# Body\n'
    doc = parse_document("docs/bad.md", text)
    assert doc.fm_title is None and doc.body.startswith("# Body")
    [problem] = doc.problems
    assert problem.kind == FRONTMATTER and problem.line == 3
    assert "TOML front matter cannot be read" in problem.message


def test_an_unclosed_toml_block_is_reported_and_other_plus_lines_are_body() -> None:
    doc = parse_document("docs/open.md", '+++\ntitle = "x"\n\n# Body text\n')
    assert [p.message for p in doc.problems] == [
        "frontmatter opened with `+++` is never closed; add a `+++` line after it"
    ]
    diff = textwrap.dedent(
        """\
        +++ b/src/app.py
        @@ -1 +1 @@
        +++
        """
    )
    plain = parse_document("docs/diff.md", diff)  # not a `+++` line alone: body, as before
    assert not plain.has_frontmatter and plain.body == diff and not plain.problems


def test_search_reads_the_toml_fields_as_the_yaml_ones(tmp_path: Path) -> None:
    yaml_page = TOML_PAGE.replace("+++", "---").replace(" = ", ": ").replace("[params]", "")
    yaml_page = yaml_page.replace("toc: true", "").replace("date: 2024-05-01T10:00:00Z", "")
    kb = docs_kb(tmp_path, {"toml/scale.md": TOML_PAGE, "yaml/scale.md": yaml_page})
    hits = {h["file_path"]: h for h in kb.search_docs("queue length replicas", limit=5)}
    toml, yaml = hits["docs/toml/scale.md"], hits["docs/yaml/scale.md"]
    assert not toml["content_preview"].startswith("+++")
    assert "title =" not in toml["content_preview"]
    assert toml["content_preview"] == yaml["content_preview"]
    assert toml["title"] == yaml["title"]
    # "KEDA" is only in the front matter's title, and "autoscaler" only in its tags
    for word in ("KEDA", "autoscaler"):
        found = [h["file_path"] for h in kb.search_docs(word, limit=5)]
        assert sorted(found) == ["docs/toml/scale.md", "docs/yaml/scale.md"], word


@pytest.mark.parametrize("nested", ["[" * 50_000 + "]" * 50_000, "{b=" * 5_000 + "1" + "}" * 5_000])
def test_a_deeply_nested_toml_block_is_a_problem_not_a_crash(nested: str) -> None:
    # tomllib recurses per level: a RecursionError escaped parse_document, which never raises
    doc = parse_document("docs/deep.md", f"+++\na = {nested}\n+++\n\n# Body\n\nText.\n")
    [problem] = doc.problems
    assert problem.kind == FRONTMATTER and problem.line == 2
    assert "nests too deeply" in problem.message
    assert doc.body.startswith("# Body") and doc.frontmatter == {}


def test_an_index_made_before_toml_was_read_parses_such_pages_again(tmp_path: Path) -> None:
    """An index made by a version that read a `+++` block as body holds the page as body
    text; its next sync (what the git hooks run) parses every page again, once, with no
    `--rebuild`."""
    root = init_repo(tmp_path / "repo", {"docs/scale.md": TOML_PAGE})
    KnowledgeBase.open(root).ingest()
    with connect_raw(root / ".kenso" / "docs.db") as conn:
        (value,) = conn.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()
        old = json.dumps({k: v for k, v in json.loads(value).items() if k != "frontmatter"})
        conn.execute("UPDATE meta SET value = ? WHERE key = 'settings'", (old,))
        # what the older version stored: no declared title (the block was body text)
        conn.execute("UPDATE chunks SET doc_title = NULL WHERE file_path = 'docs/scale.md'")
    conn.close()
    assert KnowledgeBase.open(root).sync().count("ingested") == 1
    kb = KnowledgeBase.open(root)
    sql = "SELECT DISTINCT doc_title FROM chunks WHERE file_path = 'docs/scale.md'"
    assert kb.read(lambda c: [r[0] for r in c.execute(sql)]) == ["Scaling with KEDA"]
    assert kb.sync().count("ingested") == 0  # and once only
