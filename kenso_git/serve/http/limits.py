"""Bounded work per HTTP request: header and body deadlines, and the lanes of every call.

uvicorn's h11 protocol waits for a request's headers and body for ever, so a client that
sends them a byte at a time (slowloris) would hold its connection open indefinitely:
`DeadlineH11Protocol` closes a connection whose headers, or whose body, take longer than
the request timeout. `CallLanes` reads each `POST /mcp` body (size-capped), weighs the call
by its arguments (long queries, big bodies) and gives every call that does work a ticket of
`serve.lanes`, which decides on the worker thread whether it runs, waits, or, once measured
as expensive, gives way (docs/security.md, "Bounded work"). Each body is first judged as
the stdio loop judges its line (`unreadable`): refused with the loop's answer, ignored, or
handed on as the SDK can read it (a call holding a lone UTF-16 surrogate or deep nesting,
`tunnel.carried`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from typing import Any

from starlette.datastructures import Headers
from starlette.datastructures import QueryParams
from starlette.responses import JSONResponse
from starlette.types import ASGIApp
from starlette.types import Message
from starlette.types import Receive
from starlette.types import Scope
from starlette.types import Send
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.h11_impl import RequestResponseCycle

from kenso_git.errors import BusyError
from kenso_git.serve.http.lanes import CURRENT
from kenso_git.serve.http.lanes import Lanes
from kenso_git.serve.http.unreadable import answered

log = logging.getLogger("kenso_git.mcp")

TIMEOUT_ENV = "KENSO_HTTP_TIMEOUT"
DEFAULT_TIMEOUT_S = 10.0  # KENSO_HTTP_TIMEOUT in config.SETTINGS
MAX_BODY_BYTES = 4 * 1024 * 1024  # a capped query (2,000 chars) x 5 is far smaller
# A call is expensive by its arguments when its queries hold more words than this in total,
# or its body is larger: typo correction and the FTS5 stages cost per word (0.3-0.6 s of
# CPU at the 64-word cap, 0.04 s for a normal two-word query on the docs corpus). Any other
# call is weighed as it runs (`serve.lanes`).
LIGHT_MAX_WORDS = 12
LIGHT_MAX_BODY = 16 * 1024
MAX_IN_FLIGHT = 64  # calls running or waiting; more get 503
TICKETED_GETS = frozenset({"/search", "/health"})
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


EVENTS_PATH = "/events"  # the event stream route (its handler: serve/http/routes.py)


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

    def shutdown(self) -> None:
        """A stop ends an `/events` stream at once, as a whole response (the chunked
        body's last chunk sent): it never ends by itself, and the stop waited the graceful
        timeout, then cancelled it with a traceback and cut the client's stream short. A
        tool call in progress still finishes."""
        cycle: RequestResponseCycle | None = self.cycle
        if (
            cycle is not None
            and cycle.response_started
            and not cycle.response_complete
            and cycle.scope.get("path") == EVENTS_PATH
        ):
            import h11

            with contextlib.suppress(h11.LocalProtocolError):  # not at an event's end
                self.transport.write(self.conn.send(h11.EndOfMessage()))
            cycle.response_complete = True  # receive() says http.disconnect: the app ends
            cycle.disconnected = True  # and what it sends after is dropped
            cycle.message_event.set()
        super().shutdown()

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
    message = _message(body)
    if isinstance(message, list):
        return True  # a batch: as expensive as its parts together
    args = _arguments(message)
    if args is None:
        return False
    texts: list[Any] = [args.get("query"), args.get("pattern")]
    queries = args.get("queries")
    if isinstance(queries, list):
        texts += queries
    return _words(texts) > LIGHT_MAX_WORDS


def _message(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: nested too deep
        return None  # the SDK refuses it cheaply


def _arguments(message: Any) -> dict[str, Any] | None:
    """The arguments of a `tools/call` message (None for any other message)."""
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    params = message.get("params")
    args = params.get("arguments") if isinstance(params, dict) else None
    return args if isinstance(args, dict) else {}


def _calls_a_tool(body: bytes) -> bool:
    """True for a `tools/call`, a batch, or a body too large to be weighed cheaply."""
    if len(body) > LIGHT_MAX_BODY:
        return True
    message = _message(body)
    return isinstance(message, list) or _arguments(message) is not None


def _words(texts: list[Any]) -> int:
    return sum(len(text.split()) for text in texts if isinstance(text, str))


def _client(scope: Scope) -> str:
    """Who a call comes from: its MCP session, else its connection."""
    session = Headers(scope=scope).get("mcp-session-id")
    if session:
        return "session:" + session[:128]
    peer = scope.get("client") or ("?", 0)
    return f"peer:{peer[0]}:{peer[1]}"


class CallLanes:
    """ASGI middleware: every call that does work runs under a `lanes.Ticket`.

    A `tools/call` over `POST /mcp` (its body read whole first, size-capped), `GET /search`
    and `GET /health` wait here, on the event loop, for a lane (`serve.lanes`), and run with
    their ticket in context (the service's budget demotes them once measured as expensive).
    Past `max_in_flight` calls, or when no lane comes free within the call budget, the
    server answers `503`. Each reply names the lane that served it in `x-kenso-lane`.
    """

    def __init__(self, app: ASGIApp, lanes: Lanes, *, max_in_flight: int = MAX_IN_FLIGHT) -> None:
        self.app = app
        self.lanes = lanes
        self.max_in_flight = max_in_flight
        self.in_flight = 0  # touched on the event loop only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = scope.get("method"), scope.get("path", "")
        if method == "GET" and path in TICKETED_GETS:
            params = QueryParams(scope.get("query_string", b""))
            heavy = _words([params.get("q"), params.get("query")]) > LIGHT_MAX_WORDS
            await self._run(scope, receive, send, heavy)
            return
        if method != "POST":
            await self.app(scope, receive, send)
            return
        body = await _read_body(receive)
        if body is None:
            await _reply(413, f"request body over {MAX_BODY_BYTES} bytes", scope, send)
            return
        carried = await answered(body, scope, send)  # judged as the stdio loop judges it
        if carried is None:  # answered: refused, ignored, or a batch
            return
        replay = _replaying(carried, receive)  # weighed as sent
        if not _calls_a_tool(body):  # initialize, notifications, tools/list...
            await self.app(scope, replay, send)
            return
        await self._run(scope, replay, send, is_heavy(body))

    async def _run(self, scope: Scope, receive: Receive, send: Send, heavy: bool) -> None:
        if self.in_flight >= self.max_in_flight:
            await _reply(503, "server busy: too many calls are running or waiting", scope, send)
            return
        ticket = self.lanes.ticket(_client(scope), heavy=heavy)

        async def send_with_lane(message: Message) -> None:
            if message["type"] == "http.response.start" and ticket.served_in:
                lane = (b"x-kenso-lane", ticket.served_in.encode())
                message = {**message, "headers": [*message.get("headers", []), lane]}
            await send(message)

        self.in_flight += 1
        try:
            try:
                await self.lanes.enter(ticket)
            except BusyError as err:
                await _reply(503, f"{err.message}; {err.hint}", scope, send)
                return
            token = CURRENT.set(ticket)
            try:
                await self.app(scope, receive, send_with_lane)
            finally:
                CURRENT.reset(token)
                self.lanes.leave(ticket)
        finally:
            self.in_flight -= 1


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
