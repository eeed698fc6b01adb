"""`changed_docs` lists only docs the scope shows, at every revision (tester's report,
defect 2): a symbolic link is a doc at a side of the range only where the gate would serve
it there (in a commit: where its link text leads inside that commit's tree; in the work
tree: where it leads on disk), and `commits` counts only the commits that left a doc under
a name the scope shows. `kenso-git changed` lists what the tool lists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import run_cli
from tests.helpers import write
from tests.serve.conftest import structured_call as call

pytestmark = pytest.mark.anyio

# link -> where it leads; none of these is served by get_doc, at HEAD or in the work tree
HIDDEN_LINKS = {
    "docs/envlink.md": "../.env",
    "docs/gitcfg.md": "../.git/config",
    "docs/outlink.md": "../../outside/secret.md",
    "docs/privlink.md": "private/secret.md",
    "docs/sublink.md": "../vendor/sub/docs/sub.md",
    "docs/curlink.md": "cur/hidden.md",
    "docs/dangling.md": "nothing-here.md",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(doc("Outside", "Outside words. " * 10), encoding="utf-8")
    source = init_repo(tmp_path / "subsrc", {"docs/sub.md": doc("Sub", "Submodule. " * 10)})
    root = init_repo(
        tmp_path / "repo",
        {
            "docs/guide.md": doc("Guide", "The guide. " * 10),
            "docs/cur/hidden.md": doc("Hidden", "Cursor hidden words. " * 10),
            ".gitignore": "docs/private/\n.env\n",
            ".cursorignore": "docs/cur/\n",
        },
    )
    git(root, "tag", "base")
    write(
        root,
        {
            ".env": "API_TOKEN=hunter2\n",
            "docs/private/secret.md": doc("Secret", "Private words. " * 10),
        },
    )
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
    for link, target in HIDDEN_LINKS.items():
        (root / link).symlink_to(target)
    (root / "docs" / "alias.md").symlink_to("guide.md")  # a link the gate serves
    (root / "docs" / "turned.md").symlink_to("guide.md")  # served at `links`, not after
    git(root, "add", "-A")
    git(root, "commit", "-qm", "links")
    git(root, "tag", "links")
    (root / "docs" / "turned.md").unlink()
    (root / "docs" / "turned.md").symlink_to("../.env")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "turn a link to .env")
    init_repo(root / "nestedrepo", {"public.md": doc("Public", "Nested public. " * 10)})
    (root / "docs" / "nestlink.md").symlink_to("../nestedrepo/public.md")  # work tree only
    KnowledgeBase.open(root).ingest()
    return root


def _listed(body: dict[str, object]) -> dict[str, str]:
    return {item["path"]: item["status"] for item in body["results"]}  # type: ignore[attr-defined]


@pytest.mark.parametrize("until", ["HEAD", None])
async def test_links_the_gate_refuses_are_not_listed(repo: Path, until: str | None) -> None:
    args = {"since": "base"} | ({} if until is None else {"until": until})
    failed, body = await call(repo, "changed_docs", args)
    assert not failed, body
    assert _listed(body) == {"docs/alias.md": "added"}, body
    assert body["total"] == 1
    for link in [*HIDDEN_LINKS, "docs/turned.md", "docs/nestlink.md"]:
        failed, refused = await call(repo, "get_doc", {"path": link})
        assert failed or "error" in refused, (link, refused)


async def test_a_link_turned_to_a_hidden_file_is_deleted_from_the_agents_view(
    repo: Path,
) -> None:
    failed, body = await call(repo, "changed_docs", {"since": "links", "until": "HEAD"})
    assert not failed and _listed(body) == {"docs/turned.md": "deleted"}, body
    failed, body = await call(repo, "changed_docs", {"since": "base", "until": "links"})
    assert _listed(body) == {"docs/alias.md": "added", "docs/turned.md": "added"}, body


async def test_commits_made_under_a_hidden_name_are_not_counted(repo: Path) -> None:
    start = git(repo, "rev-parse", "HEAD").strip()
    write(repo, {"docs/cur/hidden.md": doc("Hidden", "Cursor hidden words, edited. " * 10)})
    git(repo, "commit", "-qam", "edit the hidden doc")
    git(repo, "mv", "docs/cur/hidden.md", "docs/revealed.md")
    git(repo, "commit", "-qm", "reveal it")
    failed, body = await call(repo, "changed_docs", {"since": start, "until": "HEAD"})
    assert not failed, body
    (item,) = body["results"]
    assert (item["path"], item["status"], item["commits"]) == ("docs/revealed.md", "added", 1)
    assert item["last_commit"]["subject"] == "reveal it"


def test_the_command_line_lists_what_the_tool_lists(repo: Path) -> None:
    done = run_cli(repo, "changed", "--since", "base", "--until", "HEAD", "--json")
    assert done.returncode == 0, done.stderr
    assert _listed(json.loads(done.stdout)) == {"docs/alias.md": "added"}
