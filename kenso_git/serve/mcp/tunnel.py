"""A tool call holding a lone UTF-16 surrogate, carried past the SDK's JSON parser.

JSON may escape half a UTF-16 pair (`"\\ud800"`). Python's json module reads it, and the
SDK-free stdio loop answers such a call with the documented argument error naming the
argument (`arguments.checked`). The SDK reads its messages with pydantic's JSON parser,
which refuses the whole message: its stdio transport answered -32600, its streamable HTTP
transport -32700 ("unexpected end of hex escape"). So the SDK's server gets such a call
rewritten (`carried`, on the line or body before the SDK reads it): its params become JSON
text, all ASCII (a surrogate written `\\ud800` in it, which pydantic reads as a plain
string), under a `_meta` key no client can name (it ends in this process's random token),
and the server's middleware puts them back (`restored`) before the SDK's own validation,
so the call is answered by the same checks as every other.
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


def carried(raw: bytes) -> bytes | None:
    """`raw` (one JSON-RPC message) with the params of a `tools/call` holding a lone
    surrogate carried as text under `_meta[KEY]`; None for any other message, which is
    read as it is (one with a surrogate outside its params too, such as in its id)."""
    if _ESCAPED.search(raw) is None:
        return None
    try:
        message = json.loads(raw)
    except (ValueError, RecursionError):  # the transport answers it as unreadable
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    params = message.get("params")
    rest = {k: v for k, v in message.items() if k != "params"}
    if not isinstance(params, dict) or not has_lone_surrogate(params) or has_lone_surrogate(rest):
        return None
    rest["params"] = {"_meta": {KEY: json.dumps(params)}}  # ASCII: `\ud800` as six chars
    return json.dumps(rest, ensure_ascii=False).encode()


def restored(params: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The params `carried` put under `_meta[KEY]` of `params`, or None when it put none."""
    meta = params.get("_meta") if params is not None else None
    text = meta.get(KEY) if isinstance(meta, dict) else None
    if not isinstance(text, str):
        return None
    original = json.loads(text)
    return original if isinstance(original, dict) else None
