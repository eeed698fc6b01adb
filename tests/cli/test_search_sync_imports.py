"""`kenso-git search` right after one doc changed (#16: <= 0.2 s whole process) syncs that
doc without loading OpenSSL: its blob id comes from CPython's own SHA-1.

A real git repository and index; the command runs in a fresh interpreter, which then
reports the modules it loaded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from kenso_git.kb import KnowledgeBase
from tests.helpers import init_repo

PROBE = """
import json, sys
from kenso_git.entry import main
try:
    main(["search", "zebrafish", "--json"])  # given argv: exits by SystemExit, not os._exit
except SystemExit:
    pass
print(json.dumps(sorted(m for m in ("hashlib", "_hashlib") if m in sys.modules)), file=sys.stderr)
"""


def _text(title: str, words: str) -> str:
    return f"# {title}\n\n{words} is the word of this document, long enough to be indexed.\n"


def test_a_search_that_syncs_one_changed_doc_loads_no_openssl(tmp_path: Path) -> None:
    files = {f"docs/d{i}.md": _text(f"Doc {i}", f"topic{i}") for i in range(5)}
    root = init_repo(tmp_path / "repo", files)
    KnowledgeBase.open(root).ingest()
    (root / "docs" / "d2.md").write_text(_text("Doc 2", "zebrafish"), "utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("KENSO_")}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=root, capture_output=True, text=True, env=env, timeout=60
    )
    hits = json.loads(proc.stdout)
    assert [h["file_path"] for h in hits] == ["docs/d2.md"]  # the change is visible
    assert json.loads(proc.stderr.strip().splitlines()[-1]) == []
