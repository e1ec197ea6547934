"""A minimal HTTP/1.1 client on Trio sockets, for load generation.

A general client costs ~20 ms of CPU per streamed turn here, so a load of a thousand
conversations measured the client, not the daemon. This one does only what the load needs: one
request per connection (``Connection: close``), a JSON body, a response read whole or, for
Server-Sent Events, chunk by chunk and event by event.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import trio

__all__ = ["ConnectionFailed", "RawHttp"]


class ConnectionFailed(Exception):
    """The connection broke or closed before the response was complete."""


class _Reader:
    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = bytearray()

    async def fill(self) -> None:
        try:
            chunk = await self.stream.receive_some(65536)
        except (trio.BrokenResourceError, OSError) as exc:
            raise ConnectionFailed(f"{type(exc).__name__}: {exc}") from None
        if not chunk:
            raise ConnectionFailed("the server closed the connection mid-response")
        self.buffer += chunk

    async def line(self) -> bytes:
        while (end := self.buffer.find(b"\r\n")) < 0:
            await self.fill()
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 2]
        return line

    async def exactly(self, size: int) -> bytes:
        while len(self.buffer) < size:
            await self.fill()
        data = bytes(self.buffer[:size])
        del self.buffer[:size]
        return data

    async def until_close(self) -> bytes:
        try:
            while chunk := await self.stream.receive_some(65536):
                self.buffer += chunk
        except (trio.BrokenResourceError, OSError) as exc:
            raise ConnectionFailed(f"{type(exc).__name__}: {exc}") from None
        return bytes(self.buffer)


class RawHttp:
    """Requests to one daemon at ``host:port`` with a bearer token."""

    def __init__(self, host: str, port: int, token: str) -> None:
        self.host, self.port, self.token = host, port, token

    @classmethod
    def for_url(cls, url: str, token: str) -> RawHttp:
        host, port = url.removeprefix("http://").rstrip("/").rsplit(":", 1)
        return cls(host, int(port), token)

    async def _send(self, method: str, path: str, body: Any) -> tuple[trio.SocketStream, _Reader]:
        payload = b"" if body is None else json.dumps(body).encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nhost: {self.host}\r\nconnection: close\r\n"
            f"authorization: Bearer {self.token}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(payload)}\r\n\r\n"
        ).encode()
        try:
            stream = await trio.open_tcp_stream(self.host, self.port)
            await stream.send_all(head + payload)
        except (trio.BrokenResourceError, OSError) as exc:
            raise ConnectionFailed(f"{type(exc).__name__}: {exc}") from None
        return stream, _Reader(stream)

    @staticmethod
    async def _head(reader: _Reader) -> tuple[int, dict[str, str]]:
        status = int((await reader.line()).split(b" ", 2)[1])
        headers = {}
        while line := await reader.line():
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        return status, headers

    @staticmethod
    async def _body(reader: _Reader, headers: dict[str, str]) -> AsyncIterator[bytes]:
        if headers.get("transfer-encoding", "").lower() == "chunked":
            while size := int((await reader.line()).split(b";")[0], 16):
                yield await reader.exactly(size)
                await reader.line()
            return
        if "content-length" in headers:
            yield await reader.exactly(int(headers["content-length"]))
            return
        yield await reader.until_close()

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        """Send a request; return the status and the whole body."""
        stream, reader = await self._send(method, path, body)
        async with stream:
            status, headers = await self._head(reader)
            data = b"".join([chunk async for chunk in self._body(reader, headers)])
        return status, data

    async def events(
        self, method: str, path: str, body: Any = None
    ) -> AsyncIterator[tuple[int, str, Any]]:
        """Send a request and yield ``(status, event, data)``: each SSE event, or for a non-SSE
        answer a single ``(status, "", body)``."""
        stream, reader = await self._send(method, path, body)
        async with stream:
            status, headers = await self._head(reader)
            if not headers.get("content-type", "").startswith("text/event-stream"):
                data = b"".join([chunk async for chunk in self._body(reader, headers)])
                yield status, "", json.loads(data) if data else None
                return
            pending = b""
            async for chunk in self._body(reader, headers):
                pending += chunk
                *complete, pending = pending.split(b"\n\n")
                for block in complete:
                    name, data = "", []
                    for line in block.decode().split("\n"):
                        if line.startswith("event:"):
                            name = line[6:].strip()
                        elif line.startswith("data:"):
                            data.append(line[5:].strip())
                    if data:
                        yield status, name, json.loads("\n".join(data))
