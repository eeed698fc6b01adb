"""Bounded work per HTTP request: header and body deadlines, and a lane for expensive calls.

uvicorn's h11 protocol waits for a request's headers and body for ever, so a client that
sends them a byte at a time (slowloris) would hold its connection open indefinitely:
`DeadlineH11Protocol` closes a connection whose headers, or whose body, take longer than
the request timeout. `CallLanes` reads each `POST /mcp` body (size-capped) and sends the
tool calls whose arguments are expensive (long queries, big bodies) through a lane of one,
so that many hostile calls take turns with each other instead of sharing the GIL with every
other client; cheap calls never wait behind them (docs/security.md, "Bounded work").
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from typing import Any

import anyio
from starlette.responses import JSONResponse
from starlette.types import ASGIApp
from starlette.types import Message
from starlette.types import Receive
from starlette.types import Scope
from starlette.types import Send
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.h11_impl import RequestResponseCycle

log = logging.getLogger("kenso_git.mcp")

TIMEOUT_ENV = "KENSO_HTTP_TIMEOUT"
DEFAULT_TIMEOUT_S = 10.0  # KENSO_HTTP_TIMEOUT in config.SETTINGS
MAX_BODY_BYTES = 4 * 1024 * 1024  # a capped query (2,000 chars) x 5 is far smaller
# A call is expensive when its queries hold more words than this in total, or its body is
# larger: typo correction and the FTS5 stages cost per word (0.3-0.6 s of CPU at the
# 64-word cap, 0.04 s for a normal two-word query on the docs corpus).
LIGHT_MAX_WORDS = 12
LIGHT_MAX_BODY = 16 * 1024
HEAVY_SLOTS = 1
MAX_HEAVY_WAITING = 64
_TIMEOUT_REPLY = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: 24\r\n\r\nrequest sent too slowly\n"
)


def request_timeout() -> float:
    """Seconds a client has to send a request's headers, and again its body."""
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_TIMEOUT_S
    except ValueError:
        log.warning("%s=%r is not a number of seconds", TIMEOUT_ENV, raw)
        return DEFAULT_TIMEOUT_S
    return value if value > 0 else DEFAULT_TIMEOUT_S


class DeadlineH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for the headers and one for the body."""

    _deadline: asyncio.TimerHandle | None = None
    _phase = ""
    _partial = False  # bytes of the awaited part arrived: the client gets a 408

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._timeout_s = request_timeout()
        self._watch()

    def data_received(self, data: bytes) -> None:
        self._partial = True
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # may start a pipelined request: _watch sees it
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._arm("")
        super().connection_lost(exc)

    def _watch(self) -> None:
        """Arm the timer of the phase the connection is in: waiting for headers, for the
        body, or none while the app answers (a slow tool is not the client's fault)."""
        cycle: RequestResponseCycle | None = self.cycle  # None before the first request
        if cycle is None or cycle.response_complete:
            phase = "headers"
        elif cycle.more_body and not cycle.response_started:
            phase = "body"
        else:
            phase = ""
        if phase != self._phase:
            self._arm(phase)

    def _arm(self, phase: str) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._phase = phase
        self._partial = phase == "body"
        if phase:
            self._deadline = self.loop.call_later(self._timeout_s, self._expired)

    def _expired(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        log.info("closing a connection: request %s took over %s s", self._phase, self._timeout_s)
        if self._partial:  # no response has started in either phase
            self.transport.write(_TIMEOUT_REPLY)
        self.transport.close()  # the app, if any, sees http.disconnect


def is_heavy(body: bytes) -> bool:
    """True for a JSON-RPC body whose tool call is expensive by its arguments alone."""
    if len(body) > LIGHT_MAX_BODY:
        return True
    try:
        message = json.loads(body)
    except ValueError:
        return False  # the SDK refuses it cheaply
    if isinstance(message, list):
        return True  # a batch: as expensive as its parts together
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return False
    params = message.get("params")
    args = params.get("arguments") if isinstance(params, dict) else None
    if not isinstance(args, dict):
        return False
    texts: list[Any] = [args.get("query"), args.get("pattern")]
    queries = args.get("queries")
    if isinstance(queries, list):
        texts += queries
    words = sum(len(text.split()) for text in texts if isinstance(text, str))
    return words > LIGHT_MAX_WORDS


class CallLanes:
    """ASGI middleware: expensive `POST /mcp` calls run one at a time, cheap ones freely."""

    def __init__(
        self, app: ASGIApp, *, slots: int = HEAVY_SLOTS, max_waiting: int = MAX_HEAVY_WAITING
    ) -> None:
        self.app = app
        self.slots = slots
        self.max_waiting = max_waiting
        self._lane: anyio.Semaphore | None = None
        self.waiting = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        body = await _read_body(receive)
        if body is None:
            await _reply(413, f"request body over {MAX_BODY_BYTES} bytes", scope, send)
            return
        replay = _replaying(body, receive)
        if not is_heavy(body):
            await self.app(scope, replay, send)
            return
        if self._lane is None:  # created in the event loop that uses it
            self._lane = anyio.Semaphore(self.slots)
        try:
            self._lane.acquire_nowait()
        except anyio.WouldBlock:
            if self.waiting >= self.max_waiting:
                await _reply(503, "server busy: too many expensive calls are waiting", scope, send)
                return
            self.waiting += 1
            try:
                await self._lane.acquire()
            finally:
                self.waiting -= 1
        try:
            await self.app(scope, replay, send)
        finally:
            self._lane.release()


async def _read_body(receive: Receive) -> bytes | None:
    """The whole request body, or None past the cap (the protocol bounds the time)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break  # disconnected: the app sees an empty body and answers nobody
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands out the already-read body once, then the real messages."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _reply(status: int, message: str, scope: Scope, send: Send) -> None:
    headers = {"Retry-After": "1"} if status == 503 else None
    response = JSONResponse({"error": message}, status_code=status, headers=headers)

    async def nothing() -> Message:
        return {"type": "http.disconnect"}

    await response(scope, nothing, send)
