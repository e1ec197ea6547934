"""Event ids, answer tokens and resuming a turn's stream, over real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
from typing import Any

import httpx
from httpx_sse import EventSource

from transports.client import Client

from .conftest import TOKEN, running_daemon
from .daemon_app import make_agent

AUTH = {"authorization": f"Bearer {TOKEN}"}


async def read(response: httpx.Response) -> list[tuple[int, str, Any]]:
    return [
        (int(event.id), event.event, json.loads(event.data))
        async for event in EventSource(response).aiter_sse()
        if event.data
    ]


async def test_every_event_has_an_id_and_the_answer_arrives_as_tokens() -> None:
    """Ids run 1, 2, 3, ...; `token` events spell the answer before the `result` event."""
    async with (
        running_daemon(make_agent()) as url,
        httpx.AsyncClient(base_url=url, headers=AUTH) as http,
    ):
        async with http.stream(
            "POST", "/v1/conversations/a/runs", json={"ask": "tell me a story"}
        ) as response:
            events = await read(response)
    assert [event_id for event_id, _, _ in events] == list(range(1, len(events) + 1))
    names = [name for _, name, _ in events]
    tokens = [data["text"] for _, name, data in events if name == "token"]
    assert len(tokens) == 6 and "".join(tokens) == "answer to tell me a story"
    assert names.index("token") < names.index("answer") < names.index("result")


async def test_a_client_that_lost_its_connection_resumes_after_the_last_event_it_saw() -> None:
    """Drop the stream mid-turn, reconnect with Last-Event-ID: the events after it, none twice."""
    async with (
        running_daemon(make_agent()) as url,
        httpx.AsyncClient(base_url=url, headers=AUTH) as http,
    ):
        first: list[tuple[int, str, Any]] = []
        async with http.stream(
            "POST", "/v1/conversations/r/runs", json={"ask": "wait", "turn_id": "resume-1"}
        ) as response:
            async for event in EventSource(response).aiter_sse():
                first.append((int(event.id), event.event, json.loads(event.data)))
                if event.event == "plan":
                    break  # the connection goes away while the slow tool runs
        last_seen = first[-1][0]
        headers = {"last-event-id": str(last_seen)}
        async with http.stream("GET", "/v1/turns/resume-1/events", headers=headers) as response:
            assert response.status_code == 200
            assert (await http.post("/v1/turns/resume-1/cancel")).status_code == 202
            again = await read(response)
    assert again[0][0] == last_seen + 1
    assert all(event_id > last_seen for event_id, _, _ in again)
    assert [event_id for event_id, _, _ in again] == list(range(last_seen + 1, again[-1][0] + 1))
    assert again[-1][1] == "error" and again[-1][2]["code"] == "cancelled"


async def test_the_same_run_request_again_replays_the_turn_after_last_event_id() -> None:
    """POSTing the same turn id with Last-Event-ID gives the rest of that turn's events, with
    their ids, and never an answered confirmation again."""
    created: list[str] = []
    async with (
        running_daemon(make_agent(created)) as url,
        httpx.AsyncClient(base_url=url, headers=AUTH) as http,
    ):
        async with Client.http(url, token=TOKEN) as client:
            result = await client.run(
                "add figs", conversation_id="p", turn_id="same", confirm=lambda r: True
            )
        body = {"ask": "add figs", "turn_id": "same"}
        async with http.stream("POST", "/v1/conversations/p/runs", json=body) as response:
            everything = await read(response)
        async with http.stream(
            "POST", "/v1/conversations/p/runs", json=body, headers={"last-event-id": "3"}
        ) as response:
            rest = await read(response)
    assert created == ["figs"]
    assert rest == [event for event in everything if event[0] > 3]
    assert "confirm_request" not in [name for _, name, _ in everything]
    assert rest[-1][1] == "result" and rest[-1][2]["text"] == result.text


async def test_resuming_an_unknown_turn_or_with_a_bad_id_is_refused() -> None:
    """An unknown turn is 404; a Last-Event-ID that is not a number is 400."""
    async with (
        running_daemon(make_agent()) as url,
        httpx.AsyncClient(base_url=url, headers=AUTH) as http,
    ):
        unknown = await http.get("/v1/turns/nobody/events")
        bad = await http.get("/v1/turns/nobody/events", headers={"last-event-id": "x1"})
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "not_found"
    assert bad.status_code == 400 and "Last-Event-ID" in bad.json()["error"]["message"]


async def test_the_python_client_hands_over_tokens() -> None:
    """Client.run(on_token=...) receives the answer's pieces as the daemon streams them."""
    pieces: list[str] = []
    async with running_daemon(make_agent()) as url, Client.http(url, token=TOKEN) as client:
        result = await client.run("say hi", conversation_id="t", on_token=pieces.append)
    assert "".join(pieces) == result.text == "answer to say hi"


async def test_a_kept_stream_is_resumed_only_by_the_request_that_started_it() -> None:
    """The same turn id with another ask, or in another conversation, is a 409 — never an
    answer from the kept stream of a different request — and the turn's own stream is intact
    afterwards (a refused twin does not replace or drop it)."""
    async with (
        running_daemon(make_agent()) as url,
        httpx.AsyncClient(base_url=url, headers=AUTH) as http,
    ):
        done = await http.post(
            "/v1/conversations/own/runs", json={"ask": "hello", "turn_id": "twin"}
        )
        assert "answer to hello" in done.text
        other_ask = await http.post(
            "/v1/conversations/own/runs", json={"ask": "goodbye", "turn_id": "twin"}
        )
        other_place = await http.post(
            "/v1/conversations/elsewhere/runs", json={"ask": "hello", "turn_id": "twin"}
        )
        async with http.stream(
            "POST", "/v1/conversations/own/runs", json={"ask": "hello", "turn_id": "twin"}
        ) as response:
            again = await read(response)
    assert other_ask.status_code == 409 and other_ask.json()["error"]["code"] == "conflict"
    assert "another request" in other_ask.json()["error"]["message"]
    assert other_place.status_code == 409 and "another conversation" in other_place.text
    assert again[0][1] == "turn" and again[-1][1] == "result"
    assert again[-1][2]["text"] == "answer to hello"


async def test_kept_feeds_are_bounded_by_bytes_the_oldest_finished_dropped_first() -> None:
    """Feeds of finished turns are dropped oldest first past the byte budget; a running
    turn's feed stays (bounded by its own limit, which keeps its newest events), and a
    reader resuming it from before the oldest kept event starts at that event."""
    from transports.feeds import Feeds

    feeds = Feeds(byte_limit=100_000, feed_byte_limit=60_000)
    running = feeds.open("running", "c")
    for number in range(30):
        finished = feeds.open(f"done-{number}", "c")
        finished.push("result", {"text": "y" * 30_000}, last=True)
        running.push("tool", {"output": "z" * 5_000})
        assert feeds.bytes <= 100_000 + 60_000
    assert feeds.get("running") is running and 55_000 <= running.bytes <= 60_000
    assert feeds.get("done-0") is None and feeds.get("done-29") is not None
    assert feeds.bytes == sum(
        feed.bytes
        for key in ["running", *(f"done-{n}" for n in range(30))]
        if (feed := feeds.get(key))
    )
    running.push("result", {"text": "end"}, last=True)
    seen = [event async for event in running.follow(0)]
    last_id = 1 + 30 + 1  # the feed's ``turn`` event, 30 tool events, the result
    assert seen[0].id == str(last_id - len(seen) + 1) and seen[-1].event == "result"
    assert seen[-1].id == str(last_id)
