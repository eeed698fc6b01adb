"""The MCP server, built from the tool registry (`serve.tools`): kenso's four tools and ours.

One of the two modules that import the MCP SDK (the other is `mcp_http`). Tools are plain
functions over `KnowledgeBase`; the SDK runs them in worker threads, so the event loop
stays free while SQLite reads. Every result is JSON text (kenso's exact shape) plus the
same data as structured content; arrays are wrapped as `{"results": [...]}` there because
MCP structured content must be an object. Error results (`isError`) carry text only: clients
of the TypeScript SDK validate any structured content against the tool's output schema, even
on errors, and would replace kenso's message with a -32602 of their own.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import logging
import signal
import sys
import threading
import typing
from collections.abc import AsyncIterator
from collections.abc import Callable
from collections.abc import Mapping
from concurrent.futures import CancelledError
from typing import Annotated
from typing import Any
from typing import Literal

import anyio
import anyio.from_thread
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectReceiveStream
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.context import CallNext
from mcp.server.context import HandlerResult
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import CallToolResult
from mcp.types import InputRequiredResult
from mcp.types import JSONRPCMessage
from mcp.types import ToolAnnotations
from mcp.types import jsonrpc_message_adapter

from kenso_git import __version__
from kenso_git.errors import KensoError
from kenso_git.serve.mcp import tunnel
from kenso_git.serve.mcp.answer import answer
from kenso_git.serve.mcp.answer import refused
from kenso_git.serve.mcp.answer import unknown_tool
from kenso_git.serve.mcp.arguments import checked
from kenso_git.serve.mcp.arguments import not_an_object
from kenso_git.serve.mcp.configstamp import ConfigStamp
from kenso_git.serve.mcp.ending import end_on_hangup
from kenso_git.serve.mcp.ending import lines_of
from kenso_git.serve.mcp.ending import serve_until_signal
from kenso_git.serve.mcp.ending import stdin_fd
from kenso_git.serve.mcp.stdio import INVALID_REQUEST
from kenso_git.serve.mcp.stdio import parsed
from kenso_git.serve.mcp.stdio import rpc_error
from kenso_git.serve.mcp.stdio import unreadable
from kenso_git.serve.mcp.tools import INSTRUCTIONS
from kenso_git.serve.mcp.tools import TOOLS
from kenso_git.serve.mcp.tools import Tool
from kenso_git.serve.service import Service

log = logging.getLogger("kenso_git.mcp")

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
UNCARRIED = "this server could not read the message as the MCP SDK reads it: please report it"
WRITE_LOCAL = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


def _call(work: Callable[[], tuple[object, Mapping[str, object]]]) -> CallToolResult:
    return CallToolResult.model_validate(answer(work))


def _bound(tool: Tool, service: Service) -> Callable[..., CallToolResult]:
    """`tool` as the SDK wants it: its parameters without `service`, its docstring, and a
    return annotation naming its output type (the SDK derives both schemas from these)."""
    signature = inspect.signature(tool.run)
    hints = typing.get_type_hints(tool.run)
    parameters = [
        p.replace(annotation=hints[p.name]) for p in list(signature.parameters.values())[1:]
    ]

    def call(**arguments: Any) -> CallToolResult:
        return _call(lambda: tool.run(service, **arguments))

    call.__name__ = call.__qualname__ = tool.name
    call.__doc__ = tool.run.__doc__
    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        parameters, return_annotation=Annotated[CallToolResult, tool.output_type()]
    )
    return call


class _Server(MCPServer[Any]):
    """The SDK's server, checking a call's arguments as the SDK-free stdio loop does
    (`arguments.checked`, a `path` through the scope gate) before the SDK's own models:
    one that does not fit is the documented JSON error, not the SDK's plain text. So are
    arguments that are not an object, and a call naming no tool it offers (the SDK's
    "Unknown tool: NAME" is plain text, and a call without a name, or with arguments that
    are not an object, its -32602 protocol error)."""

    def __init__(self, service: Service) -> None:
        super().__init__(
            "kenso-git", instructions=INSTRUCTIONS, version=__version__, log_level=_level(service)
        )
        self.service = service
        self.config = ConfigStamp(service)  # a config file's edit, applied by the next call
        self.ended_by: signal.Signals | None = None  # the signal that ended `run_stdio_async`
        self._schemas: dict[str, dict[str, Any]] | None = None
        self.middleware.append(self._ahead_of_validation)

    async def schemas(self) -> dict[str, dict[str, Any]]:
        """The input schema of each tool offered, by name."""
        if self._schemas is None:  # the tools are all added before the first call
            self._schemas = {t.name: t.input_schema for t in await self.list_tools()}
        return self._schemas

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        schemas = await self.schemas()
        schema = schemas.get(name)
        if schema is None:
            log.info("no tool %r to call", name)
            return CallToolResult.model_validate(unknown_tool(name, list(schemas)))
        if self.config.is_stale():  # before the gate: the scope as configured now
            await anyio.to_thread.run_sync(self.config.apply_edits)  # it may wait for a lock
        try:
            arguments = checked(name, schema, arguments, self.service.scope.resolve)
        except KensoError as err:
            log.info("tool %s refused its arguments: %s", name, err.message)
            return CallToolResult.model_validate(refused(err))
        return await super().call_tool(name, arguments, context)

    async def _ahead_of_validation(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """A `tools/call` the SDK's validation of its params would refuse with a -32602
        protocol error, answered before it as the SDK-free loop answers it: one without a
        string `name` as `call_tool` answers an unknown name, one whose `arguments` are not
        an object (nor null) as a call whose arguments do not fit. The params of a call
        `tunnel.carried` rewrote are put back first. The result goes out as is: a model
        would be sent with fields the handlers' results lose on the way out (`resultType`)."""
        if ctx.method != "tools/call":
            return await call_next(ctx)
        params = tunnel.restored(ctx.params)
        if params is not None:
            ctx = dataclasses.replace(ctx, params=params)
        given = ctx.params or {}
        name, arguments = given.get("name"), given.get("arguments")
        if isinstance(name, str) and (arguments is None or isinstance(arguments, dict)):
            return await call_next(ctx)
        offered = await self.schemas()
        if not isinstance(name, str) or name not in offered:
            return unknown_tool(name, list(offered))
        log.info("tool %s refused its arguments: not an object", name)
        return refused(not_an_object(name, arguments))

    async def run_stdio_async(self) -> None:
        """The SDK's `run_stdio_async`, reading stdin through `_readable_lines`, until the
        client closes it or a signal ends the server (`ended_by`)."""
        self.ended_by = await serve_until_signal(self._serve_stdio)

    async def _serve_stdio(self) -> None:
        send, receive = anyio.create_memory_object_stream[SessionMessage](16)
        lines = typing.cast("anyio.AsyncFile[str]", _readable_lines(send))  # only iterated
        async with (
            stdio_server(stdin=lines) as (read_stream, write_stream),
            anyio.create_task_group() as tasks,
        ):
            tasks.start_soon(_forward, receive, write_stream.clone())
            # the SDK's own body: MCPServer has no public way to serve given streams
            lowlevel = self._lowlevel_server
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


async def _readable_lines(answers: MemoryObjectSendStream[SessionMessage]) -> AsyncIterator[str]:
    """stdin's lines for the SDK's stdio transport, as `judged`: those it would never
    answer (it logs a line it cannot read at DEBUG and reads on, and its client waits for
    ever), or answer otherwise than the SDK-free loop, get the loop's answer on `answers`
    instead. Blank lines are skipped, as that loop skips them, and a batch's messages are
    read one by one, as it reads them (`tunnel.batch`)."""
    async with answers:
        async for line in _stdin_lines():
            if not line.strip():
                continue
            for one in tunnel.batch(line) or [line]:
                reply, raw = judged(one)
                if reply is not None:
                    await answers.send(SessionMessage(_written(reply)))
                elif raw is not None:
                    yield raw.decode("utf-8", errors="replace")


async def _stdin_lines() -> AsyncIterator[bytes]:
    """stdin's lines, read by a daemon thread of their own. Read by anyio's worker threads
    (`anyio.wrap_file`), a read waiting for the client's next line held the process after
    SIGTERM (the interpreter joins those threads at exit) and SIGINT (its cancellation waits
    for the read): the server ran on while the client kept stdin open. The thread reads the
    file descriptor, not `sys.stdin.buffer`, whose lock it would hold at exit (a fatal error
    of the interpreter's shutdown)."""
    send, receive = anyio.create_memory_object_stream[bytes](0)  # one line at a time
    loop = anyio.lowlevel.current_token()
    fd = stdin_fd()

    def read() -> None:
        # the server done reading, its send cancelled, the loop gone: the thread just ends
        with contextlib.suppress(anyio.BrokenResourceError, CancelledError, RuntimeError, OSError):
            try:
                for raw in iter(sys.stdin.buffer) if fd is None else lines_of(fd):
                    anyio.from_thread.run(send.send, raw, token=loop)
            finally:
                anyio.from_thread.run_sync(send.close, token=loop)

    threading.Thread(target=read, name="kenso-stdin", daemon=True).start()
    async with receive:
        async for raw in receive:
            yield raw


def judged(raw: bytes) -> tuple[dict[str, Any] | None, bytes | None]:
    """One message (a line or a POST body, no batch) as the SDK's stdio and HTTP transports
    take it: the SDK-free loop's answer when its verdict refuses it (`stdio.unreadable`,
    the one judgement of every transport), else what the SDK is to read: `raw` itself, or
    `raw` as json reads it when pydantic cannot (`tunnel.carried`: a lone surrogate, deep
    nesting), or None for a notification or client's answer no reading serves (ignored,
    as the loop ignores it)."""
    reply = unreadable(raw)
    if reply is not None:
        return reply, None
    if _sdk_reads(raw):
        return None, raw
    carried = tunnel.carried(raw)
    if carried is not None and _sdk_reads(carried):
        return None, carried
    message, _ = parsed(raw)
    if isinstance(message, dict) and "id" in message:  # pragma: no cover - none known
        # a request the verdict lets pass is always carried readably; should one not be,
        # its client gets an answer rather than waiting for ever
        return rpc_error(message["id"], INVALID_REQUEST, "Invalid request", UNCARRIED), None
    return None, None


def _sdk_reads(raw: bytes) -> bool:
    """Whether the SDK's transports read `raw` as a message (as the SDK does)."""
    try:
        jsonrpc_message_adapter.validate_json(raw, by_name=False)
    except ValueError:  # pydantic's ValidationError
        return False
    return True


def _written(reply: dict[str, Any]) -> JSONRPCMessage:
    """`reply` as the SDK's model, which cannot write a lone surrogate: one in its `data`
    (a method's name echoed) is written as its escape's text."""
    error = reply.get("error")
    if isinstance(error, dict) and isinstance(error.get("data"), str):
        data = error["data"].encode("utf-8", "backslashreplace").decode("utf-8")
        reply = {**reply, "error": {**error, "data": data}}
    return jsonrpc_message_adapter.validate_python(reply, by_name=False)


async def _forward(receive: MemoryObjectReceiveStream[SessionMessage], out: Any) -> None:
    """Send what `receive` gets on `out` (a clone of the SDK's write stream), then close it."""
    async with receive, out:
        async for message in receive:
            await out.send(message)


def build_server(service: Service, *, http: bool = False) -> _Server:
    """The MCP server for `service`, made from the tool registry (`serve.tools`); `reindex`
    exists only when enabled and never over HTTP (`service.offers_writes` says which)."""
    server = _Server(service)
    offered = [t for t in TOOLS if not t.writes or (not http and service.settings.allow_reindex)]
    service.offers_writes = any(tool.writes for tool in offered)
    for tool in offered:
        server.add_tool(
            _bound(tool, service),
            title=tool.title,
            # The SDK sends a docstring as is: clients would show its indentation to the model.
            description=inspect.cleandoc(tool.run.__doc__ or ""),
            annotations=WRITE_LOCAL if tool.writes else READ_ONLY,
        )
    return server


def _level(service: Service) -> Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]:
    level = service.settings.log_level.upper()
    if level == "DEBUG":
        return "DEBUG"
    if level == "INFO":
        return "INFO"
    if level == "ERROR":
        return "ERROR"
    if level == "CRITICAL":
        return "CRITICAL"
    return "WARNING"


def run_stdio(service: Service) -> None:
    """Serve MCP over stdin/stdout until the client closes the pipe (or a signal ends it)."""
    end_on_hangup()
    server = build_server(service)
    server.run("stdio")
    if server.ended_by is not None:  # the loop is done: end as the handler in force says
        signal.raise_signal(server.ended_by)


def listed_tools(service: Service) -> list[dict[str, Any]]:
    """`tools/list`'s tools as the SDK sends them (JSON), for `service`'s settings: what the
    SDK-free stdio loop answers from its cache (`serve.toolcache`)."""
    import anyio

    tools = anyio.run(build_server(service).list_tools)
    return [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]


def handshake_versions() -> tuple[list[str], str]:
    """The protocol versions the SDK negotiates by `initialize`, and the one it offers when
    a client asks for another (for the SDK-free stdio loop's cache)."""
    from mcp_types import version

    return list(version.HANDSHAKE_PROTOCOL_VERSIONS), version.LATEST_HANDSHAKE_VERSION
