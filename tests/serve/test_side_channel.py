"""#27 finding 6: a score is a side channel. Under `agent-scoped-roots`, an agent's answers
are exactly the same whether or not hidden docs are present: BM25's statistics, the typo
vocabulary and every count come from what the scope shows (serve/scoped.py), not from the
whole index. Compared over MCP (the real Python SDK client) against a repository that does
not hold the hidden docs at all."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from mcp import Client

from kenso_git.kb import KnowledgeBase
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service
from tests.helpers import init_repo

VISIBLE = {
    "docs/vault.md": (
        "# Vault Rotation\n\nRotate the vault keys every quarter; the vault audit follows.\n\n"
        "## Canary\n\nA canary deploy checks the vault before the fleet.\n"
    ),
    "docs/deploy.md": (
        "---\nrelates_to: docs/vault.md\n---\n# Deploy Guide\n\nDeploy the payment service "
        "with a canary; see [vault](vault.md).\n\n## Rollback\n\nRoll back when the canary fails.\n"
    ),
    "docs/billing.md": (
        "# Billing Retries\n\nBilling retries for the payment service, three times, with "
        "backoff. The ledger settles nightly.\n"
    ),
}
CONFIG = 'agent-scoped-roots = ["docs"]\n'
# words an attacker guesses; a hidden doc holding them must change no answer
GUESSES = ("vault", "canary", "payment", "ledger", "zephyrine", "merger")
HIDDEN = {
    "private/merger.md": (
        "# Merger\n\nThe vault merger with zephyrine corp: vault vault vault, canary, "
        "payment terms, ledger.\n"
    ),
    "private/vault.md": "---\nrelates_to: docs/vault.md\n---\n# Vault\n\nvault zephyrine ledger\n",
}
CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("search_docs", {"query": "vault"}),
    ("search_docs", {"query": "canary vault", "limit": 10}),
    ("search_docs", {"query": "ledger"}),
    ("search_docs", {"query": "zephyrin"}),  # a typo: its correction must not be hidden
    ("search_docs", {"query": "merger payment"}),
    ("search_multi", {"queries": ["vault", "payment canary", "zephyrin"]}),
    ("search", {"query": "vault canary"}),
    ("search", {"query": "payment", "mode": "exhaustive"}),
    ("search", {"query": "zephyrin"}),
    ("regex_search", {"pattern": "vault|zephyrine"}),
    ("find_related", {"path": "docs/vault.md"}),
    ("get_related", {"path": "docs/vault.md"}),
    ("index_state", {}),
    ("health_check", {}),
)
# what may differ between two repositories without telling anything of hidden docs
STAMP = 1_700_000_000
# clock times, a cursor token and the file size of the index (which follows its write
# history); `query_watch` is not among them: under a scope it is null
UNSTABLE = frozenset({"next_cursor", "synced_at", "as_of", "db_bytes"})


def _same_times(root: Path) -> None:
    """Every doc's mtime fixed: the `modified` of a hit must not tell two checkouts apart."""
    for path in root.rglob("*.md"):
        os.utime(path, (STAMP, STAMP))


def _repo(root: Path, hidden: dict[str, str], *, link: bool = False) -> Path:
    init_repo(root, {**VISIBLE, **hidden, ".kenso.toml": CONFIG}, commit=False)
    if link:  # a visible path whose text is a hidden doc's: the gate refuses it
        (root / "docs" / "alias.md").symlink_to("../private/merger.md")
    _same_times(root)
    KnowledgeBase.open(root).ingest()
    return root


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in UNSTABLE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


async def _answers(root: Path) -> list[Any]:
    out = []
    async with Client(build_server(Service(root))) as client:
        for tool, args in CALLS:
            result = await client.call_tool(tool, args)
            text = json.loads(result.content[0].text)
            out.append((tool, args, _stable(text), _stable(result.structured_content)))
    return out


def _diff(got: Any, want: Any) -> str:
    return "\n".join(
        f"{key}: {got[i].get(key)!r} != {want[i].get(key)!r}"
        for i in (2, 3)
        if isinstance(got[i], dict) and isinstance(want[i], dict)
        for key in sorted(set(got[i]) | set(want[i]))
        if got[i].get(key) != want[i].get(key)
    )


def _compare(with_hidden: Path, without: Path) -> None:
    seen = anyio.run(_answers, with_hidden)
    clean = anyio.run(_answers, without)
    for got, want in zip(seen, clean, strict=True):
        assert got == want, f"{got[0]} {got[1]} differs with hidden docs:\n{_diff(got, want)}"


def test_answers_are_the_same_with_and_without_hidden_docs(tmp_path: Path) -> None:
    _compare(_repo(tmp_path / "hidden", HIDDEN), _repo(tmp_path / "clean", {}))


def test_a_link_to_a_hidden_doc_counts_for_nothing(tmp_path: Path) -> None:
    hidden = _repo(tmp_path / "hidden", HIDDEN, link=True)
    clean = _repo(tmp_path / "clean", {})
    _compare(hidden, clean)
    (hidden / "docs" / "alias.md").unlink()  # a link made after the scoped index was
    (hidden / "docs" / "vault2.md").symlink_to("../private/vault.md")
    _compare(hidden, clean)


def test_the_answers_follow_an_edit_of_a_hidden_doc_and_a_visible_one(tmp_path: Path) -> None:
    hidden = _repo(tmp_path / "hidden", HIDDEN)
    clean = _repo(tmp_path / "clean", {})
    _compare(hidden, clean)  # the scoped index is built by the first search
    for root in (hidden, clean):
        (root / "docs" / "billing.md").write_text("# Billing\n\nThe vault pays the ledger.\n")
    (hidden / "private" / "new.md").write_text("# New\n\nvault canary ledger merger\n")
    _same_times(hidden)
    _same_times(clean)
    _compare(hidden, clean)  # synced after the edits, still the scope's statistics only


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    words=st.lists(
        st.lists(st.sampled_from(GUESSES), min_size=1, max_size=8), min_size=1, max_size=3
    )
)
def test_any_hidden_words_change_no_answer(tmp_path_factory: Any, words: list[list[str]]) -> None:
    base = tmp_path_factory.mktemp("side")
    hidden = {f"private/h{i}.md": f"# H{i}\n\n{' '.join(ws)}\n" for i, ws in enumerate(words)}
    _compare(_repo(base / "hidden", hidden), _repo(base / "clean", {}))


@pytest.mark.parametrize("scoped", [False, True])
def test_only_a_scope_that_hides_docs_builds_a_scoped_index(tmp_path: Path, scoped: bool) -> None:
    root = init_repo(tmp_path / "repo", {**VISIBLE, **HIDDEN}, commit=False)
    if scoped:
        (root / ".kenso.toml").write_text(CONFIG)
    KnowledgeBase.open(root).ingest()
    service = Service(root)
    service.search_docs("vault", None, 5)
    scopes = root / ".kenso" / "scopes"
    assert scopes.is_dir() == scoped
    if scoped:
        assert [p.suffix for p in scopes.iterdir() if p.suffix == ".db"] == [".db"]
        assert scopes.stat().st_mode & 0o077 == 0
