"""At most `cap` MCP sessions stay open: opening one more ends the least recently used.

A client that opens sessions and never ends them (no `DELETE`) would otherwise keep each one,
with the heap its calls left behind, until it idles out; the SDK's own limit then refuses
every new session with 503, locking out the other clients of the checkout (#27 finding 4).
Here the oldest session is ended instead, through the SDK's own `DELETE`, and its client,
if it comes back, is told 404 and starts a new session, as the MCP specification asks.
"""

from __future__ import annotations

from collections import OrderedDict

from starlette.types import ASGIApp
from starlette.types import Message
from starlette.types import Receive
from starlette.types import Scope
from starlette.types import Send

SESSION_HEADER = b"mcp-session-id"
MAX_OPEN_SESSIONS = 64  # the agents of one checkout use a handful


class SessionKeeper:
    """ASGI middleware in front of the MCP endpoint that keeps the open sessions in
    least-recently-used order and ends the oldest past `cap`."""

    def __init__(self, app: ASGIApp, cap: int = MAX_OPEN_SESSIONS) -> None:
        self.app = app
        self.cap = cap
        self.open: OrderedDict[bytes, None] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        asked = _header(scope, SESSION_HEADER)
        if asked is not None:
            if scope.get("method") == "DELETE":
                self.open.pop(asked, None)
            elif asked in self.open:
                self.open.move_to_end(asked)
            await self.app(scope, receive, send)
            return
        opened: list[bytes] = []

        async def noting(message: Message) -> None:
            if message["type"] == "http.response.start" and message.get("status") == 200:
                for name, value in message.get("headers", ()):
                    if name.lower() == SESSION_HEADER:
                        opened.append(value)
            await send(message)

        await self.app(scope, receive, noting)
        for session in opened:
            self.open[session] = None
            self.open.move_to_end(session)
        while len(self.open) > self.cap:
            oldest, _ = self.open.popitem(last=False)
            await self._end(scope, oldest)

    async def _end(self, like: Scope, session: bytes) -> None:
        """End `session` with the SDK's `DELETE`, as its client would."""
        host = _header(like, b"host") or b"127.0.0.1"
        scope: Scope = {
            "type": "http",
            "asgi": like.get("asgi", {"version": "3.0"}),
            "http_version": "1.1",
            "method": "DELETE",
            "scheme": like.get("scheme", "http"),
            "path": like.get("path", "/mcp"),
            "raw_path": like.get("raw_path", b"/mcp"),
            "root_path": like.get("root_path", ""),
            "query_string": b"",
            "headers": [(b"host", host), (SESSION_HEADER, session)],
            "client": like.get("client"),
            "server": like.get("server"),
            "state": dict(like.get("state", {})),
        }

        async def receive() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(message: Message) -> None:
            return None

        await self.app(scope, receive, discard)


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value)
    return None
