"""MCP over stdio without the SDK: the loop `kenso-git serve` runs for an editor (#32).

An agent starts the server at the start of every session and waits for its first answer;
importing the MCP SDK and pydantic took most of that wait (~0.6 s of a 0.7 s first answer).
This loop speaks the handshake protocol (`initialize`, then requests) as newline-delimited
JSON-RPC 2.0 on stdin/stdout, judges each message by `verdict` (the one judgement the SDK's
servers make too, over stdio and HTTP), answers `tools/list` from the SDK's own answer kept
beside the code (`serve.toolcache`), checks each call's arguments against that input schema,
and runs the tool through the registry (`serve.tools`) and `Service`, the one scope-and-caps
gate, as the SDK server does. Calls run on worker threads, so a slow one never holds up the
others; each answer is one line, written whole. `KENSO_MCP_SDK=1` runs the SDK's server
instead.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import threading
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from typing import BinaryIO

from kenso_git import __version__
from kenso_git.errors import KensoError
from kenso_git.serve.mcp.answer import answer
from kenso_git.serve.mcp.answer import refused
from kenso_git.serve.mcp.answer import text_error
from kenso_git.serve.mcp.answer import unknown_tool
from kenso_git.serve.mcp.arguments import checked
from kenso_git.serve.mcp.arguments import has_lone_surrogate
from kenso_git.serve.mcp.configstamp import ConfigStamp
from kenso_git.serve.mcp.ending import end_on_hangup
from kenso_git.serve.mcp.ending import stdin_lines
from kenso_git.serve.mcp.toolcache import load
from kenso_git.serve.mcp.tools import INSTRUCTIONS
from kenso_git.serve.mcp.tools import by_name
from kenso_git.serve.service import Service

log = logging.getLogger("kenso_git.mcp")

WORKERS = 4  # tool calls at once (the SDK ran each on its own worker thread too)
CAPABILITIES = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}
EMPTY_LISTS: dict[str, dict[str, list[object]]] = {
    "resources/list": {"resources": []},
    "resources/templates/list": {"resourceTemplates": []},
    "prompts/list": {"prompts": []},
}
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
NOT_JSONRPC_2 = 'a JSON-RPC 2.0 message has the member "jsonrpc": "2.0": add it'


def rpc_error(ident: object, code: int, message: str, data: object = "") -> dict[str, Any]:
    """A JSON-RPC error answer."""
    return {
        "jsonrpc": "2.0",
        "id": ident,
        "error": {"code": code, "message": message, "data": data},
    }


def encoded(message: Mapping[str, Any]) -> bytes:
    """`message` as this loop writes it: compact JSON in UTF-8."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    # a lone surrogate (a method's name echoed back) only ever sits in a JSON string,
    # where backslashreplace writes it as the escape it came in as: `\ud800`
    return text.encode("utf-8", "backslashreplace")


MAX_DEPTH = 200  # levels of params pydantic's JSON parser reads (the message one more)
# levels of a whole message every transport reads alike: json's own limit (about 990)
# depends on how deep the stack already is where it reads, and `arguments.checked` walks
# arguments recursively, two frames a level, under Python's limit of 1,000 frames
MAX_NESTING = 400


def why_unreadable(
    value: object, *, levels: int = MAX_DEPTH, surrogates: bool = True
) -> str | None:
    """Why pydantic's JSON parser refuses params `value` (decoded JSON), said as the end
    of a sentence on them: they hold a lone surrogate (when `surrogates`), or nest deeper
    than `levels`; None when neither. Walked without recursion: json reads about 1,000
    levels, more than Python's stack allows a walk."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if surrogates and isinstance(item, str) and has_lone_surrogate(item):
            return (
                f"hold a lone UTF-16 surrogate ({_escape(item)}), half of a pair, which no "
                "UTF-8 text can hold: send whole characters"
            )
        if isinstance(item, (dict, list)) and depth > levels:
            return f"nest deeper than {levels} levels: send them less deeply nested"
        if isinstance(item, dict):
            stack.extend((part, depth + 1) for pair in item.items() for part in pair)
        elif isinstance(item, list):
            stack.extend((part, depth + 1) for part in item)
    return None


def is_too_deep(raw: bytes, message: object) -> bool:
    """Whether `message`, decoded from `raw`, nests deeper than `MAX_NESTING` levels
    (counted only when `raw` has brackets enough)."""
    if raw.count(b"[") + raw.count(b"{") <= MAX_NESTING:
        return False
    return why_unreadable(message, levels=MAX_NESTING, surrogates=False) is not None


def _escape(text: str) -> str:
    """`text` as a JSON string, all ASCII, cut short: how the client wrote it."""
    shown = json.dumps(text)
    return shown if len(shown) <= 40 else shown[:36] + '..."'


DEEP = (
    f"the message nests deeper than {MAX_NESTING} levels, more than this server reads: "
    "send it less deeply nested"
)


def parsed(raw: bytes) -> tuple[object, dict[str, Any] | None]:
    """`raw` (one line or POST body) read as JSON, or its -32700 answer when it is not
    JSON (a 5,000-digit number is not: Python's int() reads at most 4,300 digits) or nests
    past `MAX_NESTING` levels (the same answer wherever json's own limit lies)."""
    try:
        message = json.loads(raw)
    except RecursionError:  # nested past json's parser, as deep as the stack allows
        return None, rpc_error(None, PARSE_ERROR, "Parse error", DEEP)
    except ValueError as err:
        return None, rpc_error(None, PARSE_ERROR, "Parse error", str(err))
    if is_too_deep(raw, message):
        return None, rpc_error(None, PARSE_ERROR, "Parse error", DEEP)
    return message, None


def unreadable(raw: bytes) -> dict[str, Any] | None:
    """The answer to `raw`, one line or POST body that is no batch, when it is not JSON
    (`parsed`) or `verdict` refuses it; None when it is to be served or ignored. The SDK's
    servers (stdio and HTTP) judge every message by it before the SDK reads it."""
    message, refusal = parsed(raw)
    return refusal or verdict(message)


def verdict(message: object) -> dict[str, Any] | None:
    """The one judgement of every transport (this loop, the SDK's stdio server, HTTP) on a
    JSON value read as one message: its error answer, or None for a request to serve and a
    notification or client's answer to ignore (this server sends no request). JSON-RPC 2.0
    requires `"jsonrpc": "2.0"`, a string method, an id that is a string or an integer and
    params that are an object (MCP) or absent: else -32600, with the id where it can be
    read. A method holding a lone surrogate is no method (-32601); params of another method
    than `tools/call` that pydantic cannot read (a lone surrogate, past 200 levels) are
    -32602; a call's arguments are judged by the tool (`arguments.checked`)."""
    if not isinstance(message, dict):
        return rpc_error(None, INVALID_REQUEST, "Invalid request")
    method = message.get("method")
    if not isinstance(method, str) and ("result" in message or "error" in message):
        return None  # a client's answer to a request: this server never sends one
    ident = _ident(message)
    if message.get("jsonrpc") != "2.0":
        return rpc_error(ident, INVALID_REQUEST, "Invalid request", NOT_JSONRPC_2)
    if not isinstance(method, str):
        return rpc_error(ident, INVALID_REQUEST, "Invalid request")
    if "id" not in message:
        return None  # notifications: initialized, cancelled, progress...
    if ident is None or not _has_params(message):
        return rpc_error(ident, INVALID_REQUEST, "Invalid request")
    if has_lone_surrogate(method):
        return rpc_error(ident, METHOD_NOT_FOUND, "Method not found", method)
    problem = why_unreadable(message.get("params")) if method != "tools/call" else None
    if problem is not None:
        return rpc_error(ident, INVALID_PARAMS, "Invalid params", f"params of {method} {problem}")
    return None


def _has_params(message: Mapping[str, Any]) -> bool:
    """Whether `message` has params JSON-RPC allows: an object, or none."""
    return isinstance(message.get("params"), (dict, type(None)))


def _ident(message: object) -> str | int | None:
    """The id of `message` when it is one JSON-RPC allows (a string or an integer) and its
    answer can carry: not a string holding a lone UTF-16 surrogate (`"\\ud800"`), which
    UTF-8 cannot hold and the SDK's server cannot write (it crashed on one)."""
    ident = message.get("id") if isinstance(message, dict) else None
    if isinstance(ident, str) and has_lone_surrogate(ident):
        return None
    return ident if isinstance(ident, (str, int)) and not isinstance(ident, bool) else None


class Session:
    """One client on stdin/stdout."""

    def __init__(
        self,
        service: Service,
        out: BinaryIO,
        after_first_call: Callable[[], None] | None = None,
        read_since_ns: int | None = None,
    ) -> None:
        self.service = service
        self.config = ConfigStamp(service, read_since_ns)  # edits applied by the next call
        self.out = out
        self._after_first_call = after_first_call
        self._write = threading.Lock()
        cached = load()
        allowed = service.settings.allow_reindex
        self.tools = [t for t in cached["tools"] if t["name"] != "reindex" or allowed]
        service.offers_writes = any(by_name(t["name"]).writes for t in self.tools)
        self.schemas = {t["name"]: t["inputSchema"] for t in self.tools}
        self.versions: list[str] = cached["handshake_versions"]
        self.latest: str = cached["latest_handshake_version"]
        self.pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="kenso-tool")

    def send(self, message: Mapping[str, Any]) -> None:
        line = encoded(message) + b"\n"
        with self._write:
            self.out.write(line)
            self.out.flush()

    def reply(self, ident: object, result: Mapping[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": ident, "result": result})

    def fail(self, ident: object, code: int, message: str, data: object = "") -> None:
        self.send(rpc_error(ident, code, message, data))

    def handle(self, raw: bytes) -> None:
        """Answer one line: a request, a notification, or a batch of them."""
        message, refusal = parsed(raw)
        if refusal is not None:
            self.send(refusal)
            return
        # a batch is its messages; an empty one is an invalid request (JSON-RPC 2.0)
        for one in message if isinstance(message, list) and message else [message]:
            refusal = verdict(one)
            if refusal is not None:
                self.send(refusal)
            elif isinstance(one, dict) and isinstance(one.get("method"), str) and "id" in one:
                self._dispatch(one["method"], one["id"], one.get("params") or {})

    def _dispatch(self, method: str, ident: object, params: dict[str, Any]) -> None:
        """Answer a request `verdict` let pass."""
        if method == "initialize":
            asked = params.get("protocolVersion")
            version = asked if asked in self.versions else self.latest
            self.reply(
                ident,
                {
                    "capabilities": CAPABILITIES,
                    "instructions": INSTRUCTIONS,
                    "protocolVersion": version,
                    "serverInfo": {"name": "kenso-git", "version": __version__},
                },
            )
        elif method == "ping":
            self.reply(ident, {})
        elif method == "tools/list":
            self.reply(ident, {"tools": self.tools})
        elif method == "tools/call":
            self.pool.submit(self._call, ident, params)
        elif method in EMPTY_LISTS:
            self.reply(ident, EMPTY_LISTS[method])
        else:
            self.fail(ident, METHOD_NOT_FOUND, "Method not found", method)

    def _call(self, ident: object, params: object) -> None:
        try:
            self.reply(ident, self._result(params))
        except Exception as err:  # the loop lives on; the client gets an error result
            log.exception("kenso-git: a tool call failed")
            self.reply(ident, text_error(f"Error executing tool: {type(err).__name__}: {err}"))
        then, self._after_first_call = self._after_first_call, None
        if then is not None:
            then()

    def _result(self, params: object) -> dict[str, Any]:
        given = params if isinstance(params, dict) else {}
        name = given.get("name")
        if not isinstance(name, str) or name not in self.schemas:
            return unknown_tool(name, list(self.schemas))
        schema = self.schemas[name]
        self.config.apply_edits()  # before the gate: the scope as configured now
        try:
            arguments = checked(name, schema, given.get("arguments"), self.service.scope.resolve)
        except KensoError as err:  # the documented JSON, as the SDK's server answers it
            return refused(err)
        tool = by_name(name)
        return answer(lambda: tool.run(self.service, **arguments))

    def close(self) -> None:
        self.pool.shutdown(wait=True)  # answers in flight are still written


def run(
    service: Service,
    source: BinaryIO | None = None,
    out: BinaryIO | None = None,
    *,
    after_first_call: Callable[[], None] | None = None,
    read_since_ns: int | None = None,
) -> None:
    """Serve MCP on stdin/stdout (or `source`/`out`) until the client closes its end;
    `after_first_call` runs once, when the first tool call has been answered;
    `read_since_ns`: a `time.time_ns()` from before `service` read its settings."""
    session = Session(service, out or sys.stdout.buffer, after_first_call, read_since_ns)
    try:
        with _lines(source) as lines:
            for raw in lines:
                if raw.strip():
                    session.handle(raw)
    finally:
        session.close()


@contextlib.contextmanager
def _lines(source: BinaryIO | None) -> Iterator[Iterator[bytes]]:
    """The lines of `source`, or of the process's own stdin, served until the client or a
    signal ends it (`ending`: SIGHUP too, and a signal wakes the read)."""
    if source is not None:
        yield iter(source)
        return
    end_on_hangup()
    with stdin_lines() as lines:
        yield lines
