"""A path filter naming a folder the ignore files exclude (`docs/private/` in .gitignore, a
.cursorignore'd folder) is refused as `ignored`, like a file under it, over MCP and over
`GET /search` (403), instead of an empty success (tester's report, defect 3). A filter whose
folder holds both visible and hidden docs keeps working and shows only the visible ones."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.http.lanes import Lanes
from kenso_git.serve.http.routes import Routes
from kenso_git.serve.http.transport import Dispatch
from kenso_git.serve.http.transport import Guard
from kenso_git.serve.http.transport import GuardPolicy
from kenso_git.serve.service import Service
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write
from tests.serve.conftest import structured_call as call

pytestmark = pytest.mark.anyio

HIDDEN = ("docs/private", "docs/cur", "docs/private/", "docs/cur/deep")
TOKEN = "t" * 32


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = init_repo(
        tmp_path / "repo",
        {
            "docs/guide.md": doc("Guide", "Deploy with the canary. " * 10),
            "docs/private/secret.md": doc("Secret", "Deploy the payroll canary. " * 10),
            "docs/cur/hidden.md": doc("Hidden", "Deploy the narwhal canary. " * 10),
            "docs/cur/deep/more.md": doc("More", "Deploy the deep canary. " * 10),
        },
    )
    write(root, {".gitignore": "docs/private/\n", ".cursorignore": "docs/cur/\n"})
    git(root, "rm", "-rq", "--cached", "docs/private")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "ignore private")
    KnowledgeBase.open(root).ingest()
    return root


def test_git_itself_calls_the_folder_ignored(repo: Path) -> None:
    assert git(repo, "check-ignore", "docs/private").strip() == "docs/private"


@pytest.mark.parametrize("folder", HIDDEN)
@pytest.mark.parametrize("ref", [None, "HEAD"])
async def test_search_and_regex_search_refuse_an_ignored_folder(
    repo: Path, folder: str, ref: str | None
) -> None:
    at = {} if ref is None else {"ref": ref}
    failed, body = await call(repo, "search", {"query": "deploy", "path": folder, **at})
    assert failed and body["rule"] == "ignored", body
    failed, body = await call(repo, "search", {"query": f'in:"{folder}" deploy', **at})
    assert failed and body["rule"] == "ignored", body
    if ref is None:
        failed, body = await call(repo, "regex_search", {"pattern": "canary", "path": folder})
        assert failed and body["rule"] == "ignored", body


async def test_a_file_under_it_is_refused_with_the_same_rule(repo: Path) -> None:
    for path in ("docs/private/secret.md", "docs/cur/hidden.md"):
        failed, body = await call(repo, "search", {"query": "deploy", "path": path})
        assert failed and body["rule"] == "ignored", body


async def test_a_folder_holding_visible_and_hidden_docs_still_filters(repo: Path) -> None:
    for folder in ("docs", "docs/", "."):
        failed, body = await call(repo, "search", {"query": "deploy", "path": folder})
        assert not failed and [r["path"] for r in body["results"]] == ["docs/guide.md"], body
        failed, body = await call(repo, "regex_search", {"pattern": "canary", "path": folder})
        assert not failed and {r["path"] for r in body["results"]} == {"docs/guide.md"}, body


async def test_get_search_refuses_an_ignored_folder_with_403(repo: Path) -> None:
    service = Service(repo)
    policy = GuardPolicy(token=TOKEN, bind_host="127.0.0.1", allow_remote=False)
    dispatch = Dispatch(lambda *_: None, service, Lanes(), Routes(service))  # type: ignore[arg-type]
    transport = httpx.ASGITransport(app=Guard(dispatch, policy))
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(
        transport=transport, base_url="http://127.0.0.1", headers=headers
    ) as client:
        for folder in ("docs/private", "docs/cur"):
            reply = await client.get("/search", params={"q": "deploy", "path": folder})
            assert reply.status_code == 403, reply.text
            assert reply.json()["rule"] == "ignored"
        reply = await client.get("/search", params={"q": "deploy", "path": "docs"})
        assert reply.status_code == 200, reply.text
        assert [r["path"] for r in reply.json()["results"]] == ["docs/guide.md"]
