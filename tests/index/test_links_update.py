"""A sync that creates, deletes or renames docs re-resolves only the links that can change
(#16): the links table stays equal to a fresh ingest's, and a create in a big tree does
not re-resolve every link.

Random steps over a real git repository whose docs link to each other by exact path,
folder-relative path and unique suffix (a new file can make a suffix ambiguous), through
`relates_to` and inline Markdown links; after each sync the links table is compared with
a fresh ingest of the same tree into a second database.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from kenso_git.kb import KnowledgeBase
from kenso_git.text import links as text_links
from tests.helpers import doc
from tests.helpers import init_repo

NAMES = ["a.md", "b.md", "guide.md", "index.md", "ops_1.md"]
FOLDERS = ["docs", "docs/sub", "other", "other/sub"]
TARGETS = [
    "a.md",
    "./b.md",
    "../guide.md",
    "sub/index.md",
    "docs/a.md",
    "/other/b.md",
    "ops_1.md",
    "sub/ops_1.md",
    "index.md",
    "OPS_1.md",
]


def _page(rng: random.Random, n: int) -> str:
    inline = " ".join(f"[l{i}]({rng.choice(TARGETS)})" for i in range(rng.randint(0, 3)))
    related = rng.sample(TARGETS, rng.randint(0, 2))
    body = f"Page {n} is the word of this document, long enough to be indexed. {inline}\n"
    return doc(f"Page {n}", body, relates_to=related) if related else doc(f"Page {n}", body)


def _links(db: Path) -> list[tuple[str, str, str, str]]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT source_path, target_path, relation_type, raw_target FROM links"
        ).fetchall()
    finally:
        conn.close()
    return sorted(rows)


def _fresh_links(root: Path, tmp: Path) -> list[tuple[str, str, str, str]]:
    db = tmp / "fresh.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    KnowledgeBase.open(root, db=str(db)).ingest()
    return _links(db)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_links_after_each_create_delete_or_rename_equal_a_fresh_ingest(
    tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    pairs = [(f, n) for f in FOLDERS for n in rng.sample(NAMES, 2)]
    files = {f"{f}/{n}": _page(rng, i) for i, (f, n) in enumerate(pairs)}
    root = init_repo(tmp_path / "repo", files)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    for step in range(25):
        present = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
        kind = rng.choice(["create", "delete", "rename", "edit"])
        if kind == "create" or not present:
            rel = f"{rng.choice(FOLDERS)}/{rng.choice(NAMES)}"
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(_page(rng, 100 + step), "utf-8")
            changed = [rel]
        elif kind == "delete":
            rel = rng.choice(present)
            (root / rel).unlink()
            changed = [rel]
        elif kind == "rename":
            rel, new = rng.choice(present), f"{rng.choice(FOLDERS)}/{rng.choice(NAMES)}"
            (root / new).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).replace(root / new)
            changed = sorted({rel, new})
        else:
            rel = rng.choice(present)
            (root / rel).write_text(_page(rng, 200 + step), "utf-8")
            changed = [rel]
        kb.sync(paths=changed)
        assert _links(kb.db_path) == _fresh_links(root, tmp_path), (step, kind, changed)
    kb.close()


def test_a_create_re_resolves_only_the_links_that_name_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 80 docs, each with links to the others: a created doc is named by none of them.
    files = {
        f"docs/p{i:02d}.md": doc(
            f"Page {i}",
            f"Page {i} is the word of this document, long enough. [n](p{(i + 1) % 80:02d}.md)",
            relates_to=[f"p{(i + 2) % 80:02d}.md"],
        )
        for i in range(80)
    }
    root = init_repo(tmp_path / "repo", files)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    calls = 0
    real = text_links.resolve_link

    def counted(source: str, target: str, known: object) -> str | None:
        nonlocal calls
        calls += 1
        return real(source, target, known)  # type: ignore[arg-type]

    monkeypatch.setattr("kenso_git.index.links.resolve_link", counted)
    (root / "docs" / "new.md").write_text(
        doc("New", "The new page is the word of this document, long enough. [p](p03.md)"), "utf-8"
    )
    kb.sync(paths=["docs/new.md"])
    assert calls <= 5, calls  # its own link; 160 (every link) when all are re-resolved
    assert _links(kb.db_path) == _fresh_links(root, tmp_path)
    kb.close()


def test_a_full_links_rebuild_works_a_page_of_files_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # #32: at 100,000 docs a full rebuild that held every file's raw entries and links at
    # once was the writer's peak memory; now it links a page of files at a time, and the
    # links still equal a fresh ingest's (across pages, and after links go away).
    from kenso_git.index import links as index_links

    files = {
        f"docs/p{i:02d}.md": doc(
            f"Page {i}",
            f"Page {i} is the word of this document, long enough. [n](p{(i + 1) % 80:02d}.md)",
            relates_to=[f"p{(i + 2) % 80:02d}.md"],
        )
        for i in range(80)
    }
    root = init_repo(tmp_path / "repo", files)
    kb = KnowledgeBase.open(root)
    kb.ingest()
    monkeypatch.setattr(index_links, "PAGE", 7, raising=False)
    widest = 0
    real = index_links.add_links

    def counted(conn: sqlite3.Connection, rows: object, **kw: object) -> None:
        nonlocal widest
        rows = list(rows)  # type: ignore[call-overload]
        widest = max(widest, len({row[0] for row in rows}))
        real(conn, rows, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(index_links, "add_links", counted)
    # more than MAX_MOVED files go away: every link is resolved anew, some now dangle
    for i in range(80):
        if i % 4:
            (root / "docs" / f"p{i:02d}.md").unlink()
    (root / "docs" / "p00.md").write_text(doc("Page 0", "No links any more, long enough."), "utf-8")
    kb.sync()
    assert 0 < widest <= 7, widest  # 20 sources in one call before
    assert _links(kb.db_path) == _fresh_links(root, tmp_path)
    kb.close()
