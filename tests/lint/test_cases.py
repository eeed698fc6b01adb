"""Fixture documents under cases/: `<!-- expect: KS007 -->` marks the line a finding is on.

A file lints with the rules named in its file name (`ks015-ks016-fail.md`); `KS010@5` in a
marker names line 5 instead of the marker's own line (for heading lines, which a comment
would change). Every other case file is part of the corpus, so links resolve between them.

The cases are linted as a real git repository whose history holds the renames and the
deletion the path rules (KS024, KS025) report: `HISTORY` names them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from kenso_git.config import load_settings
from kenso_git.lint.config import LintConfig
from kenso_git.lint.corpus import gather_facts
from kenso_git.lint.corpus import select_documents
from kenso_git.lint.rules import ALL_RULES
from kenso_git.lint.runner import lint_documents
from kenso_git.repo.workspace import find_workspace

CASES = Path(__file__).parent / "cases"
CASE_FILES = sorted(p.relative_to(CASES).as_posix() for p in CASES.rglob("*.md"))
_MARKER = re.compile(r"<!--\s*expect:\s*([^>]*?)\s*-->")
_EXPECT = re.compile(r"(KS\d{3})(?:@(\d+))?")


def _rules_of(name: str) -> frozenset[str]:
    return frozenset(m.upper() for m in re.findall(r"ks\d{3}", name.rsplit("/", 1)[-1]))


def _expected(text: str) -> Counter[tuple[int, str]]:
    out: Counter[tuple[int, str]] = Counter()
    for number, line in enumerate(text.split("\n"), start=1):
        for marker in _MARKER.finditer(line):
            for rule_id, at in _EXPECT.findall(marker.group(1)):
                out[(int(at) if at else number, rule_id)] += 1
    return out


# What the first commit held under another name (renamed since) or held and the second
# commit deleted: present path (None: deleted) -> path in the first commit.
HISTORY: dict[str | None, str] = {
    "ks024-target.md": "ks024-old-target.md",
    "assets/diagram.svg": "assets/old-diagram.svg",
    None: "assets/removed.svg",
}


def _git(root: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "kenso test",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "kenso test",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
        "GIT_AUTHOR_DATE": "1700000000 +0000",
        "GIT_COMMITTER_DATE": "1700000000 +0000",
    }
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory):
    """The case files as a git work tree with `HISTORY` behind it, and their corpus facts."""
    root = tmp_path_factory.mktemp("cases")
    shutil.copytree(CASES, root, dirs_exist_ok=True)
    _git(root, "init", "-q", "-b", "main")
    for now, before in HISTORY.items():
        if now is None:
            (root / before).write_text("gone\n", encoding="utf-8")
        else:
            (root / now).rename(root / before)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "the cases as they were")
    for now, before in HISTORY.items():
        _git(root, "rm", "-q", before) if now is None else _git(root, "mv", before, now)
    _git(root, "commit", "-q", "-m", "renames and a deletion")
    ws = find_workspace(root)
    # decoded as lint reads files: a case may hold bytes that are not UTF-8 (KS021)
    selection = select_documents(ws, load_settings(ws.root), [])
    select = frozenset(r.id for r in ALL_RULES)
    facts = gather_facts(ws, selection, select, with_mentions=True, min_label_chars=4)
    return selection.corpus, facts


@pytest.mark.parametrize("case", [c for c in CASE_FILES if _rules_of(c)])
def test_case_findings_match_markers(case: str, corpus) -> None:
    docs, facts = corpus
    doc = next(d for d in docs if d.path == case)
    report = lint_documents([doc], corpus=facts, config=LintConfig(select=_rules_of(case)))
    found = Counter((v.line, v.rule) for v in report.violations())
    assert found == _expected(doc.text), [v.format_line() for v in report.violations()]


@pytest.mark.parametrize("rule", [r.id for r in ALL_RULES])
def test_every_rule_has_failing_and_passing_cases(rule: str) -> None:
    mine = [c for c in CASE_FILES if rule in _rules_of(c)]
    texts = {c: (CASES / c).read_text(encoding="utf-8", errors="replace") for c in mine}
    failing = [c for c in mine if any(r == rule for _, r in _expected(texts[c]))]
    passing = [c for c in mine if not any(r == rule for _, r in _expected(texts[c]))]
    assert failing, f"no case file makes {rule} fire"
    assert passing, f"no case file shows {rule} staying quiet"
