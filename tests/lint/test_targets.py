"""`LinkFacts.notable`: the targets the path rules read are exactly those of `targets` a rule
may report, placed at the same lines and columns, and the skipped ones counted the same
(#30: only these are placed and kept, so most links of a corpus cost a lookup)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from kenso_git.lint.targets import CASE
from kenso_git.lint.targets import FOUND
from kenso_git.lint.targets import MISSING
from kenso_git.lint.targets import SKIPPED
from kenso_git.lint.targets import LinkFacts
from kenso_git.lint.targets import TreeIndex
from kenso_git.lint.targets import scan_document
from kenso_git.text.links import PathIndex
from kenso_git.text.mdlinks import CODE
from kenso_git.text.parse import parse_document

ROOT = Path(__file__).resolve().parents[2]

BODY = """---
title: Links
---
# Links

See [guide](guide.md), [the part](guide.md#setup), [gone](old.md), [Case](Guide.md),
![logo](img/logo.png), [site](/dotnet/api/x), [web](https://example.com/x), [tab](#tab/one),
[here](#links) and [bad anchor](#nowhere).

`src/tool.py` and `docs/missing.md` and `a/b` in prose.

```md
[in a fence](fenced.md)
```

Inline `[code](code.md)` is not a link. [ref]: guide.md

[ref]: guide.md#setup
[gone ref]: old/place.md
"""


def _docs() -> list:
    docs = [parse_document("docs/links.md", BODY), parse_document("docs/guide.md", "# Setup\n")]
    for path in sorted((ROOT / "docs").glob("*.md")):
        rel = path.relative_to(ROOT).as_posix()
        docs.append(parse_document(rel, path.read_text(encoding="utf-8")))
    return docs


def _facts(docs: list) -> LinkFacts:
    tree = TreeIndex([d.path for d in docs] + ["docs/img/logo.png", "src/tool.py"])
    return LinkFacts.build(docs, PathIndex(d.path for d in docs), tree=tree)


def _is_notable(target: object) -> bool:
    status, fragment = target.status, target.fragment  # type: ignore[attr-defined]
    return status in (MISSING, CASE) or (status == FOUND and fragment is not None)


@pytest.mark.parametrize("order", ["notable first", "targets first"])
def test_notable_is_the_reportable_part_of_targets_placed_the_same(order: str) -> None:
    docs = _docs()
    every_facts, notable_facts = _facts(docs), _facts(docs)
    for doc in docs:
        if order == "targets first":
            every = every_facts.targets(doc)
            notable = notable_facts.notable(doc)
        else:
            notable = notable_facts.notable(doc)
            every = every_facts.targets(doc)
        wanted = tuple(
            t for t in every if _is_notable(t) and not (t.ref.kind == CODE and t.status == FOUND)
        )
        assert notable == wanted, doc.path
    skipped = Counter(t.reason for d in docs for t in every_facts.targets(d) if t.status == SKIPPED)
    assert notable_facts.tally() == skipped


def test_the_sample_has_every_kind_of_target() -> None:
    doc = _docs()[0]
    statuses = Counter(t.status for t in _facts(_docs()).targets(doc))
    assert statuses[FOUND] and statuses[MISSING] and statuses[CASE] and statuses[SKIPPED]


def test_kept_places_of_a_slim_document_are_the_places_of_the_full_one() -> None:
    doc = _docs()[0]
    kept = scan_document(doc, placed=True)
    assert kept.places is not None and len(kept.places) == len(kept.refs)
    facts = _facts(_docs())
    placed = {(t.ref.offset, t.line, t.column) for t in facts.targets(doc)}
    lines = doc.text.split("\n")
    for ref, (line, column) in zip(kept.refs, kept.places, strict=True):
        assert lines[line - 1][column - 1 :].startswith(ref.target), ref
        if any(offset == ref.offset for offset, _, _ in placed):
            assert (ref.offset, line, column) in placed
