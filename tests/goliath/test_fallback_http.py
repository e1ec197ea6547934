"""http_fallback against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import stamina

from goliath import Agent
from goliath.fallback import HttpFallbackError, http_fallback
from goliath.testing import FakeModel
from tests.helpers import task_tools, use


class CloudServer:
    """A tiny real cloud endpoint: records requests, answers from a queue of replies."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: list[tuple[int, bytes] | tuple[int, bytes, dict[str, str]]] = []
        self.arrivals: list[float] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = self.rfile.read(length)
                server.requests.append(
                    {"headers": dict(self.headers), "body": json.loads(body), "path": self.path}
                )
                server.arrivals.append(time.monotonic())
                status, reply, *extra = (
                    server.replies.pop(0) if server.replies else (200, b'{"text": "cloud says hi"}')
                )
                self.send_response(status)
                for name, value in (extra[0] if extra else {}).items():
                    self.send_header(name, value)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/agent"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> CloudServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@pytest.fixture
def cloud() -> Iterator[CloudServer]:
    with CloudServer() as server:
        yield server


async def test_an_escalated_turn_is_posted_as_json_and_answered_by_the_cloud(
    cloud: CloudServer,
) -> None:
    """The fallback POSTs ask, summary, recent, steps, reason, error and returns the text."""
    _, tools = task_tools()
    model = FakeModel([use("list_tasks"), {"json": {"call": "beyond_these_functions"}}])
    agent = Agent(model, tools=tools, fallback=http_fallback(cloud.url, headers={"x-key": "k1"}))
    async with agent:
        result = await agent.run("plan my week")
    assert result.text == "cloud says hi"
    assert result.handled_by == "cloud"
    [request] = cloud.requests
    assert request["headers"]["content-type"] == "application/json"
    assert request["headers"]["x-key"] == "k1"
    body = request["body"]
    assert set(body) == {"ask", "summary", "recent", "steps", "reason", "error"}
    assert body["error"] is None
    assert body["ask"] == "plan my week"
    assert body["reason"] == "conductor-asked"
    assert body["steps"][0]["output"] == [{"title": "Buy milk"}, {"title": "Call mom"}]


async def test_rotating_headers_come_from_an_async_function(cloud: CloudServer) -> None:
    """headers may be an async function, called for every request."""
    tokens = iter(["t1", "t2"])

    async def headers() -> dict[str, str]:
        return {"authorization": f"Bearer {next(tokens)}"}

    fallback = http_fallback(cloud.url, headers=headers)
    agent = Agent(
        FakeModel([{"json": {"call": "beyond_these_functions"}}] * 2),
        tools=task_tools()[1],
        fallback=fallback,
    )
    async with agent:
        await agent.run("one")
        await agent.run("two")
    assert [r["headers"]["authorization"] for r in cloud.requests] == ["Bearer t1", "Bearer t2"]


async def test_a_busy_cloud_is_asked_again_after_the_wait_it_names(cloud: CloudServer) -> None:
    """A 503 with Retry-After: 1 is tried again a second later; the second answer counts."""
    cloud.replies.append((503, b'{"error": "busy"}', {"retry-after": "1"}))
    agent = Agent(
        FakeModel([{"json": {"call": "beyond_these_functions"}}]),
        tools=task_tools()[1],
        fallback=http_fallback(cloud.url),
    )
    async with agent:
        result = await agent.run("plan my week")
    assert (result.text, result.handled_by) == ("cloud says hi", "cloud")
    assert len(cloud.requests) == 2
    assert cloud.arrivals[1] - cloud.arrivals[0] >= 1.0


async def test_a_retry_is_logged_on_the_goliath_logger(
    cloud: CloudServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Each retry is an INFO record under logging.getLogger("goliath") naming the status."""
    cloud.replies.append((503, b'{"error": "busy"}'))
    agent = Agent(
        FakeModel([{"json": {"call": "beyond_these_functions"}}]),
        tools=task_tools()[1],
        fallback=http_fallback(cloud.url),
    )
    with stamina.set_testing(True, attempts=3), caplog.at_level(logging.INFO, logger="goliath"):
        async with agent:
            result = await agent.run("plan my week")
    assert result.handled_by == "cloud"
    retries = [record for record in caplog.records if record.name == "goliath.retry"]
    assert [record.levelno for record in retries] == [logging.INFO]
    assert "HTTP 503 from" in retries[0].getMessage()
    assert "retrying" in retries[0].getMessage()


async def test_a_cloud_that_stays_down_rejects_the_run_after_its_attempts(
    cloud: CloudServer,
) -> None:
    """Three 503s in a row make the run raise; exactly three requests were sent."""
    cloud.replies.extend([(503, b'{"error": "down"}')] * 3)
    agent = Agent(
        FakeModel([{"json": {"call": "beyond_these_functions"}}]),
        tools=task_tools()[1],
        fallback=http_fallback(cloud.url),
    )
    with stamina.set_testing(True, attempts=3):  # no waits between the tries
        async with agent:
            with pytest.raises(HttpFallbackError, match="503 from"):
                await agent.run("plan my week")
    assert len(cloud.requests) == 3


async def test_a_client_error_is_not_retried(cloud: CloudServer) -> None:
    """A 400 means the request itself is wrong: one request, and the run raises."""
    cloud.replies.append((400, b'{"error": "bad"}'))
    agent = Agent(
        FakeModel([{"json": {"call": "beyond_these_functions"}}]),
        tools=task_tools()[1],
        fallback=http_fallback(cloud.url),
    )
    async with agent:
        with pytest.raises(HttpFallbackError, match="400 from"):
            await agent.run("plan my week")
    assert len(cloud.requests) == 1


async def test_a_reply_without_text_is_an_error(cloud: CloudServer) -> None:
    """A 2xx reply without a `text` string is refused with a message saying so."""
    cloud.replies.append((200, b'{"answer": "wrong field"}'))
    fallback = http_fallback(cloud.url)
    from goliath import FallbackRequest

    with pytest.raises(HttpFallbackError, match="no `text` string"):
        await fallback(
            FallbackRequest(ask="a", summary="", recent=[], steps=[], reason="model-error")
        )
