"""Reads of a checkout whose index folder cannot be written (a read-only checkout or mount):
a search at another revision makes its copy in a private temporary folder instead of beside
the index, and `get_doc` of a page edited since the last sync answers the page as the work
tree holds it, flagged stale, as a search answers there: before, the first failed
("cannot make the index of the docs at ...") and the second answered an agent that only
read with a write error ("the index cannot be written: ... read-only")."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.api.revision import at_revision
from kenso_git.errors import IndexWriteError
from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import doc
from tests.helpers import git
from tests.helpers import init_repo
from tests.helpers import write
from tests.index.test_reliability import cli

OLD = doc("Beta", "The giraffe ledger reconciles invoices at the end of every month. " * 3)
NEW = doc("Beta", "The okapi ledger reconciles invoices at the end of every month. " * 3)
EDITED = doc(
    "Beta",
    "The tapir ledger replaced the okapi one, edited since the sync. " * 3
    + "\n\n## Month end\n\n"
    + "Invoices are matched against the bank statement line by line. " * 20
    + "\n\n"
    + "Payments that match no invoice wait in a suspense account. " * 40
    + "\n\n"
    + "The controller signs the month off once the suspense account is empty. " * 30
    + "\n\n## Audits\n\nAuditors read the ledger once a quarter. " * 3,
    tags=["ledger", "finance"],
    category="accounts",
)
ALPHA = doc("Alpha", "The zebra protocol handles retries across the payment gateway. " * 3)
PRIVATE = doc("Private", "The secret walrus plan agents must never read. " * 3)


@pytest.fixture
def history(tmp_path: Path) -> Path:
    """v1: docs/b.md says giraffe; HEAD: okapi. Indexed at HEAD."""
    root = init_repo(
        tmp_path / "repo",
        {
            "docs/a.md": ALPHA,
            "docs/b.md": OLD,
            "private/p.md": PRIVATE,
            ".gitignore": ".kenso/\n",
        },
    )
    git(root, "tag", "v1")
    write(root, {"docs/b.md": NEW})
    git(root, "commit", "-q", "-am", "edit b")
    proc = cli(root, "ingest", "--no-lint")
    assert proc.returncode == 0, proc.stderr
    return root


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """`folder` read-only: by its mode for a user, by a read-only bind mount for root (whom
    modes do not stop; needs CAP_SYS_ADMIN, else the test is skipped). An in-process server
    keeps its worker threads' connections open: the mount is then detached lazily."""
    if os.geteuid() != 0:
        mode = folder.stat().st_mode
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(mode)
        return
    bound = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip("cannot bind-mount here (needs root in a mount namespace)")
    try:
        remount = ["mount", "-o", "remount,ro,bind", str(folder)]
        assert subprocess.run(remount, capture_output=True).returncode == 0
        yield
    finally:
        if subprocess.run(["umount", str(folder)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(folder)], check=True)


def _ref_search(root: Path, scratch: Path) -> list[str]:
    env = dict(os.environ, TMPDIR=str(scratch))
    proc = cli(root, "search", "giraffe", "--ref", "v1", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    return [hit["file_path"] for hit in json.loads(proc.stdout)]


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("searched_before", [False, True])
def test_search_at_a_revision_answers_from_a_read_only_index_folder(
    history: Path, tmp_path: Path, searched_before: bool
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    if searched_before:  # revisions/ and the cache beside the index exist, and stay as they are
        assert _ref_search(history, scratch) == ["docs/b.md"]
    before = _listing(history / ".kenso")
    with read_only(history / ".kenso"):
        for _ in range(2):
            assert _ref_search(history, scratch) == ["docs/b.md"]
    assert _listing(history / ".kenso") == before
    assert list(scratch.iterdir()) == []  # the temporary copy is removed after the answer


def test_the_copy_of_a_read_only_index_is_private_and_removed_after_the_block(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    with read_only(history / ".kenso"):
        kb = KnowledgeBase.open(history)
        try:
            with at_revision(kb, "v1") as (at, revision):
                folder = at.db_path.parent
                assert folder.parent == scratch
                assert stat.S_IMODE(folder.stat().st_mode) == 0o700
                hits = at.search_docs("giraffe")
                assert isinstance(hits, list)
                assert [hit["file_path"] for hit in hits] == ["docs/b.md"]
                assert revision.differing == 1
            assert not folder.exists()
        finally:
            kb.close()


def test_a_killed_process_s_temporary_copy_is_swept(history: Path, tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    dead = 2**22 + 12345  # above the usual pid_max: no such process
    left = scratch / f"kenso-ref-{dead}-x1y2"
    left.mkdir()
    (left / "index.db").write_bytes(b"x" * 100)
    theirs = scratch / f"other-{dead}-x"  # not kenso-git's: left alone
    theirs.mkdir()
    with read_only(history / ".kenso"):
        assert _ref_search(history, scratch) == ["docs/b.md"]
    assert sorted(p.name for p in scratch.iterdir()) == [theirs.name]


async def _call(root: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[bool, Any]]:
    """Each call's (failed, body) on one in-memory MCP session of `root`."""
    out: list[tuple[bool, Any]] = []
    async with Client(build_server(Service(root))) as client:
        for tool, args in calls:
            result = await client.call_tool(tool, args)
            text = result.content[0].text  # type: ignore[union-attr]
            out.append((bool(result.is_error), json.loads(text)))
    return out


def _replace(root: Path, rel: str, text: str) -> None:
    """An editor's atomic save: a new file renamed over the old one (a new inode)."""
    tmp = root / f"{rel}.tmp"
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(root / rel)


@pytest.mark.anyio
@pytest.mark.parametrize("how", ["in-place", "atomic"])
async def test_get_doc_of_an_edited_page_in_a_read_only_checkout_is_a_stale_read(
    history: Path, how: str
) -> None:
    if how == "in-place":
        with (history / "docs/b.md").open("w", encoding="utf-8") as f:
            f.write(EDITED)
    else:
        _replace(history, "docs/b.md", EDITED)
    with read_only(history / ".kenso"):
        (failed, got), (_, state) = await _call(
            history, [("get_doc", {"path": "docs/b.md"}), ("index_state", {})]
        )
        assert not failed, got
        assert "tapir ledger" in got["content"] and "okapi ledger reconciles" not in got["content"]
        assert state["stale"] is True
        assert "sync failed" in state["stale_reason"] and "read-only" in state["stale_reason"]
    (failed, synced), (_, state) = await _call(
        history, [("get_doc", {"path": "docs/b.md"}), ("index_state", {})]
    )
    assert not failed and state["stale"] is False
    # the same answer the index gives once it could take the edit
    keys = ("title", "content", "category", "audience", "tags")
    assert {k: got[k] for k in keys} == {k: synced[k] for k in keys}


@pytest.mark.anyio
async def test_get_doc_of_an_unsynced_page_never_serves_text_the_gate_refuses(
    history: Path,
) -> None:
    (history / ".kenso.toml").write_text('agent-scoped-roots = ["docs"]\n', encoding="utf-8")
    (history / "docs/b.md").unlink()
    (history / "docs/b.md").symlink_to("../private/p.md")
    with read_only(history / ".kenso"):
        ((failed, got),) = await _call(history, [("get_doc", {"path": "docs/b.md"})])
    assert failed, got
    assert got.get("rule") == "symlink-escape", got
    assert "walrus" not in json.dumps(got)


def test_the_library_s_get_doc_reads_the_page_and_says_stale(history: Path) -> None:
    _replace(history, "docs/b.md", EDITED)
    with read_only(history / ".kenso"):
        kb = KnowledgeBase.open(history)
        try:
            got = kb.get_doc("docs/b.md", max_length=40)
            assert got["content"].startswith("# Beta") or "tapir" in got["content"]
            assert got.get("truncated") is True and got["content"].endswith("...")
            assert kb.freshness is not None and kb.freshness.stale
        finally:
            kb.close()


def test_a_copy_that_can_be_made_nowhere_is_a_clear_error(
    history: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (history / ".kenso" / "revisions").write_text("not a folder")  # mkdir fails there
    nowhere = tmp_path / "not-a-folder"
    nowhere.write_text("x")
    monkeypatch.setattr(tempfile, "tempdir", str(nowhere))  # and in the temporary folder
    kb = KnowledgeBase.open(history)
    try:
        with pytest.raises(IndexWriteError) as caught, at_revision(kb, "v1"):
            pass
    finally:
        kb.close()
    assert "cannot make the index of the docs at v1" in caught.value.message
    assert str(nowhere) in caught.value.message and caught.value.hint
    assert "TMPDIR" in caught.value.hint
