"""`LinkFacts.notable`: the targets the path rules read are exactly those of `targets` a rule
may report, placed at the same lines and columns, and the skipped ones counted the same
(#30: only these are placed and kept, so most links of a corpus cost a lookup)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from urllib.parse import unquote

import pytest
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from kenso_git.lint.docscan import scan_document
from kenso_git.lint.targets import CASE
from kenso_git.lint.targets import FOUND
from kenso_git.lint.targets import MISSING
from kenso_git.lint.targets import SKIPPED
from kenso_git.lint.targets import LinkFacts
from kenso_git.lint.treeindex import TreeIndex
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


TRICKY = """# Tricky

`[in code](https://example.com)` and `[gone in code](nowhere.md)` are not links, nor is
`[tab](#tab/x)`; after the span [a web link](https://example.com/y) counts once.
A line with `one tick [gone](after.md) and [ok](guide.md#setup) closed by` this tick.
![an image](img/none.png) and [nested [brackets]](old.md#part) and ![x](img/logo.png#frag).
[local](#tricky) [local bad](#nope) [same twice](old.md) [same twice](old.md)

[def]: #tricky
[def web]: https://example.com/z
[def gone]: ../outside/far.md
"""


def _one_pass_is_two_pass(body: str) -> tuple:
    """The notable targets of `body` (as docs/tricky.md) after checking that the one-pass
    scan finds what the two-pass scan does, skipped links counted the same."""
    docs = [parse_document("docs/tricky.md", body), parse_document("docs/guide.md", "# Setup\n")]
    every_facts, notable_facts = _facts(docs), _facts(docs)
    every = every_facts.targets(docs[0])
    wanted = tuple(
        t for t in every if _is_notable(t) and not (t.ref.kind == CODE and t.status == FOUND)
    )
    assert notable_facts.notable(docs[0]) == wanted
    skipped = Counter(t.reason for t in every if t.status == SKIPPED)
    assert notable_facts.tally() == skipped
    return wanted


def test_notable_in_one_pass_is_what_the_two_pass_scan_finds_on_tricky_lines() -> None:
    wanted = _one_pass_is_two_pass(TRICKY)
    assert {t.ref.target for t in wanted} >= {"old.md", "img/none.png", "#nope", "old.md#part"}


def test_notable_in_one_pass_equals_the_two_pass_scan_on_the_docs_corpus() -> None:
    from tests.helpers import require_corpus

    root = require_corpus()
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    docs = [
        parse_document(rel, (root / rel).read_text(encoding="utf-8", errors="replace"))
        for rel in files
        if rel.endswith(".md")
    ]
    tree = TreeIndex(files)
    every_facts = LinkFacts.build(docs, PathIndex(d.path for d in docs), tree=tree)
    notable_facts = LinkFacts.build(docs, PathIndex(d.path for d in docs), tree=tree)
    for doc in docs:
        wanted = tuple(
            t
            for t in every_facts.targets(doc)
            if _is_notable(t) and not (t.ref.kind == CODE and t.status == FOUND)
        )
        assert notable_facts.notable(doc) == wanted, doc.path
    skipped = Counter(t.reason for d in docs for t in every_facts.targets(d) if t.status == SKIPPED)
    assert notable_facts.tally() == skipped


_PART = st.sampled_from(["a", "b.md", ".", "..", "", " ", "x y", ".git", "c%20d", "é", "/"])


@settings(max_examples=400, deadline=None)
@given(
    source=st.lists(st.sampled_from(["docs", "a", "x y", "é"]), max_size=3),
    parts=st.lists(_PART, min_size=1, max_size=5),
)
def test_classify_places_a_relative_path_as_normalise_target_does(
    source: list[str], parts: list[str]
) -> None:
    """The fast way for plain relative paths gives what the general way gives."""
    from kenso_git.lint.targets import classify
    from kenso_git.text.parse import normalise_target

    src = "/".join([*source, "page.md"])
    raw = "/".join(parts)
    if not raw or raw.startswith(("/", "#", "~/")) or ":" in raw:
        return
    status, path, _frag, _reason = classify(src, raw, TreeIndex(["docs/page.md"]))
    want_raw = raw.partition("#")[0].partition("?")[0]
    want_raw = unquote(want_raw) if "%" in want_raw else want_raw
    if not want_raw:
        return
    want = normalise_target(src, want_raw if want_raw.startswith(".") else "./" + want_raw)
    if not want or want == ".." or want.startswith("../"):
        assert status == SKIPPED
    else:  # `.`: the repository's root, a folder of the tree
        assert path == want


def test_a_page_past_the_link_caps_gets_what_the_two_pass_scan_gives() -> None:
    from kenso_git.text.mdlinks import MAX_REFS

    body = "# Many\n\n" + "".join(f"[l{i}](gone{i}.md) " for i in range(MAX_REFS + 50)) + "\n"
    docs = [parse_document("docs/many.md", body)]
    every = _facts(docs).targets(docs[0])
    notable = _facts(docs).notable(docs[0])
    assert len(notable) == MAX_REFS and notable == every


_PIECE = st.sampled_from(
    [
        "](",
        "](old.md)",
        "](guide.md#setup)",
        "](#tricky)",
        "](~/includes/x.md)",
        "](~/)",
        "](~x.md)",
        '](old.md "t](x)")',
        '](a "t]: y")',
        "]:",
        "]: old.md",
        "]: #nope",
        "[",
        "[r",
        "![",
        "\\]",
        "\\",
        "]",
        ")",
        "\n",
        "\n   ",
        "\n    ",
        "`",
        # code spans over lines, and what ends their paragraph
        "``",
        "\\`",
        "\n\n",
        "\n- ",
        "\n# ",
        "\n> ",
        "\n| ",
        "<!--",
        "-->",
        "\n```\n",
        " ",
        "x",
        "img/none.png",
        "https://example.com",
        # inline code naming paths: in the tree, gone, another case, past a first segment
        # the tree lacks, with a line suffix, case-folded (`ſ` folds to `s`)
        "`src/tool.py`",
        "`src/gone.py`",
        "` SRC/tool.py:12 `",
        "`docs/`",
        "`Docs/gone.md`",
        "`ſrc/gone.py`",
        "`x/y`",
        "src/gone.py`",
        # HTML links and images, and templates in a destination
        '<a href="old.md">',
        "<img src='img/none.png'>",
        "<A HREF=guide.md#nope>",
        '<a name="x">',
        '{{< relref "guide.md#nope" >}}',
        "{{% eturl rss %}}",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECE, max_size=40))
@example(["[r", "]: old.md", " ", "<!--", "-->", "]: old.md"])  # a region starting mid-line
@example(["[r", "\\", '](a "t]: y")', "]: old.md"])  # `]:` inside an inline link's title
@example(["[r", "\\", '](a "t]: y")'])  # ... and nowhere else on its line
@example(["`x/y`", " ", "`src/gone.py`"])  # a region's second span names the tree
@example(["`x/y", "`src/gone.py`"])  # backticks paired left to right
@example(["`ſrc/gone.py`"])  # a first segment matching the tree once case-folded
@example(["`", "\n", "[r", "](old.md)", "`"])  # a code span over a line break
@example(["`", "\n", "[r", "]: old.md", "`"])  # ... holding a definition's shape
@example(["`", "\n", "`src/gone.py`"])  # a path span opened on the line after a span
@example(pieces=["[", "\\", '](old.md "t](x)")'])  # a `](` in the title of a `](` that is text
def test_notable_in_one_pass_is_the_two_pass_scan_on_any_mix_of_link_syntax(
    pieces: list[str],
) -> None:
    _one_pass_is_two_pass("# Tricky\n\n" + "".join(pieces))


@pytest.mark.parametrize(
    ("raw", "new", "written"),
    [
        ("one.md", "docs/c#1 one.md", "c%231 one.md"),  # `#` would start a fragment
        ("two.md", "docs/two%20x.md", "two%2520x.md"),  # `%20` would name `two x.md`
        ("q.md", "docs/why?.md", "why%3F.md"),  # `?` would start a query
        ("a%20b.md", "docs/c#d e.md", "c%23d%20e.md"),  # escaped as the link was
    ],
)
def test_a_fixed_link_names_a_file_whose_name_holds_link_syntax(
    raw: str, new: str, written: str
) -> None:
    """`lint --fix` after a rename to `c#1 one.md` wrote `<c#1 one.md>`, which its next run
    reported dead (`docs/c does not exist`); `two%20x.md` named `two x.md`."""
    from kenso_git.lint.relpaths import relative_to

    assert relative_to("docs/index.md", raw, new) == written
    if "%" not in raw:  # a relates_to entry is a path, not a URL: written as it is
        assert relative_to("docs/index.md", raw, new, link=False) == new.removeprefix("docs/")


def test_lint_reports_the_link_in_the_title_of_an_escaped_bracket(repo: Path) -> None:
    """`[\\](guide.md "t](x.md)")` is one link, to x.md (CommonMark: `\\]` closes no link
    text, so the text runs to the title's `]`); lint said nothing of it, the link to a page
    that exists hiding it."""
    from tests.gitrepo import commit_all
    from tests.gitrepo import write
    from tests.lint.test_cli import run

    page = '# Escaped\n\nSee [\\](guide.md "t](x.md)") and [\\](old.md "t](y.md)").\n'
    write(repo, {"docs/guide.md": "# Guide\n", "docs/page.md": page})
    commit_all(repo, "pages")
    shown = run(repo, "--format", "concise", "--select", "KS022", "docs")
    assert shown.returncode == 1, shown.stderr
    assert shown.stdout.splitlines() == [
        'docs/page.md:3:22: KS022 link "x.md": docs/x.md does not exist (dead-link)',
        'docs/page.md:3:49: KS022 link "y.md": docs/y.md does not exist (dead-link)',
    ]
