"""A path that names no document gets the documents it may have meant, never one the gate
refuses.

Found on docs never seen before (Spinnaker's site, `site/setup/install/halyard.md`): an
agent asked `get_doc` for `setup/install/halyard.md`, the path as the docs folder writes
it, and got only "No document found" (and `kenso-git related` only "no document"), though
one indexed doc ends with that path. The answer now names it (`did_you_mean` and a hint),
and names only documents the scope gate serves: with `agent-scoped-roots`, a doc outside the
roots is never suggested. Over the SDK's client on `kenso-git serve` (stdio, both servers)
and the command line.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from kenso_git.errors import ScopeError
from kenso_git.serve.service import Service
from tests.helpers import init_repo
from tests.serve.conftest import KENSO_EXE
from tests.serve.conftest import ingest
from tests.serve.rpc import server_env

_BODY = (
    "\n\nThis page says how the tool is installed, configured and kept up to date, with the"
    " steps a release engineer follows and the settings each environment needs.\n"
)
DOCS = {
    "site/setup/install/halyard.md": "# Halyard" + _BODY,
    "site/guide/Canary.md": "# Canary" + _BODY,
    "private/setup/install/halyard.md": "# Private Halyard" + _BODY,
    "site/a_b.md": "# Underscore" + _BODY,
    "site/axb.md": "# Lookalike" + _BODY,  # what LIKE's `_` wildcard would match
}


def _repo(tmp_path: Path, scoped: tuple[str, ...] = ()) -> Path:
    root = tmp_path / "repo"
    init_repo(root, DOCS)
    if scoped:
        roots = ", ".join(f'"{s}"' for s in scoped)
        (root / ".kenso.toml").write_text(f"agent-scoped-roots = [{roots}]\n", encoding="utf-8")
    ingest(root)
    return root


def _did_you_mean(service: Service, path: str) -> list[str] | None:
    body, _ = service.get_doc(path, None)
    assert body["error"] == f"No document found at path: {path}"  # type: ignore[typeddict-item]
    return body.get("did_you_mean")  # type: ignore[return-value]


def test_get_doc_names_the_docs_a_missing_path_may_have_meant(tmp_path: Path) -> None:
    service = Service(_repo(tmp_path))
    near = ["site/setup/install/halyard.md", "private/setup/install/halyard.md"]
    assert _did_you_mean(service, "setup/install/halyard.md") == near
    assert _did_you_mean(service, "install/halyard") == near  # `.md` left off
    assert _did_you_mean(service, "site/guide/canary.md") == ["site/guide/Canary.md"]  # case
    assert _did_you_mean(service, "a_b.md") == ["site/a_b.md"]  # `_` is no wildcard
    body, _ = service.get_doc("nothing/like/it.md", None)
    assert body == {"error": "No document found at path: nothing/like/it.md"}  # kenso's


def test_a_doc_outside_the_scoped_roots_is_never_suggested(tmp_path: Path) -> None:
    service = Service(_repo(tmp_path, scoped=("site",)))
    # a path written from below the scoped root is refused as outside it, with a hint
    with pytest.raises(ScopeError) as refused:
        service.get_doc("setup/install/halyard.md", None)
    assert refused.value.rule == "outside-scope"
    assert refused.value.hint is not None and "site/setup/install/halyard.md" in refused.value.hint
    assert "private/" not in refused.value.hint
    # the doc outside the roots is what this path names in another case: no hint at all
    with pytest.raises(ScopeError) as refused:
        service.get_doc("Private/setup/install/halyard.md", None)
    assert refused.value.hint is None
    assert _did_you_mean(service, "site/guide/canary.md") == ["site/guide/Canary.md"]


@pytest.mark.anyio
async def test_the_suggestion_reaches_an_mcp_client_on_both_stdio_servers(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    answers = []
    for env in ({}, {"KENSO_MCP_SDK": "1"}):
        params = StdioServerParameters(
            command=str(KENSO_EXE), args=["serve", "--no-watch"], cwd=root, env=server_env(**env)
        )
        async with Client(params) as client:
            doc = await client.call_tool("get_doc", {"path": "guide/canary.md"})
            related = await client.call_tool("find_related", {"path": "guide/canary.md"})
        answers.append((doc, related))
    for doc, related in answers:
        assert doc.is_error and related.is_error
        body = json.loads(doc.content[0].text)  # type: ignore[union-attr]
        assert body["did_you_mean"] == ["site/guide/Canary.md"]
        assert "site/guide/Canary.md" in body["hint"]
        hint = json.loads(related.content[0].text)["hint"]  # type: ignore[union-attr]
        assert "did you mean site/guide/Canary.md?" in hint


def test_related_on_the_command_line_hints_at_the_doc(tmp_path: Path) -> None:
    root = _repo(tmp_path, scoped=("site",))
    proc = subprocess.run(
        [str(KENSO_EXE), "related", "setup/install/halyard.md"],
        cwd=root,
        env=server_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert "did you mean site/setup/install/halyard.md?" in proc.stderr
    assert "private/" not in proc.stderr
