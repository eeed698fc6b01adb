"""MCP over streamable HTTP: loopback bind, bearer token, Origin and Host checks, /health.

Every route (the MCP endpoint `/mcp`, `GET /health`, and `GET /search` and `GET /events`
of `serve.routes`) sits behind `Guard`, which refuses a non-loopback `Origin` (403), an
unexpected `Host` (403, DNS rebinding) and a missing or wrong bearer token (401), in that
order, and then behind the lanes of `serve.limits.CallLanes` (every call that does work).
The token lives in `.kenso/http.token` (mode 0600), created on first start; a token file
git tracks (a branch committed it) or one others may read is refused, with the hint to
delete it, never to make it private: others know it already. The `reindex` tool is never
offered over HTTP.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import re
import secrets
import socket
import stat
import sys
from dataclasses import asdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio.to_thread
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.responses import Response
from starlette.types import ASGIApp
from starlette.types import Receive
from starlette.types import Scope
from starlette.types import Send

from kenso_git.api.git import tracks_files_in
from kenso_git.api.workspace import DB_DIRNAME
from kenso_git.api.workspace import Workspace
from kenso_git.api.workspace import ensure_private_dir
from kenso_git.api.workspace import exclude_from_git
from kenso_git.errors import UsageError
from kenso_git.serve.http.lanes import Lanes
from kenso_git.serve.http.limits import CallLanes
from kenso_git.serve.http.limits import DeadlineH11Protocol
from kenso_git.serve.http.routes import Routes
from kenso_git.serve.http.sessions import SessionKeeper
from kenso_git.serve.mcp.ending import end_on_hangup
from kenso_git.serve.mcp.server import build_server
from kenso_git.serve.service import Service

log = logging.getLogger("kenso_git.mcp")

TOKEN_FILENAME = "http.token"
# An MCP session costs the server 150-250 KB of heap after heavy calls until it is closed,
# and clients that never close theirs (DELETE) would keep them for the SDK's 30 minutes, up
# to 10,000 of them (#27). `SessionKeeper` ends the least recently used past 64; the SDK's
# limit stays as a backstop.
SESSION_IDLE_S = 900.0
MAX_SESSIONS = 512
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})
# RFC 9110 Host: a name or IPv4 address, or a bracketed IPv6 address, and an optional
# port; nothing else (`evil.com@127.0.0.1` parsed as a URL has host 127.0.0.1).
_HOST_HEADER = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(:[0-9]{1,5})?")


def is_loopback(host: str) -> bool:
    """True for `localhost` and loopback IP addresses (127.0.0.0/8, ::1)."""
    name = host.strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def token_file(root: Path) -> Path:
    """Where the bearer token of the repository at `root` is kept."""
    return root / DB_DIRNAME / TOKEN_FILENAME


def ensure_token(path: Path, workspace: Workspace | None = None) -> str:
    """Read the bearer token, creating it (mode 0600) on first use; a token file git
    tracks in `workspace` is never used nor written (everyone with the repository knows it).

    Raises:
        UsageError: `.kenso` is a link, git tracks the token file, the file is readable by
            other users (not one kenso-git wrote), or it cannot be written.
    """
    try:
        ensure_private_dir(path.parent)
    except OSError as err:
        raise UsageError(f"cannot create {path.parent}: {err.strerror}", path=str(path)) from err
    if workspace is not None and workspace.is_git and tracks_files_in(workspace, path):
        rel = path.relative_to(workspace.root).as_posix()
        raise UsageError(
            f"{path} is a file git tracks: everyone with the repository knows the token "
            "in it, so it is never used",
            path=str(path),
            hint=f"untrack and delete it (`git -C {workspace.root} rm -q --cached {rel} && "
            f"rm -f {path}`), and start the server again: it writes a new token that git "
            "does not see",
        )
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_token(path)
    except OSError as err:
        raise UsageError(f"cannot create {path}: {err.strerror}", path=str(path)) from err
    token = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return token


MAX_TOKEN_BYTES = 4096


def _read_token(path: Path) -> str:
    """The token of an existing file: a regular file of ours, no symlink, mode 0600.

    Opened with O_NOFOLLOW | O_NONBLOCK and checked with fstat on the open descriptor,
    so a symlink to another private file, a folder, a FIFO (which would block the open)
    or a file swapped in between check and read are all refused with a clear error.
    """
    hint = f"delete it (`rm {path}`) and start the server again: it writes a new token"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as err:
        what = "is a symbolic link" if os.path.islink(path) else f"cannot be read ({err.strerror})"
        raise UsageError(f"{path} {what}", path=str(path), hint=hint) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise UsageError(f"{path} is not a regular file", path=str(path), hint=hint)
    with os.fdopen(fd, "rb") as handle:
        if st.st_uid != os.getuid():
            raise UsageError(f"{path} belongs to another user", path=str(path), hint=hint)
        mode = stat.S_IMODE(st.st_mode)
        if mode & 0o077:  # never made private afterwards: others may have read it
            raise UsageError(
                f"{path} is readable by other users (mode {mode:o}): kenso-git writes its "
                "token owner-only, so this one is not its own, and others may know it",
                path=str(path),
                hint=hint,
            )
        token = handle.read(MAX_TOKEN_BYTES).decode("utf-8", errors="replace").strip()
    if len(token) < 16:
        raise UsageError(f"{path} holds no usable token", path=str(path), hint=hint)
    return token


@dataclass(frozen=True, slots=True)
class GuardPolicy:
    """Which Host and Origin headers are accepted, and the bearer token."""

    token: str
    bind_host: str
    allow_remote: bool

    def host_ok(self, header: str | None) -> bool:
        if not header or _HOST_HEADER.fullmatch(header) is None:
            return False
        name = urlsplit(f"//{header}").hostname or ""
        if is_loopback(name):
            return True
        if not self.allow_remote:
            return False
        if self.bind_host in WILDCARD_HOSTS:
            return True  # the operator opened every interface; the token still guards
        return name == self.bind_host.strip("[]").lower()

    def origin_ok(self, header: str | None) -> bool:
        if header is None:
            return True  # not a browser
        parts = urlsplit(header)
        return parts.scheme in ("http", "https") and is_loopback(parts.hostname or "")

    def token_ok(self, header: str | None) -> bool:
        if not header or not header.lower().startswith("bearer "):
            return False
        given = header[7:].strip().encode()
        return hmac.compare_digest(given, self.token.encode())


class Guard:
    """ASGI middleware in front of every HTTP route: Origin, Host and token checks."""

    def __init__(self, app: ASGIApp, policy: GuardPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await Response("unsupported", status_code=403)(scope, receive, send)
            return
        denial = self._deny(Headers(scope=scope))
        if denial is not None:
            await denial(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _deny(self, headers: Headers) -> Response | None:
        if not self.policy.origin_ok(headers.get("origin")):
            return _refusal(403, "origin not allowed: only loopback origins may call this server")
        if not self.policy.host_ok(headers.get("host")):
            return _refusal(403, "host not allowed: connect to 127.0.0.1 or localhost")
        if not self.policy.token_ok(headers.get("authorization")):
            response = _refusal(401, "missing or wrong bearer token (see .kenso/http.token)")
            response.headers["WWW-Authenticate"] = 'Bearer realm="kenso-git"'
            return response
        return None


class Dispatch:
    """The routes behind the guard and the lanes: `/health`, `serve.routes`' `/search` and
    `/events`, and the MCP endpoint for everything else."""

    def __init__(
        self, mcp: ASGIApp, service: Service, lanes: Lanes, routes: Routes | None = None
    ) -> None:
        self.mcp = mcp
        self.service = service
        self.lanes = lanes
        self.routes = (routes or Routes(service)).table()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path == "/health":
            await self._health(scope, receive, send)
            return
        route = self.routes.get(path)
        if route is not None:
            await route(scope, receive, send)
            return
        await self.mcp(scope, receive, send)

    async def _health(self, scope: Scope, receive: Receive, send: Send) -> None:
        """`GET /health`: the health_check payload and the lanes, computed off the event loop."""
        response: Response
        if scope.get("method") != "GET":
            response = Response("method not allowed", status_code=405, headers={"Allow": "GET"})
        else:
            payload, _ = await anyio.to_thread.run_sync(self.service.health)
            body: dict[str, object] = dict(payload)
            body["lanes"] = asdict(self.lanes.state())
            response = JSONResponse(body)
        await response(scope, receive, send)


def _refusal(status: int, message: str) -> Response:
    return JSONResponse({"error": message}, status_code=status)


def _security(host: str, allow_remote: bool) -> TransportSecuritySettings:
    if allow_remote and host in WILDCARD_HOSTS:
        # Guard decides; the SDK's list cannot express "any Host".
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]"]
    if allow_remote:
        hosts += [f"{host}:*", host]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[
            "http://127.0.0.1:*",
            "http://localhost:*",
            "http://[::1]:*",
            "https://127.0.0.1:*",
            "https://localhost:*",
            "https://[::1]:*",
        ],
    )


def build_app(service: Service, *, token: str, host: str, allow_remote: bool) -> Any:
    """The guarded Starlette app: `POST /mcp` (streamable HTTP) and `GET /health`."""
    server = build_server(service, http=True)
    app = server.streamable_http_app(
        json_response=True,
        transport_security=_security(host, allow_remote),
        host=host,
        session_idle_timeout=SESSION_IDLE_S,
        max_sessions=MAX_SESSIONS,
    )
    policy = GuardPolicy(token=token, bind_host=host.lower(), allow_remote=allow_remote)
    lanes = Lanes(timeout=lambda: float(service.settings.call_budget))
    return Guard(CallLanes(Dispatch(SessionKeeper(app), service, lanes), lanes), policy)


def check_bind(host: str, allow_remote: bool) -> None:
    """Refuse a non-loopback bind address unless `--allow-remote` was given.

    Raises:
        UsageError: `host` is not a loopback address and remote access was not allowed.
    """
    if not is_loopback(host) and not allow_remote:
        raise UsageError(
            f"refusing to listen on {host}: it is reachable from other machines",
            hint="bind 127.0.0.1, or pass --allow-remote (the bearer token is still required)",
        )


def run_http(service: Service, *, host: str, port: int, allow_remote: bool = False) -> None:
    """Serve MCP over streamable HTTP until interrupted.

    Raises:
        UsageError: a non-loopback bind without `allow_remote`, or an unusable token file.
    """
    import uvicorn

    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]  # `[::1]`, as a URL writes an IPv6 address: the address itself
    check_bind(host, allow_remote)
    path = token_file(service.workspace.root)
    token = ensure_token(path, service.workspace)
    exclude_from_git(service.workspace)
    app = build_app(service, token=token, host=host, allow_remote=allow_remote)
    sock = _bind(host, port)  # bound here, so that the notice names the real port (--port 0)
    shown = sock.getsockname()[1]
    where = f"[{host}]" if ":" in host else host  # an IPv6 address in a URL is bracketed
    notice = f"kenso-git: serving MCP on http://{where}:{shown}/mcp (bearer token in {path})"
    log.info("%s", notice)
    if not log.isEnabledFor(logging.INFO):  # the default level: the notice is not a warning
        sys.stderr.write(notice + "\n")
        sys.stderr.flush()
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_config=None,
        access_log=False,
        log_level=service.settings.log_level.lower(),
        lifespan="on",
        http=DeadlineH11Protocol,  # header and body deadlines (slowloris)
        timeout_graceful_shutdown=2,  # /events streams never end by themselves
    )
    end_on_hangup()  # a closed terminal shuts down as SIGTERM does (uvicorn's handler)
    uvicorn.Server(config).run(sockets=[sock])


def _bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on `host:port` (port 0: any free port).

    Raises:
        UsageError: the address is in use or cannot be bound.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not 0: asyncio sets TCP_NODELAY only on sockets that say they are
    # TCP, and without it a small reply's last write waits for the client's delayed ACK
    # (40 ms on Linux, more than a whole search)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as err:
        sock.close()
        raise UsageError(
            f"cannot listen on {host}:{port}: {err.strerror}",
            hint="choose another --port (0 picks a free one)",
        ) from err
    sock.set_inheritable(True)
    return sock
