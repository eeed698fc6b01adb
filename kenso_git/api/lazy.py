"""Names a facade module of the library API resolves on first use (PEP 562).

A facade maps each public name to where it is defined: `(module, attribute)`, or
`(module, None)` for a module itself. The first `from facade import name` imports only
that module, so a fast path (a git hook, `search`) pays for what it uses and nothing else.

The front ends import the names they use of the layers below the API from a facade
(`api/workspace.py`, `git`, `index`, `lint`, `search`), never from the layers that define
them: an import contract forbids it. A facade lists each name three times, as
`tests/api/test_facades.py` checks: its type-only import, `__all__` and `_NAMES`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from collections.abc import Mapping


def resolver(facade: str, table: Mapping[str, tuple[str, str | None]]) -> Callable[[str], object]:
    """The module `__getattr__` of `facade`: resolves a name of `table` and keeps it."""

    def resolve(name: str) -> object:
        try:
            module_name, attribute = table[name]
        except KeyError:
            raise AttributeError(f"module {facade!r} has no attribute {name!r}") from None
        module = importlib.import_module(module_name)
        value = module if attribute is None else getattr(module, attribute)
        # kept on the facade: later lookups are plain attribute reads
        setattr(importlib.import_module(facade), name, value)
        return value

    return resolve
