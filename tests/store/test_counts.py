"""What a scope shows, counted (store/counts.py, #27), without listing every row (#32)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from kenso_git.store.counts import scoped_counts
from tests.helpers import docs_kb


def _linked_docs(count: int, links: int) -> dict[str, str]:
    return {
        f"area/page-{n:04}.md": f"# Page {n}\n\nWords about page {n} and its neighbours.\n\n"
        + "".join(f"- [next {k}](page-{(n + k) % count:04}.md)\n" for k in range(1, links + 1))
        for n in range(count)
    }


def test_counts_gate_every_row_and_hold_none_of_them(tmp_path: Path) -> None:
    """A server's first health_check while a hook's sync held the index counted through
    the gate: the list of every link's two paths was ~170 MB at 100,000 docs (#32)."""
    kb = docs_kb(tmp_path, _linked_docs(300, 12))
    hidden = "docs/area/page-0007.md"

    def counted() -> tuple[object, int]:
        tracemalloc.start()
        try:
            found = kb.read(lambda c: scoped_counts(c, lambda p: p != hidden, lambda p: True))
            return found, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    counted()  # statements prepared, caches warm
    found, peak = counted()
    assert found == (299, 299, 299 * 12)  # one chunk each; links from the hidden page left out
    assert peak < 60_000, peak  # the 3,600 links' paths listed: ~500 kB
