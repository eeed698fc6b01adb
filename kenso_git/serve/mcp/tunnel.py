"""A tool call the SDK's JSON parser would refuse, carried past it as Python's json reads it.

The SDK reads its messages with pydantic's JSON parser, which refuses a whole message where
Python's json module, and so the SDK-free stdio loop, reads it: a lone UTF-16 surrogate
(JSON may escape half a pair, `"\\ud800"`) anywhere in it, a duplicate key included (the
loop keeps the last value, as json does), and nesting past 200 levels. The loop answers such
a call with the documented argument error naming the argument (`arguments.checked`), or
serves it (an unknown argument nested 300 deep is ignored); the SDK's stdio transport
answered -32600, its streamable HTTP transport -32700. So the SDK's server gets such a call
rewritten (`carried`, on the line or body before the SDK reads it): its params become JSON
text, all ASCII (a surrogate written `\\ud800` in it, which pydantic reads as a plain
string), under a `_meta` key no client can name (it ends in this process's random token);
members JSON-RPC does not define, which both servers ignore, are left out. The server's
middleware puts the params back (`restored`) before the SDK's own validation, so the call is
answered by the same checks as every other.

A batch (a JSON array of messages) is split into its messages (`batch`): the loop answers
each on its own, and the SDK's stdio server now does too.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping
from typing import Any

from kenso_git.serve.mcp.arguments import has_lone_surrogate

KEY = f"kenso-git/params-{secrets.token_hex(8)}"
# an escaped surrogate (a lone one, or half of a pair: only a parse tells them apart)
_ESCAPED = re.compile(rb"\\u[dD][89a-fA-F]")
# pydantic's JSON parser refuses a message nesting deeper than 200 levels; a message with
# fewer brackets than this (in strings or not) cannot nest that deep
_BRACKETS = 190
_MEMBERS = ("jsonrpc", "id", "method")  # what JSON-RPC defines besides params


def carried(raw: bytes) -> bytes | None:
    """`raw` (one JSON-RPC message) rewritten with the params of a `tools/call` that may
    hold a lone surrogate or nest deeply carried as text under `_meta[KEY]`; None for any
    other message, which is read as it is (one whose id holds a surrogate too)."""
    if _ESCAPED.search(raw) is None and raw.count(b"[") + raw.count(b"{") < _BRACKETS:
        return None
    try:
        message = json.loads(raw)
    except (ValueError, RecursionError):  # the transport answers it as unreadable
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    params = message.get("params")
    rest = {k: message[k] for k in _MEMBERS if k in message}
    if not isinstance(params, dict) or has_lone_surrogate(rest):
        return None
    try:
        text = json.dumps(params)  # ASCII: `\ud800` as six characters
    except RecursionError:  # nested about as deep as json reads: refused as it is
        return None
    rest["params"] = {"_meta": {KEY: text}}
    return json.dumps(rest, ensure_ascii=False).encode()


def restored(params: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The params `carried` put under `_meta[KEY]` of `params`, or None when it put none."""
    meta = params.get("_meta") if params is not None else None
    text = meta.get(KEY) if isinstance(meta, dict) else None
    if not isinstance(text, str):
        return None
    original = json.loads(text)
    return original if isinstance(original, dict) else None


def batch(raw: bytes) -> list[bytes] | None:
    """The messages of a batch, each as a line of its own JSON (ASCII, so a surrogate stays
    escaped); None when `raw` is not a batch of at least one message (an empty one is an
    invalid request, as is any other JSON that is no message)."""
    if not raw.lstrip().startswith(b"["):
        return None
    try:
        messages = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON: the transport answers -32700
        return None
    if not isinstance(messages, list) or not messages:
        return None
    try:
        return [json.dumps(message).encode() for message in messages]
    except RecursionError:  # nested about as deep as json reads: answered as one line
        return None
