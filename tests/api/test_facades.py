"""The library API's facades (kenso_git/api/*.py with a `resolver`): every name they give the
front ends resolves to the object its defining module holds, the names type checkers see are
the names the facade resolves, and no facade reaches above the layers below the API."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

API = Path(__file__).resolve().parents[2] / "kenso_git" / "api"
BELOW_THE_API = ("index", "search", "lint", "store", "repo", "text")


def _facades() -> list[str]:
    return sorted(
        p.stem
        for p in API.glob("*.py")
        if "__getattr__ = resolver(" in p.read_text(encoding="utf-8")
    )


def _table(stem: str) -> dict[str, tuple[str, str | None]]:
    table: dict[str, tuple[str, str | None]] = importlib.import_module(
        f"kenso_git.api.{stem}"
    )._NAMES
    return table


def test_there_are_facades() -> None:
    assert {"git", "index", "lint", "search", "workspace"} <= set(_facades())


@pytest.mark.parametrize("stem", _facades())
def test_every_name_resolves_to_its_defining_object(stem: str) -> None:
    module = importlib.import_module(f"kenso_git.api.{stem}")
    for name in module.__all__:
        source, attribute = _table(stem)[name]
        defined = importlib.import_module(source)
        expected = defined if attribute is None else getattr(defined, attribute)
        assert getattr(module, name) is expected, f"{stem}.{name}"


@pytest.mark.parametrize("stem", _facades())
def test_type_checkers_see_the_names_the_facade_resolves(stem: str) -> None:
    tree = ast.parse((API / f"{stem}.py").read_text(encoding="utf-8"))
    guarded: dict[str, tuple[str, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module
                for alias in imp.names:
                    guarded[alias.asname or alias.name] = (imp.module, alias.name)
    table = _table(stem)
    module = importlib.import_module(f"kenso_git.api.{stem}")
    assert sorted(guarded) == sorted(table) == sorted(module.__all__)
    for name, (source, attribute) in table.items():
        if attribute is None:
            assert f"{guarded[name][0]}.{guarded[name][1]}" == source, name
        else:
            assert guarded[name] == (source, attribute), name


@pytest.mark.parametrize("stem", _facades())
def test_a_facade_names_only_the_layers_below_the_api(stem: str) -> None:
    for name, (source, _) in _table(stem).items():
        layer = source.split(".")[1]
        assert layer in BELOW_THE_API, f"{stem}.{name} comes from {source}"


def test_importing_a_facade_imports_nothing_it_names() -> None:
    # the hooks' and `search`'s start-up budgets rest on this (tests/test_entry.py, ...)
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        + "".join(f"import kenso_git.api.{s}\n" for s in _facades())
        + "new = sorted(m for m in set(sys.modules) - before "
        "if m.startswith('kenso_git.') and not m.startswith('kenso_git.api'))\n"
        "print(new)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_answer_shapes_are_re_exported_whole() -> None:
    # a new tool's TypedDict in search/results.py needs no facade line (3 files per tool)
    from kenso_git.api import results as facade
    from kenso_git.search import results

    public = {n for n in vars(results) if not n.startswith("_") and n[0].isupper()}
    assert public
    for name in public:
        assert getattr(facade, name) is getattr(results, name), name
