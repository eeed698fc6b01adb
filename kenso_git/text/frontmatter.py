"""The frontmatter block of a Markdown file: split (spec §2.2), load as YAML, or salvage fields.

Most frontmatter is plain `key: value` lines and lists of strings; those take a fast path that
yields exactly what `yaml.safe_load` would. Anything else goes to PyYAML (libyaml when present).
Broken YAML is read line by line so the file still gets indexed with most of its metadata.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from kenso_git.text.yaml_aliases import ALIAS_BOMB as _ALIAS_BOMB
from kenso_git.text.yaml_aliases import alias_bomb_line

if TYPE_CHECKING:
    from yaml.nodes import Node

_KEY_RE = re.compile(r"([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$")
_BLOCK_SCALARS = frozenset({"|", ">", "|-", ">-", "|+", ">+"})
_PLAIN_FORBIDDEN_START = frozenset("-?:,[]{}#&*!|>'\"%@`")
_FLOW_PLAIN_FORBIDDEN = frozenset("[]{}:")  # indicators inside a flow sequence (PyYAML)
_FIX_YAML = "fix it so the fields are read exactly (simple `key: value` lines were read meanwhile)"

FrontmatterError = tuple[str, int]  # (message, 1-based file line)
_TOML_WHERE = re.compile(r"\((?:at line (\d+), column \d+|at end of document)\)")
_INT_TAG = "tag:yaml.org,2002:int"


def split_frontmatter(text: str, fence: str = "---") -> tuple[str | None, int, int]:
    """(block or None, file line of the block's first line, offset where the body starts);
    with `fence` `+++`, Hugo's TOML front matter."""
    if not text.startswith(fence):
        return None, 0, 0
    close = text.find("\n" + fence, 3)
    if close < 0:
        return None, 0, 0
    start = close + 4
    while start < len(text) and text[start] == "\n":
        start += 1
    return text[4:close], text.count("\n", 0, 4) + 1, start


def load_toml_frontmatter(
    block: str, first_line: int
) -> tuple[dict[str, object], FrontmatterError | None]:
    """The fields of a TOML front matter block (`+++`, Hugo's default format); on a TOML
    error none, and the error at the file line the parser names."""
    import tomllib  # only for a `+++` block: the CLI and hook paths keep their imports

    try:
        return tomllib.loads(block), None
    except RecursionError:  # tomllib recurses once per nested array or table
        return {}, ("TOML front matter nests too deeply to be read; flatten it", first_line)
    except ValueError as err:  # TOMLDecodeError, and a value it cannot represent
        where = _TOML_WHERE.search(str(err))
        # "at end of document": a string or array left open runs to the block's last line
        last = first_line + block.count("\n")
        line = first_line + int(where.group(1)) - 1 if where and where.group(1) else last
        reason = _TOML_WHERE.sub("", str(err)).strip()
        return {}, (f"TOML front matter cannot be read ({reason}); fix it so it is read", line)


def load_frontmatter(
    block: str, first_line: int
) -> tuple[dict[str, object], FrontmatterError | None]:
    """The block's fields; on broken YAML the line-based salvage plus the error to report."""
    fast = _fast_load(block)
    if fast is not None:
        return fast, None
    loaded, error = _load_yaml(block, first_line)
    if error is not None and error[0] is _ALIAS_BOMB:
        return _without_aliases(salvage_fields(block)), error
    if error is not None:
        return salvage_fields(block), error
    return loaded, _duplicate_key(block, first_line)


def _duplicate_key(block: str, first_line: int) -> FrontmatterError | None:
    """A top-level key given twice: YAML requires keys to be unique, and PyYAML (as kenso)
    silently keeps the last value, so the first one is lost without a word. The fields keep
    the last value; the error names the line of the second key."""
    seen: set[str] = set()
    for number, line in enumerate(block.split("\n")):
        match = _KEY_RE.match(line.rstrip("\r"))
        if match is None:
            continue
        key = match.group(1)
        if key in seen:
            return (
                f"frontmatter key `{key}` is given twice (YAML keys must be unique): the "
                "last value is used; remove one of them",
                first_line + number,
            )
        seen.add(key)
    return None


def _is_alias_text(value: object) -> bool:
    return isinstance(value, str) and value[:1] in ("*", "&")


def _without_aliases(fields: dict[str, object]) -> dict[str, object]:
    """Salvaged fields minus every value that names an anchor or alias (`&a [...]`, `*a`)."""
    out: dict[str, object] = {}
    for key, value in fields.items():
        if isinstance(value, list):
            value = [item for item in value if not _is_alias_text(item)]
        if not _is_alias_text(value):
            out[key] = value
    return out


# --- PyYAML -----------------------------------------------------------------------------------


def _load_yaml(block: str, first_line: int) -> tuple[dict[str, object], FrontmatterError | None]:
    import yaml  # lazily: importing yaml costs ~40 ms, and `search` never needs it

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(block)
    node = None
    try:
        node = loader.get_single_node()
        if node is not None and "*" in block:  # only an alias (`*name`) can expand
            bomb = alias_bomb_line(node, len(block))
            if bomb is not None:
                return {}, (_ALIAS_BOMB, first_line + bomb)
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        # libyaml reports end-of-input errors one line past the block: clamp to its last line
        last = first_line + block.count("\n")
        line = min(first_line + mark.line, last) if mark is not None else first_line
        reason = exc.problem or exc.context or "syntax error"
        return {}, (f"frontmatter is not valid yaml: {reason}; {_FIX_YAML}", line)
    except ValueError as exc:  # Python's cap on the digits of an integer read from text
        long = None if node is None else _long_integer(node)
        if long is None:  # a value YAML reads but Python cannot hold (`date: 2024-13-45`)
            line = first_line + (0 if node is None else _failing_scalar(node))
            return {}, (f"frontmatter is not valid yaml: {exc}; {_FIX_YAML}", line)
        return {}, (long[0], first_line + long[1])
    except (yaml.YAMLError, OverflowError, RecursionError) as exc:
        return {}, (f"frontmatter is not valid yaml: {exc}; {_FIX_YAML}", first_line)
    finally:
        loader.dispose()
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        kind = type(data).__name__
        return {}, (
            f"frontmatter is a yaml {kind}, not `key: value` fields; {_FIX_YAML}",
            first_line,
        )
    return {str(key): value for key, value in data.items()}, None


def _failing_scalar(root: Node) -> int:
    """The block line of the first scalar whose value YAML's safe constructor refuses (a
    timestamp of month 13), else 0."""
    import yaml
    from yaml.nodes import MappingNode
    from yaml.nodes import ScalarNode
    from yaml.nodes import SequenceNode

    constructor = yaml.SafeLoader("")
    todo: list[Node] = [root]
    try:
        while todo:
            node = todo.pop()
            if isinstance(node, MappingNode):
                todo.extend(n for pair in reversed(node.value) for n in reversed(pair))
            elif isinstance(node, SequenceNode):
                todo.extend(reversed(node.value))
            elif isinstance(node, ScalarNode):
                try:
                    constructor.construct_object(node)
                except (ValueError, yaml.YAMLError):
                    return int(node.start_mark.line)
    finally:
        constructor.dispose()
    return 0


def _long_integer(root: Node) -> FrontmatterError | None:
    """The message and block line of the first integer with more digits than Python reads
    from text (`sys.get_int_max_str_digits`, 4300 by default): YAML reads unquoted digits as
    a number, and Python refuses to read one that long."""
    import sys

    from yaml.nodes import MappingNode
    from yaml.nodes import ScalarNode
    from yaml.nodes import SequenceNode

    cap = sys.get_int_max_str_digits()  # 0: no cap
    todo: list[tuple[Node, str]] = [(root, "")]  # a node, and the key it is under
    while todo and cap:
        node, key = todo.pop()
        if isinstance(node, MappingNode):
            for name, value in reversed(node.value):  # the first in the file comes out first
                todo.append((value, name.value if isinstance(name, ScalarNode) else key))
        elif isinstance(node, SequenceNode):
            todo.extend((item, key) for item in reversed(node.value))
        elif isinstance(node, ScalarNode) and node.tag == _INT_TAG:
            digits = sum(c.isdigit() for c in node.value)
            if digits > cap:
                where = f" in `{key}`" if key else ""
                quoted = f'{key}: "{node.value[:6]}..."' if key else f'"{node.value[:6]}..."'
                message = (
                    f"frontmatter number of {digits:,} digits{where} is too long to read "
                    f"(at most {cap:,}): quote it to keep it as text (`{quoted}`), or "
                    "shorten it; simple `key: value` lines were read meanwhile"
                )
                return message, node.start_mark.line
    return None


# --- fast path: plain keys with string scalars and string lists -------------------------------


# YAML 1.1 resolves a plain scalar that starts with a letter only when it is one of these
# words (booleans and null); anything else starting with a letter is a string. Deciding that
# here keeps PyYAML (~35 ms to import) out of small syncs, where most values are words.
_LETTER_WORDS = frozenset(
    [
        "yes",
        "Yes",
        "YES",
        "no",
        "No",
        "NO",
        "true",
        "True",
        "TRUE",
        "false",
        "False",
        "FALSE",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
        "null",
        "Null",
        "NULL",
    ]
)


# Every YAML 1.1 number, timestamp, `.inf`/`.nan` and merge/value key is written with these
# characters only; a scalar with any other character (`10/27/2022`, `3 apples`) is a string.
_RADIX_DIGITS = {"0x": frozenset("0123456789abcdefABCDEF_"), "0b": frozenset("01_")}
_NUMERIC_CHARS = frozenset("0123456789_.:+-eEtTzZxXoObBaAcCdDfFiInN~<= ")


def _number_shaped(value: str) -> bool:
    """False when `value` cannot be a YAML 1.1 int, float or timestamp: a letter other than
    an exponent, or a `-`/`+` inside that is not an exponent sign or a date separator
    (`15abda8b-0527-...`, `1825-days`). True means: let PyYAML decide."""
    body = value.lstrip("+-")
    if body[:4].isdigit() and body[4:5] == "-":
        return True  # a timestamp shape
    digits = _RADIX_DIGITS.get(body[:2])
    if digits is not None and body[2:] and set(body[2:]) <= digits:
        return True  # 0x1F, 0b1010 (but not an id like 0bda316d-...)
    if body.lower() in (".inf", ".nan"):
        return True
    for index, char in enumerate(body):
        if char in "+-" and not (index and body[index - 1] in "eE"):
            return False
        if char.isalpha() and char not in "eE":
            return False
    return True


def _is_typed(value: str) -> bool:
    """Would YAML resolve this plain scalar to something other than a string (bool, date...)?"""
    if value[0].isalpha() and value[0].isascii():
        return value in _LETTER_WORDS
    if not set(value) <= _NUMERIC_CHARS or not _number_shaped(value):
        return False
    from yaml.resolver import Resolver  # lazily, see `_load_yaml`

    resolvers = Resolver.yaml_implicit_resolvers.get(value[0])
    return resolvers is not None and any(regex.match(value) for _tag, regex in resolvers)


@functools.lru_cache(maxsize=1024)
def _fast_scalar(raw: str) -> str | None:
    """The string a simple YAML scalar denotes, or None when the full parser must decide."""
    if not raw.isprintable():
        return None
    first = raw[0]
    if first in "\"'":
        inner = raw[1:-1]
        if len(raw) < 2 or raw[-1] != first:
            return None
        if first == '"':
            return _unescape_double(inner) if "\\" in inner else (None if '"' in inner else inner)
        # single quotes: no escapes but '' for a quote
        return None if "'" in inner.replace("''", "") else inner.replace("''", "'")
    if first in _PLAIN_FORBIDDEN_START or raw.endswith(":") or "\t" in raw:
        return None
    if ": " in raw or " #" in raw:
        return None
    return None if _is_typed(raw) else raw


_SIMPLE_DOUBLE = re.compile(r'(?:[^"\\]|\\["\\])*')  # text whose only escapes are \" and \\
_ESCAPE = re.compile(r'\\(["\\])')


def _unescape_double(inner: str) -> str | None:
    """A double-quoted scalar's text when its only escapes are \\" and \\\\, else None."""
    if _SIMPLE_DOUBLE.fullmatch(inner) is None:
        return None  # \n, \x41, \u00e9, a bare quote...: PyYAML decides
    return _ESCAPE.sub(r"\1", inner)


def _fast_flow(raw: str) -> list[object] | None:
    """The list a one-line flow sequence of simple scalars denotes (`["a", b]`), or None."""
    if not raw.endswith("]"):
        return None
    inner = raw[1:-1].strip()
    if not inner:
        return []
    out: list[object] = []
    for part in inner.split(","):
        item = part.strip()
        if not item or (item[0] not in "\"'" and not _FLOW_PLAIN_FORBIDDEN.isdisjoint(item)):
            return None  # an empty entry, a nested collection, a quoted comma: PyYAML decides
        scalar = _fast_scalar(item)
        if scalar is None:
            return None
        out.append(scalar)
    return out


def _fast_item(stripped: str, indent: int) -> tuple[object, int] | None:
    """A `- item` line's value, and the column a mapping item's further keys must start at
    (-1 for a scalar item); None when the full parser must decide."""
    item = stripped[1:].strip()
    if not item:
        return None
    match = _KEY_RE.match(item)
    if match is None or item[0] in "\"'":
        scalar = _fast_scalar(item)
        return None if scalar is None else (scalar, -1)
    # `- path: a.md`: a one-key mapping so far; `relation: x` lines below may add keys
    entry = _fast_entry(match)
    if entry is None:
        return None
    gap = len(stripped) - 1 - len(stripped[1:].lstrip(" "))
    return dict([entry]), indent + 1 + gap


def _fast_entry(match: re.Match[str]) -> tuple[str, object] | None:
    """A `key: value` match as (key, value); None for `key:` alone or a value to decide."""
    raw = (match.group(2) or "").strip()
    if _fast_scalar(match.group(1)) is None or not raw:
        return None
    value = _fast_value(raw)
    return None if value is None else (match.group(1), value)


def _fast_load(block: str) -> dict[str, object] | None:  # noqa: C901 - one line-by-line pass
    result: dict[str, object] = {}
    items: list[object] | None = None
    item_indent = -1
    mapping: dict[str, object] | None = None  # the list's current `- key: value` item
    key_col = -1  # the column of that item's keys
    block_lists: list[tuple[str, list[object]]] = []  # `key:` lines and the items under them
    for line in block.split("\n"):
        line = line.rstrip("\r")
        if "\t" in line:  # YAML is picky about tabs: let the real parser decide
            return None
        stripped = line.lstrip(" ")
        if not stripped or stripped[0] == "#":
            continue
        indent = len(line) - len(stripped)
        if stripped[0] == "-" and items is not None and stripped[1:2] in (" ", ""):
            if item_indent not in (-1, indent):
                return None
            item_indent = indent
            parsed = _fast_item(stripped, indent)
            if parsed is None:
                return None
            value, key_col = parsed
            mapping = value if isinstance(value, dict) else None
            items.append(value)
            continue
        if mapping is not None and indent == key_col and (match := _KEY_RE.match(stripped)):
            entry = _fast_entry(match)
            if entry is None or entry[0] in mapping:
                return None
            mapping[entry[0]] = entry[1]
            continue
        mapping = None
        match = _KEY_RE.match(line)
        if match is None or _fast_scalar(match.group(1)) is None or match.group(1) in result:
            return None  # a key given twice: the full load reports it (_duplicate_key)
        raw = (match.group(2) or "").strip()
        if raw:
            value = _fast_value(raw)
            if value is None:
                return None
            result[match.group(1)] = value
            items = None
        else:
            items, item_indent = [], -1
            result[match.group(1)] = items
            block_lists.append((match.group(1), items))
    for key, placeholder in block_lists:
        if result[key] is placeholder and not placeholder:
            result[key] = None  # `key:` with nothing under it
    return result


def _fast_value(raw: str) -> object | None:
    """A `key: value` line's value: a simple scalar (a trailing comment dropped) or a
    one-line flow sequence of simple scalars; None when the full parser must decide."""
    if raw[0] == "[":
        return _fast_flow(raw)
    if raw[0] not in "\"'" and " #" in raw:
        raw = raw.split(" #", 1)[0].rstrip()  # a comment after a plain value
    return _fast_scalar(raw)


# --- salvage: what can be read from broken YAML (kenso's fallback, without its bugs) ----------


def _unquote(raw: str) -> str:
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[1:-1]
    if " #" in raw:  # a YAML comment after a plain value
        raw = raw.split(" #", 1)[0].rstrip()
    return raw


def _salvage_scalar(raw: str) -> object:
    if raw.startswith("[") and raw.endswith("]"):
        return [_unquote(p.strip()) for p in raw[1:-1].split(",") if p.strip()]
    return _unquote(raw)


def _salvage_items(lines: list[str], i: int) -> tuple[list[object] | None, int]:
    """`- item` lines (any indentation) after an empty `key:`; `- k: v` items become mappings."""
    items: list[object] = []
    current: dict[str, object] | None = None
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        if stripped == "-" or stripped.startswith("- "):
            item = stripped[1:].strip()
            match = _KEY_RE.match(item)
            if match and not item.startswith(("'", '"')):
                current = {match.group(1): _salvage_scalar((match.group(2) or "").strip())}
                items.append(current)
            else:
                current = None
                items.append(_salvage_scalar(item))
        elif current is not None and line[:1] in " \t" and (match := _KEY_RE.match(stripped)):
            current[match.group(1)] = _salvage_scalar((match.group(2) or "").strip())
        else:
            break
        i += 1
    return (items or None), i


def salvage_fields(block: str) -> dict[str, object]:
    """Simple `key: value` lines, block lists and flow lists; an empty `key:` stays empty."""
    lines = [line.rstrip("\r") for line in block.split("\n")]
    result: dict[str, object] = {}
    i = 0
    while i < len(lines):
        match = _KEY_RE.match(lines[i])
        i += 1
        if match is None:
            continue
        key, raw = match.group(1), (match.group(2) or "").strip()
        if raw in _BLOCK_SCALARS:
            start = i
            while i < len(lines) and (not lines[i].strip() or lines[i][:1] in " \t"):
                i += 1
            joiner = "\n" if raw[0] == "|" else " "
            result[key] = joiner.join(line.strip() for line in lines[start:i]).strip()
        elif raw:
            result[key] = _salvage_scalar(raw)
        else:
            result[key], i = _salvage_items(lines, i)
    return result
