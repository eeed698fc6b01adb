"""t49d #1: on a 50,000-doc repository the first common-word `search_docs` of a fresh server
was stopped by the CPU budget (1.5 s), and the next identical call took 0.5 s: the scope
gate decided each of its ~50,000 candidate paths in full the first time (the ignore rules
on every folder above the path, a `stat` of its folder, pathlib parsing), warming a cache
every later call shares, on the caller's budget. What depends on the folder is now decided
once per folder: a candidate costs its own name's match.

The count is of the gate's full ignore decisions (`Scope.is_ignored`: every folder above
the path against every rule file above it), made by the repository's real rules.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.repo.scope import IsIgnored
from kenso_git.serve.service import Service
from tests.helpers import init_repo

FOLDERS = ("docs/a", "docs/b", "docs/c/deep", "notes")
PER_FOLDER = 400  # 1,600 candidates for one common word


class _Counted:
    """The scope's real ignore rules, counting the full decisions asked of them."""

    def __init__(self, rules: IsIgnored) -> None:
        self.rules = rules
        self.asked: list[str] = []

    def __call__(self, rel: str, /, *, is_dir: bool = False, every_entry: bool = False) -> bool:
        self.asked.append(rel)
        return self.rules(rel, is_dir=is_dir, every_entry=every_entry)


def _doc(n: int) -> str:
    return f"# Page {n}\n\nThe common word here, and uniq{n} only here, for the index.\n"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    files: dict[str, str | bytes] = {
        f"{folder}/page{i}.md": _doc(i)
        for k, folder in enumerate(FOLDERS)
        for i in range(k * PER_FOLDER, (k + 1) * PER_FOLDER)
    }
    files["notes/secret-plan.md"] = _doc(99_999)
    root = init_repo(tmp_path_factory.mktemp("first") / "repo", files)
    KnowledgeBase.open(root).ingest()
    # excluded after indexing (no sync: the index still holds them): the gate must refuse
    # a whole folder's files and one file by its name
    (root / ".gitignore").write_text("docs/b/\nsecret-*.md\n", encoding="utf-8")
    return root


def _service(root: Path) -> tuple[Service, _Counted]:
    svc = Service(root)
    svc.kb().settings = svc.kb().settings._replace(query_sync=False)
    counted = _Counted(svc.scope.is_ignored)
    svc.scope = dataclasses.replace(svc.scope, is_ignored=counted)
    return svc, counted


def test_first_search_decides_the_ignore_rules_once_per_folder_not_per_candidate(
    indexed: Path,
) -> None:
    svc, counted = _service(indexed)
    text, _ = svc.search_docs("common", None, 5)
    assert isinstance(text, list) and text
    # before: 1,601 full decisions, one per candidate path
    assert len(counted.asked) <= len(FOLDERS)
    assert set(counted.asked) <= set(FOLDERS)


def test_the_first_call_s_verdicts_still_refuse_what_the_rules_exclude(indexed: Path) -> None:
    svc, _ = _service(indexed)
    svc.search_docs("common", None, 5)  # decides every candidate, as a first call does
    paths = [f"{folder}/page{i}.md" for k, folder in enumerate(FOLDERS) for i in (k * 400,)]
    with svc.gated() as gate:
        verdicts = {p: gate(p) for p in [*paths, "notes/secret-plan.md"]}
    assert verdicts == {
        "docs/a/page0.md": True,
        "docs/b/page400.md": False,
        "docs/c/deep/page800.md": True,
        "notes/page1200.md": True,
        "notes/secret-plan.md": False,
    }
    hits, _ = svc.search_docs("common", None, 50)
    assert isinstance(hits, list)
    shown = {h["file_path"] for h in hits}
    assert shown and not any(p.startswith("docs/b/") or "secret" in p for p in shown)
    found, _ = svc.search_docs("uniq99999", None, 5)
    assert found == []
