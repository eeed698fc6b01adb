"""A sync with nothing to do loads neither the walker nor the parser (#16).

At 30x a no-change `kenso-git sync` waits for one `git status`; importing the walker and
the Markdown parser (repo.discover, index.prepare, text.parse) added ~25 ms of CPU to it,
and to every query-time check that found nothing changed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import init_repo
from tests.helpers import write

HEAVY = {"kenso_git.repo.discover", "kenso_git.index.prepare", "kenso_git.text.parse"}
CODE = (
    "import sys\n"
    "from pathlib import Path\n"
    "from kenso_git.kb import KnowledgeBase\n"
    "report = KnowledgeBase.open(Path.cwd()).sync()\n"
    "print(report.total, report.count('unchanged'))\n"
    f"print(sorted(set(sys.modules) & {HEAVY!r}))\n"
)


def _sync_in_a_new_process(root: Path) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", CODE], cwd=root, capture_output=True, text=True, check=True
    )
    return proc.stdout.splitlines()


def test_a_sync_with_nothing_to_do_imports_neither_walker_nor_parser(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"docs/a.md": doc("Alpha"), "docs/b.md": doc("Beta")})
    kb = KnowledgeBase.open(root)
    kb.sync()  # walks, and leaves git's mark listing the docs written just before it
    kb.sync()  # looks at those again: unchanged, so the mark now lists none
    kb.close()
    assert _sync_in_a_new_process(root) == ["2 2", "[]"]
    write(root, {"docs/b.md": doc("Beta", "Beta changed its text enough to be indexed again.")})
    counts, loaded = _sync_in_a_new_process(root)  # a change still parses
    assert counts == "2 1" and "kenso_git.text.parse" in loaded
