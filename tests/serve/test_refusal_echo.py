"""A refused absolute path is echoed as the agent wrote it or repo-relative, never garbled:
the checkout's path is cut from it only at a folder boundary (`/X/repo-other` is another
folder, not `/X/repo` followed by `-other`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.serve.hostpath import shown
from tests.serve.conftest import ingest
from tests.serve.conftest import make_repo
from tests.serve.conftest import structured_call

pytestmark = pytest.mark.anyio


async def test_a_sibling_folder_sharing_the_roots_name_is_echoed_as_written(
    tmp_path: Path,
) -> None:
    root = make_repo(tmp_path / "repo", scoped=("docs",))
    ingest(root)
    other = tmp_path / "repo-other" / "docs" / "p.md"
    other.parent.mkdir(parents=True)
    other.write_text("# Other\n\nA page of another checkout beside this one.\n", encoding="utf-8")
    is_error, body = await structured_call(root, "get_doc", {"path": str(other)})
    assert is_error and body["rule"] == "outside-root"
    assert f"{other}" in body["error"]
    assert "'.-other" not in body["error"]


async def test_a_link_to_the_checkout_named_like_it_is_echoed_as_written(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", scoped=("docs",))
    ingest(root)
    (tmp_path / "repolink").symlink_to(root)
    asked = tmp_path / "repolink" / "private" / "plan.md"
    is_error, body = await structured_call(root, "get_doc", {"path": str(asked)})
    assert is_error and body["rule"] == "outside-scope"
    assert f"{asked}" in body["error"]
    assert "'.link" not in body["error"]


async def test_a_path_inside_the_checkout_is_still_echoed_repo_relative(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", scoped=("docs",))
    ingest(root)
    is_error, body = await structured_call(root, "get_doc", {"path": str(root / "private/plan.md")})
    assert is_error and body["rule"] == "outside-scope"
    assert "'private/plan.md'" in body["error"]
    assert str(tmp_path) not in body["error"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/X/repo/docs/p.md", "docs/p.md"),
        ("'/X/repo'", "'.'"),
        ("/X/repo", "."),
        ("in /X/repo: no index", "in .: no index"),
        ("the checkout /X/repo.", "the checkout .."),
        ("(/X/repo)", "(.)"),
        ("/X/repo-other/docs/p.md", "/X/repo-other/docs/p.md"),
        ("/X/repolink/secret/s.md", "/X/repolink/secret/s.md"),
        ("/X/repo.bak/p.md", "/X/repo.bak/p.md"),
        ("/X/repo_2", "/X/repo_2"),
        ("'/X/gone/docs/a.md' or /X/gone-2", "'(outside this checkout)/docs/a.md' or /X/gone-2"),
        ("/X/gone", "(outside this checkout)"),
    ],
)
def test_the_root_is_cut_only_at_a_folder_boundary(text: str, expected: str) -> None:
    assert shown(text, "/X/repo", "/X/gone") == expected


def test_a_lost_root_inside_the_checkout_root_is_cut_first() -> None:
    assert shown("/X/repo/old/docs/a.md", "/X/repo", "/X/repo/old") == (
        "(outside this checkout)/docs/a.md"
    )
    assert shown("/X/repo/docs/a.md", "/X/repo", None) == "docs/a.md"
