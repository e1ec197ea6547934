"""The native-template baseline: each family's tool-call form, and the loop over a real template.

The loop runs a scripted raw-prompt model whose prompts are rendered by a real Jinja chat template
(a ChatML template with tools, written here in the manner of Qwen2.5's) through the same
``Jinja2ChatFormatter`` llama-cpp-python and the real-model path use.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
import trio

from goliath import ConfirmRequest, Decision, FallbackRequest, tool
from goliath.errors import ConfigError, ModelError
from goliath.evaluation import FIXTURES, run_evals, sample_tools
from goliath.evaluation.native import (
    ChatTemplate,
    NativeTemplateLoop,
    ParsedReply,
    ToolCall,
    openai_tool,
    parse_tool_calls,
    raw_prompt_model,
)
from goliath.models import Generation
from goliath.testing import FakeModel

CHATML_TOOLS = """\
{%- if messages[0].role == 'system' %}
    {{- '<|im_start|>system\\n' + messages[0].content }}
{%- else %}
    {{- '<|im_start|>system\\nYou are a helpful assistant.' }}
{%- endif %}
{%- if tools %}
    {{- '\\n\\n# Tools\\n<tools>' }}
    {%- for tool in tools %}
        {{- '\\n' + tool | tojson }}
    {%- endfor %}
    {{- '\\n</tools>' }}
{%- endif %}
{{- '<|im_end|>\\n' }}
{%- for message in messages %}
    {%- if message.role == 'tool' %}
        {{- '<|im_start|>user\\n<tool_response>\\n' + message.content + '\\n</tool_response><|im_end|>\\n' }}
    {%- elif message.role != 'system' %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content }}
        {%- for call in message.tool_calls or [] %}
            {{- '\\n<tool_call>\\n{"name": "' + call.function.name + '", "arguments": ' }}
            {{- call.function.arguments | tojson }}
            {{- '}\\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
"""

NO_SYSTEM = """\
{%- for message in messages %}
    {%- if message.role == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}
    {{- '<' + message.role + '>' + message.content + '\\n' }}
{%- endfor %}
"""


def hermes(name: str, **arguments: Any) -> str:
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


class ScriptedPrompts:
    """A raw-prompt model: a real chat template, one token per 4 characters, scripted replies."""

    def __init__(
        self,
        replies: Sequence[str | Exception] | Callable[[str], str],
        *,
        window: int = 4096,
        template: str = CHATML_TOOLS,
        delay: float = 0.0,
    ) -> None:
        self.template = ChatTemplate(template, eos_token="<|im_end|>")
        self.replies = replies if callable(replies) else list(replies)
        self.size = window
        self.delay = delay
        self.prompts: list[str] = []
        self.max_tokens: list[int] = []
        self.rendered: list[list[dict[str, Any]]] = []

    async def render(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
    ) -> str:
        self.rendered.append([dict(message) for message in messages])
        return self.template.render(messages, tools)

    def prompt_tokens(self, prompt: str) -> int:
        return -(-len(prompt) // 4)

    def window(self) -> int:
        return self.size

    async def complete(self, prompt: str, max_tokens: int) -> Generation:
        await trio.sleep(self.delay)
        self.prompts.append(prompt)
        self.max_tokens.append(max_tokens)
        if callable(self.replies):
            reply: str | Exception = self.replies(prompt)
        else:
            reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return Generation(
            text=reply, input_tokens=self.prompt_tokens(prompt), output_tokens=len(reply) // 4 + 1
        )


class Fallback:
    def __init__(self) -> None:
        self.requests: list[FallbackRequest] = []

    def __call__(self, request: FallbackRequest) -> str:
        self.requests.append(request)
        return "(cloud)"


# ---------------------------------------------------------------- parsing

EGGS = {"title": "Eggs"}


@pytest.mark.parametrize(
    ("text", "calls", "content", "form"),
    [
        # Hermes / Qwen2.5
        (hermes("list_tasks"), [("list_tasks", {})], "", "hermes"),
        (
            f"Let me look.\n{hermes('list_tasks')}\n{hermes('create_task', title='Eggs')}",
            [("list_tasks", {}), ("create_task", EGGS)],
            "Let me look.",
            "hermes",
        ),
        (
            '<tool_call>\n{"name": "create_task", "arguments": {"title": "Eggs"}}',
            [("create_task", EGGS)],
            "",
            "hermes",
        ),
        ('<tool_call>{"name": "list_tasks"}</tool_call>', [("list_tasks", {})], "", "hermes"),
        (
            '<tool_call>{"name": "create_task", "arguments": "{\\"title\\": \\"Eggs\\"}"}</tool_call>',
            [("create_task", EGGS)],
            "",
            "hermes",
        ),
        # Llama-3.x: the reply is the JSON, "parameters" for the arguments
        (
            '{"name": "create_task", "parameters": {"title": "Eggs"}}',
            [("create_task", EGGS)],
            "",
            "json",
        ),
        (
            '<|python_tag|>{"name": "list_tasks", "parameters": {}}',
            [("list_tasks", {})],
            "",
            "json",
        ),
        (
            '{"name": "list_tasks", "parameters": {}}; {"name": "create_task", "parameters": {"title": "Eggs"}}',
            [("list_tasks", {}), ("create_task", EGGS)],
            "",
            "json",
        ),
        # Qwen2.5's template shows the form as {{"name": ...}}; the 1.5B model copies it
        ('{{"name": "list_tasks", "arguments": {}}}', [("list_tasks", {})], "", "json"),
        ('{{"name": "list_tasks", "arguments": {}}}}\n', [("list_tasks", {})], "", "json"),
        (
            'Sure. {{"name": "create_task", "arguments": {"title": "Eggs"}}}',
            [("create_task", EGGS)],
            "Sure.",
            "embedded",
        ),
        # Mistral: a JSON list after [TOOL_CALLS], or name[ARGS]{...} (v11), with a call id or not
        (
            '[TOOL_CALLS][{"name": "create_task", "arguments": {"title": "Eggs"}}]',
            [("create_task", EGGS)],
            "",
            "mistral",
        ),
        ('[TOOL_CALLS]create_task[ARGS]{"title": "Eggs"}', [("create_task", EGGS)], "", "mistral"),
        (
            '[TOOL_CALLS]list_tasks[CALL_ID]a1b2c3d4e[ARGS]{}[TOOL_CALLS]create_task[ARGS]{"title": "Eggs"}',
            [("list_tasks", {}), ("create_task", EGGS)],
            "",
            "mistral",
        ),
        # OpenAI's own shape, arguments as a JSON string
        (
            '{"type": "function", "function": {"name": "list_tasks", "arguments": "{}"}}',
            [("list_tasks", {})],
            "",
            "json",
        ),
        # Lenient: a fenced block, with or without a language tag
        (
            'I will call:\n```json\n{"name": "list_tasks", "arguments": {}}\n```',
            [("list_tasks", {})],
            "I will call:",
            "fenced",
        ),
        (
            '```\n{"name": "create_task", "arguments": {"title": "Eggs"}}\n```\nDone.',
            [("create_task", EGGS)],
            "Done.",
            "fenced",
        ),
        (
            '```json\n[{"name": "list_tasks", "arguments": {}}]\n```',
            [("list_tasks", {})],
            "",
            "fenced",
        ),
        # Lenient: a bare object with name and arguments inside prose
        (
            'To add it I call {"name": "create_task", "arguments": {"title": "Eggs"}} now.',
            [("create_task", EGGS)],
            "To add it I call  now.",
            "embedded",
        ),
    ],
)
def test_every_tool_call_form_is_parsed(
    text: str, calls: list[tuple[str, Any]], content: str, form: str
) -> None:
    """Each family's form and the lenient JSON forms give exactly these calls."""
    parsed = parse_tool_calls(text)
    assert parsed == ParsedReply(
        tuple(ToolCall(name=name, arguments=arguments) for name, arguments in calls),
        content,
        form,
    )


@pytest.mark.parametrize(
    "text",
    [
        "You have two tasks: buy milk and call mom.",
        '{"answer": "Hi"}',  # JSON, but not a call
        '{"name": "Sam", "phone": "555"}',  # a bare object needs arguments to be a call
        '```json\n{"title": "Eggs"}\n```',
        "<tool_call>not json</tool_call>",
        "The function list_tasks() returns your tasks.",
    ],
)
def test_anything_else_is_the_final_answer(text: str) -> None:
    """No call in any form: the reply, stripped, is the answer."""
    assert parse_tool_calls(f"  {text}\n") == ParsedReply((), text, None)


# ---------------------------------------------------------------- rendering


def test_tools_are_offered_as_openai_function_schemas() -> None:
    """The tools= entry is {"type": "function", "function": {name, description, parameters}}."""
    listing, create = sample_tools()
    assert openai_tool(create) == {
        "type": "function",
        "function": {
            "name": "create_task",
            "description": "Add a task.",
            "parameters": create.schema,
        },
    }
    assert openai_tool(listing)["function"]["parameters"]["type"] == "object"


def test_a_template_without_a_system_role_gets_it_in_the_first_user_message() -> None:
    """As llama.cpp's server does for such templates; a template that cannot render at all
    is a ConfigError naming the template."""
    template = ChatTemplate(NO_SYSTEM)
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    assert template.render(messages) == "<user>Be brief.\n\nhi\n"
    with pytest.raises(ConfigError, match="chat template failed to render: System role"):
        template.render([messages[0]])
    with pytest.raises(ConfigError, match="does not compile"):
        ChatTemplate("{% for %}")


# ---------------------------------------------------------------- the loop


class TestTheLoop:
    async def test_the_prompts_are_the_templates_with_tools_calls_and_results(self) -> None:
        """Tools in the system turn, the call re-rendered as the template writes it, the raw
        result as a tool message; the usage counted from the model's exact counts."""
        model = ScriptedPrompts([hermes("list_tasks"), "Milk and mom."])
        loop = NativeTemplateLoop(model, sample_tools(), facts={"today": "Monday"})
        result = await loop.run("what's on my list?")
        assert (result.text, result.handled_by) == ("Milk and mom.", "device")
        assert [(step.kind, step.tool) for step in result.steps] == [
            ("tool", "list_tasks"),
            ("answer", None),
        ]
        first, second = model.prompts
        tools = "\n".join(json.dumps(openai_tool(t), ensure_ascii=False) for t in sample_tools())
        assert first == (
            "<|im_start|>system\n"
            "You are a careful assistant that lives on this device.\nKnown:\ntoday: Monday\n\n"
            f"# Tools\n<tools>\n{tools}\n</tools><|im_end|>\n"
            "<|im_start|>user\nwhat's on my list?<|im_end|>\n"
            "<|im_start|>assistant\n"
        )
        assert second == first + (
            '\n<tool_call>\n{"name": "list_tasks", "arguments": {}}\n</tool_call><|im_end|>\n'
            "<|im_start|>user\n<tool_response>\n"
            '[{"title": "Buy milk"}, {"title": "Call mom"}]\n'
            "</tool_response><|im_end|>\n"
            "<|im_start|>assistant\n"
        )
        assert model.rendered[1][2] == {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "list_tasks", "arguments": {}},
                }
            ],
        }
        assert model.rendered[1][3]["role"] == "tool"
        assert model.rendered[1][3]["tool_call_id"] == "call_1"
        assert model.max_tokens == [512, 512]
        assert result.model_calls == 2
        assert result.input_tokens == sum(model.prompt_tokens(p) for p in model.prompts)
        assert result.output_tokens == sum(
            len(r) // 4 + 1 for r in [hermes("list_tasks"), "Milk and mom."]
        )

    async def test_the_conversation_history_opens_the_messages(self) -> None:
        """Earlier (ask, answer) exchanges become user and assistant messages."""
        model = ScriptedPrompts(["Sure."])
        await NativeTemplateLoop(model, []).run("and tomorrow?", history=[("hi", "Hello!")])
        assert [(m["role"], m["content"]) for m in model.rendered[0][1:]] == [
            ("user", "hi"),
            ("assistant", "Hello!"),
            ("user", "and tomorrow?"),
        ]

    async def test_several_calls_in_one_reply_all_run_as_one_step_of_the_cap(self) -> None:
        """Two calls in one reply: both run, each answered by its own tool message."""
        tools = sample_tools()
        reply = f"{hermes('list_tasks')}\n{hermes('create_task', title='Eggs')}"
        model = ScriptedPrompts([reply, "Added eggs."])
        result = await NativeTemplateLoop(model, tools, max_steps=2).run("add eggs")
        assert [step.tool for step in result.steps] == ["list_tasks", "create_task", None]
        messages = model.rendered[1]
        assert [m.get("tool_call_id") for m in messages if m["role"] == "tool"] == [
            "call_1",
            "call_2",
        ]
        assert result.text == "Added eggs."

    async def test_an_unknown_tool_is_told_in_a_tool_message_and_the_loop_goes_on(self) -> None:
        """No step is recorded for a name that is not a tool; the model reads why."""
        model = ScriptedPrompts([hermes("get_weather", city="Oslo"), hermes("list_tasks"), "OK"])
        result = await NativeTemplateLoop(model, sample_tools()).run("weather?")
        assert [step.tool for step in result.steps] == ["list_tasks", None]
        told = model.rendered[1][-1]
        assert told == {
            "role": "tool",
            "tool_call_id": "call_1",
            "name": "get_weather",
            "content": "error: there is no tool 'get_weather'; the tools are list_tasks, create_task",
        }

    async def test_invalid_arguments_are_a_failed_step_the_model_reads(self) -> None:
        model = ScriptedPrompts([hermes("create_task"), "Sorry."])
        result = await NativeTemplateLoop(model, sample_tools()).run("add")
        assert result.steps[0].failed
        assert model.rendered[1][-1]["content"].startswith("error: invalid arguments:")

    async def test_an_empty_reply_is_noted_and_counts_as_a_step(self) -> None:
        model = ScriptedPrompts(["  ", "Hi!"])
        result = await NativeTemplateLoop(model, []).run("hi")
        assert (result.text, result.model_calls) == ("Hi!", 2)
        assert model.rendered[1][-2:] == [
            {"role": "assistant", "content": ""},
            {"role": "user", "content": "Error: your reply was empty. Try again."},
        ]


class TestWritesAndHandOffs:
    async def test_a_declined_write_does_not_run_and_the_model_is_told(self) -> None:
        """The same confirm policy as Agent and the naive loop: skipped, with the reason."""
        requests: list[ConfirmRequest] = []

        def decline(request: ConfirmRequest) -> Decision:
            requests.append(request)
            return Decision(approved=False, reason="not now")

        model = ScriptedPrompts([hermes("create_task", title="Eggs"), hermes("list_tasks"), "OK"])
        result = await NativeTemplateLoop(model, sample_tools(), confirm=decline).run("add eggs")
        step = result.steps[0]
        assert (step.skipped, step.skip_reason, step.output) == (True, "confirmation", None)
        assert requests[0].input == EGGS
        assert model.rendered[1][-1]["content"] == "declined by the user: not now"
        assert (
            "<tool_response>\ndeclined by the user: not now\n</tool_response>" in model.prompts[1]
        )
        assert "Eggs" not in json.dumps(result.steps[1].output)

    async def test_the_step_cap_hands_the_turn_to_the_fallback(self) -> None:
        fallback = Fallback()
        model = ScriptedPrompts(lambda prompt: hermes("list_tasks"))
        loop = NativeTemplateLoop(model, sample_tools(), fallback=fallback, max_steps=3)
        result = await loop.run("loop")
        assert (result.text, result.handled_by, result.model_calls) == ("(cloud)", "cloud", 3)
        assert fallback.requests[0].reason == "too-many-steps"
        assert len(fallback.requests[0].steps) == 3

    async def test_a_prompt_beyond_the_window_is_handed_over_before_the_call(self) -> None:
        """The exact prompt count plus the 512-token reply must fit; else context-budget."""

        @tool
        def dump() -> str:
            """Everything."""
            return "x" * 20_000

        fallback = Fallback()
        model = ScriptedPrompts([hermes("dump"), "never"], window=4096)
        result = await NativeTemplateLoop(model, [dump], fallback=fallback).run("dump it")
        assert result.handled_by == "cloud" and result.model_calls == 1
        assert fallback.requests[0].reason == "context-budget"
        assert "window allows 3584" in (fallback.requests[0].error or "")

    async def test_a_model_failure_escalates_as_model_error(self) -> None:
        fallback = Fallback()
        model = ScriptedPrompts([ModelError("boom")])
        result = await NativeTemplateLoop(model, [], fallback=fallback).run("hi")
        assert result.handled_by == "cloud" and fallback.requests[0].reason == "model-error"

    async def test_cancellation_passes_through(self, autojump_clock: Any) -> None:
        fallback = Fallback()
        model = ScriptedPrompts(["late"], delay=10)
        with trio.move_on_after(5) as scope:
            await NativeTemplateLoop(model, [], fallback=fallback).run("hi")
        assert scope.cancelled_caught and fallback.requests == []


class TestModels:
    def test_a_model_without_raw_prompts_is_a_config_error_naming_what_is_needed(self) -> None:
        with pytest.raises(ConfigError, match=r"needs a llama\.cpp model \(--model local"):
            raw_prompt_model(FakeModel([]))
        with pytest.raises(ConfigError, match="render"):
            NativeTemplateLoop(FakeModel([]), [])

    async def test_run_evals_runs_it_as_native_template(self) -> None:
        """run_evals(baseline="native") scores this loop under its own agent name."""

        def model(fixture: Any) -> ScriptedPrompts:
            return ScriptedPrompts([hermes("list_tasks"), "Buy milk and call mom."])

        report = await run_evals(model=model, fixtures=FIXTURES[:1], runs=2, baseline="native")
        assert report.agent == "native-template"
        assert (report.passed, report.on_device, report.mean_model_calls) == (1, 2, 2)

    async def test_run_evals_refuses_a_model_that_cannot_run_it_before_running(self) -> None:
        with pytest.raises(ConfigError, match="native-template baseline"):
            await run_evals(model=FakeModel([]), fixtures=FIXTURES[:1], baseline="native")
        with pytest.raises(ConfigError, match="baseline must be False, True or one of"):
            await run_evals(model=FakeModel([]), fixtures=FIXTURES[:1], baseline="smart")
