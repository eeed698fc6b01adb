"""A `POST /mcp` body the SDK reads as no request it would answer, answered as stdio answers it.

The SDK's streamable HTTP transport reads a body with pydantic. A body pydantic refuses got
its own answer: 400 with -32700 for a lone surrogate outside a tool call's params (in the id
or the method), or -32602 with pydantic's dump ("4 validation errors for union[...]") for
params that are no object; and a request whose id JSON-RPC does not allow (null, an object,
1.5) was taken for a notification: 202 and no answer at all, so its client waited for ever.
Such a body now gets the SDK-free stdio loop's answer to the same line (`server.refusal`:
-32700, -32600 or -32601, the id kept where it can be read), with status 400, as the SDK
answers a body it cannot read. A batch (a JSON array) is refused whole (-32600): the stdio
servers answer each of its messages on its own line, one POST has one answer.
"""

from __future__ import annotations

from starlette.responses import Response
from starlette.types import Message
from starlette.types import Scope
from starlette.types import Send

from kenso_git.serve.mcp import tunnel
from kenso_git.serve.mcp.server import refusal
from kenso_git.serve.mcp.stdio import INVALID_REQUEST
from kenso_git.serve.mcp.stdio import encoded
from kenso_git.serve.mcp.stdio import rpc_error

ENDPOINT = "/mcp"  # where the SDK's app serves MCP (`streamable_http_app`'s default)
BATCH = "a batch is not served over HTTP: send each message in a request of its own"


async def answered(body: bytes, scope: Scope, send: Send) -> bool:
    """Answer `body` (a POST's, as `tunnel.carried` left it) when the SDK would not answer
    it as the stdio loop does; whether it was answered."""
    if scope.get("path") != ENDPOINT:
        return False
    messages = tunnel.batch(body)
    reply = rpc_error(None, INVALID_REQUEST, "Invalid request", BATCH) if messages else None
    if reply is None:
        reply = refusal(body)
    if reply is None:
        return False
    response = Response(encoded(reply), status_code=400, media_type="application/json")

    async def nothing() -> Message:
        return {"type": "http.disconnect"}

    await response(scope, nothing, send)
    return True
