"""Inline Markdown links: which `[text](target)` of a document become `links_to` entries."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.text.links import PathIndex
from kenso_git.text.links import Resolver
from kenso_git.text.links import inline_links
from kenso_git.text.links import raw_relations
from kenso_git.text.links import resolve_link
from kenso_git.text.links import resolve_links
from kenso_git.text.mdlinks import MAX_LINK_SCANS
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


def test_a_pathological_body_is_read_in_linear_time_as_lint_reads_it() -> None:
    """`](` that open no link cost no scan of their own (text.mdlinks reads links with one
    possessive pattern): the link after them is a link, for the graph as for lint."""
    import time

    body = "# T\n\n" + "](" * (MAX_LINK_SCANS * 3) + "[late](late.md)\n"
    started = time.perf_counter()
    assert inline_links(parse_document("a.md", body)) == ["./late.md"]
    assert time.perf_counter() - started < 1.0
    assert inline_links(parse_document("a.md", "# T\n\n" + "`" * 10_001 + " [x](x.md)\n")) == []


_PATH_PARTS = st.sampled_from(["a", "b", "x.md", "a.md", ".", "..", "", " ", ".x", "*", "?"])
_TARGETS = st.lists(_PATH_PARTS, min_size=1, max_size=4).map("/".join) | st.sampled_from(
    ["./a.md", "../b/x.md", "/a.md", " a.md", "a.md ", "a//x.md", "x.md/", "\u00a0a.md"]
)
_KNOWN = st.lists(
    st.sampled_from(["a.md", "x.md", "a/x.md", "b/x.md", "a/b/x.md", "b/a.md", "docs/a.md"]),
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(
    source=st.sampled_from(["s.md", "a/s.md", "a/b/s.md", "docs/s.md"]),
    targets=st.lists(_TARGETS, max_size=8),
    known=_KNOWN,
)
def test_resolving_a_docs_entries_at_once_answers_as_one_at_a_time(
    source: str, targets: list[str], known: list[str]
) -> None:
    """The bulk loops of #14 (a plain path takes three lookups, no normalising) answer
    exactly what `resolve_link` and `Resolver.target` answer for each entry."""
    index = PathIndex(known)
    assert resolve_links(source, targets, index) == [
        resolve_link(source, t, index) for t in targets
    ]
    resolver = Resolver(known)
    assert resolver.targets(source, targets) == [resolver.target(source, t) for t in targets]
    few = Resolver(known, lookup_index=False)
    assert few.targets(source, targets) == [few.target(source, t) for t in targets]


def _brute_suffix(paths: list[str], tail: str) -> str | None:
    found = [p for p in paths if p.endswith("/" + tail)]
    return found[0] if len(found) == 1 else None


@pytest.mark.parametrize("collide", [False, True])
def test_path_index_suffixes_equal_a_scan_of_every_path(
    monkeypatch: pytest.MonkeyPatch, collide: bool
) -> None:
    # #32: suffixes are kept by hash and length; a hash two suffixes share (forced here)
    # never gives a wrong answer.
    import random

    if collide:
        monkeypatch.setattr(PathIndex, "_hash", staticmethod(lambda s: len(s) % 2))
    rng = random.Random(7)
    names = ["a", "b", "docs", "README.md", "x.md", "guide.md", "sub"]
    paths = sorted(
        {
            "/".join(rng.choice(names) for _ in range(rng.randint(1, 5))) + rng.choice(["", ".md"])
            for _ in range(400)
        }
    )
    index = PathIndex(paths)
    tails = {p.split("/", k)[-1] for p in paths for k in range(1, p.count("/") + 1)}
    tails |= {"nothing.md", "b/nothing.md", "a", ""}
    for tail in sorted(tails):
        assert index.by_suffix(tail) == _brute_suffix(paths, tail), tail


def test_path_index_keeps_no_string_per_suffix() -> None:
    # #32: 100,000 paths' suffixes as strings were ~100 MB of a writer's peak memory, and
    # then as dictionary entries ~60 MB
    import tracemalloc

    paths = [
        f"packages/p{i % 60:03d}/desktop/guide/area{i % 7}/topic-{i}/page-number-{i}.md"
        for i in range(20_000)
    ]
    tracemalloc.start()
    try:
        index = PathIndex(paths)
        size, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert index.by_suffix("topic-7/page-number-7.md") == paths[7]
    per_path = size / len(paths)
    # 830 bytes with a string per suffix, 620 with a dictionary entry per suffix, ~150 with
    # one word per suffix in a sorted array
    assert per_path < 300, per_path


def test_a_suffix_many_paths_share_names_none_of_them() -> None:
    # #32: the lookup stops at the second path ending in the tail (a shared file name such as
    # `index.md` of thousands of folders is not walked through), and a suffix one path has
    # still names it among 50,000 words of the same hash
    paths = [f"area/topic-{i}/index.md" for i in range(50_000)] + ["area/only/one.md"]
    index = PathIndex(paths)
    words = index._keys
    assert index.by_suffix("index.md") is None
    assert index.by_suffix("topic-77/index.md") == "area/topic-77/index.md"
    assert index.by_suffix("one.md") == "area/only/one.md"
    assert len(words) == 2 * len(paths)  # one word per suffix, no more
