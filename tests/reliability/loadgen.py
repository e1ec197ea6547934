"""A load generator for the daemon's HTTP API that checks what it gets back.

Many conversations at once, several turns each: plain asks, writes the client approves or
declines, and slow turns it cancels mid-way. Half the conversations send their turns one after
another; the other half pipeline them (each turn is sent as soon as the previous one was
accepted, so the daemon queues them). Afterwards :func:`verify` checks that no turn was lost
(every stream ended with exactly one ``result`` or ``error``), none was duplicated (one final
event per turn, every approved write ran once), none was reordered (each answer names the turn
before it, and memory holds the asks in order), and that the daemon's own turn records agree.

Used by the quick suite (tests/reliability/test_load.py) and by ``benchmarks/load.py``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Literal

import attrs
import httpx
import trio

from .rawhttp import ConnectionFailed, RawHttp

__all__ = [
    "LoadTurn",
    "expected_text",
    "peak_rss",
    "percentile",
    "plan_conversation",
    "run_load",
    "run_turn",
    "verify",
]

Kind = Literal["plain", "approve", "decline", "cancel"]
RECENT_KEEP = 3
MAX_ATTEMPTS = 5
CANCEL_TARGET_SECONDS = 600.0
"""How long a turn meant to be cancelled would run if the cancel never reached it."""


@attrs.define(eq=False)
class LoadTurn:
    """One turn of the load and what its client saw."""

    conversation: str
    index: int
    kind: Kind
    ask: str
    turn_id: str
    pipelined: bool
    final: str = ""  # "result", "error", or "refused" (an HTTP error status)
    code: str | None = None
    text: str = ""
    steps: list[dict[str, Any]] = attrs.field(factory=list)
    finals: int = 0
    confirm_requests: int = 0
    started: float = 0.0
    ended: float = 0.0
    cancel_sent: bool = False
    errors: list[str] = attrs.field(factory=list)  # connection errors that were retried
    accepted: trio.Event = attrs.field(factory=trio.Event)

    @property
    def marker(self) -> str:
        return f"{self.conversation}#{self.index}"

    @property
    def latency(self) -> float:
        return self.ended - self.started


def plan_conversation(number: int, turns: int, prefix: str = "c") -> list[LoadTurn]:
    """The turns of conversation ``number``: 1 in 10 approves a write on its second turn, 1 in 10
    declines one, 1 in 10 cancels its third turn; even conversations pipeline their turns."""
    conversation = f"{prefix}{number}"
    planned = []
    for index in range(turns):
        kind: Kind = "plain"
        if index == 1 and number % 10 == 1:
            kind = "approve"
        elif index == 1 and number % 10 == 2:
            kind = "decline"
        elif index == 2 and number % 10 == 3:
            kind = "cancel"
        word = {"plain": "hello", "approve": "add", "decline": "add", "cancel": "slow"}[kind]
        marker = f"[{conversation}#{index}]"
        ask = f"{word} {'task ' if word == 'add' else ''}{marker}"
        planned.append(
            LoadTurn(
                conversation=conversation,
                index=index,
                kind=kind,
                ask=ask,
                turn_id=f"{conversation}-t{index}",
                pipelined=number % 2 == 0,
            )
        )
    return planned


async def run_turn(http: RawHttp, turn: LoadTurn) -> None:
    """Send one turn and follow its stream, answering its confirmation or cancelling it.

    A connection that breaks is retried with the same turn id, as a client should: the daemon
    runs a turn id at most once and answers a known one from its record.
    """
    turn.started = time.perf_counter()
    try:
        for attempt in range(MAX_ATTEMPTS):
            try:
                await _attempt(http, turn)
                return
            except ConnectionFailed as exc:
                turn.errors.append(str(exc))
                if attempt + 1 == MAX_ATTEMPTS:
                    turn.final, turn.code = "refused", "connection"
                    return
                await trio.sleep(0.05 * (attempt + 1))
    finally:
        turn.ended = time.perf_counter()
        turn.accepted.set()


async def _attempt(http: RawHttp, turn: LoadTurn) -> None:
    body: dict[str, Any] = {"ask": turn.ask, "turn_id": turn.turn_id}
    if turn.kind == "cancel":  # it must still be running when the cancel arrives, however late
        body["context"] = {"slow_seconds": CANCEL_TARGET_SECONDS}
    path = f"/v1/conversations/{turn.conversation}/runs"
    async for status, name, data in http.events("POST", path, body):
        if status != 200:
            turn.final, turn.code = "refused", str(status)
            return
        if name == "turn":
            turn.accepted.set()
        elif name == "confirm_request":
            turn.confirm_requests += 1
            await http.request(
                "POST",
                f"/v1/turns/{turn.turn_id}/confirm",
                {
                    "call_id": data["call_id"],
                    "approved": turn.kind == "approve",
                    "conversation_id": turn.conversation,
                },
            )
        elif name == "plan" and turn.kind == "cancel" and not turn.cancel_sent:
            turn.cancel_sent = True
            await http.request(
                "POST", f"/v1/turns/{turn.turn_id}/cancel", {"conversation_id": turn.conversation}
            )
        elif name in ("result", "error"):
            turn.finals += 1
            turn.final = name
            if name == "result":
                turn.text, turn.steps = data["text"], data["steps"]
            else:
                turn.code = data.get("code")


async def _run_conversation(http: RawHttp, turns: list[LoadTurn]) -> None:
    if not turns[0].pipelined:
        for turn in turns:
            await run_turn(http, turn)
        return
    async with trio.open_nursery() as nursery:
        for turn in turns:
            nursery.start_soon(run_turn, http, turn)
            await turn.accepted.wait()  # queued at the daemon before the next is sent


async def run_load(
    url: str, token: str, *, conversations: int, turns: int, prefix: str = "c"
) -> list[LoadTurn]:
    """Run every conversation at once; returns each turn with what its client saw."""
    planned = [plan_conversation(n, turns, prefix) for n in range(conversations)]
    http = RawHttp.for_url(url, token)
    async with trio.open_nursery() as nursery:
        for conversation in planned:
            nursery.start_soon(_run_conversation, http, conversation)
    return [turn for conversation in planned for turn in conversation]


def expected_text(turn: LoadTurn, before: list[LoadTurn]) -> str:
    """The answer ``turn`` must get after the turns ``before`` it in its conversation."""
    remembered = [t for t in before if t.kind != "cancel"]  # a cancelled turn leaves no memory
    return f"answer to {turn.ask} after {remembered[-1].marker if remembered else 'none'}"


async def verify(url: str, token: str, turns: list[LoadTurn]) -> list[str]:
    """Everything that went wrong, as sentences (empty: nothing lost, duplicated or reordered).

    Checks each turn's stream, then asks the daemon for every turn's record and every
    conversation's memory.
    """
    problems: list[str] = []
    by_conversation: dict[str, list[LoadTurn]] = {}
    for turn in turns:
        by_conversation.setdefault(turn.conversation, []).append(turn)
    for planned in by_conversation.values():
        for position, turn in enumerate(planned):
            where = f"{turn.turn_id} ({turn.kind})"
            if turn.finals != 1:
                what = "lost" if turn.finals == 0 else "duplicated"
                problems.append(
                    f"{where}: {what}: {turn.finals} final events ({turn.final} {turn.code})"
                )
                continue
            if turn.kind == "cancel":
                if (turn.final, turn.code) != ("error", "cancelled"):
                    problems.append(f"{where}: expected a cancelled error, got {turn.final}")
                continue
            if turn.final != "result":
                problems.append(f"{where}: expected a result, got {turn.final} {turn.code}")
                continue
            expected = expected_text(turn, planned[:position])
            text = turn.text
            if turn.kind == "decline":  # the harness says the declined change was not made
                text, _, line = text.partition("\n")
                if not line.startswith("Not done, as you declined: "):
                    problems.append(f"{where}: no line says the change was not made: {line!r}")
            if text != expected:
                problems.append(f"{where}: reordered? {text!r} != {expected!r}")
            if turn.kind in ("approve", "decline"):
                step = turn.steps[0] if turn.steps else {}
                if turn.confirm_requests != 1:
                    problems.append(f"{where}: {turn.confirm_requests} confirmation requests")
                if turn.kind == "approve" and (step.get("output") or {}).get("times") != 1:
                    problems.append(f"{where}: the approved write ran {step.get('output')}")
                if turn.kind == "decline" and not str(step.get("result", "")).startswith(
                    "declined by the user"
                ):
                    problems.append(f"{where}: the declined write reads {step.get('result')!r}")
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(
        base_url=url, headers={"authorization": f"Bearer {token}"}, timeout=60, limits=limits
    ) as http:
        limiter = trio.CapacityLimiter(32)

        async def check_record(turn: LoadTurn) -> None:
            async with limiter:
                reply = await http.get(f"/v1/turns/{turn.turn_id}")
            status = reply.json().get("status") if reply.status_code == 200 else reply.status_code
            wanted = "cancelled" if turn.kind == "cancel" else "done"
            if status != wanted:
                problems.append(f"{turn.turn_id}: the daemon's record says {status}, not {wanted}")

        async def check_memory(conversation: str, planned: list[LoadTurn]) -> None:
            async with limiter:
                reply = await http.get(f"/v1/conversations/{conversation}/memory")
            asks = [exchange["ask"] for exchange in reply.json()["recent"]]
            wanted = [t.ask for t in planned if t.kind != "cancel"][-RECENT_KEEP:]
            if asks != wanted:
                problems.append(f"{conversation}: memory holds {asks}, expected {wanted}")

        async with trio.open_nursery() as nursery:
            for turn in turns:
                nursery.start_soon(check_record, turn)
            for conversation, planned in by_conversation.items():
                nursery.start_soon(check_memory, conversation, planned)
    return problems


def peak_rss(pid: int) -> int:
    """A process's peak resident set size in bytes (VmHWM, from /proc: exact, not sampled)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmHWM in /proc/{pid}/status")


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` fall (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]
