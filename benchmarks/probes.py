"""Probes of `goliath serve` as a hostile client and as an operator would try it (issue #19).

Run: ``python benchmarks/probes.py`` (about two minutes; ``--no-fleet`` skips the PostgreSQL
fail-over). Starts real daemon processes on 127.0.0.1 — HTTP + SSE, the frame socket, the
SQLite store, users from a file, and for the fail-over two nodes on a private PostgreSQL — and
tries each bad input once. A bad input is *handled cleanly* when the daemon answers it as
documented (the expected refusal, never a 5xx) and is still serving afterwards. Each fault is
injected on purpose and passes when nothing is lost and no write runs twice (writes are
counted in a file the tools append to). Prints one line per probe, then the figures for
docs/reliability.md; exits 1 if anything was not handled.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import struct
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import psutil
import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from actors.messages import (
    ConfirmReply,
    Failure,
    GetTurn,
    Hello,
    Run,
    decode_msgpack,
    encode_msgpack,
)
from tests.processes import start_goliath
from tests.sse import iter_sse
from transports.client import Client, RemoteError

TOKEN = "probe-operator-token-0000"
ALICE = "probe-alice-token-11111"
BOB = "probe-bob-token-2222222"
AUTH = {"authorization": f"Bearer {TOKEN}"}
APP = "tests.reliability.probe_app:make_agent"
CONFIRM_TIMEOUT = 3.0
TRICKY_IDS = [
    "..",
    "%2e%2e",
    "..%2Fetc%2Fpasswd",
    "a%2Fb",
    "%252e%252e%252f",
    "..%5C..%5Cwindows",
    "a%00b",
    "%00",
    ".hidden",
    "-rf",
    "a%20b",
    "%C3%A4",
    "a%0Ab",
    "x" * 129,
    "~root",
    "$(id)",
]


class Results:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, bool, str]] = []

    def add(self, kind: str, name: str, ok: bool, detail: str = "") -> None:
        self.rows.append((kind, name, ok, detail))
        mark = "ok  " if ok else "FAIL"
        print(f"{mark} {kind:<10} {name}{'  — ' + detail if detail else ''}", flush=True)

    async def check(
        self, kind: str, name: str, probe: Callable[[], Awaitable[bool | tuple[bool, str]]]
    ) -> None:
        try:
            with trio.fail_after(90):
                outcome = await probe()
        except Exception as exc:  # a probe that raises was not handled
            self.add(kind, name, False, f"{type(exc).__name__}: {exc}"[:300])
            return
        ok, detail = outcome if isinstance(outcome, tuple) else (outcome, "")
        self.add(kind, name, ok, detail)


class Daemon:
    """One `goliath serve` process: HTTP, the frame socket, SQLite, users."""

    def __init__(self, process: trio.Process, url: str, frames: str, store: Path) -> None:
        self.process, self.url, self.frames, self.store = process, url, frames, store
        self.port = int(url.rsplit(":", 1)[1])

    async def alive(self) -> bool:
        if self.process.returncode is not None:
            return False
        async with httpx.AsyncClient(base_url=self.url, timeout=10) as http:
            if (await http.get("/healthz")).status_code != 200:
                return False
        with trio.move_on_after(10):
            async with Client.stream(path=self.frames, token=TOKEN) as client:
                try:
                    await client.turn("never-a-turn")
                except RemoteError as exc:
                    return exc.code == "not_found"
        return False


@asynccontextmanager
async def daemon(folder: Path, *extra: str, name: str = "d") -> AsyncIterator[Daemon]:
    store = folder / f"{name}.db"
    frames = str(folder / f"{name}.sock")
    process, url, _ = await start_goliath(
        APP,
        *("--port", "0", "--store", f"sqlite:{store}", "--stream-socket", frames),
        *("--users", str(folder / "users.toml"), "--grace", "1", *extra),
        env={
            "GOLIATH_TOKEN": TOKEN,
            "GOLIATH_WRITES_FILE": str(folder / "writes.txt"),
            "GOLIATH_CONFIRM_TIMEOUT": str(CONFIRM_TIMEOUT),
        },
    )
    log = folder / f"{name}.stderr"
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(keep_stderr, process, log)
            yield Daemon(process, url, frames, store)
            nursery.cancel_scope.cancel()
    finally:
        await stop(process)
        said = log.read_text(errors="replace") if log.exists() else ""
        if "Traceback" in said:
            print(f"--- the daemon logged, in {name}:\n{said[-3000:]}", flush=True)


async def keep_stderr(process: trio.Process, log: Path) -> None:
    """Read the daemon's stderr so it never blocks on a full pipe, and keep it."""
    assert process.stderr is not None
    async with await trio.open_file(log, "ab") as file:
        while chunk := await process.stderr.receive_some(65536):
            await file.write(chunk)
            await file.flush()


async def stop(process: trio.Process, sig: int = signal.SIGTERM) -> None:
    if process.returncode is None:
        process.send_signal(sig)
        with trio.move_on_after(15):
            await process.wait()
    if process.returncode is None:
        process.kill()
        await process.wait()


def writes(folder: Path) -> list[str]:
    path = folder / "writes.txt"
    return [line.split("\t")[0] for line in path.read_text().splitlines()] if path.exists() else []


async def raw_http(port: int, data: bytes, seconds: float = 5.0) -> bytes:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(data)
        answer = b""
        with trio.move_on_after(seconds):
            try:
                while chunk := await stream.receive_some(65536):
                    answer += chunk
                    if b"\r\n\r\n" in answer and b"event-stream" not in answer:
                        head, _, body = answer.partition(b"\r\n\r\n")
                        length = [
                            int(line.split(b":")[1])
                            for line in head.split(b"\r\n")
                            if line.lower().startswith(b"content-length:")
                        ]
                        if length and len(body) >= length[0]:
                            break
            except trio.BrokenResourceError:
                pass
        return answer


def status_of(answer: bytes) -> int:
    try:
        return int(answer.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return 0


async def frame_exchange(path: str, payloads: list[bytes], seconds: float = 5.0) -> list[Any]:
    """Send raw frame bytes on a fresh connection; the replies until it closes (or times out)."""
    stream = await trio.open_unix_socket(path)
    replies: list[Any] = []
    async with stream:
        for payload in payloads:
            await stream.send_all(payload)
        buffer = b""
        with trio.move_on_after(seconds):
            try:
                while chunk := await stream.receive_some(65536):
                    buffer += chunk
                    while len(buffer) >= 4:
                        (size,) = struct.unpack(">I", buffer[:4])
                        if len(buffer) < 4 + size:
                            break
                        replies.append(decode_msgpack(buffer[4 : 4 + size]))
                        buffer = buffer[4 + size :]
            except trio.BrokenResourceError:
                pass
    return replies


def frame(message: Any) -> bytes:
    data = encode_msgpack(message)
    return struct.pack(">I", len(data)) + data


async def stream_until(
    http: httpx.AsyncClient, conversation: str, body: dict[str, Any], stop_at: str
) -> dict[str, Any]:
    """Run a turn and return the data of its first ``stop_at`` event (leaving the turn on)."""
    async with http.stream("POST", f"/v1/conversations/{conversation}/runs", json=body) as reply:
        async for name, data in iter_sse(reply):
            if name == stop_at:
                return dict(data)
            if name in ("result", "error") and stop_at not in ("result", "error"):
                raise AssertionError(f"the turn ended before {stop_at}: {name} {data}")
    raise AssertionError(f"no {stop_at} event")


async def until_status(http: httpx.AsyncClient, turn_id: str, *statuses: str) -> dict[str, Any]:
    with trio.fail_after(30):
        while True:
            reply = await http.get(f"/v1/turns/{turn_id}")
            if reply.status_code == 200 and reply.json()["status"] in statuses:
                return dict(reply.json())
            await trio.sleep(0.05)


# ---------------------------------------------------------------------------- bad inputs


async def http_probes(results: Results, d: Daemon, folder: Path) -> None:
    async with (
        httpx.AsyncClient(base_url=d.url, headers=AUTH, timeout=30) as http,
        httpx.AsyncClient(base_url=d.url, timeout=30) as bare,
    ):
        run = "/v1/conversations/p/runs"
        credentials: dict[str, dict[str, Any]] = {
            "no token": {},
            "wrong token": {"headers": {"authorization": "Bearer not-the-token"}},
            "`Bearer` alone": {"headers": {"authorization": "Bearer"}},
            "token without scheme": {"headers": {"authorization": TOKEN}},
            "Basic auth": {"headers": {"authorization": f"Basic {TOKEN}"}},
            "a prefix": {"headers": {"authorization": f"Bearer {TOKEN[:-1]}"}},
            "a suffix": {"headers": {"authorization": f"Bearer {TOKEN}x"}},
            "upper case": {"headers": {"authorization": f"Bearer {TOKEN.upper()}"}},
            "query string": {"params": {"token": TOKEN, "access_token": TOKEN}},
            "cookie": {"headers": {"cookie": f"token={TOKEN}"}},
            "another header": {"headers": {"x-api-key": TOKEN}},
            "forwarding headers": {
                "headers": {"x-goliath-forwarded-by": "n", "x-goliath-hops": "1"}
            },
            "a user token of nobody": {"headers": {"authorization": "Bearer probe-nobody-0000"}},
        }
        for label, options in credentials.items():

            async def probe(options: dict[str, Any] = options) -> bool:
                reply = await bare.post(run, json={"ask": "hi"}, **options)
                return reply.status_code == 401

            await results.check("auth", label, probe)

        for host in ["evil.example", "evil.example:80", "127.0.0.1.nip.io"]:

            async def probe_host(host: str = host) -> bool:
                reply = await http.get("/v1/turns/t", headers={"host": host})
                page = await http.get("/", headers={"host": host})
                return reply.status_code == 421 and page.status_code == 421

            await results.check("host", f"DNS rebinding: Host {host}", probe_host)

        async def framed() -> bool:
            page = await bare.get("/")
            policy = page.headers.get("content-security-policy", "")
            return (
                "frame-ancestors 'none'" in policy and page.headers.get("x-frame-options") == "DENY"
            )

        await results.check("host", "the chat page inside another site's frame", framed)

        head = (
            f"POST {run} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer {TOKEN}\r\n"
            "content-type: application/json\r\n"
        )

        async def declared_huge() -> bool:
            answer = await raw_http(d.port, (head + "content-length: 10000000000\r\n\r\n").encode())
            return status_of(answer) == 413

        await results.check("body", "declared 10 GB body", declared_huge)

        async def chunked_huge() -> tuple[bool, str]:
            stream = await trio.open_tcp_stream("127.0.0.1", d.port)
            sent = 0
            answer = b""
            async with stream:
                await stream.send_all((head + "transfer-encoding: chunked\r\n\r\n").encode())
                data = b"x" * 8192
                chunk = f"{len(data):x}\r\n".encode() + data + b"\r\n"
                try:
                    while sent < 4096:
                        await stream.send_all(chunk)
                        sent += 1
                        with trio.move_on_after(0):
                            answer += await stream.receive_some(65536)
                        if answer:
                            break
                except (trio.BrokenResourceError, OSError):
                    pass
                with trio.move_on_after(2):
                    answer += await stream.receive_some(65536)
            return status_of(answer) == 413 and sent < 2048, f"sent {sent} chunks"

        await results.check("body", "chunked 32 MiB body", chunked_huge)
        bodies: list[tuple[str, bytes, set[int]]] = [
            (
                "JSON nested 20,000 deep",
                b'{"ask":"a","context":' + b"[" * 20000 + b"]" * 20000 + b"}",
                {400},
            ),
            ("invalid UTF-8", b'{"ask":"\xff\xfe"}', {400}),
            ("not JSON", b"hello", {400}),
            ("an unknown field", b'{"ask":"hi","evil":1}', {400}),
            ("ask of the wrong type", b'{"ask":5}', {400}),
            ("an ask of 9,000 characters", json.dumps({"ask": "a" * 9000}).encode(), {413}),
            ("an empty turn id", b'{"ask":"hi","turn_id":""}', {400}),
            (
                "a 200-character turn id",
                json.dumps({"ask": "hi", "turn_id": "t" * 200}).encode(),
                {400},
            ),
            ("a NUL in the turn id", b'{"ask":"hi","turn_id":"a\\u0000b"}', {400}),
            ("a path as the turn id", b'{"ask":"hi","turn_id":"../../x"}', {400}),
        ]
        for label, body, expected in bodies:

            async def probe_body(body: bytes = body, expected: set[int] = expected) -> bool:
                reply = await http.post(run, content=body)
                return reply.status_code in expected

            await results.check("body", label, probe_body)

        async def bad_confirm() -> bool:
            reply = await http.post("/v1/turns/t/confirm", json={"call_id": "c", "approved": "yes"})
            return reply.status_code == 400

        await results.check("body", 'a confirmation with approved: "yes"', bad_confirm)

        for tricky in TRICKY_IDS:
            for method, path in [
                ("POST", f"/v1/conversations/{tricky}/runs"),
                ("GET", f"/v1/turns/{tricky}"),
            ]:

                async def probe_id(method: str = method, path: str = path) -> bool:
                    reply = await http.request(method, path, json={"ask": "hi"})
                    return reply.status_code in (400, 404)

                await results.check("id", f"{method} id {tricky[:24]!r}", probe_id)
        strays = [name for name in os.listdir(folder) if name.startswith(("..", "etc", "root"))]
        results.add("id", "nothing written beside the store", not strays, str(strays))

        for value in ["abc", "-1000"]:

            async def probe_hops(value: str = value) -> bool:
                reply = await http.post(run, json={"ask": "hi"}, headers={"x-goliath-hops": value})
                return reply.status_code == 400

            await results.check("header", f"x-goliath-hops: {value}", probe_hops)
        await seed(http, "seed")
        # The request hidden behind the first carries no token: however the first one's body is
        # delimited, the hidden one must never be carried out with the first one's credentials.
        smuggled = (
            b"DELETE /v1/conversations/seed/memory HTTP/1.1\r\nhost: 127.0.0.1\r\n"
            b"content-length: 0\r\n\r\n"
        )
        attacks = {
            "Content-Length and Transfer-Encoding (smuggling)": (
                f"POST /v1/turns/t/cancel HTTP/1.1\r\nhost: 127.0.0.1\r\n"
                f"authorization: Bearer {TOKEN}\r\ncontent-length: 4\r\n"
                "transfer-encoding: chunked\r\n\r\n0\r\n\r\n"
            ).encode()
            + smuggled,
            "two different Content-Lengths": (
                f"POST /v1/turns/t/cancel HTTP/1.1\r\nhost: 127.0.0.1\r\n"
                f"authorization: Bearer {TOKEN}\r\ncontent-length: 0\r\ncontent-length: 120\r\n\r\n"
            ).encode()
            + smuggled,
            "an obsolete folded header": (
                f"GET /v1/turns/t HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer\r\n {TOKEN}\r\n\r\n"
            ).encode(),
            "Content-Length: abc": (
                f"POST /v1/turns/t/cancel HTTP/1.1\r\nhost: 127.0.0.1\r\n"
                f"authorization: Bearer {TOKEN}\r\ncontent-length: abc\r\n\r\n"
            ).encode(),
        }
        for label, data in attacks.items():

            async def probe_raw(data: bytes = data) -> tuple[bool, str]:
                answer = await raw_http(d.port, data)
                still = await http.get("/v1/conversations/seed/memory")
                kept = len(still.json()["recent"]) == 1
                code = status_of(answer)
                return (400 <= code < 500 or code == 0) and kept, f"status {code}, kept {kept}"

            await results.check("header", label, probe_raw)

        async def slowloris() -> tuple[bool, str]:
            streams = []
            for _ in range(50):
                stream = await trio.open_tcp_stream("127.0.0.1", d.port)
                await stream.send_all(b"POST /v1/conversations/p/runs HTTP/1.1\r\nhost: 127")
                streams.append(stream)
            started = time.monotonic()
            reply = await http.post("/v1/conversations/slow/runs", json={"ask": "hi"})
            took = time.monotonic() - started
            for stream in streams:
                await stream.aclose()
            return reply.status_code == 200 and took < 3, f"{took:.2f} s"

        await results.check("header", "slowloris: 50 connections trickle their headers", slowloris)


async def seed(http: httpx.AsyncClient, conversation: str) -> None:
    reply = await http.post(f"/v1/conversations/{conversation}/runs", json={"ask": "remember me"})
    assert "result" in reply.text


async def semantic_probes(results: Results, d: Daemon, folder: Path) -> None:
    async with httpx.AsyncClient(base_url=d.url, headers=AUTH, timeout=30) as http:

        async def reuse_other_ask() -> bool:
            await http.post("/v1/conversations/s/runs", json={"ask": "hello", "turn_id": "s-1"})
            again = await http.post(
                "/v1/conversations/s/runs", json={"ask": "transfer all", "turn_id": "s-1"}
            )
            return again.status_code == 409

        await results.check("semantics", "a turn id reused for another ask", reuse_other_ask)

        async def reuse_other_conversation() -> bool:
            other = await http.post(
                "/v1/conversations/s2/runs", json={"ask": "hello", "turn_id": "s-1"}
            )
            return other.status_code == 409 and "hello" not in other.text

        await results.check(
            "semantics", "a turn id of another conversation", reuse_other_conversation
        )

        async def cancel_finished() -> bool:
            return (await http.post("/v1/turns/s-1/cancel")).status_code == 409

        await results.check("semantics", "cancel of a finished turn", cancel_finished)

        async with trio.open_nursery() as nursery:
            asked: dict[str, Any] = {}
            got = trio.Event()

            async def pending_write() -> None:
                asked.update(
                    await stream_until(
                        http,
                        "s3",
                        {"ask": "add probe-late", "turn_id": "s-late"},
                        "confirm_request",
                    )
                )
                got.set()

            nursery.start_soon(pending_write)
            with trio.fail_after(20):
                await got.wait()

            async def late() -> bool:
                await until_status(http, "s-late", "done")
                reply = await http.post(
                    "/v1/turns/s-late/confirm", json={"call_id": asked["call_id"], "approved": True}
                )
                return reply.status_code == 409 and "probe-late" not in writes(folder)

            await results.check("semantics", "a confirmation after confirm_timeout", late)

        async with trio.open_nursery() as nursery:
            first: dict[str, Any] = {}
            seen = trio.Event()

            async def waiting() -> None:
                first.update(
                    await stream_until(
                        http,
                        "s4",
                        {"ask": "add probe-once", "turn_id": "s-once"},
                        "confirm_request",
                    )
                )
                seen.set()

            nursery.start_soon(waiting)
            with trio.fail_after(20):
                await seen.wait()

            async def shown() -> bool:
                status = (await http.get("/v1/turns/s-once")).json()
                return status.get("pending", {}).get("input") == {"title": "probe-once"}

            await results.check("semantics", "GET of a turn waiting shows the pending call", shown)

            async def rejoin() -> tuple[bool, str]:
                started = time.monotonic()
                again = await stream_until(
                    http, "s4", {"ask": "add probe-once", "turn_id": "s-once"}, "confirm_request"
                )
                took = time.monotonic() - started
                return again["fingerprint"] == first["fingerprint"] and took < 1, f"{took:.2f} s"

            await results.check("semantics", "a client reconnecting while a write waits", rejoin)

            async def unknown_call() -> bool:
                reply = await http.post(
                    "/v1/turns/s-once/confirm", json={"call_id": "call-9", "approved": True}
                )
                return reply.status_code == 404

            await results.check("semantics", "a confirmation of an unknown call", unknown_call)

            async def other_fingerprint() -> bool:
                reply = await http.post(
                    "/v1/turns/s-once/confirm",
                    json={"call_id": first["call_id"], "approved": True, "fingerprint": "0" * 64},
                )
                return reply.status_code == 409 and "probe-once" not in writes(folder)

            await results.check(
                "semantics", "an approval bound to another write", other_fingerprint
            )

            async def twice() -> bool:
                body = {"call_id": first["call_id"], "approved": True}
                one = await http.post("/v1/turns/s-once/confirm", json=body)
                two = await http.post("/v1/turns/s-once/confirm", json=body)
                await until_status(http, "s-once", "done")
                return (one.status_code, two.status_code) == (204, 409) and writes(folder).count(
                    "probe-once"
                ) == 1

            await results.check("semantics", "the same approval sent twice", twice)

        async def never_run_memory() -> tuple[bool, str]:
            process = psutil.Process(d.process.pid)
            before = process.memory_info().rss
            for n in range(2000):
                await http.get(f"/v1/conversations/ghost-{n}/memory")
                await http.delete(f"/v1/conversations/ghost-{n}/memory")
            grown = (process.memory_info().rss - before) / 2**20
            return grown < 4, f"RSS +{grown:.1f} MiB"

        await results.check(
            "semantics",
            "memory of 2,000 never-run conversations, read and forgotten",
            never_run_memory,
        )


async def user_probes(results: Results, d: Daemon, folder: Path) -> None:
    async with (
        httpx.AsyncClient(
            base_url=d.url, headers={"authorization": f"Bearer {ALICE}"}, timeout=30
        ) as alice,
        httpx.AsyncClient(
            base_url=d.url, headers={"authorization": f"Bearer {BOB}"}, timeout=30
        ) as bob,
    ):
        await seed(alice, "alice:1")
        for method, path, expected in [
            ("POST", "/v1/conversations/alice:1/runs", 403),
            ("GET", "/v1/conversations/alice:1/memory", 403),
            ("DELETE", "/v1/conversations/alice:1/memory", 403),
        ]:

            async def probe(
                method: str = method, path: str = path, expected: int = expected
            ) -> bool:
                return (await bob.request(method, path, json={"ask": "hi"})).status_code == expected

            await results.check("users", f"Bob: {method} {path}", probe)
        async with trio.open_nursery() as nursery:
            asked: dict[str, Any] = {}
            got = trio.Event()

            async def pending() -> None:
                asked.update(
                    await stream_until(
                        alice,
                        "alice:2",
                        {"ask": "add probe-alice", "turn_id": "u-1"},
                        "confirm_request",
                    )
                )
                got.set()

            nursery.start_soon(pending)
            with trio.fail_after(20):
                await got.wait()
            for label, call in [
                ("Bob reads Alice's turn", lambda: bob.get("/v1/turns/u-1")),
                (
                    "Bob approves Alice's write",
                    lambda: bob.post(
                        "/v1/turns/u-1/confirm",
                        json={"call_id": asked["call_id"], "approved": True},
                    ),
                ),
                ("Bob cancels Alice's turn", lambda: bob.post("/v1/turns/u-1/cancel")),
            ]:

                async def probe_turn(call: Callable[[], Awaitable[httpx.Response]] = call) -> bool:
                    reply = await call()
                    return reply.status_code == 404 and "probe-alice" not in writes(folder)

                await results.check("users", label, probe_turn)
            await alice.post("/v1/turns/u-1/cancel")

        async def frames_forbidden() -> bool:
            async with Client.stream(path=d.frames, token=BOB) as client:
                try:
                    await client.run("hi", conversation_id="alice:1")
                except RemoteError as exc:
                    return exc.code == "forbidden"
            return False

        await results.check(
            "users", "Bob runs in Alice's conversation over frames", frames_forbidden
        )

        async def frames_hidden() -> bool:
            async with Client.stream(path=d.frames, token=BOB) as client:
                try:
                    await client.turn("u-1")
                except RemoteError as exc:
                    return exc.code == "not_found"
            return False

        await results.check("users", "Bob reads Alice's turn over frames", frames_hidden)

        async def frames_stranger() -> bool:
            replies = await frame_exchange(
                d.frames,
                [
                    frame(Hello(turn_id="", token="probe-nobody-0000")),
                    frame(GetTurn(turn_id="u-1")),
                ],
            )
            return any(isinstance(r, Failure) and r.code == "unauthorized" for r in replies)

        await results.check("users", "an unknown token on the frame socket", frames_stranger)


async def frame_probes(results: Results, d: Daemon, folder: Path) -> None:
    hello = frame(Hello(turn_id="", token=TOKEN))

    def failed(replies: list[Any], code: str) -> bool:
        return any(isinstance(r, Failure) and r.code == code for r in replies)

    raw = {
        "random bytes": [b"\x00\x00\x00\x10" + os.urandom(16)],
        "a length prefix of 2 GiB": [struct.pack(">I", 2**31) + b"x" * 100],
        "MessagePack nested 5,000 deep": [struct.pack(">I", 5001) + b"\x91" * 5000 + b"\xc0"],
    }
    for label, payloads in raw.items():

        async def probe(payloads: list[bytes] = payloads) -> bool:
            replies = await frame_exchange(d.frames, [hello, *payloads])
            return failed(replies, "invalid") and await d.alive()

        await results.check("frames", label, probe)

    async def truncated() -> bool:
        stream = await trio.open_unix_socket(d.frames)
        await stream.send_all(hello + struct.pack(">I", 100) + b"half")
        await stream.aclose()
        return await d.alive()

    await results.check("frames", "a truncated frame, then the client leaves", truncated)

    for label, message, code in [
        ("an empty turn id", Run(turn_id="", ask="hi", conversation_id="f"), "invalid"),
        ("a NUL in the turn id", Run(turn_id="a\x00b", ask="hi", conversation_id="f"), "invalid"),
        ("a 200 KB turn id", Run(turn_id="t" * 200_000, ask="hi", conversation_id="f"), "invalid"),
        ("a 900 KB ask", Run(turn_id="f-1", ask="a" * 900_000, conversation_id="f"), "too_large"),
    ]:

        async def probe_run(message: Run = message, code: str = code) -> bool:
            replies = await frame_exchange(d.frames, [hello, frame(message)], seconds=2)
            return failed(replies, code)

        await results.check("frames", label, probe_run)

    for label, ask in [
        ("a reply of a 10 MiB tool output", "huge"),
        ("a tool output holding 2**70", "wei"),
    ]:

        async def probe_reply(ask: str = ask) -> bool:
            async with Client.stream(path=d.frames, token=TOKEN) as client:
                result = await client.run(ask, conversation_id=f"f-{ask}")
            return bool(result.text) and await d.alive()

        await results.check("frames", label, probe_reply)

    async def foreign_turn() -> tuple[bool, str]:
        async with (
            Client.stream(path=d.frames, token=TOKEN) as a,
            trio.open_nursery() as nursery,
        ):
            asked: list[Any] = []
            got = trio.Event()

            def confirm(request: Any) -> bool:
                asked.append(request)
                got.set()
                return False

            async def run_a() -> None:
                await a.run(
                    "add probe-frames", conversation_id="fa", turn_id="fr-1", confirm=confirm
                )

            nursery.start_soon(run_a)
            with trio.fail_after(20):
                await got.wait()
            replies = await frame_exchange(
                d.frames,
                [
                    hello,
                    frame(Run(turn_id="fr-1", ask="x", conversation_id="fb")),
                    frame(ConfirmReply(turn_id="fr-1", call_id=asked[0].call_id, approved=True)),
                ],
                seconds=2,
            )
        codes = [r.code for r in replies if isinstance(r, Failure)]
        return codes[:1] == ["conflict"] and "probe-frames" not in writes(folder), str(codes)

    await results.check("frames", "another connection's turn id, then its approval", foreign_turn)

    async def never_reads() -> tuple[bool, str]:
        stream = await trio.open_unix_socket(d.frames)
        await stream.send_all(hello)
        sent = 0
        message = frame(GetTurn(turn_id="x" * 100))
        with trio.move_on_after(20):
            try:
                while sent < 200_000:
                    await stream.send_all(message * 100)
                    sent += 100
            except (trio.BrokenResourceError, OSError):
                pass
        await stream.aclose()
        return await d.alive(), f"{sent} requests sent before it was dropped"

    await results.check("frames", "a client that sends and never reads", never_reads)


async def output_probes(results: Results, d: Daemon) -> None:
    async with httpx.AsyncClient(base_url=d.url, headers=AUTH, timeout=60) as http:

        async def huge() -> tuple[bool, str]:
            before = sum(p.stat().st_size for p in d.store.parent.glob(d.store.name + "*"))
            reply = await http.post("/v1/conversations/o/runs", json={"ask": "huge"})
            after = sum(p.stat().st_size for p in d.store.parent.glob(d.store.name + "*"))
            grown = (after - before) / 2**20
            return "event: result" in reply.text and grown < 1, f"store +{grown:.2f} MiB"

        await results.check("output", "a 10 MiB tool output over HTTP with SQLite", huge)

    async def descriptors() -> tuple[bool, str]:
        process = psutil.Process(d.process.pid)
        before = process.num_fds()
        body = b'{"ask":"hi"}'
        for n in range(200):
            data = (
                f"POST /v1/conversations/c{n}/runs HTTP/1.1\r\nhost: 127.0.0.1\r\n"
                f"connection: close\r\nauthorization: Bearer {TOKEN}\r\n"
                f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n"
            ).encode() + body
            answer = await raw_http(d.port, data, seconds=5)
            if b"event: result" not in answer:
                return False, f"run {n}: {answer[-200:]!r}"
        await trio.sleep(0.5)
        grown = process.num_fds() - before
        return grown < 10, f"+{grown} descriptors after 200 runs"

    await results.check("output", "200 finished SSE runs with Connection: close", descriptors)


async def operator_probes(results: Results, folder: Path) -> None:
    async def refused(env: dict[str, str], *extra: str) -> tuple[int, bytes]:
        process = await trio.run_process(
            [sys.executable, "-m", "goliath.cli", "serve", APP, "--port", "0", *extra],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), **env},
            capture_stderr=True,
            check=False,
        )
        return process.returncode, process.stderr

    for label, value in [
        ('GOLIATH_TOKEN=""', ""),
        ("a whitespace token", "   "),
        ("a token with a space", "a b"),
    ]:

        async def probe(value: str = value) -> tuple[bool, str]:
            code, said = await refused({"GOLIATH_TOKEN": value})
            return code == 2 and b"GOLIATH_TOKEN" in said, f"exit {code}"

        await results.check("operator", label, probe)

    async def generated_token() -> tuple[bool, str]:
        state = folder / "state"
        tokens, shown = [], False
        for _ in range(2):
            process, _, printed = await start_goliath(
                APP, "--port", "0", env={"GOLIATH_TOKEN": None, "XDG_STATE_HOME": str(state)}
            )
            await stop(process)
            path = state / "goliath" / "token"
            tokens.append(path.read_text().strip())
            shown = shown or tokens[-1].encode() in printed
        private = os.stat(path).st_mode & 0o777 == 0o600
        return not shown and private and tokens[0] == tokens[
            1
        ], f"0600 {private}, kept {tokens[0] == tokens[1]}"

    await results.check(
        "operator", "no token configured: generated, kept, never printed", generated_token
    )

    async def regular_file() -> bool:
        path = folder / "precious.txt"
        path.write_text("keep me")
        code, _ = await refused({"GOLIATH_TOKEN": TOKEN}, "--stream-socket", str(path))
        return code != 0 and path.read_text() == "keep me"

    await results.check("operator", "--stream-socket naming a regular file", regular_file)

    async def readable_token_file() -> bool:
        path = folder / "token"
        path.write_text("a-token-of-sixteen-chars\n")
        os.chmod(path, 0o644)
        env = {k: v for k, v in os.environ.items() if k != "GOLIATH_TOKEN"}
        process = await trio.run_process(
            [
                sys.executable,
                "-m",
                "goliath.cli",
                "serve",
                APP,
                "--port",
                "0",
                "--token-file",
                str(path),
            ],
            cwd=ROOT,
            env={**env, "PYTHONPATH": str(ROOT)},
            capture_stderr=True,
            check=False,
        )
        return process.returncode == 2 and b"chmod 600" in process.stderr

    await results.check("operator", "--token-file readable by others", readable_token_file)


# ---------------------------------------------------------------------------- faults


async def fault_probes(results: Results, base: Path, fleet: bool) -> None:
    for sig in (signal.SIGTERM, signal.SIGINT):

        async def every_listener(sig: int = sig) -> tuple[bool, str]:
            folder = Path(tempfile.mkdtemp(dir=base))
            write_users(folder)
            async with daemon(folder) as d:
                async with (
                    httpx.AsyncClient(base_url=d.url, headers=AUTH, timeout=30) as http,
                    trio.open_nursery() as nursery,
                ):
                    ends: list[str] = []

                    async def over_http() -> None:
                        async with http.stream(
                            "POST", "/v1/conversations/t/runs", json={"ask": "wait"}
                        ) as reply:
                            async for name, data in iter_sse(reply):
                                if name in ("result", "error"):
                                    ends.append(f"http {data.get('code', name)}")

                    async def over_frames() -> None:
                        async with Client.stream(path=d.frames, token=TOKEN) as client:
                            try:
                                await client.run("wait", conversation_id="t2")
                            except RemoteError as exc:
                                ends.append(f"frames {exc.code}")

                    nursery.start_soon(over_http)
                    nursery.start_soon(over_frames)
                    await trio.sleep(1)
                    started = time.monotonic()
                    d.process.send_signal(sig)
                    with trio.move_on_after(20):
                        await d.process.wait()
                    took = time.monotonic() - started
                code = d.process.returncode
                gone = not await trio.Path(d.frames).exists()
            return (
                code == 0 and gone and len(ends) == 2,
                f"exit {code} after {took:.1f} s; socket removed {gone}; clients told: {ends}",
            )

        await results.check(
            "fault", f"{signal.Signals(sig).name} with HTTP and the frame socket", every_listener
        )

    async def sigkill_mid_turn() -> tuple[bool, str]:
        folder = Path(tempfile.mkdtemp(dir=base))
        write_users(folder)
        async with (
            daemon(folder) as d,
            httpx.AsyncClient(base_url=d.url, headers=AUTH, timeout=30) as http,
        ):
            await stream_until(http, "k", {"ask": "wait", "turn_id": "k-1"}, "plan")
            d.process.kill()
            await d.process.wait()
        async with (
            daemon(folder) as d,
            httpx.AsyncClient(base_url=d.url, headers=AUTH, timeout=30) as http,
        ):
            status = (await http.get("/v1/turns/k-1")).json()["status"]
            retry = await http.post(
                "/v1/conversations/k/runs", json={"ask": "wait", "turn_id": "k-1"}
            )
            memory = (await http.get("/v1/conversations/k/memory")).json()
        ok = status == "interrupted" and '"interrupted"' in retry.text
        ok = ok and [e.get("interrupted") for e in memory["recent"]] == [True]
        return ok, f"status {status}"

    await results.check(
        "fault", "SIGKILL mid-turn (SQLite): interrupted, never run again", sigkill_mid_turn
    )

    for sig in (signal.SIGKILL, signal.SIGTERM):

        async def pending_survives(sig: int = sig) -> tuple[bool, str]:
            folder = Path(tempfile.mkdtemp(dir=base))
            write_users(folder)
            body = {"ask": "add probe-restart", "turn_id": "r-1"}
            async with (
                daemon(folder, "--grace", "0.3") as d,
                httpx.AsyncClient(base_url=d.url, headers=AUTH, timeout=30) as http,
            ):
                asked = await stream_until(http, "r", body, "confirm_request")
                d.process.send_signal(sig)
                await d.process.wait()
            async with (
                daemon(folder) as d,
                httpx.AsyncClient(base_url=d.url, headers=AUTH, timeout=30) as http,
            ):
                status = await until_status(http, "r-1", "awaiting_confirmation")
                again = await stream_until(http, "r", body, "confirm_request")
                reply = await http.post(
                    "/v1/turns/r-1/confirm",
                    json={
                        "call_id": again["call_id"],
                        "approved": True,
                        "fingerprint": again["fingerprint"],
                    },
                )
                done = await until_status(http, "r-1", "done")
            ok = (
                status.get("pending", {}).get("fingerprint") == asked["fingerprint"]
                and reply.status_code == 204
                and done["status"] == "done"
                and writes(folder) == ["probe-restart"]
            )
            return ok, f"writes {writes(folder)}"

        await results.check(
            "fault",
            f"{signal.Signals(sig).name} with an approval pending: resumed, written once",
            pending_survives,
        )

    async def cut_mid_write() -> tuple[bool, str]:
        folder = Path(tempfile.mkdtemp(dir=base))
        write_users(folder)
        body = {"ask": "log probe-cut", "turn_id": "w-1"}
        async with (
            daemon(folder) as d,
            httpx.AsyncClient(base_url=d.url, headers=AUTH, timeout=30) as http,
        ):
            asked = await stream_until(http, "w", body, "confirm_request")
            await http.post(
                "/v1/turns/w-1/confirm", json={"call_id": asked["call_id"], "approved": True}
            )
            with trio.fail_after(10):
                while True:
                    if "probe-cut" in writes(folder):
                        break
                    await trio.sleep(0.02)
            d.process.kill()
            await d.process.wait()
        async with (
            daemon(folder) as d,
            httpx.AsyncClient(base_url=d.url, headers=AUTH, timeout=30) as http,
        ):
            status = (await http.get("/v1/turns/w-1")).json()
            retry = await http.post("/v1/conversations/w/runs", json=body)
            memory = (await http.get("/v1/conversations/w/memory")).json()
        unknown = [s.get("outcome_unknown") for s in status.get("steps", [])]
        ok = status["status"] == "interrupted" and unknown == [True]
        ok = ok and '"interrupted"' in retry.text and writes(folder) == ["probe-cut"]
        ok = ok and memory["recent"][-1]["steps"][0].get("outcome_unknown") is True
        return ok, f"status {status['status']}, outcome_unknown {unknown}, writes {writes(folder)}"

    await results.check(
        "fault", "SIGKILL while an approved write runs: outcome unknown, not rerun", cut_mid_write
    )

    async def cancel_after_write() -> tuple[bool, str]:
        folder = Path(tempfile.mkdtemp(dir=base))
        write_users(folder)
        async with (
            daemon(folder) as d,
            httpx.AsyncClient(base_url=d.url, headers=AUTH, timeout=30) as http,
        ):
            body = {"ask": "add probe-cancel then wait", "turn_id": "c-1"}
            async with http.stream("POST", "/v1/conversations/c/runs", json=body) as reply:
                async for name, data in iter_sse(reply):
                    if name == "confirm_request":
                        await http.post(
                            "/v1/turns/c-1/confirm",
                            json={"call_id": data["call_id"], "approved": True},
                        )
                    if name == "plan" and data.get("tool") == "slow_job":
                        await http.post("/v1/turns/c-1/cancel")
                    if name == "error":
                        message = data["message"]
            status = (await http.get("/v1/turns/c-1")).json()
            memory = (await http.get("/v1/conversations/c/memory")).json()
        tools = [s.get("tool") for s in status.get("steps", []) if s.get("kind") == "tool"]
        remembered = [s.get("tool") for s in memory["recent"][-1].get("steps", [])]
        ok = (
            status["status"] == "cancelled"
            and "create_task" in tools
            and "create_task" in remembered
        )
        ok = ok and "create_task" in message and writes(folder) == ["probe-cancel"]
        return ok, f"record {tools}, memory {remembered}"

    await results.check(
        "fault",
        "cancel after an approved write: record, memory and message keep it",
        cancel_after_write,
    )

    if fleet:
        await results.check(
            "fault",
            "fleet fail-over (PostgreSQL, SIGKILL) with an approval pending",
            lambda: fail_over(base),
        )


async def fail_over(base: Path) -> tuple[bool, str]:
    import psycopg

    from actors.store_postgres import shard_of
    from tests.postgres import postgres_server

    folder = Path(tempfile.mkdtemp(dir=base))
    with postgres_server() as server:
        dsn = server.dsn
        nodes = []
        try:
            for name in ("node0", "node1"):
                process, url, _ = await start_goliath(
                    APP,
                    *("--port", "0", "--store", dsn, "--node-id", name, "--shards", "16"),
                    *("--interval", "0.3", "--grace", "1"),
                    env={"GOLIATH_TOKEN": TOKEN, "GOLIATH_WRITES_FILE": str(folder / "writes.txt")},
                )
                nodes.append((name, process, url))

            def owners() -> dict[int, str]:
                with psycopg.connect(dsn, autocommit=True) as connection:
                    rows = connection.execute("SELECT shard, owner FROM goliath_shards").fetchall()
                return {int(shard): owner for shard, owner in rows}

            with trio.fail_after(30):
                while True:
                    table = owners()
                    if set(table.values()) == {"node0", "node1"} and len(table) == 16:
                        break
                    await trio.sleep(0.1)
            (victim, victim_process, victim_url), (survivor, _, survivor_url) = nodes
            table = owners()
            conversation = next(
                f"p{n}" for n in range(500) if table[shard_of(f"p{n}", 16)] == victim
            )
            body = {"ask": "add probe-fleet", "turn_id": "fo-1"}
            async with (
                httpx.AsyncClient(base_url=victim_url, headers=AUTH, timeout=30) as on_victim,
                httpx.AsyncClient(base_url=survivor_url, headers=AUTH, timeout=30) as http,
            ):
                asked = await stream_until(on_victim, conversation, body, "confirm_request")
                started = time.monotonic()
                victim_process.kill()
                await victim_process.wait()
                with trio.fail_after(30):  # the survivor claims the dead node's shards
                    while True:
                        if set(owners().values()) == {survivor}:
                            break
                        await trio.sleep(0.1)
                claimed = time.monotonic() - started
                status = await until_status(http, "fo-1", "awaiting_confirmation")
                again = await stream_until(http, conversation, body, "confirm_request")
                resumed = time.monotonic() - started
                reply = await http.post(
                    "/v1/turns/fo-1/confirm",
                    json={
                        "call_id": again["call_id"],
                        "approved": True,
                        "fingerprint": again["fingerprint"],
                    },
                )
                done = await until_status(http, "fo-1", "done")
            ok = (
                status["pending"]["fingerprint"] == asked["fingerprint"]
                and reply.status_code == 204
                and done["status"] == "done"
                and writes(folder) == ["probe-fleet"]
            )
            return ok, (
                f"shards claimed {claimed:.1f} s and the rejoining client asked again "
                f"{resumed:.1f} s after the kill, on {survivor}; writes {writes(folder)}"
            )
        finally:
            for _, process, _ in nodes:
                await stop(process)


def write_users(folder: Path) -> None:
    users = folder / "users.toml"
    users.write_text(
        f'[[users]]\nname = "alice"\ntoken = "{ALICE}"\nconversations = "alice:"\n\n'
        f'[[users]]\nname = "bob"\ntoken = "{BOB}"\nconversations = "bob:"\n'
    )
    os.chmod(users, 0o600)


async def main(args: argparse.Namespace) -> int:
    results = Results()
    with tempfile.TemporaryDirectory(prefix="gl-probes-", dir="/tmp") as directory:
        base = Path(directory)
        folder = Path(tempfile.mkdtemp(dir=base))
        write_users(folder)
        async with daemon(folder) as d:
            for group in (http_probes, semantic_probes, user_probes, frame_probes):
                await group(results, d, folder)
                results.add(
                    "alive", f"the daemon serves after the {group.__name__}", await d.alive()
                )
            await output_probes(results, d)
            results.add("alive", "the daemon serves at the end", await d.alive())
        await operator_probes(results, folder)
        await fault_probes(results, base, fleet=not args.no_fleet)
    bad = [r for r in results.rows if r[0] not in ("fault", "alive")]
    faults = [r for r in results.rows if r[0] == "fault"]
    alive = [r for r in results.rows if r[0] == "alive"]
    print()
    print(f"bad inputs: {len(bad)} tried, {sum(r[2] for r in bad)} handled cleanly")
    for kind in dict.fromkeys(r[0] for r in bad):
        rows = [r for r in bad if r[0] == kind]
        print(f"  {kind:<10} {sum(r[2] for r in rows)} / {len(rows)}")
    print(f"faults: {len(faults)} injected, {sum(r[2] for r in faults)} survived with nothing lost")
    print(f"daemon alive at every check: {all(r[2] for r in alive)}")
    failures = [r for r in results.rows if not r[2]]
    for kind, name, _, detail in failures:
        print(f"NOT HANDLED: {kind} {name}: {detail}")
    return 1 if failures else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-fleet", action="store_true", help="skip the PostgreSQL fail-over")
    sys.exit(trio.run(main, parser.parse_args()))
