"""A message the SDK's JSON parser would refuse, carried past it as Python's json reads it.

The SDK reads its messages with pydantic's JSON parser, which refuses a whole message where
Python's json module, and so the SDK-free stdio loop, reads it: a lone UTF-16 surrogate
(JSON may escape half a pair, `"\\ud800"`) anywhere in it, a duplicate key included (the
loop keeps the last value, as json does), nesting past 200 levels, and a UTF-8 byte order
mark. Every transport first judges the message as the loop does (`stdio.verdict`): params
of another method than `tools/call` that pydantic cannot read (`stdio.why_unreadable`) are
refused there (-32602), and so is a message nesting past 400 levels (-32700). A message it
lets pass is `carried` to the SDK's servers (on the line or body before the SDK reads it)
as json reads it: re-encoded with only the members JSON-RPC defines (both servers ignore
the others), and a `tools/call`'s params as JSON text, all ASCII (a surrogate written
`\\ud800` in it, which pydantic reads as a plain string), under a `_meta` key no client can
name (it ends in this process's random token). The loop answers such a call with the
documented argument error naming the argument (`arguments.checked`), or serves it (an
unknown argument nested 300 deep is ignored); the server's middleware puts the params back
(`restored`) before the SDK's own validation, so the call is answered by the same checks
as every other.

A batch (a JSON array of messages) is split into its messages (`batch`): the loop answers
each on its own, and the SDK's stdio server now does too.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from typing import Any

from kenso_git.serve.mcp.stdio import is_too_deep
from kenso_git.serve.mcp.stdio import why_unreadable

KEY = f"kenso-git/params-{secrets.token_hex(8)}"
_MEMBERS = ("jsonrpc", "id", "method")  # what JSON-RPC defines besides params


def carried(raw: bytes) -> bytes | None:
    """`raw` (one JSON-RPC message that `stdio.verdict` lets pass, which pydantic cannot
    read) as json reads it, with only the members JSON-RPC defines, and the params of a
    `tools/call` carried as text under `_meta[KEY]`; None when `raw` is not such a message:
    no message, or members beside the params (the id, the method) that hold a surrogate."""
    try:
        message = json.loads(raw)
    except (ValueError, RecursionError):  # the transport answers it as unreadable
        return None
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return None
    rest = {k: message[k] for k in _MEMBERS if k in message}
    if why_unreadable(rest) is not None:
        return None
    params = message.get("params")
    if message["method"] == "tools/call" and isinstance(params, dict):
        # ASCII: `\ud800` as text (no deeper than `stdio.MAX_NESTING`, as the verdict let it)
        rest["params"] = {"_meta": {KEY: json.dumps(params)}}
    elif "params" in message:
        if why_unreadable(params) is not None:  # a notification's: nobody waits on it
            return None
        rest["params"] = params
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
    if not isinstance(messages, list) or not messages or is_too_deep(raw, messages):
        return None  # too deep: the whole line is refused, as the loop refuses it
    try:
        return [json.dumps(message).encode() for message in messages]
    except RecursionError:  # nested about as deep as json reads: answered as one line
        return None
