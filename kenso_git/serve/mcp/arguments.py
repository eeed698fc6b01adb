"""A tool call's arguments checked against the tool's input schema, without pydantic (#32).

The SDK-free stdio loop (`serve.stdio`) checks what the SDK's pydantic models checked: every
required argument given, each of its declared JSON type (the subset the schemas of
`tools_list.json` use: string, integer, number, boolean, null, arrays of those, enums and
`anyOf`), unknown ones ignored, and an integer given as `3.0` or `"3"` read as 3, as
pydantic's lax mode reads it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Mapping
from typing import Any

from kenso_git.errors import shown

_INTEGER = re.compile(r"\s*[+-]?\d+\s*")
Fit = tuple[bool, Any]  # whether the value fits, and the value as the tool gets it


class ArgumentError(Exception):
    """A call's arguments do not fit the tool's input schema."""


def _integer(value: Any, _schema: Mapping[str, Any]) -> Fit:
    if isinstance(value, bool):
        return False, value
    if isinstance(value, int):
        return True, value
    if isinstance(value, float) and value.is_integer():
        return True, int(value)
    if isinstance(value, str) and _INTEGER.fullmatch(value):
        return True, int(value)
    return False, value


def _array(value: Any, schema: Mapping[str, Any]) -> Fit:
    if not isinstance(value, list):
        return False, value
    fitted = [fits(item, schema.get("items", {})) for item in value]
    if not all(ok for ok, _ in fitted):
        return False, value
    return True, [cast for _, cast in fitted]


def _number(value: Any, _schema: Mapping[str, Any]) -> Fit:
    return isinstance(value, (int, float)) and not isinstance(value, bool), value


_KINDS: dict[str, Callable[[Any, Mapping[str, Any]], Fit]] = {
    "null": lambda value, _schema: (value is None, value),
    "string": lambda value, _schema: (isinstance(value, str), value),
    "boolean": lambda value, _schema: (isinstance(value, bool), value),
    "integer": _integer,
    "number": _number,
    "array": _array,
}


def fits(value: Any, schema: Mapping[str, Any]) -> Fit:
    """Whether `value` fits `schema`, and the value as the tool gets it."""
    if "anyOf" in schema:
        for option in schema["anyOf"]:
            ok, cast = fits(value, option)
            if ok:
                return True, cast
        return False, value
    if "enum" in schema and value not in schema["enum"]:
        return False, value
    check = _KINDS.get(schema.get("type", ""))
    return (True, value) if check is None else check(value, schema)


def _expected(schema: Mapping[str, Any], value: Any) -> str:
    """What the argument should have been, in the SDK's words (pydantic's messages)."""
    given = shown(value)
    allowed = schema.get("enum")
    if allowed is not None:
        names = [repr(v) for v in allowed]
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
        return f"Input should be {listed}, not {given}"
    kind = schema.get("type") or "one of the declared types"
    return f"Input should be a valid {kind}, not {given}"


def checked(name: str, schema: Mapping[str, Any], arguments: object) -> dict[str, Any]:
    """The arguments a tool is called with: known ones only, each of its declared type.

    Raises:
        ArgumentError: one is missing or of the wrong type (the message names each).
    """
    given = arguments if isinstance(arguments, dict) else {}
    properties: Mapping[str, Any] = schema.get("properties", {})
    problems = [f"{f}\n  Field required" for f in schema.get("required", ()) if f not in given]
    out: dict[str, Any] = {}
    for field, value in given.items():
        if field not in properties:
            continue  # ignored, as the SDK's models ignore extra fields
        ok, cast = fits(value, properties[field])
        if not ok:
            problems.append(f"{field}\n  {_expected(properties[field], value)}")
        out[field] = cast
    if problems:
        many = "s" if len(problems) > 1 else ""
        raise ArgumentError(
            f"{len(problems)} validation error{many} for {name}Arguments\n" + "\n".join(problems)
        )
    return out
