"""The public API: `kenso_git.__all__`, resolved lazily, and what `KnowledgeBase` raises."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import kenso_git
from kenso_git import DocumentNotFoundError
from kenso_git import EmptyQueryError
from kenso_git import KensoError
from kenso_git import KnowledgeBase
from kenso_git import NoIndexError
from kenso_git import NoQueriesError
from tests.helpers import doc
from tests.helpers import init_repo

DOCS: dict[str, str | bytes] = {
    "docs/deploy.md": doc("Deploy Guide", "## Release steps\n\nWatch the canary closely.\n"),
    "docs/billing.md": doc("Billing Retries", "## Retry policy\n\nRetries back off.\n"),
}


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    root = init_repo(tmp_path / "repo", DOCS)
    base = KnowledgeBase.open(root)
    base.ingest()
    return base


def _run(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return proc.stdout


def test_knowledge_base_is_importable_from_the_package() -> None:
    from kenso_git.kb import KnowledgeBase as Defined

    assert KnowledgeBase is Defined
    assert kenso_git.KnowledgeBase is Defined


def test_every_public_name_resolves_and_is_listed_by_dir() -> None:
    assert len(kenso_git.__all__) == len(set(kenso_git.__all__))
    for name in kenso_git.__all__:
        assert getattr(kenso_git, name) is not None, name
    assert set(kenso_git.__all__) <= set(dir(kenso_git))
    assert kenso_git.__version__ == "0.1.0"


def test_the_error_classes_are_public_and_share_the_base() -> None:
    errors = [n for n in kenso_git.__all__ if n.endswith("Error")]
    assert {"KensoError", "QueryError", "EmptyQueryError", "DocumentNotFoundError"} <= set(errors)
    for name in errors:
        assert issubclass(getattr(kenso_git, name), KensoError), name


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        _ = kenso_git.Nope


def test_star_import_gives_exactly_the_public_names() -> None:
    out = _run(
        "import json\nns = {}\nexec('from kenso_git import *', ns)\n"
        "print(json.dumps(sorted(k for k in ns if k != '__builtins__')))"
    )
    assert json.loads(out) == sorted(kenso_git.__all__)


def test_importing_the_package_imports_no_submodule() -> None:
    out = _run(
        "import json, sys\nimport kenso_git\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('kenso_git'))))"
    )
    assert json.loads(out) == ["kenso_git"]


def test_first_access_imports_only_the_defining_module() -> None:
    out = _run(
        "import json, sys\nimport kenso_git\nkenso_git.EmptyQueryError\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('kenso_git'))))"
    )
    assert json.loads(out) == ["kenso_git", "kenso_git.errors"]


def test_search_docs_raises_on_a_blank_query_before_opening_the_index(tmp_path: Path) -> None:
    base = KnowledgeBase.open(init_repo(tmp_path / "repo", DOCS))  # never ingested
    for query in ("", "   "):
        with pytest.raises(EmptyQueryError) as caught:
            base.search_docs(query)
        assert caught.value.reply == "Empty query."
    with pytest.raises(NoIndexError):
        base.search_docs("canary")


def test_search_multi_raises_without_queries_and_drops_blank_ones(kb: KnowledgeBase) -> None:
    nothing: list[list[str] | None] = [None, []]
    for queries in nothing:
        with pytest.raises(NoQueriesError) as caught:
            kb.search_multi(queries)
        assert caught.value.reply == "No queries provided."
    assert kb.search_multi(["  ", ""]) == []
    hits = kb.search_multi(["canary", "retry"])
    assert isinstance(hits, list)
    assert {h["file_path"] for h in hits} == {"docs/deploy.md", "docs/billing.md"}


def test_get_doc_raises_for_an_unknown_path(kb: KnowledgeBase) -> None:
    assert kb.get_doc("docs/deploy.md")["title"] == "Deploy Guide"
    with pytest.raises(DocumentNotFoundError) as caught:
        kb.get_doc("docs/missing.md")
    assert caught.value.reply == "No document found at path: docs/missing.md"
    assert caught.value.path == "docs/missing.md"


def test_plain_search_of_a_blank_query_finds_nothing_without_raising(kb: KnowledgeBase) -> None:
    assert kb.search("   ").hits == ()


def test_state_to_dict_keeps_the_stats_json_field_order(kb: KnowledgeBase) -> None:
    data = kb.state().to_dict()
    assert list(data) == [
        "root",
        "db_path",
        "documents",
        "chunks",
        "links",
        "db_bytes",
        "content_bytes",
        "schema_version",
        "as_of",
        "synced_at",
        "stale",
        "stale_reason",  # as the index_state tool's, beside `stale`
        "worktree_differs",
        "scope",
        "categories",
        "revision_cache",
    ]
    assert data["stale"] is False and data["stale_reason"] is None
    assert data["documents"] == 2
    assert data["categories"] == [{"category": "docs", "documents": 2, "chunks": data["chunks"]}]
