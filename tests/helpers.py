"""Builders shared by the tests: real git repositories and Markdown files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

if TYPE_CHECKING:
    import sqlite3

    from kenso_git.kb import KnowledgeBase


def git(cwd: Path, *args: str, check: bool = True) -> str:
    env = os.environ.copy()
    env.update(
        GIT_AUTHOR_DATE="1700000000 +0000",
        GIT_COMMITTER_DATE="1700000000 +0000",
    )
    proc = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, env=env
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")


def run_cli(
    cwd: Path, *args: str, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess[str]:
    """`kenso-git ARGS` run as a user would, from `cwd` (`python -m kenso_git`), not checked;
    stdin closed (a server ends at once), `env` on top of this process's environment."""
    return subprocess.run(
        [sys.executable, "-m", "kenso_git", *args],
        cwd=cwd,
        input="",
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
        env={**os.environ, **env},
    )


def plain_tree(tmp_path: Path, files: dict[str, str], *, indexed: bool = True) -> tuple[Path, Path]:
    """A folder outside git holding `files` (indexed at its top unless not `indexed`,
    `plainx/.kenso/docs.db`), and its `guide/` subfolder, both resolved."""
    root = tmp_path / "plainx"
    write(root, files)
    (root / "guide").mkdir(exist_ok=True)
    if indexed:
        out = run_cli(root, "ingest", "--no-lint")
        assert out.returncode == 0, out.stderr
        assert (root / ".kenso" / "docs.db").is_file()
    return root.resolve(), (root / "guide").resolve()


def init_repo(root: Path, files: dict[str, str | bytes] | None = None, commit: bool = True) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    if files:
        write(root, files)
    if commit and files:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "initial")
    return root


def branched_repo(
    root: Path, files: dict[str, str | bytes], branch: str, change: dict[str, str | None]
) -> Path:
    """A repository of `files` on `main` and a `branch` whose one commit writes (text) or
    deletes (None) the files of `change`; `main` checked out again and indexed."""
    from kenso_git.kb import KnowledgeBase

    init_repo(root, files)
    git(root, "checkout", "-q", "-b", branch)
    for rel, text in change.items():
        if text is None:
            (root / rel).unlink()
        else:
            write(root, {rel: text})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", branch)
    git(root, "checkout", "-q", "main")
    KnowledgeBase.open(root).ingest()
    return root


def orphan_repo(root: Path) -> Path:
    """A repository whose branch `fresh` (checked out) starts a second history, sharing no
    commit with `main`: `main` has docs/a.md, `fresh` only docs/o.md."""
    init_repo(root, {"docs/a.md": "# Main page about widgets\n\nSome text long enough.\n"})
    git(root, "checkout", "-q", "--orphan", "fresh")
    git(root, "rm", "-rq", "--cached", ".")
    (root / "docs" / "a.md").unlink()
    write(root, {"docs/o.md": "# Orphan zebra walrus\n\nPelican quartz nimbus kiwi.\n"})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "orphan")
    return root


def docs_kb(root: Path, files: dict[str, str]) -> KnowledgeBase:
    """A knowledge base of `files` (paths under `root/docs`), ingested into `root/index.db`."""
    from kenso_git.kb import KnowledgeBase

    for rel, text in files.items():
        path = root / "docs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    kb = KnowledgeBase.open(root, db=str(root / "index.db"))
    kb.ingest()
    return kb


def ranked_without(kb: KnowledgeBase, question: str, hidden: str) -> list[str]:
    """The ranked search's pages for `question` when the scope hides the page `hidden`."""
    from kenso_git.search.ranked.cascade import search

    found = kb.read(lambda c: search(c, question, limit=10, path_filter=lambda p: p != hidden))
    return [h.file_path for h in found.hits]


def connect_raw(database: str | Path, **options: Any) -> sqlite3.Connection:
    """A plain sqlite3 connection to an index, with the SQL function its FTS triggers call
    (a chunk's expanded terms, schema 5), as kenso-git's own connections have: tests may
    write rows. Reading needs none (tests/store/test_plain_text.py)."""
    import sqlite3

    from kenso_git.store.connection import add_functions

    conn = sqlite3.connect(database, **options)
    add_functions(conn)
    return conn


def check_index(conn: sqlite3.Connection) -> None:
    """Fail unless the FTS index is sound and holds exactly what its triggers give it for
    every chunk row (schema.FTS_SOURCE), term by term and position by position.

    FTS5's `integrity-check` with rank 1 compares the index with its external content,
    `chunks_search`, which does not show a chunk's expanded terms (schema 5): the index is
    compared here with a second FTS table made from the triggers' values instead.
    """
    from kenso_git.store import schema

    conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')")
    conn.execute("DROP TABLE IF EXISTS temp.fresh_fts")
    conn.execute(
        "CREATE VIRTUAL TABLE temp.fresh_fts USING fts5(title, section_path, tags, category, "
        f"searchable_content, tokenize='{schema.TOKENIZER}')"
    )
    conn.execute(f"INSERT INTO temp.fresh_fts({schema.FTS_COLUMNS}) {schema.FTS_SOURCE}")
    entries = []
    for db, table in (("main", "chunks_fts"), ("temp", "fresh_fts")):
        conn.execute(f"DROP TABLE IF EXISTS temp.{table}_vocab")
        conn.execute(
            f"CREATE VIRTUAL TABLE temp.{table}_vocab USING fts5vocab({db}, {table}, 'instance')"
        )
        entries.append(
            conn.execute(
                f"SELECT term, doc, col, offset FROM temp.{table}_vocab ORDER BY 1, 2, 3, 4"
            ).fetchall()
        )
        conn.execute(f"DROP TABLE temp.{table}_vocab")
    conn.execute("DROP TABLE temp.fresh_fts")
    assert entries[0] == entries[1], "the FTS index is not what its triggers would make"


def vocabulary_pairs(
    conn: sqlite3.Connection,
) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(the (word, path) pairs each document's words make, those the typo vocabulary holds)."""
    from kenso_git.store import vocab

    versions = dict(conn.execute("SELECT path, blob_id FROM files"))
    per_doc = vocab.document_words(conn, None, versions)
    expected = {(w, p) for p, words in per_doc.items() for w in words}
    stored = set(
        conn.execute(
            f"SELECT v.word, d.path FROM {vocab.TABLE} v JOIN {vocab.DOCS} d ON d.id = v.doc"
        )
    )
    return expected, stored


def fail_next_ingest(db: Path) -> None:
    """Make the next ingest fail after its chunk writes, as a full disk would ("disk gone")."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TRIGGER boom BEFORE UPDATE ON meta WHEN new.key = 'generation' "
            "BEGIN SELECT RAISE(ABORT, 'disk gone'); END"
        )


def doc(title: str, body: str = "", **frontmatter: object) -> str:
    """A Markdown document long enough to be indexed."""
    fm = ""
    if frontmatter:
        lines = []
        for key, value in frontmatter.items():
            if isinstance(value, list):
                lines.append(f"{key}:")
                lines.extend(f"  - {item}" for item in value)
            else:
                lines.append(f"{key}: {value}")
        fm = "---\n" + "\n".join(lines) + "\n---\n"
    text = body or (
        f"{title} explains how the system behaves in detail.\n\n"
        f"## {title} details\n\nThe {title.lower()} section carries enough words to index.\n"
    )
    return f"{fm}# {title}\n\n{text}"


SHARED = Path(__file__).resolve().parents[2] / "shared"  # beside the checkout, as in CI


def shared_corpus(name: str = "docs-desktop") -> Path | None:
    """The docs folder of a corpus in ../shared/corpora, or None where this checkout has none."""
    docs = SHARED / "corpora" / name / "docs"
    return docs if docs.is_dir() else None


def require_corpus(name: str = "docs-desktop") -> Path:
    """The corpus's docs folder; skips the test cleanly where ../shared is absent."""
    docs = shared_corpus(name)
    if docs is None:
        pytest.skip(f"corpus {name!r} not present (../shared/corpora is not beside this checkout)")
    return docs


def pre_commit_run_hook(
    target: Path, hook_repo: Path, hook_id: str, home: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """Run the real `pre-commit run HOOK_ID ARGS...` in `target` with the config `pre-commit
    try-repo HOOK_REPO HOOK_ID` writes (HOOK_REPO at its HEAD; skips the test when pre-commit
    is not installed). try-repo itself installs into a throwaway store, a new venv (~20 s) at
    every call; this reuses `home`, so the session builds the hook's venv once. HOOK_REPO must
    be committed: the `hook_repo` fixture. pip's cache stays outside the isolated HOME, so
    the one venv build reuses downloads."""
    exe = Path(sys.executable).with_name("pre-commit")
    if not exe.is_file():
        found = shutil.which("pre-commit")
        if found is None:
            pytest.skip("pre-commit is not installed in this environment")
        exe = Path(found)
    rev = git(hook_repo, "rev-parse", "HEAD").strip()
    pip_cache = os.environ.get("PIP_CACHE_DIR") or os.path.expanduser("~/.cache/pip")
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PIP_CACHE_DIR": pip_cache}
    with tempfile.TemporaryDirectory() as tmp:  # outside `target`, as try-repo's config is
        config = Path(tmp) / ".pre-commit-config.yaml"
        config.write_text(
            f"repos:\n-   repo: {hook_repo}\n    rev: {rev}\n    hooks:\n    -   id: {hook_id}\n",
            encoding="utf-8",
        )
        return subprocess.run(
            [str(exe), "run", "--config", str(config), hook_id, *args],
            cwd=target,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
