"""The native-template loop: the baseline a user of llama.cpp's server, Ollama or LM Studio gets.

Those servers render the model's OWN chat template (the GGUF's ``tokenizer.chat_template``)
with the request's ``tools=`` as OpenAI function schemas, let the model generate freely (no
grammar), and parse the reply for the model family's tool-call form. This loop does the same
in-process, so Goliath is measured against what a developer gets out of the box, not only
against a loop Goliath's authors wrote:

- the conversation is chat messages: a system message (the instructions and facts), the ask
  as a user message, each reply as an assistant message (with ``tool_calls`` when it made
  calls), each tool result as a ``tool`` message holding the tool's raw output;
- the reply is parsed for Hermes/Qwen ``<tool_call>{...}</tool_call>``, Mistral
  ``[TOOL_CALLS]``, Llama-3.x ``{"name": ..., "parameters": ...}`` and, leniently, a fenced
  ```` ```json ```` block or a bare JSON object with ``name`` and ``arguments`` (small models
  often write that instead); anything else is the final answer.

Everything else is the naive loop's (:mod:`goliath.evaluation.baseline`): the same tools, confirm
policy, step cap (every reply counts), window check, fallback only when it must, and call and
token counting; the tool steps run through the same code.

The model port is narrow (:class:`RawPromptModel`: render messages and tools to a prompt, count
its tokens, generate from it). :class:`LlamaCppPrompts` implements it over a loaded
:class:`~goliath.models.llamacpp.LlamaCppModel`; an OpenAI-compatible server is not supported
(its server does the template and parsing itself, so it would be a different loop).
"""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import attrs
import trio

from .._util import named_message
from ..budget import TokenCounter
from ..classify import classify_model_error
from ..config import (
    DEFAULT_INSTRUCTIONS,
    DEFAULT_MAX_STEPS,
    ConfirmHandler,
    FactsSource,
    Fallback,
    WindowSource,
)
from ..errors import ConfigError, ModelError
from ..models import Generation
from ..records import RunResult
from ..tools import Tool
from .baseline import MAX_OUTPUT_TOKENS, NaiveLoop, _Escalate, _Turn

__all__ = [
    "AGENT_NAME",
    "ChatTemplate",
    "LlamaCppPrompts",
    "NativeTemplateLoop",
    "ParsedReply",
    "RawPromptModel",
    "ToolCall",
    "openai_tool",
    "parse_tool_calls",
    "raw_prompt_model",
]

AGENT_NAME = "native-template"
"""The agent name of this loop's reports (``goliath eval --baseline native``)."""


# ---------------------------------------------------------------- the model port


@runtime_checkable
class RawPromptModel(Protocol):
    """What the loop needs of a model: its chat template, its tokenizer and raw generation."""

    async def render(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
    ) -> str:
        """The prompt text the model's chat template makes of ``messages`` and ``tools``."""
        ...

    def prompt_tokens(self, prompt: str) -> int:
        """The exact number of tokens the model reads for a rendered ``prompt``."""
        ...

    def window(self) -> int:
        """The context window in tokens (prompt and reply together)."""
        ...

    async def complete(self, prompt: str, max_tokens: int) -> Generation:
        """Greedy, free generation from ``prompt`` until an end-of-turn token or ``max_tokens``."""
        ...


class ChatTemplate:
    """A Jinja chat template rendered exactly as llama-cpp-python's ``Jinja2ChatFormatter``
    renders it (the same sandbox, filters and globals Transformers uses), with ``tools=``.

    Raises:
        ConfigError: the template does not compile (at construction) or fails to render.
    """

    def __init__(self, template: str, *, bos_token: str = "", eos_token: str = "") -> None:
        from jinja2 import TemplateError
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self._formatter: Any  # llama_cpp's TypedDict message types are narrower than a chat's
        try:
            self._formatter = Jinja2ChatFormatter(
                template=template, eos_token=eos_token, bos_token=bos_token
            )
        except TemplateError as exc:
            raise ConfigError(f"The chat template does not compile: {exc}") from exc

    def render(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] = ()
    ) -> str:
        """The prompt for ``messages`` (generation prompt added) with ``tools`` offered.

        A template that rejects a system message gets it folded into the first user message,
        as llama.cpp's server does for such templates.
        """
        listed = [dict(message) for message in messages]
        try:
            return self._render(listed, tools)
        except Exception as first:
            if not listed or listed[0].get("role") != "system" or len(listed) < 2:
                raise ConfigError(f"The chat template failed to render: {first}") from first
            system, rest = listed[0], listed[1:]
            if rest[0].get("role") == "user":
                rest[0] = {**rest[0], "content": f"{system['content']}\n\n{rest[0]['content']}"}
            try:
                return self._render(rest, tools)
            except Exception as exc:
                raise ConfigError(f"The chat template failed to render: {exc}") from exc

    def _render(self, messages: list[dict[str, Any]], tools: Sequence[Mapping[str, Any]]) -> str:
        response = self._formatter(messages=messages, tools=[dict(t) for t in tools] or None)
        return str(response.prompt)


_PROMPTS: weakref.WeakKeyDictionary[Any, LlamaCppPrompts] = weakref.WeakKeyDictionary()


class LlamaCppPrompts:
    """:class:`RawPromptModel` over a :class:`~goliath.models.llamacpp.LlamaCppModel`.

    It reads the GGUF's ``tokenizer.chat_template`` and BOS/EOS texts from the loaded
    ``llama_cpp.Llama`` (as the bridge does), tokenizes the rendered prompt with special tokens
    parsed (exactly what a server sends the model), and generates greedily with no grammar in a
    worker thread that stops within a token when the calling task is cancelled (the bridge's
    llama.cpp abort callback also stops a long prompt evaluation). It must not be used while
    the same model serves another turn: it bypasses the bridge's own generation lock.

    Raises:
        ConfigError: (from :meth:`render`) the GGUF has no chat template.
    """

    def __init__(self, model: Any, *, chat_template: str | None = None) -> None:
        self.model = model
        self._chat_template = chat_template
        self._template: ChatTemplate | None = None
        self._lock = trio.Lock()

    @classmethod
    def of(cls, model: Any) -> LlamaCppPrompts:
        """The adapter of ``model``, made once per model (its template is compiled once)."""
        adapter = _PROMPTS.get(model)
        if adapter is None:
            adapter = _PROMPTS[model] = cls(model)
        return adapter

    def window(self) -> int:
        return int(self.model.window())

    async def render(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
    ) -> str:
        await self.model.load()
        if self._template is None:
            self._template = self._make_template()
        return self._template.render(messages, tools)

    def _make_template(self) -> ChatTemplate:
        import llama_cpp

        llm = self.model.llama
        template = self._chat_template or llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise ConfigError(
                f"The native-template baseline needs the model's own chat template, and "
                f"{self.model.name} has no tokenizer.chat_template in its GGUF metadata."
            )
        vocab = llama_cpp.llama_model_get_vocab(llm.model)

        def text_of(token: int) -> str:
            if token < 0:
                return ""
            return bytes(llama_cpp.llama_vocab_get_text(vocab, token)).decode("utf-8", "replace")

        return ChatTemplate(
            template, bos_token=text_of(llm.token_bos()), eos_token=text_of(llm.token_eos())
        )

    def _tokens(self, prompt: str) -> list[int]:
        # The template writes BOS itself where the model wants one (Jinja2ChatFormatter's
        # added_special), so none is added here.
        tokens: list[int] = self.model.llama.tokenize(
            prompt.encode("utf-8"), add_bos=False, special=True
        )
        return tokens

    def prompt_tokens(self, prompt: str) -> int:
        return len(self._tokens(prompt))

    async def complete(self, prompt: str, max_tokens: int) -> Generation:
        async with self._lock:
            await self.model.load()
            return await trio.to_thread.run_sync(self._generate, prompt, max_tokens)

    def _generate(self, prompt: str, max_tokens: int) -> Generation:
        import llama_cpp

        llm = self.model.llama
        vocab = self.model.vocab
        tokens = self._tokens(prompt)
        generated: list[int] = []
        try:
            for token in llm.generate(tokens, temp=0.0, repeat_penalty=1.0):
                trio.from_thread.check_cancelled()
                if llama_cpp.llama_vocab_is_eog(vocab, token):
                    break
                generated.append(token)
                if len(generated) >= max_tokens:
                    break
        except RuntimeError as exc:  # llama_decode failed, or the abort callback stopped it
            trio.from_thread.check_cancelled()
            raise ModelError(f"llama.cpp failed while generating: {exc}") from exc
        trio.from_thread.check_cancelled()
        # special=True: a family's tool-call markers ([TOOL_CALLS], <|python_tag|>) are control
        # tokens; a server's parser sees them, so this parser must too.
        text = llm.detokenize(generated, prev_tokens=tokens, special=True)
        return Generation(
            text=text.decode("utf-8", errors="replace"),
            input_tokens=len(tokens),
            output_tokens=len(generated),
        )


def raw_prompt_model(model: Any) -> RawPromptModel:
    """The :class:`RawPromptModel` for ``model``: itself, or the adapter of a llama.cpp model.

    Raises:
        ConfigError: ``model`` is neither (the message names what is needed).
    """
    if isinstance(model, RawPromptModel):
        return model
    from ..models.llamacpp import LlamaCppModel  # imports no optional package

    if isinstance(model, LlamaCppModel):
        return LlamaCppPrompts.of(model)
    raise ConfigError(
        "The native-template baseline renders the model's own chat template and generates "
        "from the raw prompt, so it needs a llama.cpp model (--model local or llamacpp:PATH, "
        "a GGUF with tokenizer.chat_template) or an object with render(), prompt_tokens(), "
        f"window() and complete(prompt, max_tokens); got {model!r}."
    )


def openai_tool(tool: Tool) -> dict[str, Any]:
    """``tool`` as an OpenAI function schema, the ``tools=`` entry a server's client sends."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.schema,
        },
    }


# ---------------------------------------------------------------- parsing


@attrs.frozen
class ToolCall:
    """One call the reply asked for (``arguments`` as written; validation comes later)."""

    name: str
    arguments: Any


@attrs.frozen
class ParsedReply:
    """A reply split into its calls and the rest of its text.

    ``form`` says how the calls were written: ``"hermes"`` (``<tool_call>`` tags, Qwen's),
    ``"mistral"`` (``[TOOL_CALLS]``), ``"json"`` (the whole reply is the JSON, Llama-3.x's),
    ``"fenced"`` (a fenced code block) or ``"embedded"`` (a JSON object inside prose);
    ``None`` when there is no call and ``content`` is the final answer.
    """

    calls: tuple[ToolCall, ...]
    content: str
    form: str | None


_DECODER = json.JSONDecoder(strict=False)
_HERMES = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.S)
_MISTRAL = "[TOOL_CALLS]"
_MISTRAL_NAMED = re.compile(r"\s*([A-Za-z_][\w.\-]*)\s*(?:\[CALL_ID\]\s*[^\[]*)?\[ARGS\]")
_FENCE = re.compile(r"```[ \t]*(?:json|JSON|tool_call|python)?[ \t]*\n?(.*?)```", re.S)
_PYTHON_TAG = "<|python_tag|>"


def _call_of(value: Any, *, tagged: bool) -> ToolCall | None:
    """A call from ``{"name", "arguments"|"parameters"}`` (or OpenAI's ``{"function": ...}``).

    Inside explicit tool-call markup a call without arguments means no arguments; in a bare
    or fenced object both keys are needed, so an ordinary JSON answer is not taken for a call.
    """
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("function"), dict):
        value = value["function"]
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        return None
    for key in ("arguments", "parameters"):
        if key in value:
            arguments = value[key]
            break
    else:
        if not tagged:
            return None
        arguments = {}
    if isinstance(arguments, str):  # OpenAI's wire form: the arguments as a JSON string
        try:
            arguments = json.loads(arguments, strict=False)
        except ValueError:
            pass  # kept as written: argument validation reports it
    return ToolCall(name=name.strip(), arguments=arguments)


def _calls_in(value: Any, *, tagged: bool) -> list[ToolCall] | None:
    """The calls a decoded JSON value holds (an object, or a list of objects), else None."""
    items = value if isinstance(value, list) else [value]
    calls = [_call_of(item, tagged=tagged) for item in items]
    if not calls or any(call is None for call in calls):
        return None
    return [call for call in calls if call is not None]


def _decode_at(text: str, start: int) -> tuple[Any, int] | None:
    try:
        return _DECODER.raw_decode(text, start)
    except ValueError:
        return None


def _scan(text: str, *, tagged: bool) -> tuple[list[ToolCall], list[tuple[int, int]]]:
    """Every JSON object or list in ``text`` that is a call (or calls), with their spans."""
    calls: list[ToolCall] = []
    spans: list[tuple[int, int]] = []
    index = 0
    while True:
        starts = [i for i in (text.find("{", index), text.find("[", index)) if i >= 0]
        if not starts:
            return calls, spans
        start = min(starts)
        decoded = _decode_at(text, start)
        found = None if decoded is None else _calls_in(decoded[0], tagged=tagged)
        if decoded is None or found is None:
            index = start + 1
            continue
        end = decoded[1]
        if text[start - 1 : start] == "{" and text[end : end + 1] == "}":
            # {{...}}: Qwen2.5's template shows the call form with doubled braces, and the
            # 1.5B model copies them; the outer pair belongs to the call, not the text.
            start, end = start - 1, end + 1
        calls.extend(found)
        spans.append((start, end))
        index = end


def _without(text: str, spans: Iterable[tuple[int, int]]) -> str:
    kept, last = [], 0
    for start, end in spans:
        kept.append(text[last:start])
        last = end
    kept.append(text[last:])
    rest = re.sub(r"\n{3,}", "\n\n", "".join(kept)).strip()
    return "" if not rest.strip("{}[]; \n") else rest  # stray braces of a doubled call


def parse_tool_calls(text: str) -> ParsedReply:
    """Split a free reply into tool calls and text, trying each family's form in turn.

    The forms, first match wins: ``<tool_call>{...}</tool_call>`` (Hermes, Qwen2.5; several
    allowed, a missing closing tag at the end accepted); ``[TOOL_CALLS]`` followed by a JSON
    list or object, or by ``name[ARGS]{...}`` (Mistral); the whole reply one JSON object or
    list of calls, after an optional ``<|python_tag|>`` (Llama-3.x's ``{"name", "parameters"}``);
    a fenced code block holding calls; a JSON object with ``name`` and ``arguments`` inside
    prose. Anything else, stripped, is the final answer.
    """
    if "<tool_call>" in text:
        calls: list[ToolCall] = []
        for match in _HERMES.finditer(text):
            calls.extend(_scan(match.group(1), tagged=True)[0])
        if calls:
            return ParsedReply(tuple(calls), _HERMES.sub("", text).strip(), "hermes")
    if _MISTRAL in text:
        head, _, tail = text.partition(_MISTRAL)
        calls = []
        for part in tail.split(_MISTRAL):
            named = _MISTRAL_NAMED.match(part)
            if named is None:  # [TOOL_CALLS][{"name": ..., "arguments": ...}, ...]
                calls.extend(_scan(part, tagged=True)[0])
            elif (decoded := _decode_at(part, named.end())) is not None:  # name[ARGS]{...}
                calls.append(ToolCall(name=named.group(1), arguments=decoded[0]))
        if calls:
            return ParsedReply(tuple(calls), head.strip(), "mistral")
    stripped = text.strip()
    if stripped.startswith(_PYTHON_TAG):
        stripped = stripped[len(_PYTHON_TAG) :].strip()
    if stripped.startswith(("{", "[")):
        found_all, spans = _scan(stripped, tagged=False)
        if found_all and spans[0][0] == 0:
            return ParsedReply(tuple(found_all), _without(stripped, spans), "json")
    for fence in _FENCE.finditer(text):
        found_all, _ = _scan(fence.group(1), tagged=False)
        if found_all:
            fenced: list[ToolCall] = []
            blocks: list[tuple[int, int]] = []
            for block in _FENCE.finditer(text):
                inside, _ = _scan(block.group(1), tagged=False)
                if inside:
                    fenced.extend(inside)
                    blocks.append(block.span())
            return ParsedReply(tuple(fenced), _without(text, blocks), "fenced")
    found_all, spans = _scan(text, tagged=False)
    if found_all:
        return ParsedReply(tuple(found_all), _without(text, spans), "embedded")
    return ParsedReply((), stripped, None)


# ---------------------------------------------------------------- the loop


class NativeTemplateLoop(NaiveLoop):
    """The native-template baseline, with the inputs and result shape of :class:`NaiveLoop`.

    Args:
        model: a :class:`~goliath.models.llamacpp.LlamaCppModel` (its GGUF must carry a chat
            template) or any :class:`RawPromptModel`.
        tools, fallback, confirm, window, count_tokens, max_steps, instructions, facts: as
            :class:`NaiveLoop` (``count_tokens`` only sizes tool results for a tool's own
            budget; the prompt is counted exactly by the model). ``instructions`` and
            ``facts`` make the system message; the tools reach the model only as ``tools=``.

    Raises:
        ConfigError: the model cannot render its own template and generate from a raw prompt.
    """

    def __init__(
        self,
        model: Any,
        tools: Iterable[Tool] | Mapping[str, Tool] = (),
        *,
        fallback: Fallback | None = None,
        confirm: ConfirmHandler | None = None,
        window: WindowSource | None = None,
        count_tokens: TokenCounter | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        instructions: str = DEFAULT_INSTRUCTIONS,
        facts: FactsSource | None = None,
    ) -> None:
        self.raw: RawPromptModel = raw_prompt_model(model)
        super().__init__(
            model,
            tools,
            fallback=fallback,
            confirm=confirm,
            window=window if window is not None else self.raw.window,
            count_tokens=count_tokens,
            max_steps=max_steps,
            instructions=instructions,
            facts=facts,
        )
        self.tool_schemas = [openai_tool(tool) for tool in self.tools.values()]

    def _check_model(self, model: Any) -> None:
        """Checked by :func:`raw_prompt_model` already; no zero-argument factory here."""

    async def run(
        self, ask: str, *, context: Any = None, history: Iterable[tuple[str, str]] = ()
    ) -> RunResult:
        """Run one turn; see :meth:`NaiveLoop.run`."""
        return await _NativeTurn(self, ask, context, history).run()


class _NativeTurn(_Turn):
    def __init__(
        self,
        loop: NativeTemplateLoop,
        ask: str,
        context: Any,
        history: Iterable[tuple[str, str]] = (),
    ) -> None:
        earlier = list(history)
        super().__init__(loop, ask, context, earlier)
        self.native = loop
        self.messages: list[dict[str, Any]] = [
            {"role": role, "content": text}
            for before, reply in earlier
            for role, text in (("user", before), ("assistant", reply))
        ]
        self.messages.append({"role": "user", "content": ask})
        self.call_ids = 0

    def _system_prompt(self, facts: Mapping[str, str]) -> str:
        lines = [self.loop.instructions]
        if facts:
            lines.append("Known:\n" + "\n".join(f"{key}: {value}" for key, value in facts.items()))
        return "\n".join(lines)

    async def _loop(self, system: str) -> str:
        while True:
            if self.replies >= self.loop.max_steps:
                raise _Escalate("too-many-steps")
            generation = await self._complete(system)
            self.replies += 1
            parsed = parse_tool_calls(generation.text)
            if not parsed.calls:
                if parsed.content:
                    return parsed.content
                self.messages.append({"role": "assistant", "content": ""})
                self._note("your reply was empty")
                continue
            ids = [self._next_id() for _ in parsed.calls]
            self.messages.append(
                {
                    "role": "assistant",
                    "content": parsed.content,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments},
                        }
                        for call_id, call in zip(ids, parsed.calls, strict=True)
                    ],
                }
            )
            for call_id, call in zip(ids, parsed.calls, strict=True):
                tool = self.loop.tools.get(call.name)
                if tool is None:
                    text = (
                        f"error: there is no tool {call.name!r}; the tools are "
                        f"{', '.join(self.loop.tools)}"
                    )
                else:
                    text = await self._run_tool(tool, call.arguments)
                self.messages.append(
                    {"role": "tool", "tool_call_id": call_id, "name": call.name, "content": text}
                )

    def _next_id(self) -> str:
        self.call_ids += 1
        return f"call_{self.call_ids}"

    def _note(self, problem: str) -> None:
        self.messages.append({"role": "user", "content": f"Error: {problem}. Try again."})

    async def _complete(self, system: str) -> Generation:
        """One model call over the whole conversation, checked against the window first."""
        raw = self.native.raw
        messages = [{"role": "system", "content": system}, *self.messages]
        try:
            prompt = await raw.render(messages, self.native.tool_schemas)
            tokens = raw.prompt_tokens(prompt)
        except ConfigError:
            raise
        except Exception as exc:
            raise _Escalate("model-error", named_message(exc)) from exc
        limit = self.window - MAX_OUTPUT_TOKENS
        if tokens > limit:
            raise _Escalate(
                "context-budget", f"the history needs {tokens} tokens; the window allows {limit}"
            )
        try:
            generation = await raw.complete(prompt, MAX_OUTPUT_TOKENS)
        except Exception as exc:
            raise _Escalate(classify_model_error(exc), named_message(exc)) from exc
        self.calls += 1
        self.input_tokens += generation.input_tokens
        self.output_tokens += generation.output_tokens
        return generation
