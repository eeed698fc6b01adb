"""A tool call's arguments checked against the tool's input schema, without pydantic (#32).

Both servers check a call here before the tool runs: the SDK-free stdio loop
(`serve.stdio`) and the SDK's server (`server.py`, ahead of the SDK's own models, whose
plain-text "validation error" is not the documented `{"error", "hint"?, "rule"?}`). What is
checked is what the SDK's pydantic models check: every required argument given, each of its
declared JSON type (the subset the schemas of `tools_list.json` use: string, integer,
number, boolean, null, arrays of those, enums and `anyOf`), unknown ones ignored, and an
integer given as `3.0`, `"3"` or `"3.0"` read as 3, as pydantic's lax mode reads it (`true`
is not an integer here, where pydantic would read 1, and neither is a float past 2**53,
such as `1e308`, which stands for no one integer). An integer below the least its tool
takes is refused by the tool itself (`in_range`), naming the range: every door runs it.

An argument that does not fit is an `ArgumentError` naming it and what it should be, and so
are `arguments` that are not an object (the SDK's models answer those with a JSON-RPC -32602
of their own, which `server.py` heads off). Every tool's `path` goes through the scope gate
(docs/security.md), so a `path` that is not a string is handed to the gate, and its
`not-a-string` refusal is the answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from collections.abc import Mapping
from typing import Any

from kenso_git.errors import SHOWN_CHARS
from kenso_git.errors import KensoError
from kenso_git.errors import ScopeError
from kenso_git.errors import shown

# an integer as pydantic's lax mode reads one from a string: " 7 ", "1_000", "-2.00"
_INTEGER = re.compile(r"\s*([+-]?\d+(?:_\d+)*)(?:\.0+)?\s*", re.ASCII)
Fit = tuple[bool, Any]  # whether the value fits, and the value as the tool gets it
GATED = "path"  # the argument every tool that takes it checks through the scope gate
# the JSON types of the schemas, as one value (an integer) and as several (integers)
_NOUNS = {
    "string": ("a string", "strings"),
    "integer": ("an integer", "integers"),
    "number": ("a number", "numbers"),
    "boolean": ("true or false", "booleans"),
    "null": ("null", "nulls"),
    "object": ("an object", "objects"),
}


class ArgumentError(KensoError):
    """A call's arguments do not fit the tool's input schema."""


def _integer(value: Any, _schema: Mapping[str, Any]) -> Fit:
    if isinstance(value, bool):
        return False, value
    if isinstance(value, int):
        return True, value
    if isinstance(value, float) and value.is_integer() and abs(value) <= _EXACT_FLOAT:
        return True, int(value)
    found = _INTEGER.fullmatch(value) if isinstance(value, str) else None
    if found is not None and len(found.group(1)) <= _MAX_DIGITS:
        return True, int(found.group(1))
    return False, value


# int() refuses a string of more digits (sys.get_int_max_str_digits): no such value fits
_MAX_DIGITS = 4300
_EXACT_FLOAT = 2**53  # past it a float stands for many integers (1e308 is no one count)


def in_range(tool: str, field: str, value: int | None, least: int, most: int | None) -> None:
    """Refuse an integer argument below `least`, naming its range; one above `most` is
    the tool's to read as `most` (its description says so), and None its default.

    Raises:
        ArgumentError: `value` is below `least`.
    """
    if value is None or value >= least:
        return
    span = f"at least {least:,}"
    if most is not None:
        span = f"{least:,} to {most:,} (a larger value is read as {most:,})"
    raise ArgumentError(
        f"bad arguments for {tool}: {field} should be {span}, not {_given(value)}",
        hint=f"call {tool} again with {field} in that range, or without it for its default",
    )


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


def expected(schema: Mapping[str, Any]) -> str:
    """What a value of `schema` is, in words: "'ranked' or 'exhaustive'", "an integer or
    null", "an array of strings"."""
    if "anyOf" in schema:
        return " or ".join(expected(option) for option in schema["anyOf"])
    allowed = schema.get("enum")
    if allowed is not None:
        names = [_given(v) for v in allowed]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    kind = schema.get("type", "")
    if kind == "array":
        items = schema.get("items", {}).get("type", "")
        return f"an array of {_NOUNS[items][1]}" if items in _NOUNS else "an array"
    return _NOUNS[kind][0] if kind in _NOUNS else "a value of its declared type"


def _given(value: Any) -> str:
    """`value` as the error quotes it: a string as written, anything else as JSON."""
    if isinstance(value, str):
        return shown(value)
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def not_an_object(name: str, arguments: object) -> ArgumentError:
    """The error of a call of tool `name` whose `arguments` are not an object."""
    return ArgumentError(
        f"bad arguments for {name}: arguments should be an object (each argument's name "
        f"to its value), not {_given(arguments)}",
        hint=f"call {name} again with its arguments as a JSON object (tools/list gives "
        "its inputSchema)",
    )


NO_REF = (
    "it answers from the work tree only (search, search_docs, get_doc and read_snippet "
    'take a ref; search with re:"PATTERN" finds a regular expression at one)'
)


def checked(
    name: str, schema: Mapping[str, Any], arguments: object, gate: Callable[[object], object]
) -> dict[str, Any]:
    """The arguments tool `name` is called with: known ones only, each of its declared type.
    `gate` is the scope gate's check of a path argument (`Scope.resolve`).

    Raises:
        ScopeError: `path` is not a string: the gate's refusal (`not-a-string`), saying
            what was expected.
        ArgumentError: `arguments` is neither an object nor null (absent), or an argument
            is missing or does not fit (the message names each).
    """
    if arguments is None:  # absent or null: no arguments, as MCP allows
        arguments = {}
    if not isinstance(arguments, dict):
        raise not_an_object(name, arguments)
    given: dict[str, Any] = arguments
    properties: Mapping[str, Any] = schema.get("properties", {})
    problems = [
        f"{field} is required ({expected(properties.get(field, {}))})"
        for field in schema.get("required", ())
        if field not in given
    ]
    refused: ScopeError | None = None
    out: dict[str, Any] = {}
    for field, value in given.items():
        if field not in properties:
            if field == "ref":  # ignored, it answered from the work tree as if at the ref
                problems.append(f"ref is not an argument of {name}: {NO_REF}")
            continue  # ignored, as the SDK's models ignore extra fields
        ok, cast = fits(value, properties[field])
        if not ok:
            problems.append(f"{field} should be {expected(properties[field])}, not {_given(value)}")
            if field == GATED:
                refused = _refusal(gate, value)
        elif has_lone_surrogate(cast):
            problems.append(f"{field} holds a lone UTF-16 surrogate (\\ud800-\\udfff), not text")
        out[field] = cast
    if not problems:
        return out
    listed = "; ".join(problems)
    if refused is not None:
        err = ScopeError(f"{refused.message}: {listed}", rule=refused.rule)
        err.hint = 'pass a repo-relative path as a JSON string, such as "docs/guide.md"'
        raise err
    raise ArgumentError(
        f"bad arguments for {name}: {listed}",
        hint=f"call {name} again with the arguments as described (tools/list gives its "
        "inputSchema)",
    )


_SURROGATE = re.compile("[\ud800-\udfff]")


def has_lone_surrogate(value: object) -> bool:
    """Whether `value` (decoded JSON) holds half a UTF-16 pair in a string, a key included.
    A JSON string may escape one (`"\\ud800"`), which no UTF-8 text holds: every later step
    (the gate's paths, SQLite, git) would fail on it."""
    if isinstance(value, str):
        return _SURROGATE.search(value) is not None
    if isinstance(value, list):
        return any(has_lone_surrogate(item) for item in value)
    if isinstance(value, dict):
        return any(has_lone_surrogate(k) or has_lone_surrogate(v) for k, v in value.items())
    return False


def _refusal(gate: Callable[[object], object], value: object) -> ScopeError | None:
    """The scope gate's refusal of `value` as a path (it refuses every non-string)."""
    try:
        gate(value)
    except ScopeError as err:
        return err
    return None
