"""Always fresh (#16): a running server's answers equal a fresh ingest of the tree, or say stale.

One MCP session (the SDK's in-process client against the real server) lives through random
edits (the editor pattern: write a temp file, rename it over), creates, deletes, renames and
commits, with no sync and no hook in between; after each step the answers of `search_docs`
and `get_doc` are compared with those of an index built from scratch at that moment.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import git
from tests.helpers import init_repo

pytestmark = pytest.mark.anyio

WORDS = ("alpha", "bravo", "canary", "delta", "ember", "falcon")
STEPS = 24


def _text(rng: random.Random, name: str) -> str:
    picked = rng.sample(WORDS, 3)
    return (
        f"# Note {name}\n\nThis note about {picked[0]} and {picked[1]} has enough words "
        f"to be indexed.\n\n## Details\n\nThe {picked[2]} section says {rng.random():.6f}.\n"
    )


def _save(path: Path, text: str) -> None:
    """The editor pattern: a temp file beside the target, renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


FOLDER_OPS = ("folder", "movefolder", "rmfolder", "ignore")


def _mutate_folders(rng: random.Random, root: Path, step: int, op: str) -> None:
    """Folders come, move and go, and ignore rules hide and show them: a watch of the
    tree's folders (index/quiet.py) must follow each (#31's query-time check)."""
    import shutil

    folders = sorted(p for p in root.glob("docs/*/") if p.is_dir())
    if op == "folder" or not folders:
        _save(root / "docs" / f"sub{step}" / "deep" / "x.md", _text(rng, f"sub{step}"))
    elif op == "movefolder":
        rng.choice(folders).rename(root / "docs" / f"movedsub{step}")
    elif op == "rmfolder":
        shutil.rmtree(rng.choice(folders))
    else:
        hidden = rng.choice([*folders, None])
        rule = "" if hidden is None else f"docs/{hidden.name}/\n"
        (root / ".gitignore").write_text(rule, encoding="utf-8")
    if folders and rng.random() < 0.5:  # a doc saved in a folder the last step touched
        target = rng.choice(sorted(p for p in root.glob("docs/*/") if p.is_dir()) or folders)
        if target.is_dir():
            _save(target / f"later{step}.md", _text(rng, f"later{step}"))


def _mutate(rng: random.Random, root: Path, step: int) -> str:
    docs = sorted((root / "docs").glob("*.md"))
    op = rng.choice(("edit", "edit", "create", "delete", "rename", "inplace", "commit",
                     *FOLDER_OPS))  # fmt: skip
    if not docs:
        op = "create"
    if op in FOLDER_OPS:
        _mutate_folders(rng, root, step, op)
    elif op == "create":
        _save(root / "docs" / f"new{step}.md", _text(rng, f"new{step}"))
    elif op == "edit":
        target = rng.choice(docs)
        _save(target, _text(rng, target.stem))
    elif op == "inplace":  # an editor writing the same file in place
        target = rng.choice(docs)
        target.write_text(_text(rng, target.stem), encoding="utf-8")
    elif op == "delete":
        rng.choice(docs).unlink()
    elif op == "rename":
        rng.choice(docs).rename(root / "docs" / f"moved{step}.md")
    else:
        git(root, "add", "-A")
        git(root, "commit", "-q", "--allow-empty", "-m", f"step {step}")
    return op


def _fresh_answers(root: Path, db: Path, word: str, paths: list[str]) -> tuple[Any, ...]:
    """What an index built from scratch right now answers."""
    db.unlink(missing_ok=True)
    kb = KnowledgeBase.open(root, db=str(db))
    kb.ingest()
    kb.settings = kb.settings._replace(query_sync=False)
    hits = kb.search_docs(word, limit=20)
    docs: dict[str, str | None] = {}
    for path in paths:
        try:
            docs[path] = kb.get_doc(path)["content"]
        except Exception:
            docs[path] = None
    kb.close()
    assert isinstance(hits, list)
    return _hit_keys(hits), docs


def _hit_keys(hits: list[Any]) -> list[tuple[str, str]]:
    # Equal BM25 scores may come in either order; the set of hits and their text must agree.
    return sorted((h["file_path"], h["content_preview"]) for h in hits)


async def _served_answers(
    client: Client, word: str, paths: list[str]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    result = await client.call_tool("search_docs", {"query": word, "limit": 20})
    hits = json.loads(result.content[0].text)
    docs: dict[str, str | None] = {}
    for path in paths:
        reply = await client.call_tool("get_doc", {"path": path})
        body = json.loads(reply.content[0].text)
        docs[path] = None if reply.is_error or "error" in body else body["content"]
    state = await client.call_tool("index_state", {})
    return (_hit_keys(hits), docs), json.loads(state.content[0].text)


async def answers_match_a_fresh_ingest(
    client: Client, rng: random.Random, root: Path, fresh_db: Path, ops: list[str]
) -> dict[str, Any] | None:
    """Ask a random word and docs; the answers must equal a fresh ingest's unless the state
    says stale (with a reason). Returns the state, or None for an answer flagged stale."""
    word = rng.choice(WORDS)
    existing = [f"docs/{p.name}" for p in sorted((root / "docs").glob("*.md"))]
    paths = [*rng.sample(existing, min(2, len(existing))), "docs/n0.md"]
    served, state = await _served_answers(client, word, paths)
    if state["stale"]:
        assert state["stale_reason"], state
        return None
    assert served == _fresh_answers(root, fresh_db, word, paths), ops
    return state


@pytest.mark.parametrize("seed", [1, 2])
async def test_every_answer_equals_a_fresh_ingest_or_is_flagged_stale(
    tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    root = tmp_path / "repo"
    init_repo(root, {f"docs/n{i}.md": _text(rng, f"n{i}") for i in range(5)})
    KnowledgeBase.open(root).ingest()
    fresh_db = tmp_path / "fresh.db"
    stale_answers = 0
    ops: list[str] = []
    async with Client(build_server(Service(root))) as client:
        for step in range(STEPS):
            ops.append(_mutate(rng, root, step))
            state = await answers_match_a_fresh_ingest(client, rng, root, fresh_db, ops)
            if state is None:
                stale_answers += 1
                continue
            assert state["as_of"] == git(root, "rev-parse", "HEAD").strip()
    assert stale_answers == 0, f"{stale_answers} stale answers at this scale"
