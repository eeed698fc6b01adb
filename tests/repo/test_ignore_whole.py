"""`IgnoreRules.ignores_everything_in`: a folder git does not call ignored (`x/**` matches
everything inside `x`, not `x`) whose every entry the rules exclude. The expected answers
are checked against `git check-ignore --no-index` first: every probe name inside the folder,
as a file and as a folder, ignored (or one not), while the folder itself is not."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from kenso_git.config import Settings
from kenso_git.repo.ignore import IgnoreRules
from kenso_git.repo.workspace import find_workspace
from tests.helpers import git
from tests.helpers import init_repo
from tests.repo.test_ignore_git_parity import FILES
from tests.repo.test_ignore_git_parity import _generated

# Names one level inside a folder: every name the patterns below (and the generated ones)
# spell, and some they do not.
NAMES = sorted(
    {p.rsplit("/", 1)[-1] for p in FILES}
    | {p.split("/")[0] for p in FILES}
    | {"keep.md", "zz.md", "zz.txt", ".gitignore", "y", "z", "guide", "deep", "b", "c.md"}
)

# (id, {rule file: text}, core.ignorecase, {folder: every entry ignored})
CASES: list[tuple[str, dict[str, str], bool, dict[str, bool]]] = [
    ("starstar", {".gitignore": "x/**\n"}, False, {"x": True, "x/y": True, "docs": False}),
    ("starstar-star", {".gitignore": "x/**/*\n"}, False, {"x": True, "x/y": True}),
    ("star", {".gitignore": "x/*\n"}, False, {"x": True, "docs": False}),
    ("anchored", {".gitignore": "/x/**\n"}, False, {"x": True, "a/x": False}),
    ("any-depth", {".gitignore": "**/x/**\n"}, False, {"x": True, "a/x": True, "a": False}),
    ("wildcard-prefix", {".gitignore": "d*/**\n"}, False, {"docs": True, "d": True, "a": False}),
    ("every-folder", {".gitignore": "*/**\n"}, False, {"x": True, "docs/x": True}),
    ("keep-after", {".gitignore": "x/**\n!x/keep.md\n"}, False, {"x": False, "x/y": True}),
    ("keep-before", {".gitignore": "!x/keep.md\nx/**\n"}, False, {"x": True}),
    # a negation a later line excludes again names no entry it re-includes
    ("keep-undone", {".gitignore": "x/**\n!x/keep.md\nx/keep.md\n"}, False, {"x": True}),
    ("keep-md-part-undone", {".gitignore": "x/**\n!x/*.md\nx/keep.md\n"}, False, {"x": False}),
    ("keep-any-name", {".gitignore": "x/**\n!keep.md\n"}, False, {"x": False}),
    ("keep-md", {".gitignore": "x/**\n!*.md\n"}, False, {"x": False}),
    ("keep-deeper", {".gitignore": "x/**\n!x/y/keep.md\n"}, False, {"x": True, "x/y": True}),
    ("keep-elsewhere", {".gitignore": "x/**\n!docs/keep.md\n"}, False, {"x": True}),
    ("keep-dirs", {".gitignore": "x/**\n!x/**/\n"}, False, {"x": False}),
    ("dirs-only", {".gitignore": "x/**/\n"}, False, {"x": False}),
    ("star-dirs", {".gitignore": "x/*/\n"}, False, {"x": False}),
    ("two-levels", {".gitignore": "x/*/*\n"}, False, {"x": False, "x/y": True}),
    ("star-then-any", {".gitignore": "x/*/**\n"}, False, {"x": False, "x/y": True}),
    ("any-star-any", {".gitignore": "x/**/*/**\n"}, False, {"x": False, "x/y": True}),
    ("star-then-anys", {".gitignore": "x/*/**/**\n"}, False, {"x": False, "x/y": True}),
    ("run-of-any", {".gitignore": "x/**/**/**\n"}, False, {"x": True, "x/y": True, "a": False}),
    ("run-of-any-star", {".gitignore": "**/**/x/**/**/*\n"}, False, {"x": True, "a/x": True}),
    ("md-only", {".gitignore": "x/*.md\n"}, False, {"x": False}),
    ("own-star", {"x/.gitignore": "*\n"}, False, {"x": True, "x/y": True, "docs": False}),
    ("own-star-keep", {"x/.gitignore": "*\n!.gitignore\n"}, False, {"x": False}),
    ("own-anchored", {"docs/.gitignore": "/x/**\n"}, False, {"docs/x": True, "x": False}),
    ("nested-keep", {".gitignore": "x/**\n", "x/.gitignore": "!keep.md\n"}, False, {"x": False}),
    ("info-exclude", {".git/info/exclude": "docs/**\n"}, False, {"docs": True}),
    ("ignorecase", {".gitignore": "X/**\n"}, True, {"x": True}),
    ("case-sensitive", {".gitignore": "X/**\n"}, False, {"x": False}),
]


def _write(root: Path, rules: dict[str, str], ignorecase: bool) -> None:
    init_repo(root, commit=False)
    if ignorecase:
        git(root, "config", "core.ignorecase", "true")
    for rel, text in rules.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _git_ignored(root: Path, paths: list[str]) -> set[str]:
    proc = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin", "-z"],
        cwd=root,
        input="\0".join(paths) + "\0",
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return {p for p in proc.stdout.split("\0") if p}


def _git_says_every_entry_ignored(root: Path, folders: list[str]) -> dict[str, bool]:
    """Whether git ignores every probe entry of each folder, as a file and as a folder. The
    folders are made on disk for the second question (check-ignore takes a path that is not
    there for a file: `x/**/` would never match it), and removed after."""
    probes = {f: [f"{f}/{n}" for n in NAMES] for f in folders}
    asked = [p for ps in probes.values() for p in ps]
    as_files = _git_ignored(root, asked)
    made: list[Path] = []
    for path in asked:
        here = root / path
        if here.name != ".gitignore" and not here.exists():
            made.append(next(p for p in [*reversed(here.parents), here] if not p.exists()))
            here.mkdir(parents=True)
    try:
        as_folders = _git_ignored(root, [p for p in asked if not p.endswith("/.gitignore")])
    finally:
        for top in reversed(made):
            shutil.rmtree(top, ignore_errors=True)
    return {
        f: all(p in as_files for p in ps)
        and all(p in as_folders for p in ps if not p.endswith("/.gitignore"))
        for f, ps in probes.items()
    }


@pytest.mark.parametrize(
    ("rules", "ignorecase", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_folder_is_wholly_ignored_exactly_when_git_ignores_every_entry(
    tmp_path: Path, rules: dict[str, str], ignorecase: bool, expected: dict[str, bool]
) -> None:
    root = tmp_path / "repo"
    _write(root, rules, ignorecase)
    folders = sorted(expected)
    assert _git_says_every_entry_ignored(root, folders) == expected  # the table is git's
    ours = IgnoreRules.for_workspace(find_workspace(root), Settings())
    assert {f: ours.is_ignored(f, is_dir=True, every_entry=True) for f in folders} == expected
    itself = set(_git_ignored(root, folders))
    assert {f for f in folders if ours.is_ignored(f, is_dir=True)} == itself  # git's own
    assert {f for f in folders if f not in itself and ours.ignores_everything_in(f)} == {
        f for f in folders if f not in itself and expected[f]
    }


def test_the_checkout_root_is_never_wholly_ignored(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _write(root, {".gitignore": "/*\n**\n"}, ignorecase=False)
    rules = IgnoreRules.for_workspace(find_workspace(root), Settings())
    assert not rules.ignores_everything_in("")
    assert not rules.ignores_everything_in("/")
    assert rules.ignores_everything_in("docs")


@pytest.mark.parametrize("ignorecase", [False, True], ids=["case-sensitive", "ignorecase"])
def test_generated_patterns_never_call_a_folder_wholly_ignored_that_git_does_not(
    tmp_path: Path, ignorecase: bool
) -> None:
    """Sound on many generated pairs of patterns: a folder said to be wholly ignored has
    every probe entry ignored by git (a folder may be missed: a combination of partial
    patterns is not recognised)."""
    root = tmp_path / "repo"
    _write(root, {}, ignorecase)
    folders = sorted({p.rsplit("/", 1)[0] for p in FILES if "/" in p} | {"zz", "x/zz"})
    rng = random.Random(47 + ignorecase)
    problems: list[str] = []
    said = 0
    for _ in range(150):
        text = f"{_generated(rng, negated=False)}\n{_generated(rng, negated=rng.random() < 0.7)}\n"
        (root / ".gitignore").write_text(text, encoding="utf-8")
        rules = IgnoreRules.for_workspace(find_workspace(root), Settings())
        ours = [f for f in folders if rules.ignores_everything_in(f)]
        said += len(ours)
        if ours:
            git_says = _git_says_every_entry_ignored(root, ours)
            problems += [f"{text!r} {f}: git keeps an entry" for f in ours if not git_says[f]]
    assert not problems, "\n".join(problems)
    assert said, "no generated pattern covered a folder: the test proves nothing"
