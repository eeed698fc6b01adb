"""Inline Markdown links: which `[text](target)` of a document become `links_to` entries."""

from __future__ import annotations

import json

from kenso_git.text.links import MAX_LINK_SCANS
from kenso_git.text.links import inline_links
from kenso_git.text.links import raw_relations
from kenso_git.text.parse import parse_document

BODY = """# Title

See [the guide](guide.md), [up](../top.md#intro "Top"), [web](https://x.org/a.md),
[anchor](#here), ![pic](img.png), [self](a.md#part), [root](/root/r.md), [pct](my%20file.md),
[twice](guide.md) and [angle](<deep/b.markdown>).

`[code](nope.md)` and [after code](yes.md), ``[double]`` [then](then.md)

```
[fenced](fenced.md)
```

~~~md
[tilde](tilde.md)
~~~
"""


def test_inline_links_to_markdown_files_outside_code_relative_to_the_doc() -> None:
    doc = parse_document("docs/a.md", BODY)
    assert inline_links(doc) == [
        "./guide.md",
        "../top.md",
        "/root/r.md",
        "./my file.md",
        "./deep/b.markdown",
        "./yes.md",
        "./then.md",
    ]


def test_links_are_stored_beside_relates_to_entries() -> None:
    text = "---\nrelates_to:\n  - path: docs/b.md\n    relation: feeds_into\n---\n" + BODY
    pairs = json.loads(raw_relations(parse_document("docs/a.md", text)) or "[]")
    assert pairs[0] == ["docs/b.md", "feeds_into"]
    assert ["./guide.md", "links_to"] in pairs
    assert raw_relations(parse_document("docs/c.md", "# C\n\nNo links at all here.\n")) is None


def test_a_pathological_body_is_scanned_a_bounded_number_of_times() -> None:
    body = "# T\n\n" + "](" * (MAX_LINK_SCANS * 3) + "[late](late.md)\n"
    assert inline_links(parse_document("a.md", body)) == []
    assert inline_links(parse_document("a.md", "# T\n\n" + "`" * 10_001 + " [x](x.md)\n")) == []
