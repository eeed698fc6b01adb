"""JSON text exactly as `json.dumps(value, indent=2)` writes it, in pieces.

A list given as `Streamed(items)` is encoded one item at a time as the pieces are taken,
so a `--json` report of 100,000 files is never held whole, neither as objects nor as one
string: `ingest --json` of a 100,000-doc tree peaked at 1.4 GB where the same ingest
without `--json` peaks at 0.36 GB (#32). Everything else is `json.dumps`' own output.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from collections.abc import Iterator


class Streamed:
    """A JSON array whose items are made while it is written (a generator)."""

    __slots__ = ("items",)

    def __init__(self, items: Iterable[object]) -> None:
        self.items = items


def iter_json(value: object, *, ensure_ascii: bool = True) -> Iterator[str]:
    """Pieces whose concatenation is `json.dumps(value, indent=2, ensure_ascii=...)`, with
    every `Streamed` in `value` read as the list of its items (plain JSON values)."""
    streams: list[Streamed] = []
    token = os.urandom(8).hex()  # no string of the value can be a placeholder by chance
    text = json.dumps(_placed(value, streams, token), indent=2, ensure_ascii=ensure_ascii)
    start = 0
    for number, stream in enumerate(streams):
        mark = json.dumps(_mark(token, number))  # `\u0000` escaped in either mode
        at = text.index(mark, start)
        line = text.rfind("\n", 0, at) + 1
        pad = " " * (len(text[line:at]) - len(text[line:at].lstrip(" ")))
        yield text[start:at]
        yield from _array(stream, pad, ensure_ascii)
        start = at + len(mark)
    yield text[start:]


def _mark(token: str, number: int) -> str:
    return f"\x00{token}:{number}\x00"


def _placed(value: object, streams: list[Streamed], token: str) -> object:
    """`value` with each `Streamed` replaced by its placeholder string (in order)."""
    if isinstance(value, Streamed):
        streams.append(value)
        return _mark(token, len(streams) - 1)
    if isinstance(value, dict):
        return {key: _placed(item, streams, token) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_placed(item, streams, token) for item in value]
    return value


def _array(stream: Streamed, pad: str, ensure_ascii: bool) -> Iterator[str]:
    """The items of `stream` (plain JSON values: a `Streamed` inside one is not read), each
    encoded as `json.dumps` encodes a list's item at this depth."""
    inner = "\n" + pad + "  "
    encode = json.JSONEncoder(indent=2, ensure_ascii=ensure_ascii).encode  # one per array
    opened = False
    for item in stream.items:
        yield ("," if opened else "[") + inner
        opened = True
        yield encode(item).replace("\n", inner)
    yield ("\n" + pad + "]") if opened else "[]"


def chunks(pieces: Iterable[str], size: int = 1 << 16) -> Iterator[str]:
    """`pieces` joined into strings of about `size` characters: few writes, little held."""
    held: list[str] = []
    count = 0
    for piece in pieces:
        held.append(piece)
        count += len(piece)
        if count >= size:
            yield "".join(held)
            held, count = [], 0
    if held:
        yield "".join(held)
