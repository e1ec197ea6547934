"""Nothing lost, no write run twice: cancels after writes, approvals that outlive restarts.

Real daemon processes (`goliath serve`) on 127.0.0.1 with a real SQLite file; writes are
counted in a file the tool appends to, so they can be counted across processes.
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio

from goliath.durable import idempotency_key
from tests.processes import start_goliath
from tests.sse import iter_sse, parse_sse

pytestmark = pytest.mark.slow
TOKEN = "durable-token"
HEADERS = {"authorization": f"Bearer {TOKEN}"}


@asynccontextmanager
async def daemon(store: str, writes: Path, *extra: str) -> AsyncIterator[tuple[trio.Process, str]]:
    process, url, _ = await start_goliath(
        "tests.transports.daemon_app:make_agent",
        *("--port", "0", "--token", TOKEN, "--store", store, *extra),
        env={"GOLIATH_WRITES_FILE": str(writes)},
    )
    try:
        yield process, url
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            with trio.move_on_after(15):
                await process.wait()
        if process.returncode is None:
            process.kill()
            await process.wait()


def written(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [line.split("\t")[0] for line in path.read_text().splitlines()]


async def wait_status(http: httpx.AsyncClient, turn_id: str, status: str) -> dict[str, Any]:
    with trio.fail_after(20):
        while True:
            reply = await http.get(f"/v1/turns/{turn_id}")
            if reply.status_code == 200 and reply.json()["status"] == status:
                return dict(reply.json())
            await trio.sleep(0.05)


class TestCancelAfterAWrite:
    async def test_a_cancel_after_an_approved_write_keeps_the_write_in_record_memory_and_recall(
        self, tmp_path: Path
    ) -> None:
        """Approve a write, let it happen, cancel during the slow step after it: the turn reads
        `cancelled` with its steps, memory holds an interrupted exchange with the write, the
        next turn's prompt shows it, and the client was told the write ran."""
        writes = tmp_path / "writes.txt"
        async with daemon(f"sqlite:{tmp_path / 'd.db'}", writes) as (_, url):
            async with httpx.AsyncClient(base_url=url, headers=HEADERS, timeout=30) as http:
                events: list[tuple[str, Any]] = []
                async with http.stream(
                    "POST",
                    "/v1/conversations/k/runs",
                    json={"ask": "add jam then wait and tell me", "turn_id": "t1"},
                ) as response:
                    async for name, data in iter_sse(response):
                        events.append((name, data))
                        if name == "confirm_request":
                            reply = await http.post(
                                "/v1/turns/t1/confirm",
                                json={"call_id": data["call_id"], "approved": True},
                            )
                            assert reply.status_code == 204
                        if name == "plan" and data.get("tool") == "slow_job":
                            assert (await http.post("/v1/turns/t1/cancel")).status_code == 202
                assert written(writes) == ["jam"]
                name, end = events[-1]
                assert (name, end["code"]) == ("error", "cancelled")
                assert "create_task" in end["message"]
                record = (await http.get("/v1/turns/t1")).json()
                assert record["status"] == "cancelled"
                assert [(s["tool"], s.get("output")) for s in record["steps"]] == [
                    ("create_task", {"ok": True, "title": "jam"}),
                    ("slow_job", None),
                ]
                memory = (await http.get("/v1/conversations/k/memory")).json()
                [exchange] = memory["recent"]
                assert (
                    exchange["ask"] == "add jam then wait and tell me" and exchange["interrupted"]
                )
                assert [s["tool"] for s in exchange["steps"]] == ["create_task", "slow_job"]
                again = parse_sse(
                    (
                        await http.post(
                            "/v1/conversations/k/runs", json={"ask": "what did you do?"}
                        )
                    ).text
                )
                assert again[-1][0] == "result"
                recalled = (await http.get("/v1/conversations/k/memory")).json()
                assert [e["ask"] for e in recalled["recent"]] == [
                    "add jam then wait and tell me",
                    "what did you do?",
                ]
        assert written(writes) == ["jam"]

    async def test_a_write_cut_off_by_a_cancel_while_it_runs_is_outcome_unknown(
        self, tmp_path: Path
    ) -> None:
        """Cancelled while the write itself runs: its step is marked outcome-unknown (in the
        record and in memory), never retried."""
        writes = tmp_path / "writes.txt"
        async with daemon(f"sqlite:{tmp_path / 'd.db'}", writes) as (_, url):
            async with httpx.AsyncClient(base_url=url, headers=HEADERS, timeout=30) as http:
                async with http.stream(
                    "POST",
                    "/v1/conversations/u/runs",
                    json={"ask": "log pay rent", "turn_id": "t2"},
                ) as response:
                    async for name, data in iter_sse(response):
                        if name == "confirm_request":
                            await http.post(
                                "/v1/turns/t2/confirm",
                                json={"call_id": data["call_id"], "approved": True},
                            )
                            with trio.fail_after(10):
                                while written(writes) != ["pay rent"]:
                                    await trio.sleep(0.02)
                            await http.post("/v1/turns/t2/cancel")
                record = (await http.get("/v1/turns/t2")).json()
                [step] = record["steps"]
                assert step["outcome_unknown"] and step["result"].startswith("outcome unknown")
                memory = (await http.get("/v1/conversations/u/memory")).json()
                assert memory["recent"][-1]["steps"][0]["outcome_unknown"]
        assert written(writes) == ["pay rent"]

    async def test_turns_cancelled_at_shutdown_after_the_grace_keep_their_writes(
        self, tmp_path: Path
    ) -> None:
        """SIGTERM with a short grace during the step after a write: after a restart the turn
        reads `cancelled` with its steps and memory holds the write."""
        writes = tmp_path / "writes.txt"
        store = f"sqlite:{tmp_path / 'd.db'}"
        async with daemon(store, writes, "--grace", "0.3") as (process, url):
            async with httpx.AsyncClient(base_url=url, headers=HEADERS, timeout=30) as http:
                async with http.stream(
                    "POST",
                    "/v1/conversations/s/runs",
                    json={"ask": "add tea then wait and tell me", "turn_id": "t3"},
                ) as response:
                    async for name, data in iter_sse(response):
                        if name == "confirm_request":
                            await http.post(
                                "/v1/turns/t3/confirm",
                                json={"call_id": data["call_id"], "approved": True},
                            )
                        if name == "plan" and data.get("tool") == "slow_job":
                            process.send_signal(signal.SIGTERM)
            with trio.fail_after(15):
                assert await process.wait() == 0
        async with daemon(store, writes) as (_, url):
            async with httpx.AsyncClient(base_url=url, headers=HEADERS, timeout=30) as http:
                record = (await http.get("/v1/turns/t3")).json()
                assert record["status"] == "cancelled"
                assert [s["tool"] for s in record["steps"]] == ["create_task", "slow_job"]
                memory = (await http.get("/v1/conversations/s/memory")).json()
                assert memory["recent"][-1]["steps"][0]["tool"] == "create_task"
        assert written(writes) == ["tea"]


class TestDurableApprovals:
    @pytest.mark.parametrize("stop", ["SIGKILL", "SIGTERM"])
    async def test_a_pending_approval_outlives_a_restart_and_runs_the_write_once(
        self, stop: str, tmp_path: Path
    ) -> None:
        """Paused at a write, the daemon dies (or restarts): after the restart the turn is still
        awaiting confirmation, GET shows the pending call, a client that retries the run sees
        the same confirm request, and approving it runs the write once."""
        writes = tmp_path / "writes.txt"
        store = f"sqlite:{tmp_path / 'd.db'}"
        async with daemon(store, writes, "--grace", "0.3") as (process, url):
            async with httpx.AsyncClient(base_url=url, headers=HEADERS, timeout=30) as http:
                async with http.stream(
                    "POST", "/v1/conversations/p/runs", json={"ask": "add figs", "turn_id": "a1"}
                ) as response:
                    async for name, data in iter_sse(response):
                        if name == "confirm_request":
                            asked = data
                            break
                if stop == "SIGKILL":
                    process.kill()
                else:
                    process.send_signal(signal.SIGTERM)
                await process.wait()
        assert asked["fingerprint"] and written(writes) == []
        async with daemon(store, writes) as (_, url):
            async with httpx.AsyncClient(base_url=url, headers=HEADERS, timeout=30) as http:
                status = await wait_status(http, "a1", "awaiting_confirmation")
                pending = status["pending"]
                assert (pending["call_id"], pending["tool"], pending["input"]) == (
                    asked["call_id"],
                    "create_task",
                    {"title": "figs"},
                )
                assert pending["fingerprint"] == asked["fingerprint"]
                events: list[tuple[str, Any]] = []
                async with http.stream(
                    "POST", "/v1/conversations/p/runs", json={"ask": "add figs", "turn_id": "a1"}
                ) as response:
                    async for name, data in iter_sse(response):
                        events.append((name, data))
                        if name == "confirm_request":
                            assert data["fingerprint"] == asked["fingerprint"]
                            reply = await http.post(
                                "/v1/turns/a1/confirm",
                                json={
                                    "call_id": data["call_id"],
                                    "approved": True,
                                    "fingerprint": data["fingerprint"],
                                },
                            )
                            assert reply.status_code == 204, reply.text
                assert events[-1][0] == "result", events
                assert events[-1][1]["text"] == "answer to add figs"
                again = await http.post(
                    "/v1/turns/a1/confirm", json={"call_id": asked["call_id"], "approved": True}
                )
                assert again.status_code == 409
                assert (await http.get("/v1/turns/a1")).json()["status"] == "done"
        assert written(writes) == ["figs"]
        # the tool got the call's idempotency key: the same one the first process would have used
        [(_, key)] = [line.split("\t") for line in writes.read_text().splitlines()]
        assert key == idempotency_key("a1", asked["call_id"], asked["fingerprint"])

    async def test_a_write_cut_off_by_a_crash_is_outcome_unknown_and_never_run_again(
        self, tmp_path: Path
    ) -> None:
        """SIGKILL while an approved write runs: after the restart the turn is interrupted, the
        step is outcome-unknown (record and memory), and retrying the turn id runs nothing."""
        writes = tmp_path / "writes.txt"
        store = f"sqlite:{tmp_path / 'd.db'}"
        async with daemon(store, writes) as (process, url):
            async with httpx.AsyncClient(base_url=url, headers=HEADERS, timeout=30) as http:
                async with http.stream(
                    "POST",
                    "/v1/conversations/o/runs",
                    json={"ask": "log pay rent", "turn_id": "o1"},
                ) as response:
                    async for name, data in iter_sse(response):
                        if name == "confirm_request":
                            await http.post(
                                "/v1/turns/o1/confirm",
                                json={"call_id": data["call_id"], "approved": True},
                            )
                            with trio.fail_after(10):
                                while written(writes) != ["pay rent"]:
                                    await trio.sleep(0.02)
                            process.kill()
                            break
                await process.wait()
        async with daemon(store, writes) as (_, url):
            async with httpx.AsyncClient(base_url=url, headers=HEADERS, timeout=30) as http:
                record = (await http.get("/v1/turns/o1")).json()
                assert record["status"] == "interrupted"
                [step] = record["steps"]
                assert step["outcome_unknown"] and step["tool"] == "log_slowly"
                memory = (await http.get("/v1/conversations/o/memory")).json()
                exchange = memory["recent"][-1]
                assert exchange["interrupted"] and exchange["steps"][0]["outcome_unknown"]
                retry = await http.post(
                    "/v1/conversations/o/runs", json={"ask": "log pay rent", "turn_id": "o1"}
                )
                assert '"code":"interrupted"' in retry.text
        assert written(writes) == ["pay rent"]


async def ask(http: httpx.AsyncClient, conversation: str, text: str) -> list[tuple[str, Any]]:
    """One whole run: its events, once it ends."""
    reply = await http.post(f"/v1/conversations/{conversation}/runs", json={"ask": text})
    return parse_sse(reply.text)


async def follow(http: httpx.AsyncClient, conversation: str, text: str, turn_id: str) -> None:
    """A run's stream read until it ends, or until the daemon dies under it."""
    try:
        async with http.stream(
            "POST",
            f"/v1/conversations/{conversation}/runs",
            json={"ask": text, "turn_id": turn_id},
        ) as response:
            async for _ in iter_sse(response):
                pass
    except httpx.HTTPError:
        pass  # the daemon was killed mid-stream


class TestNothingSaidIsLost:
    async def test_a_kill_with_one_running_and_three_queued_keeps_every_real_exchange(
        self, tmp_path: Path
    ) -> None:
        """4 real exchanges, then 1 running and 3 queued runs, kill -9, restart: memory keeps
        the real exchanges (the oldest folded into the brief, as a normal turn folds it), adds
        one interrupted exchange for the turn that ran, and none for the three that never
        started; the next turn folds what no longer fits the recent window, losing nothing."""
        writes = tmp_path / "writes.txt"
        store = f"sqlite:{tmp_path / 'd.db'}"
        async with daemon(store, writes) as (process, url):
            async with httpx.AsyncClient(base_url=url, headers=HEADERS, timeout=30) as http:
                for number in range(1, 5):
                    assert (await ask(http, "m", f"q{number}"))[-1][0] == "result"
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(follow, http, "m", "wait", "w5")
                    await wait_status(http, "w5", "running")
                    for number in (6, 7, 8):
                        nursery.start_soon(follow, http, "m", f"q{number}", f"q{number}")
                        await wait_status(http, f"q{number}", "queued")
                    process.kill()
                    await process.wait()
        async with daemon(store, writes) as (_, url):
            async with httpx.AsyncClient(base_url=url, headers=HEADERS, timeout=30) as http:
                memory = (await http.get("/v1/conversations/m/memory")).json()
                assert memory["summary"] == "Goal: chat\nDone: q1"
                assert [e["ask"] for e in memory["recent"]] == ["q2", "q3", "q4", "wait"]
                assert [e.get("interrupted", False) for e in memory["recent"]] == [
                    False,
                    False,
                    False,
                    True,
                ]
                for turn in ("w5", "q6", "q7", "q8"):
                    assert (await http.get(f"/v1/turns/{turn}")).json()["status"] == "interrupted"
                assert (await ask(http, "m", "q9"))[-1][0] == "result"
                memory = (await http.get("/v1/conversations/m/memory")).json()
                assert memory["summary"] == "Goal: chat\nDone: q1 | q2 | q3"
                assert [e["ask"] for e in memory["recent"]] == ["q4", "wait", "q9"]


async def numbered(response: httpx.Response, until: str) -> list[tuple[int, str, Any]]:
    """``(id, name, data)`` of each event of a stream, up to the first ``until`` event."""
    import json

    from httpx_sse import EventSource

    seen: list[tuple[int, str, Any]] = []
    async for event in EventSource(response).aiter_sse():
        if event.data:
            seen.append((int(event.id), event.event, json.loads(event.data)))
            if event.event == until:
                break
    return seen


class TestDurableEventLog:
    async def test_after_a_restart_a_paused_turns_events_replay_in_order_with_its_question(
        self, tmp_path: Path
    ) -> None:
        """kill -9 while a write waits for approval: after the restart `GET .../events` replays
        the turn's events from the store, numbered as before, ending with the pending
        `confirm_request` and its fingerprint; a client resuming with `Last-Event-ID` gets the
        question next, and answering it runs the write once."""
        writes = tmp_path / "writes.txt"
        store = f"sqlite:{tmp_path / 'd.db'}"
        async with daemon(store, writes) as (process, url):
            async with httpx.AsyncClient(base_url=url, headers=HEADERS, timeout=30) as http:
                async with http.stream(
                    "POST", "/v1/conversations/e/runs", json={"ask": "add figs", "turn_id": "e1"}
                ) as response:
                    before = await numbered(response, "confirm_request")
                process.kill()
                await process.wait()
        *told, (asked_id, _, asked) = before
        assert len(told) >= 2 and asked["fingerprint"]
        async with daemon(store, writes) as (_, url):
            async with httpx.AsyncClient(base_url=url, headers=HEADERS, timeout=30) as http:
                await wait_status(http, "e1", "awaiting_confirmation")
                async with http.stream("GET", "/v1/turns/e1/events") as response:
                    replayed = await numbered(response, "confirm_request")
                assert [(i, name) for i, name, _ in replayed] == [(i, n) for i, n, _ in before]
                assert replayed[-1][2] == asked
                resume = {"last-event-id": str(told[-1][0])}
                async with http.stream("GET", "/v1/turns/e1/events", headers=resume) as response:
                    events: list[tuple[int, str, Any]] = []
                    import json

                    from httpx_sse import EventSource

                    async for event in EventSource(response).aiter_sse():
                        if not event.data:
                            continue
                        events.append((int(event.id), event.event, json.loads(event.data)))
                        if event.event == "confirm_request":
                            reply = await http.post(
                                "/v1/turns/e1/confirm",
                                json={
                                    "call_id": event.json()["call_id"],
                                    "approved": True,
                                    "fingerprint": event.json()["fingerprint"],
                                },
                            )
                            assert reply.status_code == 204, reply.text
                assert events[0] == (asked_id, "confirm_request", asked)
                assert events[-1][1] == "result"
                assert [i for i, _, _ in events] == sorted({i for i, _, _ in events})
        assert written(writes) == ["figs"]
