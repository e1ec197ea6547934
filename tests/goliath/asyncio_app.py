"""A FastAPI app with two agents, served by uvicorn in tests/goliath/test_asyncio_hosting.py.

What a FastAPI codebase has: an asyncio TCP service (an echo server standing in for asyncpg or
redis), a tool that talks to it with ``asyncio.open_connection``, an approval that arrives on
another endpoint (an ``asyncio.Queue`` fed by ``POST /approve``), and the daemon's API mounted
at ``/daemon``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pydantic
from fastapi import FastAPI

from goliath import Agent, ConfirmRequest, tool
from goliath.memory import InMemory
from goliath.testing import TestModel
from transports.asgi import agent_app

state: dict[str, Any] = {"echo_port": None, "loop": None, "tool_cancelled": False}
approvals: asyncio.Queue[bool] | None = None


async def _echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    line = await reader.readline()
    writer.write(b"echo: " + line)
    await writer.drain()
    writer.close()


@tool
async def echo(text: str) -> str:
    """Send text to the echo service and return its reply."""
    reader, writer = await asyncio.open_connection("127.0.0.1", state["echo_port"])
    writer.write(text.encode() + b"\n")
    await writer.drain()
    reply = (await reader.readline()).decode().strip()
    writer.close()
    await writer.wait_closed()
    on_host = asyncio.get_running_loop() is state["loop"]
    main_thread = threading.current_thread() is threading.main_thread()
    return f"{reply} (host loop: {on_host}, main thread: {main_thread})"


@tool
async def wait_forever() -> str:
    """Wait for something that never comes."""
    try:
        await asyncio.Event().wait()
    finally:
        state["tool_cancelled"] = True
    return "never"  # pragma: no cover


@tool(writes=True)
async def add_note(text: str) -> str:
    """Save a note."""
    await asyncio.sleep(0)
    return f"saved {text}"


async def approve_from_endpoint(request: ConfirmRequest) -> bool:
    """An async confirm handler: waits for POST /approve on the host loop's queue."""
    assert approvals is not None
    state["confirm_waiting"] = request.tool
    return await approvals.get()


echo_agent = Agent(
    TestModel(call_tools=["echo"], arguments={"echo": {"text": "ping"}}, text="Echoed."),
    tools=[echo],
    memory=lambda conversation_id: InMemory(),
)
slow_agent = Agent(TestModel(call_tools=["wait_forever"]), tools=[wait_forever])
notes_agent = Agent(
    TestModel(call_tools=["add_note"], arguments={"add_note": {"text": "milk"}}, text="Saved."),
    tools=[add_note],
    confirm=approve_from_endpoint,
)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    global approvals
    approvals = asyncio.Queue()
    state["loop"] = asyncio.get_running_loop()
    server = await asyncio.start_server(_echo, "127.0.0.1", 0)
    state["echo_port"] = server.sockets[0].getsockname()[1]
    async with server, echo_agent, slow_agent, notes_agent:
        yield


app = FastAPI(lifespan=lifespan)
app.mount("/daemon", agent_app(echo_agent, token=None))


class Ask(pydantic.BaseModel):
    ask: str
    conversation_id: str | None = None


@app.post("/echo")
async def ask_echo(body: Ask) -> dict[str, Any]:
    return (await echo_agent.run(body.ask, conversation_id=body.conversation_id)).to_dict()


@app.post("/notes")
async def ask_notes(body: Ask) -> dict[str, Any]:
    return (await notes_agent.run(body.ask)).to_dict()


@app.post("/approve")
async def approve() -> dict[str, Any]:
    assert approvals is not None
    await approvals.put(True)
    return {"approved": True}


@app.get("/state")
async def get_state() -> dict[str, Any]:
    return {key: value for key, value in state.items() if key != "loop"}


@app.post("/slow")
async def slow(body: Ask) -> dict[str, Any]:
    """The caller gives up after 0.5 s: the turn, and the tool inside it, are cancelled."""
    try:
        await asyncio.wait_for(slow_agent.run(body.ask), timeout=0.5)
    except TimeoutError:
        return {"timed_out": True}
    return {"timed_out": False}  # pragma: no cover
