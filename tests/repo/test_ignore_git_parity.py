"""The ignore rules give git's verdict, case by case: a table of ignore files x paths where
the expected answer is what the real `git check-ignore --no-index` (and `git add -A` then
`git ls-files`) says in a scratch repository, compared with each of kenso-git's doors:
the walk of `discover`, `IgnoreRules.is_ignored` (files and folders) and the scope gate
an agent's path goes through (`Scope.shows`, `Scope.resolve`).

Left out on purpose: `foo**/bar`-style patterns (a `**` glued to a literal before it),
which git matched wrongly before 2.52 (commit 1940a02dc1: `foo**/bar` matched `foobar`);
kenso-git follows the fixed reading.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from kenso_git.config import Settings
from kenso_git.errors import ScopeError
from kenso_git.repo.discover import discover
from kenso_git.repo.ignore import IgnoreRules
from kenso_git.repo.scope import scope_for
from kenso_git.repo.workspace import find_workspace
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write

DOC = "# Title\n\nEnough words here to make this file a real document for the index.\n"

# Every case writes these files, then its own ignore files.
FILES = [
    "a.md",
    "A.md",
    "b.md",
    "abc.md",
    "keep.md",
    "x.md",
    "README.md",
    "#hash.md",
    "!bang.md",
    "[br].md",
    "sp ace.md",
    "x/a.md",
    "x/keep.md",
    "x/README.md",
    "x/y/a.md",
    "x/y/keep.md",
    "x/y/z/b.md",
    "d/keep.md",
    "d/e/keep.md",
    "docs/a.md",
    "docs/b.md",
    "docs/x/a.md",
    "docs/guide/install.md",
    "docs/guide/deep/more.md",
    "a/b/c.md",
    "a/x/b.md",
    "a/b/x/c.md",
    "Private/salaries.md",
    "private/notes.md",
    "build/out.md",
    "src/build/readme.md",
    "foo/bar.md",
    "foobar.md",
    "doc/README.md",
    "doc/sub/README.md",
    "Docs/Guide/Upper.md",
]
# Paths an agent may name that are not on disk (case variants, for `core.ignorecase`).
ASKED = ["PRIVATE/salaries.md", "private/salaries.md", "X/KEEP.md", "DOCS/GUIDE/install.md"]

# (id, {ignore file: text}, core.ignorecase)
CASES: list[tuple[str, dict[str, str], bool]] = [
    # the outside tester's report (#4)
    ("starstar-then-keep", {".gitignore": "x/**\n!x/keep.md\n"}, False),
    ("whitelist", {".gitignore": "*\n!*/\n!*.md\n"}, False),
    ("starstar-dirs-only", {".gitignore": "x/**/\n"}, False),
    ("all-but-dirs-and-keep", {".gitignore": "**\n!**/\n!keep.md\n"}, False),
    # the outside tester's report (#3): core.ignorecase
    ("ignorecase-dir", {".gitignore": "private/\n"}, True),
    ("case-sensitive-dir", {".gitignore": "private/\n"}, False),
    ("ignorecase-upper-pattern", {".gitignore": "PRIVATE\n*.MD\n!KEEP.md\n"}, True),
    ("ignorecase-path", {".gitignore": "docs/guide/\n"}, True),
    ("ignorecase-anchored", {".gitignore": "/X/\n"}, True),
    ("ignorecase-brackets", {".gitignore": "[A]*.md\n[a-b].md\n[[:upper:]]*.md\n"}, True),
    ("ignorecase-escaped", {".gitignore": "\\A.md\n\\b.md\n"}, True),
    ("ignorecase-nested", {"docs/.gitignore": "GUIDE/\n!A.md\n", ".gitignore": "*.md\n"}, True),
    # plain names, anchoring, dir-only
    ("name", {".gitignore": "x\n"}, False),
    ("name-dir-only", {".gitignore": "x/\n"}, False),
    ("anchored", {".gitignore": "/x\n"}, False),
    ("anchored-dir", {".gitignore": "/x/\n"}, False),
    ("middle-slash-anchors", {".gitignore": "a/b\nb/c.md\n"}, False),
    ("dir-then-keep", {".gitignore": "x/\n!x/keep.md\n"}, False),
    ("name-then-keep", {".gitignore": "x\n!x/keep.md\n"}, False),
    ("file-name-any-depth", {".gitignore": "README.md\n"}, False),
    ("file-name-anchored", {".gitignore": "/README.md\n"}, False),
    ("build-dir", {".gitignore": "build/\n"}, False),
    # single stars
    ("star-in-dir", {".gitignore": "x/*\n"}, False),
    ("star-in-dir-keep", {".gitignore": "x/*\n!x/keep.md\n"}, False),
    ("star-slash-file", {".gitignore": "*/a.md\n"}, False),
    ("star-dirs", {".gitignore": "*/\n"}, False),
    ("star-dirs-below-x", {".gitignore": "x/*/\n"}, False),
    ("star-md-keep", {".gitignore": "*.md\n!keep.md\n"}, False),
    ("star-md-keep-one-level", {".gitignore": "*.md\n!*/keep.md\n"}, False),
    ("star-then-md", {".gitignore": "*\n!*.md\n"}, False),
    ("star-then-dirs", {".gitignore": "*\n!*/\n"}, False),
    ("negated-dirs-alone", {".gitignore": "!*/\n"}, False),
    ("top-level-whitelist", {".gitignore": "/*\n!/docs\n"}, False),
    (
        "nested-whitelist",
        {".gitignore": "/*\n!/docs/\n/docs/*\n!/docs/guide/\n"},
        False,
    ),
    ("prefix-star", {".gitignore": "a*\n"}, False),
    ("doc-star", {".gitignore": "doc*\n!docs/\n"}, False),
    # double stars in every position
    ("leading-starstar", {".gitignore": "**/x\n"}, False),
    ("leading-starstar-dir", {".gitignore": "**/x/\n"}, False),
    ("leading-starstar-path", {".gitignore": "**/x/a.md\n"}, False),
    ("anchored-leading-starstar", {".gitignore": "/**/keep.md\n"}, False),
    ("middle-starstar", {".gitignore": "a/**/c.md\n"}, False),
    ("middle-starstar-dir", {".gitignore": "a/**/x/\n"}, False),
    ("middle-starstar-name", {".gitignore": "a/**/x\n"}, False),
    ("doc-starstar-readme", {".gitignore": "doc/**/README.md\n"}, False),
    ("any-readme", {".gitignore": "**/README.md\n"}, False),
    ("starstar-star-md", {".gitignore": "x/**/*.md\n"}, False),
    ("two-starstars", {".gitignore": "x/**/**/a.md\n**/**/keep.md\n"}, False),
    ("triple-star", {".gitignore": "***\n!keep.md\n"}, False),
    ("triple-star-middle", {".gitignore": "x/***/a.md\n"}, False),
    ("starstar-not-alone", {".gitignore": "a/**b\n**a.md\nx/y**\n"}, False),
    ("docs-starstar-keep-dir", {".gitignore": "docs/**\n!docs/guide/\n"}, False),
    ("docs-starstar-keep-md", {".gitignore": "docs/**\n!docs/**/\n!*.md\n"}, False),
    ("everything", {".gitignore": "**\n"}, False),
    ("every-dir", {".gitignore": "**/\n"}, False),
    ("escaped-slash-after-starstar", {".gitignore": "**\\/a.md\nx/**\\/keep.md\n"}, False),
    # wildcards, classes, escapes, whitespace
    ("question", {".gitignore": "a?c.md\n?.md\n"}, False),
    ("brackets", {".gitignore": "[ab].md\n"}, False),
    ("negated-brackets", {".gitignore": "[!a].md\n[^k]eep.md\n"}, False),
    ("range", {".gitignore": "[a-c].md\n"}, False),
    ("char-class", {".gitignore": "[[:upper:]]*.md\n"}, False),
    ("bracket-first-close", {".gitignore": "[]b[]*.md\n"}, False),
    ("bad-bracket", {".gitignore": "[ab\na.md\n"}, False),
    ("escaped-hash-bang", {".gitignore": "\\#hash.md\n\\!bang.md\n"}, False),
    ("comment-not-pattern", {".gitignore": "#hash.md\n"}, False),
    ("trailing-spaces", {".gitignore": "keep.md   \nx/ \n"}, False),
    ("escaped-brackets", {".gitignore": "\\[br\\].md\n"}, False),
    ("inner-space", {".gitignore": "sp ace.md\n"}, False),
    ("crlf", {".gitignore": "x/\r\nb.md\r\n"}, False),
    ("trailing-backslash", {".gitignore": "a.md\\\nkeep.md\n"}, False),
    # nested files and the other rule files
    ("nested-name", {"docs/.gitignore": "a.md\n"}, False),
    ("nested-anchored", {"docs/.gitignore": "/x\n"}, False),
    (
        "nested-re-includes-dir",
        {".gitignore": "docs/guide\n", "docs/.gitignore": "!guide\n"},
        False,
    ),
    ("nested-re-includes-files", {".gitignore": "*.md\n", "docs/.gitignore": "!*.md\n"}, False),
    ("nested-starstar", {"x/.gitignore": "**\n!**/\n!keep.md\n"}, False),
    ("nested-cannot-undo-parent", {".gitignore": "x/\n", "x/.gitignore": "!*\n"}, False),
    ("nested-deep", {"x/y/.gitignore": "*\n!.gitignore\n", "x/.gitignore": "!y/keep.md\n"}, False),
    (
        "info-exclude-under-gitignore",
        {".git/info/exclude": "*.md\n", ".gitignore": "!a.md\n"},
        False,
    ),
    ("info-exclude-starstar", {".git/info/exclude": "docs/**\n!docs/guide/**\n"}, False),
]


def _write_case(root: Path, rules: dict[str, str], ignorecase: bool) -> None:
    init_repo(root, commit=False)
    if ignorecase:
        git(root, "config", "core.ignorecase", "true")
    write(root, dict.fromkeys(FILES, DOC))
    for rel, text in rules.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))


def _folders(paths: list[str]) -> list[str]:
    return sorted({p.rsplit("/", i)[0] for p in paths for i in range(1, p.count("/") + 1)})


def _git_ignored(root: Path, paths: list[str]) -> set[str]:
    """The paths `git check-ignore --no-index` calls ignored (negated matches are not)."""
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


def _git_tracks(root: Path) -> list[str]:
    git(root, "add", "-A")
    return sorted(p for p in git(root, "ls-files", "-z").split("\0") if p.endswith(".md"))


def _differences(kind: str, want: dict[str, bool], got: dict[str, bool]) -> list[str]:
    return [
        f"{kind} {path}: git says {'ignored' if want[path] else 'kept'}"
        for path in sorted(want)
        if want[path] != got[path]
    ]


@pytest.mark.parametrize(("rules", "ignorecase"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_every_door_gives_gits_verdict(
    tmp_path: Path, rules: dict[str, str], ignorecase: bool
) -> None:
    root = tmp_path / "repo"
    _write_case(root, rules, ignorecase)
    folders = _folders(FILES)
    ignored = _git_ignored(root, [*FILES, *folders, *ASKED])
    kept_by_git = sorted(p for p in FILES if p not in ignored)
    if not ignorecase:  # git's own index is not case-blind on this file system: skip it there
        assert _git_tracks(root) == kept_by_git, "check-ignore and add -A disagree"

    ws = find_workspace(root)
    settings = Settings()
    rules_now = IgnoreRules.for_workspace(ws, settings)
    scope = scope_for(ws, settings)
    problems = _differences(
        "is_ignored",
        {p: p in ignored for p in FILES},
        {p: rules_now.is_ignored(p) for p in FILES},
    )
    problems += _differences(
        "is_ignored(folder)",
        {p: p in ignored for p in folders},
        {p: rules_now.is_ignored(p, is_dir=True) for p in folders},
    )
    problems += _differences(
        "scope gate",
        {p: p in ignored for p in [*FILES, *ASKED]},
        {p: not scope.shows(p) for p in [*FILES, *ASKED]},
    )
    found = [sf.path for sf in discover(ws, settings)]
    problems += [f"discover: git tracks {p}" for p in kept_by_git if p not in found]
    problems += [f"discover: git ignores {p}" for p in found if p not in kept_by_git]
    assert not problems, "\n".join(problems)


def test_the_scope_gate_refuses_a_case_variant_of_an_ignored_folder(tmp_path: Path) -> None:
    """On a case-blind file system `PRIVATE/x.md` is `private/x.md`: with `core.ignorecase`
    (git's default there) the gate folds case as git does, before anything is opened."""
    root = tmp_path / "repo"
    _write_case(root, {".gitignore": "private/\n"}, ignorecase=True)
    scope = scope_for(find_workspace(root), Settings())
    for asked in ("Private/salaries.md", "PRIVATE/salaries.md", "private/notes.md", ".GIT/config"):
        with pytest.raises(ScopeError) as refused:
            scope.resolve(asked)
        assert refused.value.rule == "ignored"
    assert scope.resolve("docs/a.md") == "docs/a.md"


# Pieces of one path component: names of `FILES` and pieces of them, wildcards, classes.
PIECES = [
    *("a", "x", "y", "z", "d", "e", "docs", "guide", "keep", "doc", "A", "X", "Private"),
    *("a.md", "keep.md", ".md", "b", "c.md", "README.md", "\\a", "\\A", "\\*"),
    *("*", "*", "*", "**", "**", "***", "?", "?", "[ab]", "[!a]", "[^k]", "[a-c]", "[A-Z]"),
    *("[[:upper:]]", "[[:lower:]]", "[]x]", "[[:al]", "[x-]"),
]


def _generated(rng: random.Random, *, negated: bool) -> str:
    """A pattern put together from `PIECES`, without a `**` glued to a name before it and
    ending a component (the reading git fixed in 2.52, see the module docstring)."""
    while True:
        parts = [
            "".join(rng.choice(PIECES) for _ in range(rng.choice([1, 1, 1, 2])))
            for _ in range(rng.choice([1, 1, 2, 2, 3]))
        ]
        lead = rng.choice(["!", "!/"] if negated else ["", "", "/"])
        body = lead + "/".join(parts) + rng.choice(["", "", "/"])
        glued = any(
            body[i - 1] not in "/*!" and body[i : i + 2] == "**" for i in range(1, len(body))
        )
        if not glued:
            return body


@pytest.mark.parametrize("ignorecase", [False, True], ids=["case-sensitive", "ignorecase"])
def test_generated_patterns_give_gits_verdict(tmp_path: Path, ignorecase: bool) -> None:
    """Many generated patterns, an exclusion and a negation at a time: every file and
    folder of `FILES` judged by `IgnoreRules.is_ignored` as `git check-ignore --no-index`
    judges it."""
    root = tmp_path / "repo"
    _write_case(root, {}, ignorecase)
    folders = _folders(FILES)
    rng = random.Random(45 + ignorecase)
    problems: list[str] = []
    for _ in range(150):
        text = f"{_generated(rng, negated=False)}\n{_generated(rng, negated=rng.random() < 0.7)}\n"
        (root / ".gitignore").write_text(text, encoding="utf-8")
        ignored = _git_ignored(root, [*FILES, *folders])
        rules = IgnoreRules.for_workspace(find_workspace(root), Settings())
        problems += [
            f"{text!r} {path}: git says {path in ignored}"
            for path in [*FILES, *folders]
            if rules.is_ignored(path, is_dir=path in folders) != (path in ignored)
        ]
    assert not problems, "\n".join(problems)


def test_a_pattern_of_many_stars_against_a_long_name_is_judged_as_git_judges_it(
    tmp_path: Path,
) -> None:
    """`*a*a*a*a*a*b` against a 250-byte name of `a`s: a plain backtracking regex tries
    some 10^10 ways (minutes of CPU for one path an agent names); git answers at once."""
    root = tmp_path / "repo"
    _write_case(root, {".gitignore": "*a*a*a*a*a*b\n**/*a*a*a*b/x\n"}, ignorecase=False)
    asked = ["a" * 250, "a" * 249 + "b", "d/" + "a" * 250 + "/x", "d/" + "a" * 240 + "b/x"]
    ignored = _git_ignored(root, asked)
    rules = IgnoreRules.for_workspace(find_workspace(root), Settings())
    assert {p for p in asked if rules.is_ignored(p)} == ignored == set(asked[1::2])


def test_double_stars_each_followed_by_a_star_against_a_deep_path_are_judged_as_git_judges_them(
    tmp_path: Path,
) -> None:
    """`**/*a/**/*a/...` against a path 150 folders deep: each `**/` that a `*` follows tried
    every slash again for every try of the one before it (hours for one path; git answers at
    once: its wildmatch gives up on a `**` when the rest cannot match, WM_ABORT_ALL)."""
    root = tmp_path / "repo"
    units = "**/*a/" * 7
    _write_case(root, {".gitignore": f"{units}*b\n/{units}x/\n"}, ignorecase=False)
    deep = "a/" * 150
    asked = [deep + "a", deep + "b", deep + "x/y.md", "a/" * 5 + "b"]
    ignored = _git_ignored(root, asked)
    rules = IgnoreRules.for_workspace(find_workspace(root), Settings())
    assert {p for p in asked if rules.is_ignored(p)} == ignored == {deep + "b", deep + "x/y.md"}
