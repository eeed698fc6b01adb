"""A document slimmed past corpus.KEEP_CHARS is parsed once, not twice: the rules that
judge it alone run on its first parse, the corpus rules later on its slim form, and it is
read again only when a corpus rule reports on it (issue #14: lint time 10x/1x over 12).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kenso_git.lint import corpus
from kenso_git.lint.session import run_lint
from kenso_git.repo import discover
from tests.helpers import write

CASES = Path(__file__).parent / "cases"


def _count_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths lint reads and parses, in order (a counter around the real loader)."""
    loads: list[str] = []
    real = discover.load_document

    def counted(sf: discover.SourceFile, settings: object) -> object:
        loads.append(sf.path)
        return real(sf, settings)  # type: ignore[arg-type]

    monkeypatch.setattr(discover, "load_document", counted)
    return loads


def _clean_repo(root: Path, files: int) -> None:
    """`files` documents that link to each other in a ring: no corpus rule reports on any."""
    write(
        root,
        {
            f"docs/d{n:03}.md": (
                f"---\ntitle: Guide {n}\ntags: [a, b]\ncategory: guides\nrelates_to:\n"
                f"  - d{(n + 1) % files:03}.md\n---\n# Guide {n}\n\n"
                + "Plain words about the topic of this guide. " * 30
                + "\n"
            )
            for n in range(files)
        },
    )


def test_each_slimmed_document_is_parsed_once(tmp_path, monkeypatch):
    # Before: every document past KEEP_CHARS was parsed for the corpus facts, then read and
    # parsed again to be linted: 2 loads each, so 10x the corpus cost 18x the parses.
    monkeypatch.chdir(tmp_path)
    for files in (20, 40):
        root = tmp_path / f"r{files}"
        _clean_repo(root, files)
        monkeypatch.chdir(root)
        monkeypatch.setattr(corpus, "KEEP_CHARS", 0)
        loads = _count_loads(monkeypatch)
        report = run_lint([]).report
        assert len(report.files) == files
        assert len(loads) == files  # once each, however many files are slimmed
        monkeypatch.undo()


def test_a_slimmed_document_is_read_again_only_when_a_corpus_rule_reports_on_it(
    tmp_path, monkeypatch
):
    _clean_repo(tmp_path, 6)
    write(tmp_path, {"docs/broken.md": "---\nrelates_to:\n  - nowhere.md\n---\n# Broken\n\nx\n"})
    monkeypatch.chdir(tmp_path)
    kept = run_lint([]).report
    monkeypatch.setattr(corpus, "KEEP_CHARS", 0)
    loads = _count_loads(monkeypatch)
    slimmed = run_lint([]).report
    assert slimmed == kept
    assert sorted(loads) == sorted(
        [*(f"docs/d{n:03}.md" for n in range(6)), *["docs/broken.md"] * 2]
    )
    ks002 = [v for r in kept.files for v in r.violations if v.rule == "KS002"]
    assert [(v.path, v.line) for v in ks002] == [("docs/broken.md", 3)]


@pytest.mark.parametrize("keep", [0, 2_000])
def test_every_rule_on_the_case_corpus_lints_the_same_slimmed_or_kept(tmp_path, monkeypatch, keep):
    # Every rule selected, KS019 too: a rule outside CORPUS_RULES that read the corpus facts
    # in the first half would fail here, and each corpus rule must find what it finds on a
    # full parse (lines, columns, suppressions, the emission order within a group).
    shutil.copytree(CASES, tmp_path / "docs")
    write(
        tmp_path,
        {
            "docs/z/unique.md": "---\ncategory: guidess\n---\n# Unique\n\nGuide words here.\n",
            "docs/z/quiet.md": (
                "<!-- kenso-disable-file KS012 -->\n---\nrelates_to:\n  - gone.md\n---\n"
                "# Quiet\n\nNo links from here, one broken one.\n"
            ),
        },
    )
    monkeypatch.chdir(tmp_path)
    overrides = {"select": ["ALL"]}
    kept = run_lint([], overrides=overrides).report
    monkeypatch.setattr(corpus, "KEEP_CHARS", keep)
    slimmed = run_lint([], overrides=overrides).report
    assert slimmed == kept
    rules = {v.rule for r in kept.files for v in r.violations}
    assert {"KS002", "KS012", "KS014", "KS019"} <= rules
