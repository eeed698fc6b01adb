"""Line arithmetic in linear time: line starts for bisection, and the lines of list entries.

Lint asks for the line and column of many findings in one document, and every `relates_to`
entry wants the file line it was written on; recounting the text for each would make a
document with many of them cost quadratic time.
"""

from __future__ import annotations

import re

_NEWLINE = re.compile("\n")
_STARTS: list[tuple[str, list[int]]] = []  # the last text asked about, and its line starts
_WINDOW = 4096  # characters searched for an entry of a string or flow list


def line_starts(text: str) -> list[int]:
    """Offsets at which the lines of `text` start (`[0, ...]`), kept for the last text asked:
    lint asks about one document many times in a row."""
    if _STARTS and _STARTS[0][0] is text:
        return _STARTS[0][1]
    starts = [0]
    starts.extend(match.end() for match in _NEWLINE.finditer(text))
    _STARTS[:] = [(text, starts)]
    return starts


def _mentions(line: str, target: str) -> bool:
    if target:
        return target in line
    return line.strip().lstrip("-").strip() in ("", '""', "''")


def _item_starts(lines: list[str], start: int, end: int) -> list[int]:
    """Indices of the `- ` lines of a block list (the first item's indentation) in a range."""
    starts: list[int] = []
    indent = -1
    for i in range(start, end):
        stripped = lines[i].lstrip(" ")
        if stripped[:1] != "-" or stripped[1:2] not in (" ", ""):
            continue
        width = len(lines[i]) - len(stripped)
        if indent < 0:
            indent = width
        if width == indent:
            starts.append(i)
    return starts


def _find(lines: list[str], low: int, high: int, target: str) -> int | None:
    return next((i for i in range(low, high) if _mentions(lines[i], target)), None)


def entry_lines(
    lines: list[str], key_idx: int, entries: int, targets: list[tuple[int, str]]
) -> list[int]:
    """The 0-based line of each `(list index, target)` of the value of the key on line
    `key_idx` (`entries`: the list's length, -1 for a string); `key_idx` when not found.

    An entry of a block list is looked for only in the lines of its own item; the entries of
    a string or a flow list in a bounded window after the previous one. Either way the scan
    is linear in the block, not entries times lines.
    """
    end = key_idx + 1
    while end < len(lines) and (not lines[end].strip() or lines[end][:1] in " \t-#"):
        end += 1
    items = _item_starts(lines, key_idx + 1, end) if entries > 0 else []
    if len(items) == entries:
        bounds = [*items[1:], end]
        return [
            found if found is not None else items[j]
            for j, target in targets
            for found in (_find(lines, items[j], bounds[j], target),)
        ]
    # A comma string may share the key line; the entries of a list start below it.
    start = key_idx if entries < 0 else key_idx + 1
    region = "\n".join(lines[start:end])
    pos = counted = 0
    line = start
    result = []
    for _index, target in targets:
        found = region.find(target, pos, pos + _WINDOW + len(target)) if target else -1
        if found < 0:
            result.append(key_idx)
            continue
        line += region.count("\n", counted, found)
        counted = found
        result.append(line)
        pos = found + len(target)
        if entries >= 0:  # the next list entry is on a later line
            newline = region.find("\n", pos)
            pos = len(region) if newline < 0 else newline + 1
    return result


def table_entry_lines(
    lines: list[str], key: str, entries: int, targets: list[tuple[int, str]]
) -> list[int] | None:
    """The 0-based line of each `(list index, target)` of a TOML array of tables
    (`[[relates_to]]` then `path = 'a.md'`): in the lines of its own table, else its
    header's; None when the block holds no such tables or not one per entry."""
    header = f"[[{key}]]"
    tables = [i for i, line in enumerate(lines) if line.strip().replace(" ", "") == header]
    if not tables or len(tables) != entries:
        return None
    ends = [
        next(
            (i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")),
            len(lines),
        )
        for start in tables
    ]
    return [
        found if found is not None else tables[j]
        for j, target in targets
        for found in (_find(lines, tables[j] + 1, ends[j], target),)
    ]
