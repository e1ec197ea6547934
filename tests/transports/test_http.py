"""The daemon's HTTP API, driven with the Python client and with plain HTTP on 127.0.0.1."""

from __future__ import annotations

import functools
import json
import logging
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from goliath import ConfirmRequest, Decision
from tests.sse import iter_sse
from transports.client import Client
from transports.openapi import openapi_document

from .conftest import TOKEN, running_daemon
from .daemon_app import make_agent

AUTH = {"authorization": f"Bearer {TOKEN}"}


class TestTurns:
    async def test_a_turn_with_a_confirmation_round_trip_through_the_client(self) -> None:
        """The client is asked before the write, approves, and the write happens once."""
        created: list[str] = []
        asked: list[ConfirmRequest] = []

        def approve(request: ConfirmRequest) -> Decision:
            asked.append(request)
            return Decision(approved=True)

        async with (
            running_daemon(make_agent(created)) as url,
            Client.http(url, token=TOKEN) as client,
        ):
            result = await client.run("add eggs", conversation_id="alice", confirm=approve)
        assert result.text == "answer to add eggs"
        assert created == ["eggs"]
        assert [(r.tool, r.input) for r in asked] == [("create_task", {"title": "eggs"})]

    async def test_a_declined_write_over_plain_http(self) -> None:
        """A plain HTTP client reads the confirm_request event and declines with a reason."""
        created: list[str] = []
        async with (
            running_daemon(make_agent(created)) as url,
            httpx.AsyncClient(base_url=url, headers=AUTH) as http,
        ):
            events: list[tuple[str, Any]] = []
            async with http.stream(
                "POST", "/v1/conversations/bob/runs", json={"ask": "add milk"}
            ) as response:
                assert response.status_code == 200
                assert response.headers["content-type"].startswith("text/event-stream")
                async for name, data in iter_sse(response):
                    events.append((name, data))
                    if name == "confirm_request":
                        reply = await http.post(
                            f"/v1/turns/{data['turn_id']}/confirm",
                            json={
                                "call_id": data["call_id"],
                                "approved": False,
                                "reason": "not today",
                            },
                        )
                        assert reply.status_code == 204
                        again = await http.post(
                            f"/v1/turns/{data['turn_id']}/confirm",
                            json={"call_id": data["call_id"], "approved": True},
                        )
                        assert again.status_code == 409
        names = [name for name, _ in events]
        assert names[0] == "turn"
        assert "confirm_request" in names and names[-1] == "result"
        result = events[-1][1]
        assert created == []
        assert (
            result["steps"][0]["result"]
            == "declined by the user: not today. Do not retry unless asked."
        )
        confirm_event = next(data for name, data in events if name == "confirm")
        assert confirm_event.pop("ms") >= 0  # how long the person took to answer
        assert confirm_event == {
            "type": "confirm",
            "tool": "create_task",
            "approved": False,
            "reason": "not today",
        }

    async def test_cancel_mid_turn_ends_the_stream_with_an_error_event(self) -> None:
        """POST /cancel stops a turn inside a slow tool; its stream ends with `error`."""
        async with (
            running_daemon(make_agent()) as url,
            httpx.AsyncClient(base_url=url, headers=AUTH) as http,
        ):
            async with http.stream(
                "POST", "/v1/conversations/c/runs", json={"ask": "wait", "turn_id": "slow-1"}
            ) as response:
                events: list[tuple[str, Any]] = []
                async for name, data in iter_sse(response):
                    events.append((name, data))
                    if name == "plan":
                        cancelled = await http.post("/v1/turns/slow-1/cancel")
                        assert cancelled.status_code == 202
            status = (await http.get("/v1/turns/slow-1")).json()
        assert events[-1][0] == "error"
        assert events[-1][1]["code"] == "cancelled"
        assert status["status"] == "cancelled"

    async def test_a_repeated_turn_id_is_answered_from_its_record(self) -> None:
        """Retrying a finished turn id returns its result without running it again."""
        created: list[str] = []
        async with (
            running_daemon(make_agent(created)) as url,
            Client.http(url, token=TOKEN) as client,
        ):
            first = await client.run(
                "add tea", conversation_id="d", turn_id="once", confirm=lambda r: True
            )
            second = await client.run(
                "add tea", conversation_id="d", turn_id="once", confirm=lambda r: True
            )
            status = await client.turn("once")
        assert created == ["tea"]
        assert first.text == second.text
        assert status.status == "done"

    @pytest.mark.slow
    async def test_two_hundred_conversations_with_ordered_turns_lose_nothing(self) -> None:
        """200 conversations × 3 turns at once: every result arrives once, in each one's order."""
        results: dict[str, list[str]] = {}
        async with running_daemon(make_agent()) as url:
            limits = httpx.Limits(max_connections=400, max_keepalive_connections=400)
            http = httpx.AsyncClient(base_url=url, headers=AUTH, limits=limits, timeout=120)
            async with Client(
                __import__("transports.client", fromlist=["HttpTransport"]).HttpTransport(
                    url, client=http
                )
            ) as client:

                async def conversation(n: int) -> None:
                    texts = results.setdefault(f"c{n}", [])
                    for k in range(3):
                        texts.append((await client.run(f"q{k}", conversation_id=f"c{n}")).text)

                async with trio.open_nursery() as nursery:
                    for n in range(200):
                        nursery.start_soon(conversation, n)
                memory = await client.memory("c7")
        assert results == {
            f"c{n}": ["answer to q0", "answer to q1", "answer to q2"] for n in range(200)
        }
        assert [exchange.ask for exchange in memory.recent] == ["q0", "q1", "q2"]


class TestRefusals:
    ROUTES = [
        ("POST", "/v1/conversations/a/runs", {"ask": "hi"}),
        ("POST", "/v1/turns/t/confirm", {"call_id": "c", "approved": True}),
        ("POST", "/v1/turns/t/cancel", None),
        ("GET", "/v1/turns/t", None),
        ("GET", "/v1/conversations/a/memory", None),
        ("DELETE", "/v1/conversations/a/memory", None),
    ]

    async def test_every_route_but_health_needs_the_token(self) -> None:
        """No token or a wrong one: 401 with a JSON error; health checks stay open."""
        async with running_daemon(make_agent()) as url, httpx.AsyncClient(base_url=url) as http:
            for method, path, body in self.ROUTES:
                for headers in ({}, {"authorization": "Bearer wrong"}, {"authorization": TOKEN}):
                    response = await http.request(method, path, json=body, headers=headers)
                    assert response.status_code == 401, (method, path, headers)
                    assert response.json()["error"]["code"] == "unauthorized"
            assert (await http.get("/healthz")).status_code == 200
            assert (await http.get("/readyz")).status_code == 200

    async def test_malformed_and_oversized_input_gets_clear_errors(self) -> None:
        """Bad JSON, unknown fields, bad ids and oversized bodies are refused with their cause."""
        async with (
            running_daemon(make_agent()) as url,
            httpx.AsyncClient(base_url=url, headers=AUTH) as http,
        ):
            bad_json = await http.post("/v1/conversations/a/runs", content=b"{not json")
            assert (
                bad_json.status_code == 400
                and "not valid JSON" in bad_json.json()["error"]["message"]
            )
            unknown = await http.post("/v1/conversations/a/runs", json={"ask": "hi", "asks": 1})
            assert unknown.status_code == 400 and "asks" in unknown.json()["error"]["message"]
            wrong_type = await http.post("/v1/conversations/a/runs", json={"ask": 5})
            assert wrong_type.status_code == 400
            tricky = await http.post("/v1/conversations/..%2Fetc/runs", json={"ask": "hi"})
            assert (
                tricky.status_code == 400 and "conversation id" in tricky.json()["error"]["message"]
            )
            huge_ask = await http.post("/v1/conversations/a/runs", json={"ask": "x" * 9000})
            assert (
                huge_ask.status_code == 413
                and "the ask is 9,000 characters" in huge_ask.json()["error"]["message"]
            )
            huge_body = await http.post(
                "/v1/conversations/a/runs",
                content=b"x" * 70_000,
                headers={"content-type": "application/json"},
            )
            assert huge_body.status_code == 413
            unknown_turn = await http.post(
                "/v1/turns/nope/confirm", json={"call_id": "c", "approved": True}
            )
            assert unknown_turn.status_code == 404
            missing_route = await http.get("/v1/nothing")
            assert missing_route.status_code == 404
            # the daemon still serves after all of that
            ok = await http.get("/v1/conversations/a/memory")
            assert ok.status_code == 200

    async def test_a_confirmation_for_another_conversations_turn_is_refused(self) -> None:
        """Naming the wrong conversation when confirming or cancelling a turn gets 404."""
        async with (
            running_daemon(make_agent()) as url,
            httpx.AsyncClient(base_url=url, headers=AUTH) as http,
        ):
            async with http.stream(
                "POST", "/v1/conversations/owner/runs", json={"ask": "add x", "turn_id": "t-x"}
            ) as response:
                async for name, data in iter_sse(response):
                    if name != "confirm_request":
                        continue
                    stranger = await http.post(
                        "/v1/turns/t-x/confirm",
                        json={
                            "call_id": data["call_id"],
                            "approved": True,
                            "conversation_id": "intruder",
                        },
                    )
                    assert stranger.status_code == 404
                    cancel = await http.post(
                        "/v1/turns/t-x/cancel", json={"conversation_id": "intruder"}
                    )
                    assert cancel.status_code == 404
                    owner = await http.post(
                        "/v1/turns/t-x/confirm",
                        json={
                            "call_id": data["call_id"],
                            "approved": False,
                            "conversation_id": "owner",
                        },
                    )
                    assert owner.status_code == 204

    async def test_a_wrong_method_is_a_405_in_the_api_error_shape(self) -> None:
        """With the token, PUT on a run route is 405 naming the allowed method, as JSON."""
        async with (
            running_daemon(make_agent()) as url,
            httpx.AsyncClient(base_url=url, headers=AUTH) as http,
        ):
            reply = await http.put("/v1/conversations/a/runs", json={"ask": "hi"})
        assert reply.status_code == 405
        assert reply.headers["allow"] == "POST"
        assert reply.json()["error"] == {
            "code": "method_not_allowed",
            "message": "PUT is not allowed here",
        }

    async def test_the_openapi_document_is_served_and_checked_in(self) -> None:
        """/openapi.json is the document in docs/openapi.json."""
        checked_in = json.loads((Path(__file__).parents[2] / "docs" / "openapi.json").read_text())
        assert checked_in == json.loads(json.dumps(openapi_document()))
        async with running_daemon(make_agent()) as url, httpx.AsyncClient(base_url=url) as http:
            assert (await http.get("/openapi.json")).json() == checked_in

    async def test_memory_can_be_read_and_forgotten(self) -> None:
        """GET memory shows the exchanges; DELETE forgets them."""
        async with running_daemon(make_agent()) as url, Client.http(url, token=TOKEN) as client:
            await client.run("hello", conversation_id="m")
            assert [e.ask for e in (await client.memory("m")).recent] == ["hello"]
            await client.forget("m")
            assert (await client.memory("m")).recent == []

    async def test_a_busy_conversation_answers_429(self) -> None:
        """With the run mailbox full, another run is refused at once with 429."""
        from actors import RuntimeLimits

        agent = make_agent().with_options(runtime_limits=RuntimeLimits(run_mailbox=1))
        async with (
            running_daemon(agent) as url,
            httpx.AsyncClient(base_url=url, headers=AUTH) as http,
        ):
            async with trio.open_nursery() as nursery:

                async def occupy(ask: str, turn_id: str) -> None:
                    body = {"ask": ask, "turn_id": turn_id}
                    async with http.stream(
                        "POST", "/v1/conversations/busy/runs", json=body
                    ) as response:
                        async for _ in response.aiter_lines():
                            pass

                async def reached(turn_id: str, status: str) -> None:
                    while (await http.get(f"/v1/turns/{turn_id}")).json().get("status") != status:
                        await trio.sleep(0.01)

                nursery.start_soon(occupy, "wait 1", "w1")
                await reached("w1", "running")
                nursery.start_soon(occupy, "wait 2", "w2")
                await reached("w2", "queued")
                refused = await http.post("/v1/conversations/busy/runs", json={"ask": "one more"})
                assert refused.status_code == 429
                assert refused.json()["error"]["code"] == "busy"
                nursery.cancel_scope.cancel()


async def raw_request(url: str, head: str, body: bytes = b"") -> trio.SocketStream:
    """Open a connection to ``url`` and send one request (``head`` without its blank line)."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    stream = await trio.open_tcp_stream(host, int(port))
    await stream.send_all(
        f"{head}\r\nhost: {host}:{port}\r\nauthorization: Bearer {TOKEN}\r\n"
        f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n".encode()
        + body
    )
    return stream


async def read_until_closed(stream: trio.SocketStream, seconds: float) -> tuple[bytes, bool]:
    """What the server sends, and whether it closed the connection within ``seconds``."""
    data = b""
    with trio.move_on_after(seconds):
        while chunk := await stream.receive_some(65536):
            data += chunk
        return data, True
    return data, False


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


class TestConnections:
    @pytest.mark.slow
    async def test_a_finished_stream_with_connection_close_is_closed_by_the_server(
        self,
    ) -> None:
        """After a run's last event the server closes a `Connection: close` connection: fifty
        runs leave no connection (and no descriptor) behind."""
        body = json.dumps({"ask": "hello"}).encode()
        async with running_daemon(make_agent()) as url:
            before = open_descriptors()
            for n in range(50):
                stream = await raw_request(
                    url, f"POST /v1/conversations/k{n}/runs HTTP/1.1\r\nconnection: close", body
                )
                data, closed = await read_until_closed(stream, 5)
                await stream.aclose()
                assert b"event: result" in data
                assert closed, f"run {n}: the server kept the connection open"
            await trio.sleep(0.1)
            assert open_descriptors() - before < 5

    async def test_a_kept_alive_connection_is_closed_when_idle_after_a_stream(self) -> None:
        """Without `Connection: close` the connection stays open for the next request once a
        stream ended, and is closed after `keep_alive_timeout` of idleness."""
        body = json.dumps({"ask": "hello"}).encode()
        async with running_daemon(make_agent(), keep_alive_timeout=0.5) as url:
            stream = await raw_request(url, "POST /v1/conversations/ka/runs HTTP/1.1", body)
            data, closed = await read_until_closed(stream, 4)
            await stream.aclose()
        assert b"event: result" in data and data.endswith(b"0\r\n\r\n")
        assert closed, "the idle kept-alive connection was never closed"


class LoopRouter:
    """A fleet membership that says another node owns every conversation — and that node is
    this one: every forwarded request comes back, so only the hop limit ends the loop."""

    node_id = "loop"

    def __init__(self) -> None:
        self.url: str | None = None

    def is_local(self, conversation_id: str | None) -> bool:
        return False

    def owner_url(self, conversation_id: str | None) -> str | None:
        return self.url


class TestHops:
    @pytest.mark.parametrize("value", ["abc", "-1", "-1000", "1.5", "1e3", "0x1", "9999"])
    async def test_a_malformed_or_negative_hop_count_is_a_400(self, value: str) -> None:
        """x-goliath-hops is the daemon's own: anything but a small count is refused (it was
        a 500, and a negative count bought extra hops)."""
        router = LoopRouter()
        async with (
            running_daemon(make_agent(), router=router) as url,
            httpx.AsyncClient(base_url=url, headers=AUTH) as http,
        ):
            router.url = url
            for method, path in [("POST", "/v1/conversations/h/runs"), ("GET", "/v1/turns/t")]:
                reply = await http.request(
                    method, path, json={"ask": "hi"}, headers={"x-goliath-hops": value}
                )
                assert reply.status_code == 400, (method, reply.text)
                assert "x-goliath-hops" in reply.json()["error"]["message"]

    async def test_a_forwarding_loop_ends_at_the_hop_limit(self) -> None:
        """A request bounced between owners stops after MAX_HOPS with a 503 it can retry."""
        router = LoopRouter()
        async with (
            running_daemon(make_agent(), router=router) as url,
            httpx.AsyncClient(base_url=url, headers=AUTH, timeout=10) as http,
        ):
            router.url = url
            reply = await http.post("/v1/conversations/h/runs", json={"ask": "hi"})
        assert reply.status_code == 503
        assert "moving" in reply.json()["error"]["message"]


class TestServerErrors:
    async def test_an_unexpected_error_is_logged_and_answered_with_a_json_500(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        """A request the daemon fails to answer (here: the runtime cannot be reached) is a JSON
        500, logged with its traceback on `goliath.http`; the daemon keeps serving."""
        agent = make_agent()

        def runtime() -> Any:
            raise RuntimeError("the runtime is unreachable")

        async with agent, trio.open_nursery() as nursery:
            from transports.http import serve_http

            binds = await nursery.start(functools.partial(serve_http, runtime, port=0, token=TOKEN))
            async with httpx.AsyncClient(base_url=binds[0], headers=AUTH) as http:
                with caplog.at_level(logging.ERROR, logger="goliath.http"):
                    reply = await http.get("/v1/turns/t")
                    health = await http.get("/healthz")
            nursery.cancel_scope.cancel()
        assert reply.status_code == 500
        assert reply.json()["error"]["code"] == "error"
        assert health.status_code == 200
        logged = [r for r in caplog.records if r.name == "goliath.http"]
        assert logged and logged[0].exc_info is not None
        assert "the runtime is unreachable" in caplog.text

    async def test_a_client_gone_mid_answer_is_no_error_and_gets_no_second_answer(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        """The socket breaking under an answer already started (Hypercorn saw the client leave
        and closed it during the last send) is logged as one line, not as a failure with a
        traceback, and no 500 is sent after the answer began."""
        from transports.http import HttpLimits
        from transports.http.door import _FrontDoor

        async def answer_then_break(scope: Any, receive: Any, send: Any) -> None:
            await send({"type": "http.response.start", "status": 200, "headers": []})
            raise trio.BrokenResourceError("the client went away")

        sent: list[dict[str, Any]] = []

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        door = _FrontDoor(answer_then_break, limits=HttpLimits())
        scope = {"type": "http", "method": "GET", "path": "/v1/turns/t", "headers": []}
        with caplog.at_level(logging.INFO, logger="goliath.http"):
            await door(scope, receive, send)
        assert [message["type"] for message in sent] == ["http.response.start"]
        logged = [r for r in caplog.records if r.name == "goliath.http"]
        assert [r.levelno for r in logged] == [logging.INFO] and logged[0].exc_info is None


class TestRefusedBodies:
    @pytest.mark.slow
    async def test_requests_refused_before_their_body_is_read_keep_the_connection_usable(
        self,
    ) -> None:
        """A POST refused before its body was read (a bad id, no token) is answered, and the
        client's kept-alive connection carries the next request: the body is drained, or the
        answer says `connection: close`. (A client reusing a connection the server was about to
        close lost its next request: "Server disconnected without sending a response".)"""
        from tests.processes import start_goliath

        process, url, _ = await start_goliath(
            "tests.transports.daemon_app:make_agent", "--port", "0", env={"GOLIATH_TOKEN": TOKEN}
        )
        try:
            await self._refuse_sixty_times(url)
        finally:
            process.kill()
            await process.wait()

    async def _refuse_sixty_times(self, url: str) -> None:
        async with httpx.AsyncClient(base_url=url, headers=AUTH) as http:
            for n in range(60):
                bad = await http.post(f"/v1/conversations/{'x' * 129}/runs", json={"ask": "hi"})
                assert bad.status_code == 400, n
                refused = await http.post(
                    "/v1/conversations/ok/runs", json={"ask": "hi"}, headers={"authorization": ""}
                )
                assert refused.status_code == 401, n
                assert (await http.get("/healthz")).status_code == 200, n
