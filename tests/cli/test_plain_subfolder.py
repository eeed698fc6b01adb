"""Outside git, a command run from a subfolder finds the index `ingest` made in a folder
above, as git finds a work tree: `cd guide && kenso-git search alpha` said "no search index
at .../guide/.kenso/docs.db" though /plainx/.kenso/docs.db was there. `ingest` from a
subfolder updates that index; with none above it indexes the current folder. Only a real
`.kenso` folder of this user's counts, the walk stops below $HOME, and `serve` from the
subfolder is scoped to the found root's index.

Real `python -m kenso_git` runs and a real MCP SDK client over stdio."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.helpers import plain_tree
from tests.helpers import run_cli
from tests.helpers import write
from tests.serve.conftest import KENSO_EXE
from tests.serve.rpc import server_env

ALPHA = "# Alpha\n\nalpha beta gamma and enough words to be over fifty chars in this page\n"
BETA = "# Beta notes\n\nSee [alpha](guide/a.md), with words enough for a page of its own here.\n"
SECRET = "# Outside\n\nzanzibar words outside the indexed folder, enough of them for a page.\n"


def _plain(tmp_path: Path) -> tuple[Path, Path]:
    return plain_tree(tmp_path, {"guide/a.md": ALPHA, "b.md": BETA})


def _json(out: subprocess.CompletedProcess[str]) -> Any:
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_search_from_a_subfolder_finds_the_index_above(tmp_path: Path) -> None:
    _root, guide = _plain(tmp_path)
    out = run_cli(guide, "search", "gamma", "--json")
    assert [hit["file_path"] for hit in _json(out)] == ["guide/a.md"]
    assert not (guide / ".kenso").exists()  # a read writes nothing but its index's root


def test_stats_and_state_from_a_subfolder_read_the_index_above(tmp_path: Path) -> None:
    _root, guide = _plain(tmp_path)
    assert _json(run_cli(guide, "stats", "--json"))["documents"] == 2
    assert _json(run_cli(guide, "state", "--json"))["documents"] == 2
    assert not (guide / ".kenso").exists()


def test_related_from_a_subfolder_takes_the_path_from_there(tmp_path: Path) -> None:
    _root, guide = _plain(tmp_path)
    page = _json(run_cli(guide, "related", "a.md", "--json"))
    assert "b.md" in json.dumps(page)  # b.md links to guide/a.md: found from the root


def test_lint_from_a_subfolder_lints_the_root_of_the_index_above(tmp_path: Path) -> None:
    _root, guide = _plain(tmp_path)
    out = run_cli(guide, "lint", "--json")
    assert out.returncode in (0, 1), out.stderr
    report = json.dumps(json.loads(out.stdout))
    assert "guide/a.md" in report
    assert "b.md" in report


def test_ingest_from_a_subfolder_updates_the_index_above(tmp_path: Path) -> None:
    root, guide = _plain(tmp_path)
    write(guide, {"c.md": ALPHA.replace("Alpha", "Gamma").replace("alpha", "quokka")})
    out = run_cli(guide, "ingest", "--no-lint")
    assert out.returncode == 0, out.stderr
    assert f"updating the index of {root}, the nearest folder above with one" in out.stderr
    assert not (guide / ".kenso").exists()
    hits = _json(run_cli(root, "search", "quokka", "--json"))
    assert [hit["file_path"] for hit in hits] == ["guide/c.md"]


def test_ingest_with_no_index_above_indexes_the_current_folder(tmp_path: Path) -> None:
    write(tmp_path / "top", {"guide/a.md": ALPHA})
    guide = tmp_path / "top" / "guide"
    out = run_cli(guide, "ingest", "--no-lint")
    assert out.returncode == 0, out.stderr
    assert "updating the index" not in out.stderr
    assert (guide / ".kenso" / "docs.db").is_file()
    assert not (tmp_path / "top" / ".kenso").exists()


def test_a_kenso_folder_of_its_own_keeps_a_subfolder_its_own_root(tmp_path: Path) -> None:
    root, guide = _plain(tmp_path)
    (guide / ".kenso").mkdir()
    out = run_cli(guide, "ingest", "--no-lint")
    assert out.returncode == 0, out.stderr
    assert "updating the index" not in out.stderr
    hits = _json(run_cli(guide, "search", "gamma", "--json"))
    assert [hit["file_path"] for hit in hits] == ["a.md"]
    assert _json(run_cli(root, "stats", "--json"))["documents"] == 2  # the one above is kept


def test_with_no_index_anywhere_the_error_names_the_current_folder(tmp_path: Path) -> None:
    write(tmp_path / "top", {"guide/a.md": ALPHA})
    guide = (tmp_path / "top" / "guide").resolve()
    out = run_cli(guide, "search", "alpha")
    assert out.returncode == 3, out.stderr
    assert f"no search index at {guide / '.kenso' / 'docs.db'}" in out.stderr
    assert "hint: run `kenso-git ingest` once" in out.stderr
    assert not (guide / ".kenso").exists()


def test_an_index_of_the_home_folder_is_not_found_from_below_it(tmp_path: Path) -> None:
    root, guide = _plain(tmp_path)
    out = run_cli(guide, "search", "alpha", HOME=str(root))
    assert out.returncode == 3, out.stderr
    assert f"no search index at {guide / '.kenso' / 'docs.db'}" in out.stderr
    assert _json(run_cli(root, "search", "alpha", "--json", HOME=str(root)))  # from home itself
    out = run_cli(guide, "search", "alpha", HOME=str(guide))  # nor from home, above it
    assert out.returncode == 3, out.stderr


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_another_users_index_above_is_passed_over(tmp_path: Path) -> None:
    root, guide = _plain(tmp_path)
    os.chown(root / ".kenso", 65534, 65534)  # as if user nobody had made it in a shared folder
    out = run_cli(guide, "search", "alpha")
    assert out.returncode == 3, out.stderr
    assert f"no search index at {guide / '.kenso' / 'docs.db'}" in out.stderr


def test_a_linked_kenso_above_is_passed_over(tmp_path: Path) -> None:
    root, guide = _plain(tmp_path)
    (root / ".kenso").rename(tmp_path / "elsewhere")
    (root / ".kenso").symlink_to(tmp_path / "elsewhere")
    out = run_cli(guide, "search", "alpha")
    assert out.returncode == 3, out.stderr
    assert f"no search index at {guide / '.kenso' / 'docs.db'}" in out.stderr


def test_serve_root_option_names_a_subfolder_of_the_index_above(tmp_path: Path) -> None:
    _root, guide = _plain(tmp_path)
    out = run_cli(tmp_path, "serve", "--root", str(guide), "--no-watch")
    assert out.returncode == 0, out.stderr
    assert "belongs to" not in out.stderr


async def _call(client: Client, tool: str, args: dict[str, Any]) -> tuple[bool, str]:
    result = await client.call_tool(tool, args)
    return bool(result.is_error), "".join(getattr(c, "text", "") for c in result.content)


@pytest.mark.anyio
async def test_serve_from_a_subfolder_serves_only_the_found_roots_index(tmp_path: Path) -> None:
    _root, guide = _plain(tmp_path)
    write(tmp_path, {"outside.md": SECRET})  # beside the root, never to be served
    params = StdioServerParameters(
        command=str(KENSO_EXE), args=["serve", "--no-watch"], cwd=guide, env=server_env()
    )
    async with Client(params) as client:
        failed, text = await _call(client, "search_docs", {"query": "alpha"})
        assert not failed and "guide/a.md" in text, text
        failed, text = await _call(client, "get_doc", {"path": "b.md"})
        assert not failed and "Beta notes" in text, text
        for path in ("../outside.md", str(tmp_path / "outside.md")):
            failed, text = await _call(client, "get_doc", {"path": path})
            assert failed and "zanzibar" not in text, text
        failed, text = await _call(client, "search_docs", {"query": "zanzibar"})
        assert "outside.md" not in text, text
    assert not (guide / ".kenso").exists()
