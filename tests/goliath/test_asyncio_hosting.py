"""asyncio-native hosting, for real (issue #24): uvicorn serving a FastAPI app with several
agents whose async tools and confirm handler run on uvicorn's own loop, the daemon's API
mounted in it, a cancelled request cancelling its tool, and a notebook kernel."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trio
import trio.lowlevel

from goliath import Agent, tool
from goliath.testing import TestModel

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


@pytest.fixture
def app_url() -> Iterator[str]:
    """tests/goliath/asyncio_app.py served by uvicorn on a free port, stopped (by pid) after."""
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "uvicorn", "tests.goliath.asyncio_app:app"),
            *("--host", "127.0.0.1", "--port", "0"),
        ],
        cwd=ROOT,
        env=ENV,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    seen = ""
    try:
        while (match := re.search(r"Uvicorn running on (http://[\d.]+:\d+)", seen)) is None:
            line = process.stderr.readline()
            if not line:
                raise AssertionError(f"uvicorn exited early:\n{seen}")
            seen += line
        yield match.group(1)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        rest = process.stderr.read()
        assert "Traceback" not in seen + rest, seen + rest


async def test_async_tools_run_on_uvicorns_loop_with_several_agents(app_url: str) -> None:
    """Three agents in one loop; the echo tool talks to an asyncio TCP server from the host
    loop (main thread), many requests at once."""
    async with httpx.AsyncClient(base_url=app_url, timeout=30) as http:
        replies: list[httpx.Response] = []

        async def ask(n: int) -> None:
            replies.append(
                await http.post("/echo", json={"ask": f"echo {n}", "conversation_id": f"c{n}"})
            )

        async with trio.open_nursery() as nursery:
            for n in range(5):
                nursery.start_soon(ask, n)
    assert [reply.status_code for reply in replies] == [200] * 5, replies[0].text
    for reply in replies:
        step = reply.json()["steps"][0]
        assert step["result"] == "echo: ping (host loop: True, main thread: True)", step
        assert reply.json()["text"] == "Echoed."


async def test_an_async_confirm_waits_for_another_endpoint(app_url: str) -> None:
    async with httpx.AsyncClient(base_url=app_url, timeout=30) as http:
        answer: list[httpx.Response] = []

        async def ask() -> None:
            answer.append(await http.post("/notes", json={"ask": "note milk"}))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(ask)
            for _ in range(300):
                if (await http.get("/state")).json().get("confirm_waiting") == "add_note":
                    break
                await trio.sleep(0.02)
            else:
                raise AssertionError("the confirm handler never ran")
            assert not answer  # still waiting for the approval
            assert (await http.post("/approve")).status_code == 200
    [reply] = answer
    step = reply.json()["steps"][0]
    assert step["result"] == "saved milk" and not step.get("skipped")


async def test_a_cancelled_request_cancels_the_tool(app_url: str) -> None:
    async with httpx.AsyncClient(base_url=app_url, timeout=30) as http:
        assert (await http.post("/slow", json={"ask": "wait"})).json() == {"timed_out": True}
        for _ in range(300):
            if (await http.get("/state")).json()["tool_cancelled"]:
                break
            await trio.sleep(0.02)
        else:
            raise AssertionError("the tool was not cancelled")


async def test_the_daemons_api_is_mountable_in_fastapi(app_url: str) -> None:
    async with httpx.AsyncClient(base_url=app_url, timeout=30) as http:
        assert (await http.get("/daemon/healthz")).json() == {"status": "ok"}
        assert (await http.get("/daemon/readyz")).json() == {"status": "ready"}
        body = {"ask": "echo through the daemon"}
        async with http.stream("POST", "/daemon/v1/conversations/web/runs", json=body) as sse:
            assert sse.status_code == 200
            text = "".join([piece async for piece in sse.aiter_text()])
    assert "event: result" in text  # the run streamed to its end through the mounted app
    assert "echo: ping (host loop: True, main thread: True)" in text


def test_two_agents_share_one_loop_and_run_sync_works_inside_it() -> None:
    """A second `async with` in the same loop, and another agent's run_sync from inside it."""

    @tool
    async def pause() -> str:
        """Pause a moment on the host loop."""
        await asyncio.sleep(0.01)
        return "paused"

    async def main() -> list[str]:
        first = Agent(TestModel(text="first"), tools=[pause])
        second = Agent(TestModel(text="second"), tools=[pause])
        async with first, second:
            texts = [(await first.run("a")).text, (await second.run("b")).text]
        async with first:
            texts.append(Agent(TestModel(text="sync")).run_sync("c").text)
            texts.append((await first.run("d")).text)
        return texts

    assert asyncio.run(main()) == ["first", "second", "sync", "first"]


def test_an_async_on_event_is_awaited_under_asyncio_and_trio() -> None:
    seen: list[str] = []

    async def on_event(event: object) -> None:
        await asyncio.sleep(0)
        seen.append(type(event).__name__)

    async def under_asyncio() -> None:
        async with Agent(TestModel(), on_event=on_event) as agent:
            await agent.run("hi")
            await asyncio.sleep(0.05)

    asyncio.run(under_asyncio())
    assert "PlanEvent" in seen or "AnswerEvent" in seen, seen

    trio_seen: list[str] = []

    async def trio_on_event(event: object) -> None:
        await trio.lowlevel.checkpoint()
        trio_seen.append(type(event).__name__)

    Agent(TestModel(), on_event=trio_on_event).run_sync("hi")
    assert trio_seen


NOTEBOOK_CELLS = [
    "import asyncio\nfrom goliath import Agent, tool\nfrom goliath.testing import TestModel",
    '@tool\nasync def nap() -> str:\n    """Nap on the kernel\'s loop."""\n'
    "    await asyncio.sleep(0.01)\n    return f'napped on {asyncio.get_running_loop() is loop}'",
    "loop = asyncio.get_running_loop()\nagent = Agent(TestModel(), tools=[nap])\n"
    "await agent.__aenter__()",
    "result = await agent.run('nap')\nprint(result.steps[0].result)",
    "other = Agent(TestModel(text='sync in a cell'))\nprint(other.run_sync('hi').text)",
    "async with Agent(TestModel(text='second agent')) as second:\n"
    "    print((await second.run('hi')).text)",
    "await agent.__aexit__(None, None, None)",
]


def test_a_notebook_kernel_runs_agents_in_its_loop(tmp_path: Path) -> None:
    """Cells executed by a real ipykernel through nbclient: top-level await, an async tool on
    the kernel's loop, run_sync in a cell, a second agent in the same loop."""
    import nbclient
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in NOTEBOOK_CELLS]
    client = nbclient.NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    client.execute()
    printed = [
        output.get("text", "")
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if output.get("output_type") == "stream"
    ]
    assert printed == ["napped on True\n", "sync in a cell\n", "second agent\n"]


def test_memory_hooks_fallback_and_facts_run_on_the_host_loop() -> None:
    """An app's async memory store, extension hook, fallback and facts await asyncio objects."""
    from goliath import Extension, MemoryState
    from goliath.testing import FakeModel

    ran: list[str] = []
    lock = asyncio.Lock()  # an asyncio object each of them awaits

    class AppMemory:
        def __init__(self) -> None:
            self.state = MemoryState()

        async def load(self) -> MemoryState:
            async with lock:
                ran.append("load")
            return self.state

        async def save(self, state: MemoryState) -> None:
            async with lock:
                ran.append("save")
            self.state = state

    class Audit(Extension):
        name = "audit"

        async def before_run(self, ctx: object) -> None:
            await asyncio.sleep(0)
            ran.append("hook")

    async def facts() -> dict[str, str]:
        await asyncio.sleep(0)
        ran.append("facts")
        return {"shop": "open"}

    async def fallback(request: object) -> str:
        await asyncio.sleep(0)
        ran.append("fallback")
        return "from the cloud"

    async def main() -> str:
        model = FakeModel([{"error": ConnectionError("device model down")}])
        agent = Agent(
            model, memory=AppMemory(), extensions=[Audit()], facts=facts, fallback=fallback
        )
        async with agent:
            return (await agent.run("hi")).text

    assert asyncio.run(main()) == "from the cloud"
    assert ran == ["facts", "hook", "load", "fallback", "save"]


def test_a_tool_timeout_cancels_the_tools_asyncio_task() -> None:
    """Cancellation from the Trio side: the turn's tool_timeout cancels the coroutine on the
    host loop, which unwinds (its finally runs) before the step fails."""
    unwound: list[bool] = []

    @tool
    async def hang() -> str:
        """Hang on the host loop."""
        try:
            await asyncio.Event().wait()
        finally:
            unwound.append(asyncio.current_task() is not None)
        return "never"  # pragma: no cover

    async def main() -> str:
        agent = Agent(TestModel(), tools=[hang], tool_timeout=0.2)
        async with agent:
            result = await agent.run("hang")
        return result.steps[0].result or ""

    assert asyncio.run(main()).startswith("error: TimeoutError: hang did not finish within 0.2 s")
    assert unwound == [True]
