"""The HTTP routes beside `/mcp`: `GET /search` and `GET /events` (Server-Sent Events).

`/search?q=...` answers with the JSON of the `search` tool, its parameters given as
query-string fields, through the same scope gate. `/events` is a stream that says
`event: index` with `{generation, as_of}` when the index changes (a sync by the watcher, a
hook or the CLI; under `agent-scoped-roots`, only a change of a document the scope shows)
and a keepalive comment every 15 s. Both sit behind `http.Guard` (token,
Origin, Host). A stream holds no worker thread: it waits on the event loop and reads the
generation through one shared thread slot; at most `MAX_STREAMS` are open at a time and
each ends after `MAX_STREAM_S` (clients reconnect), so streams cannot starve `/mcp`.
"""

from __future__ import annotations

import inspect
import json
import math
import time
import typing
from collections.abc import Awaitable
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread
from starlette.datastructures import QueryParams
from starlette.responses import JSONResponse
from starlette.responses import Response
from starlette.types import Receive
from starlette.types import Scope
from starlette.types import Send

from kenso_git.errors import KensoError
from kenso_git.errors import NoIndexError
from kenso_git.errors import ScopeError
from kenso_git.errors import UsageError
from kenso_git.serve import status
from kenso_git.serve.http.limits import EVENTS_PATH
from kenso_git.serve.http.wake import Wake
from kenso_git.serve.mcp.tools import by_name
from kenso_git.serve.service import Service

MAX_STREAMS = 8
KEEPALIVE_S = 15.0
POLL_S = 0.1  # how often a stream looks at the index's generation (one tiny read)
MAX_STREAM_S = 3600.0
_SEARCH = by_name("search")  # GET /search is the `search` tool: its parameters, its answer


def _search_fields() -> dict[str, bool]:
    """The `search` tool's parameters other than the query, each True when a number."""
    hints = typing.get_type_hints(_SEARCH.run)
    names = list(inspect.signature(_SEARCH.run).parameters)[2:]  # past service and query
    return {n: hints[n] is int or int in typing.get_args(hints[n]) for n in names}


_FIELDS = _search_fields()

Handler = Callable[[Scope, Receive, Send], Awaitable[None]]


class Routes:
    """The handlers of `/search` and `/events` for one service."""

    def __init__(
        self, service: Service, *, keepalive_s: float = KEEPALIVE_S, poll_s: float = POLL_S
    ) -> None:
        self.service = service
        self.keepalive_s = keepalive_s
        self.poll_s = poll_s
        self.streams = 0  # touched on the event loop only
        self._reads = anyio.CapacityLimiter(1)  # every stream's reads share one thread
        # (generation, digest of the visible docs): shared by the streams, read in `_reads`
        self._visible: tuple[str | None, str] | None = None

    def table(self) -> dict[str, Handler]:
        """Path -> handler, for `http.Guard`'s dispatch."""
        return {"/search": self.search, EVENTS_PATH: self.events}

    # -- /search -------------------------------------------------------------------------

    async def search(self, scope: Scope, receive: Receive, send: Send) -> None:
        """`GET /search?q=...`: one page of the `search` tool, as JSON."""
        response = _not_get(scope)
        if response is None:
            try:
                kwargs = _search_args(QueryParams(scope.get("query_string", b"")))
                page, _ = await anyio.to_thread.run_sync(
                    lambda: _SEARCH.run(self.service, **kwargs)
                )
                response = JSONResponse(page)
            except KensoError as err:
                response = _error(self.service, err)
        await response(scope, receive, send)

    # -- /events -------------------------------------------------------------------------

    async def events(self, scope: Scope, receive: Receive, send: Send) -> None:
        """`GET /events`: an SSE stream of index changes and keepalives."""
        refusal = _not_get(scope)
        if refusal is None and self.streams >= MAX_STREAMS:
            refusal = JSONResponse(
                {"error": f"too many event streams open (at most {MAX_STREAMS})"},
                status_code=503,
                headers={"Retry-After": "5"},
            )
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        self.streams += 1
        try:
            await self._stream(receive, send)
        finally:
            self.streams -= 1

    async def _stream(self, receive: Receive, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/event-stream; charset=utf-8"),
                    (b"cache-control", b"no-store"),
                    (b"x-accel-buffering", b"no"),
                ],
            }
        )
        async with anyio.create_task_group() as group:

            async def until_disconnect() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                group.cancel_scope.cancel()

            group.start_soon(until_disconnect)
            await self._pump(send)
            group.cancel_scope.cancel()
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _pump(self, send: Send) -> None:
        """Send the current state, then each change and the keepalives, until the cap."""
        started = time.monotonic()
        wake = Wake(self.service.watcher)  # a sync by our watcher is sent without a poll's delay
        try:
            last, data = await self._mark()
            await _send(send, _event("index", data))
            sent = time.monotonic()
            while time.monotonic() - started < MAX_STREAM_S:
                await wake.wait(self.poll_s)
                mark, data = await self._mark()
                if mark != last:
                    last = mark
                    await _send(send, _event("index", data))
                    sent = time.monotonic()
                elif time.monotonic() - sent >= self.keepalive_s:
                    await _send(send, b": keepalive\n\n")
                    sent = time.monotonic()
        finally:
            wake.close()

    async def _mark(self) -> tuple[object, dict[str, Any]]:
        return await anyio.to_thread.run_sync(self._read_mark, limiter=self._reads)

    def _read_mark(self) -> tuple[object, dict[str, Any]]:
        """What a change is judged by, and the event's `{generation, as_of}` (None, None
        without an index). Under `agent-scoped-roots` a change is one of a document the
        scope shows (#27): the digest of their blob ids, worked out again only when the
        index's generation moved; otherwise every new generation is a change."""
        from kenso_git.api.index import read_meta
        from kenso_git.api.index import schema

        try:
            meta = self.service.main_kb().read(read_meta)
            generation = meta.get(schema.META_GENERATION)
            data = {
                "generation": int(generation) if generation else 0,
                "as_of": meta.get(schema.META_HEAD) or None,
            }
            if not self.service.scoped:
                return data, data
            if self._visible is None or self._visible[0] != generation:
                self._visible = (generation, status.visible_docs(self.service))
        except KensoError:  # no index yet, or one being replaced: say so, keep streaming
            gone = {"generation": None, "as_of": None}
            return gone, gone
        return self._visible[1], data


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


async def _send(send: Send, chunk: bytes) -> None:
    await send({"type": "http.response.body", "body": chunk, "more_body": True})


def _not_get(scope: Scope) -> Response | None:
    if scope.get("method") == "GET":
        return None
    return Response("method not allowed", status_code=405, headers={"Allow": "GET"})


def _search_args(params: QueryParams) -> dict[str, Any]:
    """The `search` tool's arguments from `q` and the other query-string fields.

    Raises:
        KensoError: `q` is missing, or a number field is not a number.
    """
    query = params.get("q", params.get("query"))
    if query is None:
        raise UsageError("missing q", hint="pass the query as /search?q=...")
    args: dict[str, Any] = {"query": query}
    for name, is_number in _FIELDS.items():
        if name not in params:
            continue
        if not is_number:
            args[name] = params[name]
            continue
        try:
            number = float(params[name])
        except ValueError:
            number = math.nan
        if not number.is_integer():
            raise UsageError(f"{name} must be a whole number, not {params[name]!r}")
        args[name] = int(number)
    return args


def _error(service: Service, err: KensoError) -> Response:
    body: dict[str, Any] = {"error": service.shown(err.message)}
    if err.hint:
        body["hint"] = service.shown(err.hint)
    status = 400
    if isinstance(err, ScopeError):
        body["rule"] = err.rule
        status = 403
    elif isinstance(err, NoIndexError):
        status = 503
    return JSONResponse(body, status_code=status)
