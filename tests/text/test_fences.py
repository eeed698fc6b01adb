"""A list item's fenced code block ends where CommonMark ends it, so no heading after it is
lost (text/fences.py).

Found on Spinnaker's docs (never seen before): a numbered step whose block opens with
`   ```bash` (indented 3) and closes with `    ```` (indented 4) never closed, and hid the
page's three later sections from the index (kenso 2.0.0 keeps them), and lint called the
links to them dead; a block opened by a tab-indented fence made its closing line an opening
one, with the same result.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.text import fences
from kenso_git.text.anchors import anchors
from kenso_git.text.parse import parse_document
from tests.helpers import init_repo

STEPS = """# Install

1. Fetch the repository.

    ```bash
    git clone https://example.com/repo.git
    # a comment, not a heading
    ```

2. Switch to it.

   ```bash
    cd repo
    ```

3. Set the version.
 \t```yml
   version: 2
   ```

## Local Debian

Run it on one machine.

## Next steps

Read the [local section](#local-debian).
"""


def _headings(body: str) -> list[str]:
    return [h.text for h in parse_document("steps.md", body).headings]


def test_a_list_items_fences_close_and_the_later_headings_are_kept() -> None:
    assert _headings(STEPS) == ["Install", "Local Debian", "Next steps"]
    doc = parse_document("steps.md", STEPS)
    assert len(doc.fences) == 3
    assert all("##" not in STEPS[a:b] for a, b in doc.fences)
    assert {"local-debian", "next-steps"} <= anchors(doc)
    assert not any("comment" in anchor for anchor in anchors(doc))  # code is no heading


def test_an_unclosed_list_fence_ends_with_its_item() -> None:
    body = "# T\n\n1. a\n\n    ```\n    code\n# after\n\n## More\n"
    assert _headings(body) == ["T", "after", "More"]
    # at the top level CommonMark's rules stand: a closing fence indented by 4 is code
    top = "# T\n\n```\n    ```\n## hidden\n```\n\n## Shown\n"
    assert _headings(top) == ["T", "Shown"]


class _CountingPattern:
    """A compiled pattern that adds up how many characters its searches may read."""

    def __init__(self, pattern: re.Pattern[str], reads: list[int]) -> None:
        self.pattern, self.reads = pattern, reads

    def search(self, text: str, pos: int) -> re.Match[str] | None:
        found = self.pattern.search(text, pos)
        self.reads[0] += (len(text) if found is None else found.end()) - pos
        return found


def test_many_list_fences_cost_linear_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # each opening fence looks for where its item ends: resumed, never searched again, so
    # the searches read each character once per indent, however many fences there are
    reads = [0]
    counted = tuple(_CountingPattern(p, reads) for p in fences._LEFT_OF)
    monkeypatch.setattr(fences, "_LEFT_OF", counted)
    n = 20_000
    body = "# T\n\n1. a\n\n" + "    ```\n    x\n    ```\n    y\n" * n
    doc = parse_document("big.md", body)
    assert len(doc.fences) == n
    assert reads[0] <= 2 * len(body), reads  # quadratic would be ~n * len(body)


def test_the_index_keeps_the_sections_and_reparses_old_indexes(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init_repo(root, {"docs/steps.md": STEPS})
    kb = KnowledgeBase.open(root)
    kb.ingest()
    sections = kb.read(lambda conn: [r[0] for r in conn.execute("SELECT section_path FROM chunks")])
    assert any(s.endswith("Local Debian") for s in sections), sections
    # an index made by a version that read the fences wrongly is chunked again: its
    # settings fingerprint is not today's
    with sqlite3.connect(root / ".kenso" / "docs.db") as conn:
        (value,) = conn.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()
        old = json.dumps({k: v for k, v in json.loads(value).items() if k != "fences"})
        conn.execute("UPDATE meta SET value = ? WHERE key = 'settings'", (old,))
    conn.close()
    assert KnowledgeBase.open(root).ingest().count("ingested") == 1
    assert KnowledgeBase.open(root).ingest().count("ingested") == 0  # and once only
