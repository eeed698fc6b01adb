"""Pathological Markdown inputs, each a function of a size `n`, and the work they cost.

Shared by the growth-factor tests (tests/text/test_growth.py, tests/e2e/test_growth_heavy.py)
and benchmarks/bench_inputs.py: every shape grows linearly in size with `n`.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

from kenso_git.lint.runner import lint_documents
from kenso_git.repo.discover import document_from_bytes
from kenso_git.text.chunk import chunk_document
from kenso_git.text.chunk import search_extras
from kenso_git.text.parse import Document

Clock = Callable[[], float]


def _fm(lines: list[str], body: str = "") -> str:
    return "---\ntitle: Shape\n" + "\n".join(lines) + "\n---\n# Shape\n\n" + body


def fences(n: int) -> str:
    return "# Doc\n\n## Big\n\n" + "```\ncode\n\n# not a heading\n```\n\npara text\n\n" * n


def tables(n: int) -> str:
    return "# Doc\n\n## Big\n\n" + "| a | b |\n|---|---|\n| 1 | 2 |\n\nwords here\n\n" * n


def headings(n: int) -> str:
    return "# Doc\n\n## Top\n\n" + "".join(
        f"### Sub {i}\n\n#### Leaf {i}\n\nx\n\n" for i in range(n)
    )


def nested(n: int) -> str:
    """Oversized H3 sections under one H2, each with H4s: every split level is taken."""
    part = "#### Leaf\n\n" + ("lorem ipsum dolor sit amet " * 20 + "\n\n") * 10
    return "# Doc\n\n## Top\n\n" + "".join(f"### Sub {i}\n\n{part}" for i in range(n))


def sections(n: int) -> str:
    return "# Doc\n\n" + "".join(
        f"## Section {i}\n\nSome ordinary prose, {i}.\n\n" for i in range(n)
    )


def list_depth(n: int) -> str:
    return "# Doc\n\n## L\n\n" + "".join("  " * (i % 40) + f"- item {i}\n" for i in range(n))


def quote_depth(n: int) -> str:
    return "# Doc\n\n## Q\n\n" + "> " * n + "deep\n\n" + "> quoted line\n" * n


def tags(n: int) -> str:
    return _fm(["tags:", *(f"  - tag{i}" for i in range(n))], "body text " * 10)


def tags_flow(n: int) -> str:
    return _fm(["tags: [" + ", ".join(f"t{i}" for i in range(n)) + "]"], "body text " * 10)


def aliases(n: int) -> str:
    return _fm(["aliases:", *(f"  - 'alias {i}'" for i in range(n))], "body text " * 10)


def relates_plain(n: int) -> str:
    return _fm(["relates_to:", *(f"  - d{i}.md" for i in range(n))], "body text " * 10)


def relates_quoted(n: int) -> str:
    return _fm(["relates_to:", *(f"  - 'it''s {i}.md'" for i in range(n))], "body text " * 10)


def relates_dicts(n: int) -> str:
    lines = ["relates_to:"]
    for i in range(n):
        lines += [f'  - path: "d\\\\{i}.md"', "    relation: related"]
    return _fm(lines, "body text " * 10)


def relates_flow(n: int) -> str:
    return _fm(["relates_to: [" + ", ".join(f"d{i}.md" for i in range(n)) + "]"], "x " * 30)


def relates_string(n: int) -> str:
    return _fm(["relates_to: " + ", ".join(f"d{i}.md" for i in range(n))], "body text " * 10)


def long_line(n: int) -> str:
    return "# Doc\n\n## Long\n\n" + "x" * (40 * n) + "\n\n" + "word " * (8 * n) + "\n"


def findings(n: int) -> str:
    """Many findings: broken links, each with its own column, over many lines."""
    body = "".join(f"## S{i}\n\nx\n\n" for i in range(n))
    return _fm(["relates_to:", *(f"  - missing/{i}.md" for i in range(n))], body)


def backtick_runs(n: int) -> str:
    """One line of unmatched backtick runs of many widths, each followed by a link: every
    link asks whether it is in a code span (text.mdcode)."""
    return "# Doc\n\n" + "".join("`" * (i % 40 + 1) + " [x](y.md) " for i in range(n)) + "\n"


def indented_blocks(n: int) -> str:
    """Blank-then-indented lines, alternately code and a list item's continuation."""
    return "# Doc\n\n" + "".join(
        f"- item {i}\n\n    [x](y.md)\n\nText.\n\n    [c](d.md)\n\n" for i in range(n)
    )


def backslashes(n: int) -> str:
    """Runs of backslashes before `](`: each link asks whether its bracket is escaped."""
    return "# Doc\n\n" + "".join("\\" * (i % 30) + "](y.md) " for i in range(n)) + "\n"


SHAPES: dict[str, Callable[[int], str]] = {
    "fences": fences,
    "tables": tables,
    "headings": headings,
    "nested": nested,
    "sections": sections,
    "list_depth": list_depth,
    "quote_depth": quote_depth,
    "tags": tags,
    "tags_flow": tags_flow,
    "aliases": aliases,
    "relates_plain": relates_plain,
    "relates_quoted": relates_quoted,
    "relates_dicts": relates_dicts,
    "relates_flow": relates_flow,
    "relates_string": relates_string,
    "long_line": long_line,
    "findings": findings,
    "backtick_runs": backtick_runs,
    "indented_blocks": indented_blocks,
    "backslashes": backslashes,
}


def ingest(text: str) -> Document:
    """What ingest does with one file's bytes: decode, parse, chunk, searchable extras."""
    doc = document_from_bytes("docs/shape.md", text.encode())
    chunks = chunk_document(doc, max_size=4000, overlap=200)
    search_extras(doc, chunks)
    return doc


def lint(text: str) -> int:
    """Lint one file (every rule, KS019 included); the number of findings."""
    from kenso_git.lint.config import LintConfig
    from kenso_git.lint.rules import RULES_BY_ID

    doc = document_from_bytes("docs/shape.md", text.encode())
    config = LintConfig(select=frozenset(RULES_BY_ID))
    return lint_documents([doc], config=config).errors


def best_time(work: Callable[[], object], repeats: int, clock: Clock = time.process_time) -> float:
    """The fastest of `repeats` runs, in CPU time of this process by default (other load on
    the machine does not count) and without the cyclic garbage collector, whose passes
    depend on what else the process holds."""
    best = float("inf")
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeats):
            start = clock()
            work()
            best = min(best, clock() - start)
    finally:
        if enabled:
            gc.enable()
    return best


def size_for(shape: Callable[[int], str], target_bytes: int) -> int:
    """The `n` at which `shape` is about (at most) `target_bytes` long."""
    n = max(1, target_bytes * 64 // len(shape(64).encode()))
    for _ in range(4):  # numbers in the text grow longer with n: correct the estimate
        size = len(shape(n).encode())
        if size <= target_bytes:
            break
        n = max(1, n * target_bytes // size - 1)
    return n
