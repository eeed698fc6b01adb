"""Two kinds of folder ingest never takes a file from are refused by every door that names a
path, as the folders the ignore files exclude are:

- environment folders (`node_modules`, a virtualenv found by its `pyvenv.cfg`), whose
  third-party Markdown `read_snippet` used to serve from the work tree, and `get_doc`,
  `read_snippet` and `search` at a `ref` served from a commit that tracks them (`environment`);
- a folder whose every entry the ignore files exclude (`build/**`: git does not call
  `build` ignored), which a `path` or `in:` filter named for an empty success (`ignored`).

Over the in-memory SDK client and a real `kenso-git serve` process over stdio."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.http.lanes import Lanes
from kenso_git.serve.http.routes import Routes
from kenso_git.serve.http.transport import Dispatch
from kenso_git.serve.http.transport import Guard
from kenso_git.serve.http.transport import GuardPolicy
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write
from tests.serve.conftest import KENSO_EXE
from tests.serve.conftest import structured_call as call
from tests.serve.rpc import server_env

pytestmark = pytest.mark.anyio

WORD = "vendorcanary"
ENV_DOCS = ("web/node_modules/pkg/README.md", ".venv/lib/site/NOTES.md", "env2/README.md")
ENV_FOLDERS = ("web/node_modules", "web/node_modules/pkg", ".venv", ".venv/lib", "env2")
WHOLLY = ("build", "gen", "docs/site", "out")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "repo", {"docs/guide.md": doc("Guide", "The guide. " * 20)})
    base = git(root, "rev-parse", "HEAD").strip()
    write(
        root,
        {
            **{path: doc("Vendored", f"Deploy the {WORD}. " * 20) for path in ENV_DOCS},
            ".venv/pyvenv.cfg": "home = /usr/bin\n",
            "env2/pyvenv.cfg": "home = /usr/bin\n",
            "build/out.md": doc("Built", "Deploy the buildcanary. " * 20),
            "gen/deep/page.md": doc("Generated", "Deploy the gencanary. " * 20),
            "docs/site/index.md": doc("Site", "Deploy the sitecanary. " * 20),
            "out/page.md": doc("Out", "Deploy the outcanary. " * 20),
            "out/.gitignore": "*\n",  # what tools write into their own output folders
            "keep/page.md": doc("Kept", "Deploy the keptcanary. " * 20),
            ".gitignore": "build/**\ngen/**/*\nkeep/**\n!keep/page.md\n",
            "docs/.gitignore": "site/*\n",
        },
    )
    (root / "docs" / "vendored.md").symlink_to("../web/node_modules/pkg/README.md")
    git(root, "add", "-A")
    git(root, "add", "-f", "build/out.md")  # a commit may track what is ignored today
    git(root, "commit", "-qm", "vendored")
    (root / "base").write_text(base, encoding="utf-8")
    KnowledgeBase.open(root).ingest()
    return root


def test_git_calls_the_wholly_ignored_folders_not_ignored(repo: Path) -> None:
    """The folders themselves are not ignored to git; every entry in them is."""
    assert git(repo, "check-ignore", "--no-index", *WHOLLY, check=False).strip() == ""
    probes = [f"{folder}/{name}" for folder in WHOLLY for name in ("x.md", "x/", "page.md")]
    ignored = git(repo, "check-ignore", "--no-index", *probes, check=False).split()
    assert sorted(ignored) == sorted(probes)
    assert git(repo, "check-ignore", "--no-index", "keep/page.md", check=False).strip() == ""


@pytest.mark.parametrize("path", [*ENV_DOCS, "docs/vendored.md"])
async def test_every_door_naming_a_file_in_an_environment_folder_refuses_it(
    repo: Path, path: str
) -> None:
    for tool, args in (
        ("read_snippet", {"path": path, "query": ""}),
        ("read_snippet", {"path": path, "query": "", "ref": "HEAD"}),
        ("get_doc", {"path": path}),
        ("get_doc", {"path": path, "ref": "HEAD"}),
        ("find_related", {"path": path}),
        ("get_related", {"path": path}),
    ):
        if path == "docs/vendored.md" and "ref" in args:
            continue  # at a revision the link is judged by where it leads: not served below
        failed, body = await call(repo, tool, args)
        assert failed and body["rule"] == "environment", (tool, args, body)
        assert WORD not in str(body)


async def test_a_link_into_one_is_not_served_at_a_revision_either(repo: Path) -> None:
    for tool, args in (
        ("read_snippet", {"path": "docs/vendored.md", "query": "", "ref": "HEAD"}),
        ("get_doc", {"path": "docs/vendored.md", "ref": "HEAD"}),
    ):
        failed, body = await call(repo, tool, args)
        assert failed or "error" in body, (tool, body)
        assert WORD not in str(body)


@pytest.mark.parametrize("folder", ENV_FOLDERS)
@pytest.mark.parametrize("ref", [None, "HEAD"])
async def test_a_filter_naming_an_environment_folder_is_refused(
    repo: Path, folder: str, ref: str | None
) -> None:
    at = {} if ref is None else {"ref": ref}
    failed, body = await call(repo, "search", {"query": "deploy", "path": folder, **at})
    assert failed and body["rule"] == "environment", body
    failed, body = await call(repo, "search", {"query": f'in:"{folder}" deploy', **at})
    assert failed and body["rule"] == "environment", body
    if ref is None:
        failed, body = await call(repo, "regex_search", {"pattern": "canary", "path": folder})
        assert failed and body["rule"] == "environment", body


async def test_no_search_or_listing_names_a_doc_of_an_environment_folder(repo: Path) -> None:
    base = (repo / "base").read_text(encoding="utf-8")
    answers = [
        await call(repo, "search", {"query": "deploy", "ref": "HEAD", "page_size": 50}),
        await call(repo, "search", {"query": "deploy", "page_size": 50}),
        await call(repo, "search_docs", {"query": "deploy", "ref": "HEAD", "limit": 50}),
        await call(repo, "regex_search", {"pattern": "canary", "page_size": 50}),
        await call(repo, "changed_docs", {"since": base}),
        await call(repo, "changed_docs", {"since": base, "until": "HEAD"}),
    ]
    for failed, body in answers:
        assert not failed, body
        assert WORD not in str(body), body
        assert "node_modules" not in str(body) and ".venv" not in str(body), body


@pytest.mark.parametrize("folder", [*WHOLLY, "gen/deep", "docs/site/"])
@pytest.mark.parametrize("ref", [None, "HEAD"])
async def test_a_filter_naming_a_folder_whose_every_entry_is_ignored_is_refused(
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
        failed, body = await call(repo, "get_related", {"path": folder})
        assert failed and body["rule"] == "ignored", body


async def test_a_folder_a_negation_re_includes_from_is_still_a_filter(repo: Path) -> None:
    for ref in (None, "HEAD"):
        at = {} if ref is None else {"ref": ref}
        failed, body = await call(repo, "search", {"query": "keptcanary", "path": "keep", **at})
        assert not failed, body
        assert [r["path"] for r in body["results"]] == ["keep/page.md"], body
    failed, body = await call(repo, "search", {"query": "guide", "path": "docs"})
    assert not failed and [r["path"] for r in body["results"]] == ["docs/guide.md"], body


async def test_get_search_refuses_both_kinds_of_folder_with_403(repo: Path) -> None:
    service, token = Service(repo), "t" * 32
    policy = GuardPolicy(token=token, bind_host="127.0.0.1", allow_remote=False)
    dispatch = Dispatch(lambda *_: None, service, Lanes(), Routes(service))  # type: ignore[arg-type]
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=Guard(dispatch, policy)),
        base_url="http://127.0.0.1",
        headers={"Authorization": f"Bearer {token}"},
    ) as client:
        for folder, rule in (("web/node_modules", "environment"), ("build", "ignored")):
            reply = await client.get("/search", params={"q": "deploy", "path": folder})
            assert reply.status_code == 403, reply.text
            assert reply.json()["rule"] == rule


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_snippet", {"path": "web/node_modules/pkg/README.md", "query": ""}),
    ("read_snippet", {"path": ".venv/lib/site/NOTES.md", "query": "", "ref": "HEAD"}),
    ("get_doc", {"path": "env2/README.md"}),
    ("search", {"query": "deploy", "path": "web/node_modules"}),
    ("regex_search", {"pattern": "canary", "path": "build"}),
    ("search", {"query": "in:gen deploy"}),
]


async def test_a_real_server_process_refuses_them_as_the_in_memory_one_does(repo: Path) -> None:
    params = StdioServerParameters(
        command=str(KENSO_EXE), args=["serve", "--no-watch"], cwd=repo, env=server_env()
    )
    answers: dict[str, list[tuple[bool, str]]] = {}
    for name, server in (("stdio", params), ("memory", build_server(Service(repo)))):
        async with Client(server) as client:
            answers[name] = [
                (bool(result.is_error), result.content[0].text)  # type: ignore[union-attr]
                for result in [await client.call_tool(tool, args) for tool, args in CALLS]
            ]
    assert answers["stdio"] == answers["memory"]
    rules = [text.split("path refused (")[1].split(")")[0] for _, text in answers["stdio"]]
    assert all(failed for failed, _ in answers["stdio"]), answers
    assert rules == [*["environment"] * 4, "ignored", "ignored"]
