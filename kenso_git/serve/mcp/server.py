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

import inspect
import logging
import typing
from collections.abc import Callable
from collections.abc import Mapping
from typing import Annotated
from typing import Any
from typing import Literal

from mcp.server.mcpserver import Context
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from mcp.types import InputRequiredResult
from mcp.types import ToolAnnotations

from kenso_git import __version__
from kenso_git.errors import KensoError
from kenso_git.serve.mcp.answer import answer
from kenso_git.serve.mcp.answer import refused
from kenso_git.serve.mcp.arguments import checked
from kenso_git.serve.mcp.tools import INSTRUCTIONS
from kenso_git.serve.mcp.tools import TOOLS
from kenso_git.serve.mcp.tools import Tool
from kenso_git.serve.service import Service

log = logging.getLogger("kenso_git.mcp")

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
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
    one that does not fit is the documented JSON error, not the SDK's plain text."""

    def __init__(self, service: Service) -> None:
        super().__init__(
            "kenso-git", instructions=INSTRUCTIONS, version=__version__, log_level=_level(service)
        )
        self.service = service
        self._schemas: dict[str, dict[str, Any]] | None = None

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if self._schemas is None:  # the tools are all added before the first call
            self._schemas = {t.name: t.input_schema for t in await self.list_tools()}
        schema = self._schemas.get(name)
        if schema is not None:
            try:
                arguments = checked(name, schema, arguments, self.service.scope.resolve)
            except KensoError as err:
                log.info("tool %s refused its arguments: %s", name, err.message)
                return CallToolResult.model_validate(refused(err))
        return await super().call_tool(name, arguments, context)


def build_server(service: Service, *, http: bool = False) -> MCPServer[Any]:
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
    """Serve MCP over stdin/stdout until the client closes the pipe."""
    build_server(service).run("stdio")


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
