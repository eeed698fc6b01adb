"""The scope gate decides what a path's folder decides once per folder, then the path's own
name (t49d #1): its verdicts are those of the whole-path judgement (`written.decide`: every
folder above against every rule file above, the path parsed in full), for paths in folders
that exist or not, written as the index writes them or not, inside or outside the scoped
roots (one of which names a file), with the rules' name matcher or without it
(`Scope.judging_by`, as a revision's rules are applied).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.config import Settings
from kenso_git.repo.ignore import IgnoreRules
from kenso_git.repo.scope import Scope
from kenso_git.repo.scope import scope_for
from kenso_git.repo.workspace import find_workspace
from kenso_git.repo.written import decide
from tests.helpers import init_repo
from tests.helpers import write

DOC = "# Title\n\nEnough words here to make this file a real document for the index.\n"
RULES = {
    ".gitignore": "build/\n*.draft.md\n!keep.draft.md\n/top-only.md\narchive/**\nCase.md\n",
    "docs/.gitignore": "secret*.md\nold/\n",
    "docs/sub/.gitignore": "!secret-ok.md\n",
}
ON_DISK = [
    "README.md",
    "top-only.md",
    "x.draft.md",
    "keep.draft.md",
    "build/out.md",
    "archive/a.md",
    "archive/deep/b.md",
    "docs/guide.md",
    "docs/secret.md",
    "docs/old/page.md",
    "docs/sub/secret-ok.md",
    "docs/sub/secret-no.md",
    "docs/sub/top-only.md",
    "docs/sub/deeper/a.draft.md",
    "docs/sub/deeper/keep.draft.md",
    "docs/sub/deeper/Case.md",
    "notes/n.md",
    "notes/build/x.md",
]
ELSEWHERE = [
    "gone/page.md",  # a folder the work tree lacks
    "docs/gone/secret-x.md",
    "docs/old/gone.md",
    "docs//guide.md",  # not as the index writes paths: normalised first
    "docs/./guide.md",
    "docs/./sub/secret-ok.md",
    "/docs/guide.md",
    "docs/../README.md",
    "docs/..",
    ".git/config.md",
    "docs/.kenso/x.md",
    "docs/.git",
    "docs/a%2e.md",
    "",
    ".",
    "docs/",
]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = init_repo(tmp_path_factory.mktemp("written") / "repo", commit=False)
    write(root, {**RULES, **dict.fromkeys(ON_DISK, DOC)})
    return root


def _expected(scope: Scope, rules: IgnoreRules) -> dict[str, bool]:
    return {p: decide(scope.root, scope.roots, p, rules.is_ignored) for p in ON_DISK + ELSEWHERE}


@pytest.mark.parametrize("roots", [(), ("docs/sub", "README.md", "notes")])
@pytest.mark.parametrize("name_matcher", [True, False])
def test_each_verdict_is_the_whole_path_s(
    root: Path, roots: tuple[str, ...], name_matcher: bool
) -> None:
    ws = find_workspace(root)
    settings = Settings(agent_scoped_roots=roots)
    rules = IgnoreRules.for_workspace(ws, settings)
    scope = scope_for(ws, settings)
    if not name_matcher:
        scope = scope.judging_by(rules.is_ignored)
    assert (scope.is_ignored_in is not None) == name_matcher
    want = _expected(scope, rules)
    assert {p: scope.shows(p) for p in want} == want  # decided now
    assert {p: scope.shows(p) for p in want} == want  # as kept
    assert {p: scope.shows(p) for p in reversed(list(want))} == want
    # the rules said something of every kind: the comparison is not of all-True
    assert {True, False} <= set(want.values())
    if not roots:
        assert want["docs/sub/secret-ok.md"] and not want["docs/sub/secret-no.md"]
        assert not want["docs/sub/deeper/a.draft.md"] and want["docs/sub/deeper/keep.draft.md"]
        assert not want["notes/build/x.md"] and not want["docs/old/gone.md"]
        assert want["docs//guide.md"] and not want["docs/sub/deeper/Case.md"]
