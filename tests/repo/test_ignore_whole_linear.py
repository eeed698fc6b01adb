"""Whether a folder's every entry is ignored (`repo.ignorewhole`) costs time linear in the
rule lines, however many `**` parts a line has: a line `x/**/**/.../**` had one regex made
and matched per `**` (each as long as the line: the square of its parts, 28 s for 2,000),
and again at every question. A run of `**` parts now counts as two, and the regexes of a
line are kept between questions. The answers are git's (`test_ignore_whole` checks them
against `git check-ignore`); here a wrapper counts the bytes translated into regexes."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.config import Settings
from kenso_git.repo import ignorewhole
from kenso_git.repo.ignore import IgnoreRules
from kenso_git.repo.workspace import find_workspace
from tests.helpers import init_repo

RUN = 2000  # `**` parts in one line
QUESTIONS = 100  # folders asked about, each twice


def test_a_line_of_thousands_of_starstar_parts_takes_a_few_regexes_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init_repo(tmp_path / "repo", commit=False)
    stars = "/".join(["**"] * RUN)
    lines = [f"!kept/{stars}/x.md", f"starred-{RUN}/{stars}", "!other/*.md"]
    text = "".join(f"{line}\n" for line in lines)
    (root / ".gitignore").write_text(text, encoding="utf-8")
    budget = 4 * len(text)  # bytes made into regexes: linear in the rules, once
    translated: list[int] = []
    real = ignorewhole.translate

    def counting(pattern: bytes, *, fold: bool) -> bytes | None:
        translated.append(len(pattern))
        assert sum(translated) <= budget, f"{len(translated)} regexes, {sum(translated)} bytes"
        return real(pattern, fold=fold)

    monkeypatch.setattr(ignorewhole, "translate", counting)
    rules = IgnoreRules.for_workspace(find_workspace(root), Settings())
    expected = {
        f"starred-{RUN}": True,
        f"starred-{RUN}/deep": True,  # `starred/**/**` matches every `starred/deep/NAME`
        f"starred-{RUN}/deep/er": True,
        "other": False,  # `!other/*.md` may re-include one
        "elsewhere": False,
        **{f"folder-{i}": False for i in range(QUESTIONS)},
    }

    for _ in range(2):
        assert {f: rules.ignores_everything_in(f) for f in expected} == expected

    assert translated, "the wrapper saw no regex made: it proves nothing"
    assert len(translated) <= 8, translated
