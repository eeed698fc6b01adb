"""`NamedTuple` for kenso-git's record types, without typing's per-field checks at import.

`typing.NamedTuple` checks every field's annotation when the class is made: with postponed
annotations each is a string, compiled into a `ForwardRef`. That cost ~0.5 ms a class, and a
search or a git hook makes 26-33 of them before it does any work (~13 ms of a 150-200 ms
command, #16). This base makes the same `collections.namedtuple` class (fields, defaults,
methods, docstring) and keeps the annotations as written; type checkers see
`typing.NamedTuple` itself.

Every module of the package takes `NamedTuple` from here (tests/test_records.py checks).
"""

from __future__ import annotations

import collections

__all__ = ["NamedTuple"]

# No `typing` import at run time: the entry starts git before typing loads (repo/prestart.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from typing import NamedTuple as NamedTuple  # noqa: TID251  # what checkers see
else:
    # what typing.NamedTuple refuses in a class body, and what it does not copy from it
    _PROHIBITED = frozenset(
        {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults"}
        | {"_make", "_replace", "_asdict", "_source"}
    )
    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__", "__qualname__"})

    class _RecordMeta(type):
        def __new__(mcs, typename: str, bases: tuple[type, ...], ns: dict[str, Any]) -> type:
            if bases != (_Base,):
                raise TypeError("a NamedTuple record can only inherit from NamedTuple")
            annotations = dict(ns.get("__annotations__", {}))
            defaults: list[str] = []
            for name in annotations:
                if name in ns:
                    defaults.append(name)
                elif defaults:
                    raise TypeError(
                        f"Non-default namedtuple field {name} cannot follow default field"
                        f"{'s' if len(defaults) > 1 else ''} {', '.join(defaults)}"
                    )
            record = collections.namedtuple(  # the class typing would make
                typename,
                list(annotations),
                defaults=[ns[name] for name in defaults],
                module=ns["__module__"],
            )
            record.__annotations__ = record.__new__.__annotations__ = annotations
            record.__qualname__ = ns.get("__qualname__", typename)
            for key, value in ns.items():
                if key in _PROHIBITED:
                    raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
                if key not in _SPECIAL and key not in record._fields:
                    setattr(record, key, value)
            return record

    _Base = type.__new__(_RecordMeta, "NamedTuple", (), {})

    class _Records:
        """`class X(NamedTuple):` resolves its base to `_Base` (PEP 560)."""

        def __mro_entries__(self, bases: tuple[object, ...]) -> tuple[type, ...]:
            return (_Base,)

        def __repr__(self) -> str:
            return "kenso_git.records.NamedTuple"

    NamedTuple = _Records()
