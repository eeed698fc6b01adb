"""`benchmarks/bench_scale.py`'s `generate` copies the corpus until it has written `docs`
documents: from a corpus with no Markdown file (empty, or no folder at all) it never got
there and looped forever. It now stops at once with an error naming the folder.

Run in a subprocess with a timeout, so that the old loop fails the test instead of hanging
the suite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CALL = (
    "import sys; from pathlib import Path; from benchmarks.bench_scale import generate; "
    "generate(Path(sys.argv[1]), Path(sys.argv[2]), 5)"
)


@pytest.mark.parametrize("made", [True, False], ids=["empty-folder", "no-folder"])
def test_generate_from_a_corpus_without_markdown_fails_naming_it(
    tmp_path: Path, made: bool
) -> None:
    corpus, root = tmp_path / "corpus", tmp_path / "tree"
    if made:
        corpus.mkdir()
        (corpus / "notes.txt").write_text("not Markdown\n", encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-c", CALL, str(corpus), str(root)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,  # the old loop never ends: the test fails here instead of hanging
    )
    assert out.returncode == 1, out.stderr
    what = "no Markdown file" if made else "no such folder"
    assert f"corpus {corpus}: {what}, nothing to copy" in out.stderr
    assert not root.exists()
