"""The filesystem tools inside real agent turns, driven by a scripted model."""

from __future__ import annotations

import json
import re
from typing import Any

from goliath import Agent, Budgets, ConfirmRequest, Decision
from goliath.filesystem import (
    composite_filesystem,
    create_filesystem,
    in_memory_filesystem,
    static_filesystem,
)
from goliath.models import GenerateRequest
from goliath.testing import FakeModel

from .conftest import NOTES


def use(tool: str) -> dict[str, Any]:
    return {"json": {"call": tool}}


def answer() -> dict[str, Any]:
    return {"json": {"call": "answer_the_user"}}


def args(**values: Any) -> dict[str, Any]:
    return {"json": values}


def say(text: str) -> dict[str, Any]:
    return {"text": text}


async def run(model: FakeModel, tools: list[Any], ask: str, **agent_options: Any) -> Any:
    async with Agent(model, tools=tools, **agent_options) as agent:
        return await agent.run(ask)


async def test_an_agent_answers_from_notes_with_grep_then_read_file(
    make_backend: Any, kind: str
) -> None:
    """grep finds the note, read_file shows it, and the answer prompt holds the literal text."""
    fs = create_filesystem(await make_backend(kind, NOTES))
    model = FakeModel(
        [
            use("grep"),
            args(pattern="greenhouse"),
            use("read_file"),
            args(path="/notes/garden.md"),
            answer(),
            say("The greenhouse is warm; tomatoes need sun."),
        ]
    )
    result = await run(model, fs.tools, "What do my notes say about the greenhouse?")
    assert result.text == "The greenhouse is warm; tomatoes need sun."
    grep_step, read_step, answer_step = result.steps
    assert json.loads(grep_step.result)["matches"][1] == {
        "path": "/notes/garden.md",
        "revision": grep_step.output["matches"][1]["revision"],
        "line": 3,
        "excerpt": "The greenhouse is warm.",
    }
    header, _, body = read_step.result.partition("\n")
    assert json.loads(header)["path"] == "/notes/garden.md"
    assert body == NOTES["/notes/garden.md"]
    assert read_step.output_mode == "content" and not read_step.failed
    assert answer_step.kind == "answer"
    answer_prompt = model.calls[-1].prompt
    assert "The greenhouse is warm." in answer_prompt and "Water daily." in answer_prompt


async def test_an_identical_read_is_served_from_the_cache(make_backend: Any, kind: str) -> None:
    """Reading the same page twice executes once; the cached step repeats the excerpt."""
    fs = create_filesystem(await make_backend(kind, NOTES))
    model = FakeModel(
        [
            use("read_file"),
            args(path="/todo.txt"),
            use("read_file"),
            args(path="/todo.txt"),
            answer(),
            say("Buy seeds and call the plumber."),
        ]
    )
    result = await run(model, fs.tools, "What is on my todo list?")
    first, second = result.steps[:2]
    assert not first.cached and second.cached
    assert second.result == first.result
    assert second.output == first.output


async def test_refusals_reach_the_model_as_failed_steps(make_backend: Any, kind: str) -> None:
    """A path with '..' fails the step with the reason; the turn goes on and answers."""
    fs = create_filesystem(await make_backend(kind, NOTES))
    model = FakeModel(
        [
            use("read_file"),
            args(path="/notes/../etc/passwd"),
            answer(),
            say("I cannot read that file."),
        ]
    )
    result = await run(model, fs.tools, "Show me /notes/../etc/passwd")
    step = result.steps[0]
    assert step.failed
    assert step.result.startswith("error: Path '/notes/../etc/passwd' contains a '.' or '..'")
    assert step.result.endswith("Try different arguments or another tool.")
    assert "contains a '.' or '..' segment" in model.calls[2].prompt
    assert result.text == "I cannot read that file."


async def test_a_limit_over_the_maximum_is_sent_back_to_the_arguments_call(
    make_backend: Any, kind: str
) -> None:
    """limit 500 fails validation; the arguments call's retry is told the allowed range."""
    fs = create_filesystem(await make_backend(kind, NOTES))
    model = FakeModel(
        [
            use("read_file"),
            args(path="/notes/garden.md", limit=500),
            args(path="/notes/garden.md", limit=200),
            answer(),
            say("Tomatoes need sun."),
        ]
    )
    result = await run(model, fs.tools, "What does the garden note say?")
    assert "limit must be between 1 and 200 lines, got 500" in model.calls[2].prompt
    assert result.steps[0].input["limit"] == 200 and not result.steps[0].failed


async def test_read_file_fits_the_agents_content_budget_and_pages_on(
    make_backend: Any, kind: str
) -> None:
    """With a 90-token result budget, pages fit whole (no truncation marker) and chain by cursor."""
    text = "".join(f"Line {n} of the long note about compost.\n" for n in range(1, 41))
    fs = create_filesystem(await make_backend(kind, {"/notes/long.md": text}))

    def continue_reading(request: GenerateRequest) -> dict[str, Any]:
        """The arguments call copies next_cursor from the result it was shown."""
        headers = re.findall(r'→ (\{"path".*\})', request.prompt)
        return args(path="/notes/long.md", cursor=json.loads(headers[-1])["next_cursor"])

    model = FakeModel(
        [
            use("read_file"),
            args(path="/notes/long.md"),
            use("read_file"),
            continue_reading,
            answer(),
            say("It is about compost."),
        ]
    )
    budgets = Budgets(tool_result_tokens=90, retrieved_context_tokens=400)
    result = await run(model, fs.tools, "Summarize the long note", budgets=budgets)
    first, second = result.steps[:2]
    for step in (first, second):
        assert "[excerpt truncated]" not in step.result
    assert first.output["next_cursor"] and first.output["line"] == 1
    consumed = len(first.output["content"])
    assert second.output["line"] == text.count("\n", 0, consumed) + 1
    read = first.output["content"] + second.output["content"]
    assert text.startswith(read) and len(read) > len(first.output["content"])


async def test_writes_are_declined_without_a_confirm_handler(
    make_backend: Any, writable_kind: str
) -> None:
    """Writes fail closed (D11): with no handler the step is skipped, nothing written."""
    backend = await make_backend(writable_kind, NOTES)
    fs = create_filesystem(backend, read_only=False, write_tools=True)
    model = FakeModel(
        [
            use("write_file"),
            args(path="/notes/shopping.md", content="milk\n"),
            answer(),
            say("I did not save it."),
        ]
    )
    result = await run(model, fs.tools, "Save milk to my shopping list")
    step = result.steps[0]
    assert step.skipped and step.skip_reason == "confirmation" and step.writes
    assert (
        step.result == "declined by the user: no confirmation handler. Do not retry unless asked."
    )
    assert [f.path for f in (await backend.list("/notes")).files] == sorted(
        p for p in NOTES if p.startswith("/notes/")
    )


async def test_a_declined_write_carries_the_users_reason(
    make_backend: Any, writable_kind: str
) -> None:
    """The confirm handler sees the arguments; its reason reaches the model."""
    backend = await make_backend(writable_kind, NOTES)
    fs = create_filesystem(backend, read_only=False, write_tools=True)
    requests: list[ConfirmRequest] = []

    def confirm(request: ConfirmRequest) -> Decision:
        requests.append(request)
        return Decision(approved=False, reason="not in my notes folder")

    model = FakeModel(
        [
            use("delete_file"),
            args(path="/todo.txt", revision="whatever"),
            answer(),
            say("Left it alone."),
        ]
    )
    result = await run(model, fs.tools, "Delete my todo list", confirm=confirm)
    assert requests[0].tool == "delete_file" and requests[0].input["path"] == "/todo.txt"
    assert result.steps[0].result == (
        "declined by the user: not in my notes folder. Do not retry unless asked."
    )
    assert (await backend.read("/todo.txt")).content == NOTES["/todo.txt"]


async def test_approved_writes_change_the_files(make_backend: Any, writable_kind: str) -> None:
    """With approval, read_file's revision lets edit_file change exactly the intended text."""
    backend = await make_backend(writable_kind, NOTES)
    revision = (await backend.read("/notes/garden.md")).revision
    fs = create_filesystem(backend, read_only=False, write_tools=True)
    model = FakeModel(
        [
            use("read_file"),
            args(path="/notes/garden.md"),
            use("edit_file"),
            args(
                path="/notes/garden.md",
                revision=revision,
                old_text="Water daily.",
                new_text="Water twice a day.",
            ),
            answer(),
            say("Updated."),
        ]
    )
    result = await run(model, fs.tools, "Water twice a day now", confirm=lambda request: True)
    edit = result.steps[1]
    assert edit.writes and not edit.failed and not edit.skipped
    assert json.loads(edit.result) == edit.output
    entry = await backend.read("/notes/garden.md")
    assert entry.revision == edit.output["revision"]
    assert "Water twice a day." in entry.content and "Water daily." not in entry.content


async def test_a_write_to_a_read_only_route_fails_the_step() -> None:
    """The model sees 'Read-only route: /docs' and the shipped file stays as it was."""
    docs = static_filesystem({"/guide.md": "Read me.\n"})
    backend = composite_filesystem({"/": in_memory_filesystem(), "/docs": docs})
    fs = create_filesystem(backend, read_only=False, write_tools=True)
    model = FakeModel(
        [
            use("write_file"),
            args(path="/docs/new.md", content="x"),
            answer(),
            say("That folder is read-only."),
        ]
    )
    result = await run(model, fs.tools, "Add a guide", confirm=lambda request: True)
    step = result.steps[0]
    assert step.failed
    assert step.result == "error: Read-only route: /docs. Try different arguments or another tool."


async def test_each_conversation_sees_its_own_files() -> None:
    """A backend function picks files by the conversation that runs the tool."""
    backends = {
        "ann": in_memory_filesystem({"/notes/me.md": "I am Ann.\n"}),
        "bob": in_memory_filesystem({"/notes/me.md": "I am Bob.\n"}),
    }
    fs = create_filesystem(lambda ctx: backends[ctx.conversation_id])
    script = [use("read_file"), args(path="/notes/me.md"), answer(), say("ok")]
    model = FakeModel(script * 2)
    async with Agent(model, tools=fs.tools) as agent:
        ann = await agent.run("Who am I?", conversation_id="ann")
        bob = await agent.run("Who am I?", conversation_id="bob")
    assert ann.steps[0].output["content"] == "I am Ann.\n"
    assert bob.steps[0].output["content"] == "I am Bob.\n"


async def test_the_filesystems_approve_check_can_refuse_a_confirmed_write() -> None:
    """The user confirmed, but approve declines: the step fails with approve's reason."""
    backend = in_memory_filesystem()
    fs = create_filesystem(
        backend,
        read_only=False,
        write_tools=True,
        approve=lambda change: Decision(
            approved=change.path.startswith("/drafts/"), reason="drafts only"
        ),
    )
    model = FakeModel(
        [
            use("write_file"),
            args(path="/notes/a.md", content="x"),
            answer(),
            say("Not saved."),
        ]
    )
    result = await run(model, fs.tools, "Save x in /notes/a.md", confirm=lambda request: True)
    step = result.steps[0]
    assert step.failed and not step.skipped
    assert step.result.startswith("error: Change to /notes/a.md was not approved: drafts only.")
    assert (await backend.list("/")).files == []
