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
import json
import logging
import typing
from collections.abc import Callable
from collections.abc import Mapping
from typing import Annotated
from typing import Any
from typing import Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from mcp.types import TextContent
from mcp.types import ToolAnnotations

from kenso_git import __version__
from kenso_git.errors import KensoError
from kenso_git.errors import ScopeError
from kenso_git.serve.service import MAX_RESULT_CHARS
from kenso_git.serve.service import Service
from kenso_git.serve.tools import TOOLS
from kenso_git.serve.tools import Tool

log = logging.getLogger("kenso_git.mcp")

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
WRITE_LOCAL = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

INSTRUCTIONS = (
    "Search this repository's Markdown documentation. Start with search_docs (or search_multi "
    "for several phrasings), then read_snippet or get_doc for the text, and get_related to "
    "follow links between documents. Paths are repo-relative, as returned by search results."
)


def _dump(payload: object) -> str:
    return json.dumps(payload, indent=2, ensure_ascii=False)


def _result(text_payload: object, structured: Mapping[str, object]) -> CallToolResult:
    text = _dump(text_payload)
    if len(text) > MAX_RESULT_CHARS:  # pragma: no cover - Service.fit keeps payloads smaller
        text = text[:MAX_RESULT_CHARS]
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=dict(structured)
    )


def _error(err: KensoError) -> CallToolResult:
    body: dict[str, Any] = {"error": err.message}
    if err.hint:
        body["hint"] = err.hint
    if isinstance(err, ScopeError):
        body["rule"] = err.rule
    return _error_result(body)


def _error_result(body: Mapping[str, object]) -> CallToolResult:
    # No structured content: it would have to match the success schema (see the docstring).
    return CallToolResult(content=[TextContent(type="text", text=_dump(body))], is_error=True)


def _call(work: Callable[[], tuple[object, Mapping[str, object]]]) -> CallToolResult:
    try:
        text_payload, structured = work()
    except KensoError as err:
        log.info("tool refused: %s", err.message)
        return _error(err)
    if isinstance(text_payload, dict) and "error" in text_payload:
        return _error_result(text_payload)
    return _result(text_payload, structured)


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
        parameters, return_annotation=Annotated[CallToolResult, tool.output]
    )
    return call


def build_server(service: Service, *, http: bool = False) -> MCPServer[Any]:
    """The MCP server for `service`, made from the tool registry (`serve.tools`); `reindex`
    exists only when enabled and never over HTTP."""
    server: MCPServer[Any] = MCPServer(
        "kenso-git", instructions=INSTRUCTIONS, version=__version__, log_level=_level(service)
    )
    for tool in TOOLS:
        if tool.writes and (http or not service.settings.allow_reindex):
            continue
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
