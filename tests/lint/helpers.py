from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from kenso_git.lint.config import LintConfig
from kenso_git.lint.model import LintReport
from kenso_git.lint.runner import lint_documents
from kenso_git.text.parse import Document
from kenso_git.text.parse import parse_document


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
