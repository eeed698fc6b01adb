"""Replies go out at once: the HTTP server's connections do not wait for the client's
delayed ACK (#27).

Every small reply (a tool error, a short page, a search of a small corpus) took 44-48 ms
over HTTP where the server had answered in 3 ms: the listening socket was made with
protocol 0, asyncio sets `TCP_NODELAY` only on sockets that say they are TCP, and Nagle's
algorithm held a reply's last write until the client's delayed ACK. This drives the real
listening socket the server binds through the real event loop uvicorn runs on.
"""

from __future__ import annotations

import asyncio
import socket

from kenso_git.serve.http.transport import _bind


def test_connections_the_server_accepts_send_without_delay() -> None:
    async def accepted_nodelay() -> int:
        listening = _bind("127.0.0.1", 0)
        seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                conn = transport.get_extra_info("socket")
                seen.set_result(conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        server = await asyncio.get_running_loop().create_server(Probe, sock=listening)
        async with server:
            _, writer = await asyncio.open_connection(*listening.getsockname()[:2])
            try:
                return await asyncio.wait_for(seen, 20)
            finally:
                writer.close()

    assert asyncio.run(accepted_nodelay()) != 0
