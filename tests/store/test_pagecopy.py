"""store/pagecopy.py holds only what the package uses: `copy_index` lost its last caller in
ee4fa4c (index/atref.py copies a read-only checkout's index itself) and stayed as dead code
beside `open_copy` (t47, defect 3)."""

from __future__ import annotations

import ast
import sqlite3
from pathlib import Path

import kenso_git
from kenso_git.store import pagecopy

PACKAGE = Path(kenso_git.__file__).parent


def _public_functions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
    ]


def _imported_names() -> set[str]:
    """Every name imported from `kenso_git.store.pagecopy` by the package's other modules."""
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        if path == Path(pagecopy.__file__):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "kenso_git.store.pagecopy":
                names.update(alias.name for alias in node.names)
    return names


def test_every_public_function_of_pagecopy_has_a_caller() -> None:
    unused = set(_public_functions(Path(pagecopy.__file__))) - _imported_names()
    assert unused == set()


def test_open_copy_is_an_autocommit_writing_connection(tmp_path: Path) -> None:
    conn = pagecopy.open_copy(tmp_path / "copy.db")
    try:
        assert conn.isolation_level is None  # autocommit: callers open their transactions
        conn.execute("CREATE TABLE t (x)")
        conn.execute("INSERT INTO t VALUES (1)")
    finally:
        conn.close()
    check = sqlite3.connect(tmp_path / "copy.db")
    try:
        assert check.execute("SELECT x FROM t").fetchall() == [(1,)]
    finally:
        check.close()
