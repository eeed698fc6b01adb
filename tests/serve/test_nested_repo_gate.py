"""Docs of a submodule or of a nested repository are their own: ingest never enters one, so
no tool that names a path serves a file inside one, directly or through a symbolic link
(`nested-repo`), the way `get_doc` would not (tester's report, defect 1). Nor does one serve
what a Markdown-named link leads to when that is not Markdown (`not-markdown`), which ingest
skips too."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.serve.conftest import structured_call as call

pytestmark = pytest.mark.anyio

SUB_WORD = "submarinecanary"
NESTED_WORD = "nestedcanary"

INSIDE = (
    "vendor/sub/docs/sub.md",  # a submodule's file
    "nestedrepo/public.md",  # an untracked repository's file
    "docs/sublink.md",  # a link into the submodule
    "docs/nestlink.md",  # a link into the nested repository
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    source = init_repo(tmp_path / "subsrc", {"docs/sub.md": doc("Sub", f"{SUB_WORD} " * 20)})
    root = init_repo(tmp_path / "repo", {"docs/guide.md": doc("Guide", "The guide. " * 20)})
    git(
        root,
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        str(source),
        "vendor/sub",
    )
    git(root, "commit", "-qm", "submodule")
    init_repo(root / "nestedrepo", {"public.md": doc("Public", f"{NESTED_WORD} " * 20)})
    (root / "docs" / "sublink.md").symlink_to("../vendor/sub/docs/sub.md")
    (root / "docs" / "nestlink.md").symlink_to("../nestedrepo/public.md")
    (root / "settings.env").write_text("API_TOKEN=tokencanary\n", encoding="utf-8")
    (root / "docs" / "envlink.md").symlink_to("../settings.env")
    KnowledgeBase.open(root).ingest()
    return root


@pytest.mark.parametrize("path", INSIDE)
async def test_read_snippet_refuses_a_file_inside_a_nested_repository(
    repo: Path, path: str
) -> None:
    failed, body = await call(repo, "read_snippet", {"path": path, "query": ""})
    assert failed, body
    assert body["rule"] == "nested-repo", body
    assert SUB_WORD not in str(body) and NESTED_WORD not in str(body)


@pytest.mark.parametrize("path", INSIDE)
async def test_get_doc_and_find_related_refuse_it_with_the_same_rule(repo: Path, path: str) -> None:
    for tool in ("get_doc", "find_related", "get_related"):
        failed, body = await call(repo, tool, {"path": path})
        assert failed and body["rule"] == "nested-repo", (tool, body)


@pytest.mark.parametrize("folder", ["vendor/sub", "nestedrepo", "vendor/sub/docs"])
async def test_a_path_filter_naming_a_nested_repository_is_refused(repo: Path, folder: str) -> None:
    for tool, args in (("search", {"query": "canary"}), ("regex_search", {"pattern": "canary"})):
        failed, body = await call(repo, tool, {**args, "path": folder})
        assert failed and body["rule"] == "nested-repo", (tool, body)


async def test_the_checkout_and_its_own_docs_are_still_served(repo: Path) -> None:
    failed, body = await call(repo, "read_snippet", {"path": "docs/guide.md", "query": ""})
    assert not failed and "The guide." in body["text"], body
    failed, body = await call(repo, "search", {"query": "guide", "path": "docs"})
    assert not failed and [r["path"] for r in body["results"]] == ["docs/guide.md"], body
    failed, body = await call(repo, "search", {"query": "guide", "path": "."})
    assert not failed and body["results"], body
    failed, body = await call(repo, "regex_search", {"pattern": "canary", "path": "vendor"})
    assert not failed and body["results"] == [], body  # the folder above is the checkout's


async def test_a_markdown_link_to_a_file_that_is_not_markdown_is_refused(repo: Path) -> None:
    failed, body = await call(repo, "read_snippet", {"path": "docs/envlink.md", "query": ""})
    assert failed and body["rule"] == "not-markdown", body
    assert "tokencanary" not in str(body)
    failed, body = await call(repo, "get_doc", {"path": "docs/envlink.md"})
    assert failed or "error" in body, body  # ingest skipped it: nothing to serve either
