"""A rule file that is a symbolic link: git (2.32+) opens an in-tree `.gitignore` with
O_NOFOLLOW and so never reads a symlinked one (dir.c's PATTERN_NOFOLLOW; it warns "unable to
access '.gitignore': Too many levels of symbolic links"), at the top as in a subfolder, and
wherever the link leads. Every door (discovery, `is_ignored`, the scope gate) gives the
verdict of the real `git check-ignore --no-index` and `git add -A`. git reads no
`.cursorignore` or `.kensoignore`: a symlinked one is read when it leads to a file inside
the work tree, and never followed out of it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kenso_git.config import Settings
from kenso_git.repo.discover import discover
from kenso_git.repo.ignore import IgnoreRules
from kenso_git.repo.scope import scope_for
from kenso_git.repo.workspace import find_workspace
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write
from tests.repo.test_ignore_git_parity import _git_ignored

DOC = "# Title\n\nEnough words here to make this file a real document for the index.\n"
FILES = ["secret.md", "keep.md", "docs/secret.md", "docs/keep.md", "docs/sub/secret.md"]

# (id, the rule file that is a link, where the link leads: "in" the tree or "out" of it)
LINKS = [
    ("top-link-in-tree", ".gitignore", "in"),
    ("top-link-outside", ".gitignore", "out"),
    ("docs-link-in-tree", "docs/.gitignore", "in"),
    ("docs-link-outside", "docs/.gitignore", "out"),
    ("deep-link-in-tree", "docs/sub/.gitignore", "in"),
]


def _linked_rules(tmp_path: Path, link: str, where: str, text: str = "secret.md\n") -> Path:
    """A repository of `FILES` whose rule file `link` is a symlink to a file holding `text`
    (inside the work tree, or beside it)."""
    root = tmp_path / "repo"
    init_repo(root, commit=False)
    write(root, dict.fromkeys(FILES, DOC))
    held = root / "shared" / "rules.txt" if where == "in" else tmp_path / "rules.txt"
    held.parent.mkdir(parents=True, exist_ok=True)
    held.write_text(text, encoding="utf-8")
    (root / link).symlink_to(os.path.relpath(held, (root / link).parent))
    return root


def _verdicts(root: Path) -> tuple[set[str], set[str], set[str], set[str]]:
    """What git ignores, and what `is_ignored`, the scope gate and discovery leave out."""
    ws = find_workspace(root)
    settings = Settings()
    rules = IgnoreRules.for_workspace(ws, settings)
    scope = scope_for(ws, settings)
    found = {sf.path for sf in discover(ws, settings)}
    return (
        _git_ignored(root, FILES),
        {p for p in FILES if rules.is_ignored(p)},
        {p for p in FILES if not scope.shows(p)},
        {p for p in FILES if p not in found},
    )


@pytest.mark.parametrize(("link", "where"), [c[1:] for c in LINKS], ids=[c[0] for c in LINKS])
def test_a_symlinked_gitignore_is_not_read_as_git_does_not_read_it(
    tmp_path: Path, link: str, where: str
) -> None:
    root = _linked_rules(tmp_path, link, where)
    by_git, by_rules, by_scope, by_discover = _verdicts(root)
    git(root, "add", "-A")
    tracked = set(git(root, "ls-files", "-z").split("\0"))
    assert by_git == {p for p in FILES if p not in tracked} == set()
    assert (by_rules, by_scope, by_discover) == (by_git, by_git, by_git)


def test_a_regular_gitignore_beside_a_symlinked_one_still_applies(tmp_path: Path) -> None:
    root = _linked_rules(tmp_path, "docs/.gitignore", "in")
    write(root, {".gitignore": "keep.md\n"})
    by_git, by_rules, by_scope, by_discover = _verdicts(root)
    assert by_git == {"keep.md", "docs/keep.md"}
    assert (by_rules, by_scope, by_discover) == (by_git, by_git, by_git)


def test_a_gitignore_replaced_by_a_link_to_itself_stops_applying_to_a_watching_reader(
    tmp_path: Path,
) -> None:
    """A server's rules notice the swap (same target file, same inode) and reload."""
    root = tmp_path / "repo"
    init_repo(root, commit=False)
    write(root, {**dict.fromkeys(FILES, DOC), "docs/.gitignore": "secret.md\n"})
    rules = IgnoreRules.for_workspace(find_workspace(root), Settings(), watch=True)
    assert rules.is_ignored("docs/secret.md")
    (root / "docs" / ".gitignore").rename(root / "shared.txt")
    (root / "docs" / ".gitignore").symlink_to("../shared.txt")
    assert rules.reload_if_changed()
    assert not rules.is_ignored("docs/secret.md")
    assert _git_ignored(root, FILES) == set()


@pytest.mark.parametrize("name", [".cursorignore", ".kensoignore"])
def test_a_symlinked_cursorignore_is_read_inside_the_tree_and_never_followed_out(
    tmp_path: Path, name: str
) -> None:
    inside = _linked_rules(tmp_path / "in", f"docs/{name}", "in")
    outside = _linked_rules(tmp_path / "out", f"docs/{name}", "out")
    assert _verdicts(inside)[1:] == ({"docs/secret.md", "docs/sub/secret.md"},) * 3
    assert _verdicts(outside)[1:] == (set(),) * 3
