"""A `POST /mcp` body the SDK reads as no request it would answer, answered as stdio answers it.

The SDK's streamable HTTP transport reads a body with pydantic. A body pydantic refuses got
its own answer: 400 with -32700 for a lone surrogate outside a tool call's params (in the id
or the method), or -32602 with pydantic's dump ("4 validation errors for union[...]") for
params that are no object; and a request whose id JSON-RPC does not allow (null, an object,
1.5) was taken for a notification: 202 and no answer at all, so its client waited for ever.
Every body is now judged as the SDK-free stdio loop judges the same line (`server.judged`,
whose verdict is `stdio.verdict`): one it refuses gets its answer (-32700, -32600, -32601
or -32602, the id kept where it can be read) with status 400, as the SDK answers a body it
cannot read; a notification or client's answer pydantic cannot read is ignored (202, as
the SDK acknowledges one it can). A batch (a JSON array) is refused whole (-32600): the
stdio servers answer each of its messages on its own line, one POST has one answer.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.types import Message
from starlette.types import Scope
from starlette.types import Send

from kenso_git.serve.mcp import tunnel
from kenso_git.serve.mcp.server import judged
from kenso_git.serve.mcp.stdio import INVALID_REQUEST
from kenso_git.serve.mcp.stdio import encoded
from kenso_git.serve.mcp.stdio import rpc_error

ENDPOINT = "/mcp"  # where the SDK's app serves MCP (`streamable_http_app`'s default)
BATCH = "a batch is not served over HTTP: send each message in a request of its own"


async def answered(body: bytes, scope: Scope, send: Send) -> bytes | None:
    """Answer `body` (a POST's) when the stdio loop's verdict refuses or ignores it, or it
    is a batch; else the body the SDK is to read (`server.judged`: maybe carried)."""
    if scope.get("path") != ENDPOINT:
        return body
    if tunnel.batch(body):
        reply: dict[str, Any] | None = rpc_error(None, INVALID_REQUEST, "Invalid request", BATCH)
        read = None
    else:
        reply, read = judged(body)
    if reply is not None:
        response = Response(encoded(reply), status_code=400, media_type="application/json")
    elif read is None:  # a notification or client's answer, ignored as the loop ignores it
        response = Response(status_code=202)
    else:
        return read

    async def nothing() -> Message:
        return {"type": "http.disconnect"}

    await response(scope, nothing, send)
    return None
