"""#27 findings 1 and 2: a link swapped in after the gate's check, or text indexed under a
link that is gone now, never carries another file's text to an agent.

The races are hit deterministically: a test hook swaps `docs/x.md` (or a folder above it)
right after the gate approved it (`Scope.resolve`, a gate's check), after the query-time
sync (`KnowledgeBase.refresh`), or between discovery and the indexer's read. The reads
themselves are the real ones.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kenso_git.errors import KensoError
from kenso_git.errors import ScopeError
from kenso_git.kb import KnowledgeBase
from kenso_git.repo import discover as discover_module
from kenso_git.repo.scope import Scope
from kenso_git.serve.service import Service
from kenso_git.store.files import load_files
from tests.serve.conftest import make_repo

ENV_CANARY = "zebracorn"
OUTSIDE_CANARY = "farawaycanary"
PRIVATE_CANARY = "roadmap"  # private/plan.md: indexed, outside the agent scope (docs/)
X_TEXT = "# X Page\n\nA harmless page about quokka payments, long enough to be indexed.\n"


def swap_to_link(link: Path, target: Path | str) -> None:
    """Replace `link` (a file, a folder or a link) by a symbolic link, atomically."""
    temp = link.with_name(f".{link.name}.swap")
    temp.unlink(missing_ok=True)
    temp.symlink_to(target)
    if link.is_dir() and not link.is_symlink():
        link.rename(link.with_name(f"{link.name}.old"))
    os.replace(temp, link)


def swap_to_file(path: Path, text: str = X_TEXT) -> None:
    """Replace `path` (a link) by a new regular file, atomically."""
    temp = path.with_name(f".{path.name}.swap")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


@pytest.fixture
def race_repo(tmp_path: Path) -> Path:
    """docs/ in scope with docs/x.md, a `.env` and private/ outside it, and a file outside
    the repository: each holds its own canary word."""
    root = make_repo(tmp_path / "repo", scoped=("docs",))
    (root / ".env").write_text(f"API_TOKEN={ENV_CANARY}-credential\n" * 4, encoding="utf-8")
    (tmp_path / "outside.md").write_text(
        f"# Outside\n\nThe {OUTSIDE_CANARY} text lives outside the repository.\n",
        encoding="utf-8",
    )
    (root / "docs" / "x.md").write_text(X_TEXT, encoding="utf-8")
    KnowledgeBase.open(root).ingest()
    return root


def canaries(root: Path) -> dict[str, tuple[Path | str, str]]:
    return {
        "env": ("../.env", ENV_CANARY),
        "outside": (root.parent / "outside.md", OUTSIDE_CANARY),
        "private": ("../private/plan.md", PRIVATE_CANARY),
    }


def after_discovery(monkeypatch: pytest.MonkeyPatch, action: Callable[[], None]) -> None:
    """Run `action` once, after discovery stat'ed the files and before the indexer reads
    them (a whole walk or the few paths git listed)."""
    done: list[bool] = []
    for name in ("discover", "discover_paths"):
        original = getattr(discover_module, name)

        def wrapped(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            found = _original(*args, **kwargs)
            if not done:
                done.append(True)
                action()
            return found

        monkeypatch.setattr(discover_module, name, wrapped)


def after_resolve(monkeypatch: pytest.MonkeyPatch, action: Callable[[], None]) -> None:
    """Run `action` once, right after the gate approved a path argument."""
    original = Scope.resolve
    done: list[bool] = []

    def resolve(self: Scope, raw: object) -> Any:
        approved = original(self, raw)
        if not done:
            done.append(True)
            action()
        return approved

    monkeypatch.setattr(Scope, "resolve", resolve)


def answer(call: Callable[[], Any]) -> str:
    """The JSON an agent would get, or the refusal's message."""
    try:
        return json.dumps(call())
    except KensoError as err:
        return f"{type(err).__name__}: {err.message}"


@pytest.mark.parametrize("kind", ["env", "outside", "private"])
def test_read_snippet_never_reads_a_link_swapped_in_after_the_check(
    race_repo: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    target, canary = canaries(race_repo)[kind]
    x = race_repo / "docs" / "x.md"
    after_resolve(monkeypatch, lambda: swap_to_link(x, target))
    service = Service(race_repo)
    with pytest.raises(ScopeError) as refused:
        service.read_snippet("docs/x.md", "", 256)
    assert refused.value.rule == "symlink-escape"
    assert canary not in refused.value.message


def test_read_snippet_never_follows_a_folder_swapped_for_a_link(
    race_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (race_repo / "docs" / "sub").mkdir()
    (race_repo / "docs" / "sub" / "x.md").write_text(X_TEXT, encoding="utf-8")
    (race_repo / "private" / "x.md").write_text(f"# P\n\n{PRIVATE_CANARY} notes.\n")
    after_resolve(monkeypatch, lambda: swap_to_link(race_repo / "docs" / "sub", "../private"))
    got = answer(lambda: Service(race_repo).read_snippet("docs/sub/x.md", "", 256))
    assert PRIVATE_CANARY not in got and "symlink-escape" in got


def test_get_doc_never_serves_a_doc_a_swapped_link_leads_to(
    race_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    x = race_repo / "docs" / "x.md"
    # the query-time sync indexes the link's out-of-scope target under docs/x.md
    after_resolve(monkeypatch, lambda: swap_to_link(x, "../private/plan.md"))
    got = answer(lambda: Service(race_repo).get_doc("docs/x.md", None))
    assert PRIVATE_CANARY not in got and "symlink-escape" in got


def flip_after_refresh(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """Swap `path` (a link) for a regular file right after each query-time check."""
    original = KnowledgeBase.refresh

    def refresh(self: KnowledgeBase) -> None:
        original(self)
        if path.is_symlink():
            swap_to_file(path)

    monkeypatch.setattr(KnowledgeBase, "refresh", refresh)


def hidden_text_calls(service: Service) -> dict[str, Callable[[], Any]]:
    return {
        "search_docs": lambda: service.search_docs(PRIVATE_CANARY, None, 20),
        "search_multi": lambda: service.search_multi([PRIVATE_CANARY, "vault"], None, 20),
        "search": lambda: service.search(PRIVATE_CANARY, page_size=20),
        "search exhaustive": lambda: service.search(PRIVATE_CANARY, mode="exhaustive"),
        "regex_search": lambda: service.regex_search(PRIVATE_CANARY, page_size=20),
        "get_doc": lambda: service.get_doc("docs/x.md", None),
        "get_related": lambda: service.get_related("docs/deploy.md", 3, None),
    }


@pytest.mark.parametrize(
    "tool",
    ["search_docs", "search_multi", "search", "search exhaustive", "regex_search", "get_doc"],
)
def test_text_indexed_through_a_link_is_not_served_once_the_path_is_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    root = make_repo(tmp_path / "repo", scoped=("docs",))
    x = root / "docs" / "x.md"
    x.symlink_to("../private/plan.md")  # indexed: its target is an indexable doc
    KnowledgeBase.open(root).ingest()
    flip_after_refresh(monkeypatch, x)  # the gate then sees a regular, in-scope file
    got = answer(hidden_text_calls(Service(root))[tool])
    assert PRIVATE_CANARY not in got.lower()
    assert tool == "get_doc" or "docs/x.md" not in got  # get_doc's refusal names its path


STALE_SETTINGS = 'agent-scoped-roots = ["docs"]\nwatch = false\nquery-sync = false\n'


@pytest.mark.parametrize("tool", ["search_docs", "search_multi", "search", "get_doc"])
def test_stale_text_of_a_link_is_never_served_under_the_file_now_there(
    tmp_path: Path, tool: str
) -> None:
    """Finding 2 with `watch = false` and `query-sync = false` (a committed .kenso.toml)."""
    root = make_repo(tmp_path / "repo", extra=STALE_SETTINGS)
    x = root / "docs" / "x.md"
    x.symlink_to("../private/plan.md")
    KnowledgeBase.open(root).ingest()
    swap_to_file(x)  # no sync follows: the index keeps the plan's text under docs/x.md
    got = answer(hidden_text_calls(Service(root))[tool])
    assert PRIVATE_CANARY not in got.lower()


def test_stale_window_after_a_bulk_change_serves_no_other_files_text(tmp_path: Path) -> None:
    """Finding 2 with the defaults: more than 200 changed docs make the query check answer
    from the index, stale; a path whose file was replaced is left out of that answer."""
    root = make_repo(tmp_path / "repo", scoped=("docs",))
    bulk = root / "docs" / "bulk"
    bulk.mkdir()
    page = "# Bulk {i}\n\nBulk page {i} about {word}, long enough to be indexed as a doc.\n"
    for i in range(205):
        (bulk / f"b{i}.md").write_text(page.format(i=i, word="ledgers"), encoding="utf-8")
    x = root / "docs" / "x.md"
    x.symlink_to("../private/plan.md")
    KnowledgeBase.open(root).ingest()
    for i in range(205):  # edited in place: the same files, their old text stays in the index
        (bulk / f"b{i}.md").write_text(page.format(i=i, word="journals"), encoding="utf-8")
    swap_to_file(x)
    service = Service(root)
    hits, _ = service.search_docs(PRIVATE_CANARY, None, 20)
    assert service.kb().freshness is not None and service.kb().freshness.stale
    assert PRIVATE_CANARY not in json.dumps(hits).lower()
    # the docs edited in place still answer with their own text: the stale index's, or the
    # new one, which the scoped index of this scoped server read from the work tree (#27)
    old, _ = service.search("ledgers", page_size=5, mode="exhaustive")
    new, _ = service.search("journals", page_size=5, mode="exhaustive")
    assert old["total"] + new["total"] == 205


def test_regex_search_never_reads_through_a_folder_swapped_after_the_gate(
    race_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sub = race_repo / "docs" / "sub"
    sub.mkdir()
    (sub / "x.md").write_text("# Sub X\n\nA harmless quokka page for the regex search.\n")
    (race_repo / "private" / "sub").mkdir()
    (race_repo / "private" / "sub" / "x.md").write_text(f"# P\n\nquokka {PRIVATE_CANARY}\n")
    KnowledgeBase.open(race_repo).sync()
    original = Scope.gate

    def gate(self: Scope, *args: Any, **kwargs: Any) -> Callable[[str], bool]:
        check = original(self, *args, **kwargs)

        def swapping(path: str) -> bool:
            verdict = check(path)
            if path == "docs/sub/x.md" and not sub.is_symlink():
                swap_to_link(sub, "../private/sub")
            return verdict

        return swapping

    monkeypatch.setattr(Scope, "gate", gate)
    service = Service(race_repo)
    service.kb().settings = service.kb().settings._replace(query_sync=False)
    got = answer(lambda: service.regex_search("quokka", page_size=50))
    assert PRIVATE_CANARY not in got


@pytest.mark.parametrize("kind", ["env", "outside"])
def test_the_indexer_never_reads_a_link_swapped_in_after_discovery(
    race_repo: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    target, canary = canaries(race_repo)[kind]
    x = race_repo / "docs" / "x.md"
    x.write_text(X_TEXT + "\nEdited after the first ingest.\n", encoding="utf-8")
    # discovery saw a regular file; the read comes next
    after_discovery(monkeypatch, lambda: swap_to_link(x, target))
    kb = KnowledgeBase.open(race_repo)
    kb.sync()
    text = kb.read(
        lambda conn: conn.execute("SELECT group_concat(content) FROM chunks").fetchone()[0]
    )
    assert canary not in text
    # the next sync reads the path again, now a file with the stat data the row recorded
    monkeypatch.undo()
    swap_to_file(x)
    kb.sync()
    assert [h["file_path"] for h in kb.search_docs("quokka")] == ["docs/x.md"]


def test_a_file_replaced_between_discovery_and_read_is_recorded_as_read(
    race_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    x = race_repo / "docs" / "x.md"
    saved = X_TEXT + "\nSaved again by an editor: a new file, a new inode.\n"
    x.write_text(X_TEXT + "\nFirst edit.\n", encoding="utf-8")
    after_discovery(monkeypatch, lambda: swap_to_file(x, saved))
    kb = KnowledgeBase.open(race_repo)
    kb.sync()
    monkeypatch.undo()
    row = kb.read(lambda conn: load_files(conn, ["docs/x.md"])["docs/x.md"])
    text = kb.read(lambda conn: _text_of(conn, "docs/x.md"))
    # the row describes the file the text came from (the gate compares its inode)
    assert "new inode" in text and row.inode == x.stat().st_ino and row.size == len(saved)


def _text_of(conn: Any, path: str) -> str:
    query = "SELECT group_concat(content) FROM chunks WHERE file_path = ?"
    return str(conn.execute(query, (path,)).fetchone()[0])


@pytest.mark.parametrize("tool", ["get_doc", "read_snippet", "search_docs"])
def test_a_link_turning_into_a_file_while_it_is_resolved_is_no_crash(
    race_repo: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    """`os.path.realpath` raised EINVAL when the link it was reading became a file: the
    old code's tools (and its query-time sync) failed with a bare OSError."""
    x = race_repo / "docs" / "x.md"
    x.unlink()
    x.symlink_to("deploy.md")
    service = Service(race_repo)
    readlink = os.readlink

    def swapped_first(path: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(path) == x and x.is_symlink():
            swap_to_file(x)
        return readlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "readlink", swapped_first)
    calls: dict[str, Callable[[], Any]] = {
        "get_doc": lambda: service.get_doc("docs/x.md", None),
        "read_snippet": lambda: service.read_snippet("docs/x.md", "", 256),
        "search_docs": lambda: service.search_docs("quokka", None, 20),
    }
    answer(calls[tool])  # an answer or a KensoError, never another exception
