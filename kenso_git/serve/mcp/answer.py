"""A tool call's answer as MCP's `CallToolResult` JSON, without the SDK (#32).

Every result is JSON text (kenso's exact shape) plus the same data as structured content;
arrays are wrapped as `{"results": [...]}` there because MCP structured content must be an
object. Error results (`isError`) carry text only: clients of the TypeScript SDK validate any
structured content against the tool's output schema, even on errors, and would replace
kenso's message with a -32602 of their own. The SDK server (`server.py`) and the SDK-free
stdio loop (`stdio.py`) both answer through `answer`, refuse arguments that do not fit a
tool's input schema through `refused` (`arguments.py`), and a call naming no tool they offer
through `unknown_tool`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from kenso_git.errors import KensoError
from kenso_git.errors import ScopeError
from kenso_git.errors import shown
from kenso_git.serve.caps import MAX_RESULT_CHARS
from kenso_git.serve.mcp.tools import TOOLS

log = logging.getLogger("kenso_git.mcp")

UNKNOWN_TOOL = "unknown-tool"  # the `code` of a call naming no tool the server offers


def _dump(payload: object) -> str:
    return json.dumps(payload, indent=2, ensure_ascii=False)


def _text(body: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": body}]


def error_result(body: Mapping[str, object]) -> dict[str, Any]:
    """An `isError` result of `body` as JSON text (no structured content)."""
    return text_error(_dump(body))


def text_error(text: str) -> dict[str, Any]:
    """An `isError` result of plain `text`, as the SDK words a call it could not make."""
    return {"content": _text(text), "isError": True}


def refused(err: KensoError) -> dict[str, Any]:
    """The documented error result of `err`: `{"error", "hint"?, "rule"?}` as JSON text."""
    body: dict[str, Any] = {"error": err.message}
    if err.hint:
        body["hint"] = err.hint
    if isinstance(err, ScopeError):
        body["rule"] = err.rule
    return error_result(body)


def unknown_tool(name: object, offered: Sequence[str]) -> dict[str, Any]:
    """The documented error result of a `tools/call` whose `name` (`None` when absent) is
    none of the `offered` tools: `{"error", "hint", "code": "unknown-tool"}`."""
    hint = "call one of the tools tools/list gives: " + ", ".join(offered)
    if isinstance(name, str) and any(t.name == name and t.writes for t in TOOLS):
        error = f"tool {shown(name)} is not offered by this server"
        hint = f"{name} is offered over stdio when allow-reindex = true, never over HTTP; {hint}"
    elif isinstance(name, str):
        error = f"unknown tool {shown(name)}"
    elif name is None:
        error = "tools/call names no tool (params.name is missing)"
    else:
        error = f"tools/call names no tool (params.name should be a string, not {shown(name)})"
    return error_result({"error": error, "hint": hint, "code": UNKNOWN_TOOL})


def answer(work: Callable[[], tuple[object, Mapping[str, object]]]) -> dict[str, Any]:
    """The `CallToolResult` JSON of `work` (a registry tool bound to its arguments)."""
    try:
        text_payload, structured = work()
    except KensoError as err:
        log.info("tool refused: %s", err.message)
        return refused(err)
    except Exception as err:  # a bug: the documented JSON error, not the SDK's plain text
        log.exception("kenso-git: tool call failed")
        what = f"{type(err).__name__}: {err}".splitlines()[0][:300]
        return error_result(
            {
                "error": f"internal error: {what}",
                "hint": "this is a bug in kenso-git, not in the call: the server's log (its "
                "stderr) has the traceback; please report it with the call's arguments",
            }
        )
    if isinstance(text_payload, dict) and "error" in text_payload:
        return error_result(text_payload)
    text = _dump(text_payload)
    if len(text) > MAX_RESULT_CHARS:
        return _too_large(len(text))
    return {"content": _text(text), "structuredContent": dict(structured), "isError": False}


def _too_large(size: int) -> dict[str, Any]:
    """The error an answer past the result cap gets instead: the tools fit their answers by
    whole results (`Service`), so this one holds a single result too large on its own; cut
    at the cap, its JSON would end mid-string and still look like a whole answer."""
    log.warning("refused a %d-character answer (the cap is %d)", size, MAX_RESULT_CHARS)
    return error_result(
        {
            "error": f"the answer is {size:,} characters, more than the {MAX_RESULT_CHARS:,} "
            "one tool result may hold, so it is not sent",
            "hint": "ask for less: a smaller limit or page_size, a narrower path or query; "
            "the kenso-git command line prints answers of any size",
        }
    )
