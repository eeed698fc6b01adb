"""The package's shape: the import layers hold and subpackage `__init__` files stay empty."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "kenso_git"
# The rule registry builds ALL_RULES on import (STYLE.md §5); it is never on the hook path.
REGISTRY_INITS = {PACKAGE / "lint" / "rules" / "__init__.py"}


def test_import_layers_hold() -> None:
    exe = Path(sys.executable).with_name("lint-imports")
    found = str(exe) if exe.is_file() else shutil.which("lint-imports")
    if found is None:
        pytest.fail("lint-imports is missing: install the test extra (pip install -e '.[test]')")
    result = subprocess.run(
        [found, "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


def test_subpackage_inits_are_empty() -> None:
    inits = sorted(p for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE)
    assert len(inits) >= 9
    for init in inits:
        if init not in REGISTRY_INITS:
            assert init.read_text(encoding="utf-8") == "", f"{init.relative_to(ROOT)} is not empty"


def test_top_level_holds_only_the_entry_points_and_shared_modules() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == [
        "__init__.py",
        "__main__.py",
        "config.py",
        "entry.py",
        "errors.py",
        "kb.py",  # the library API; its parts are in api/
        "records.py",  # the NamedTuple base of every layer (imports nothing of the package)
    ]


def test_reading_the_index_does_not_load_the_parser() -> None:
    # `kenso-git search` reads the files table; file statuses once lived in repo.discover,
    # which pulled the Markdown parser (~10 ms) into every reader's start-up.
    code = (
        "import sys, kenso_git.kb, kenso_git.store.files, kenso_git.search.ranked.cascade; "
        "print(sorted(m for m in sys.modules if m in "
        "('kenso_git.repo.discover', 'kenso_git.text.parse', 'kenso_git.text.chunk')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_every_sql_statement_lives_in_store() -> None:
    # The read side's statements are read in one place (#28): search/, index/, the API and
    # the front ends call store functions, never `execute` on a connection themselves.
    store = PACKAGE / "store"
    pattern = re.compile(r"\.(execute|executemany|executescript|create_function)\(")
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in sorted(PACKAGE.rglob("*.py"))
        if store not in p.parents
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


def test_no_module_is_over_500_lines() -> None:
    # #28: a module a newcomer can read whole; split by what each part owns when one grows
    long = {
        str(p.relative_to(ROOT)): n
        for p in sorted(PACKAGE.rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500
    }
    assert long == {}
