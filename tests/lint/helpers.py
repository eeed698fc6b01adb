from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path

from pytest import MonkeyPatch

from kenso_git.lint.config import LintConfig
from kenso_git.lint.model import LintReport
from kenso_git.lint.runner import lint_documents
from kenso_git.lint.session import run_lint
from kenso_git.text.parse import Document
from kenso_git.text.parse import parse_document

# a page that passes the rules lint tests do not ask about: front matter, a title, a preamble
FRONT = "---\ntitle: {t}\ntags: [a, b, c]\n---\n# {t}\n\n"
PREAMBLE = "Preamble text that is long enough for the preamble rule to be happy here.\n\n"


def docs_from(files: Mapping[str, str]) -> list[Document]:
    return [parse_document(path, text) for path, text in sorted(files.items())]


def lint_texts(
    files: Mapping[str, str], config: LintConfig | None = None, only: str | None = None
) -> LintReport:
    docs = docs_from(files)
    targets = [d for d in docs if only is None or d.path == only]
    return lint_documents(targets, corpus=docs, config=config or LintConfig())


def write_tree(root: Path, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def comparisons(monkeypatch: MonkeyPatch) -> list[int]:
    """Count difflib's comparisons (each candidate set against a word: `set_seq1`) from now
    until `monkeypatch.undo()`; the count is the returned list's one item."""
    count = [0]
    real = difflib.SequenceMatcher.set_seq1

    def counted(self: difflib.SequenceMatcher[str], a: str) -> None:
        count[0] += 1
        real(self, a)

    monkeypatch.setattr(difflib.SequenceMatcher, "set_seq1", counted)
    return count


def lint_compared(repo: Path, monkeypatch: MonkeyPatch, rule: str) -> tuple[int, list[str]]:
    """The difflib comparisons a lint of `repo` with only `rule` makes, and its messages."""
    count = comparisons(monkeypatch)
    monkeypatch.chdir(repo)
    report = run_lint([], overrides={"select": [rule]}).report
    monkeypatch.undo()
    return count[0], [v.message for f in report.files for v in f.violations]
