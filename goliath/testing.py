"""Test doubles that are real models: scripted replies, recorded requests.

Each goes through exactly the code paths a real bridge does (the model worker, budgets,
parsing, classification); only the replies are fixed (docs/testing.md):

- :class:`TestModel` plays every stage by itself from the schemas it is given: it calls the
  tools it is told to (or every tool once) with schema-valid arguments, then answers.
- :class:`FunctionModel` asks a function of the stage and its schema for each reply.
- :class:`Script` (``FakeModel.plan("add_item", item="eggs").answer("Added eggs.")``) replies
  stage by stage and raises :class:`ScriptMismatch` the moment the turn does something else.
- :class:`FakeModel` replays positional replies in the harness's own protocol, and
  ``goliath run --model fake:SCRIPT.json`` replays such a script from the shell.
- :func:`forbid_model_requests` makes a test fail when it reaches a real model.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import math
import os
import re
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import attrs
import pydantic
import trio

from ._origin import mark
from .errors import ConfigError, GoliathError, ModelError
from .models import GenerateRequest, Generation, TextSink
from .schema import DONE, HAND_OFF, NO_TOOL

__all__ = [
    "ALLOW_MODEL_REQUESTS_ENV",
    "FakeModel",
    "FunctionModel",
    "Script",
    "ScriptEntry",
    "ScriptMismatch",
    "StageCall",
    "TestModel",
    "check_model_allowed",
    "forbid_model_requests",
    "requests_forbidden",
]

ScriptEntry = dict[str, Any]
ScriptFunction = Callable[[GenerateRequest], "ScriptEntry | Awaitable[ScriptEntry]"]


class FakeModel:
    """A scripted model.

    Args:
        script: a list of replies consumed one per call — ``{"text": str}``, ``{"json": value}``
            (its JSON text), ``{"error": exc}`` (raised after the call is recorded), with an
            optional ``"scores"`` (option -> log-probability, reported for a request that asks
            to ``score`` a field, as llama.cpp does) — or a
            function of the :class:`GenerateRequest` returning such a reply (sync or async).
            A list entry may itself be such a function.
        delay: seconds each call takes (use with Trio's autojump clock; never a real sleep).
        token_delay: seconds between the pieces of a streamed reply (``generate_stream``: a
            text reply is handed over word by word, with a checkpoint between words).

    ``calls`` records every request in order; ``remaining()`` counts unconsumed replies; running
    out raises ``ModelError("script exhausted after N call(s)")``, which a run treats like any
    model failure.
    """

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        script: Iterable[ScriptEntry | ScriptFunction] | ScriptFunction = (),
        *,
        delay: float = 0.0,
        token_delay: float = 0.0,
    ) -> None:
        self._function: ScriptFunction | None = None
        self._script: list[ScriptEntry | ScriptFunction] = []
        if callable(script) and not isinstance(script, (list, tuple)):
            self._function = script
        else:
            self._script = list(script)
            for entry in self._script:
                _check_entry(entry)
        self._served = 0
        self.delay = delay
        self.token_delay = token_delay
        self.calls: list[GenerateRequest] = []

    @classmethod
    def from_file(cls, path: str | Path) -> FakeModel:
        """Load a JSON script; an ``{"error": "message"}`` entry raises ``ModelError(message)``.

        The file is a list of entries, or ``{"script": [...], "token_delay": seconds}`` for a
        reply streamed that slowly (what a terminal shows while the model writes).
        """
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"Cannot read the fake model script {path}: {exc}") from exc
        token_delay = 0.0
        if isinstance(raw, dict) and "script" in raw:
            delay = raw.get("token_delay", 0.0)
            if isinstance(delay, bool) or not isinstance(delay, (int, float)) or delay < 0:
                raise ConfigError(f"{path}: token_delay is seconds ≥ 0, got {delay!r}.")
            token_delay = float(delay)
            raw = raw["script"]
        if not isinstance(raw, list):
            raise ConfigError(f"{path}: a fake model script is a JSON list of replies.")
        entries: list[ScriptEntry | ScriptFunction] = []
        for index, entry in enumerate(raw):
            if isinstance(entry, dict) and isinstance(entry.get("error"), str):
                entry = {"error": ModelError(entry["error"], code=entry.get("code"))}
            try:
                _check_entry(entry)
            except ConfigError as exc:
                raise ConfigError(f"{path}: entry {index}: {exc}") from None
            entries.append(entry)
        return cls(entries, token_delay=token_delay)

    def remaining(self) -> int:
        """How many scripted replies are left (0 for a function script)."""
        return len(self._script) - self._served if self._function is None else 0

    async def generate(self, request: GenerateRequest) -> Generation:
        self.calls.append(request)
        if self.delay:
            await trio.sleep(self.delay)
        entry: Any
        if self._function is not None:
            entry = self._function(request)
        elif self._served < len(self._script):
            entry = self._script[self._served]
            self._served += 1
        else:
            raise ModelError(f"script exhausted after {self._served} call(s)")
        if callable(entry):
            entry = entry(request)
        if inspect.isawaitable(entry):
            entry = await entry
        _check_entry(entry)
        if "error" in entry:
            raise entry["error"]
        if "json" in entry and request.schema is None and self._function is None:
            raise _mismatch(
                f"script entry {self._served - 1} is JSON {json.dumps(entry['json'])[:120]}, but "
                f"call {len(self.calls)} is a {request.label!r} call that takes text: the script "
                "fell out of step with the turn (an escalation, a retry, a call it did not "
                "expect). FakeModel.plan(...).answer(...) scripts by stage instead."
            )
        text = entry["text"] if "text" in entry else json.dumps(entry["json"])
        return _generation(request, text, entry.get("scores"))

    @classmethod
    def plan(cls, tool: str, /, **arguments: Any) -> Script:
        """Start a stage-keyed :class:`Script`: the turn calls ``tool`` with ``arguments``."""
        return Script().plan(tool, **arguments)

    @classmethod
    def answer(cls, text: str = "", /, *, output: Any = None) -> Script:
        """Start a stage-keyed :class:`Script` whose turn answers at once."""
        return Script().answer(text, output=output)

    async def generate_stream(self, request: GenerateRequest, on_text: TextSink) -> Generation:
        """Like :meth:`generate`, handing the reply's text to ``on_text`` word by word."""
        generation = await self.generate(request)
        for piece in re.findall(r"\S+\s*|\s+", generation.text):
            on_text(piece)
            await trio.sleep(self.token_delay)
        return generation


def _check_entry(entry: Any) -> None:
    if callable(entry):
        return
    if not isinstance(entry, dict) or not ({"text", "json", "error"} & entry.keys()):
        raise ConfigError(
            f"A script entry must be {{'text': str}}, {{'json': value}} or {{'error': exception}}; "
            f"got {entry!r}."
        )
    if "text" in entry and not isinstance(entry["text"], str):
        raise ConfigError(f"A 'text' reply must be a string, got {entry['text']!r}.")
    if "error" in entry and not isinstance(entry["error"], BaseException):
        raise ConfigError(
            f"An 'error' reply must be an exception instance, got {entry['error']!r}."
        )


def _generation(
    request: GenerateRequest, text: str, scores: dict[str, Any] | None = None
) -> Generation:
    return Generation(
        text=text,
        input_tokens=math.ceil(len(json.dumps([request.system, request.prompt])) / 4),
        output_tokens=math.ceil(len(text) / 4),
        scores={str(k): float(v) for k, v in scores.items()}
        if scores and request.score is not None
        else None,
    )


async def _stream_words(
    model: Any, request: GenerateRequest, on_text: TextSink, token_delay: float = 0.0
) -> Generation:
    generation: Generation = await model.generate(request)
    for piece in re.findall(r"\S+\s*|\s+", generation.text):
        on_text(piece)
        await trio.sleep(token_delay)
    return generation


class ScriptMismatch(AssertionError):
    """A scripted model was asked for something its script does not hold (the turn and the
    script fell out of step). The run raises it: a test fails here, loudly, instead of the
    agent answering with a script entry."""

    __test__ = False


def _mismatch(message: str) -> ScriptMismatch:
    error = ScriptMismatch(message)
    mark(error, "harness")  # not a model failure: the turn must not escalate it away
    return error


# ---------------------------------------------------------------- reading a request


def _plan_names(request: GenerateRequest) -> tuple[list[str], list[str] | None]:
    """A conductor call's ``call`` enum and, for a first plan, its ``then`` enum."""
    properties = (request.schema or {}).get("properties", {})
    call = list(properties.get("call", {}).get("enum", []))
    then = properties.get("then")
    return call, (list(then.get("enum", [])) if isinstance(then, dict) else None)


def _option(names: Sequence[str], option: str) -> str | None:
    return next((name for name in names if name.lstrip("_") == option), None)


def _tool_names(names: Sequence[str]) -> list[str]:
    options = {NO_TOOL, DONE, HAND_OFF}
    return [name for name in names if name.lstrip("_") not in options]


_ARGUMENTS_TOOL = re.compile(r"function call: ([A-Za-z_][A-Za-z0-9_]*)\(")


def _arguments_tool(request: GenerateRequest) -> str | None:
    """The tool an arguments call fills, as its system prompt names it (``None``: not found)."""
    found = _ARGUMENTS_TOOL.search(request.system)
    return found.group(1) if found else None


def _arguments_properties(request: GenerateRequest) -> dict[str, Any]:
    properties = dict((request.schema or {}).get("properties", {}))
    properties.pop("missing", None)
    return properties


def _as_json(value: Any) -> str:
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump_json()
    return json.dumps(value)


# ---------------------------------------------------------------- Script


@attrs.define
class _Move:
    kind: Literal["plan", "answer"]
    tool: str | None = None
    arguments: dict[str, Any] = attrs.field(factory=dict)
    text: str = ""
    output: Any = None
    state: Literal["pending", "planned", "chosen", "filled", "answered"] = "pending"

    def describe(self) -> str:
        if self.kind == "answer":
            return f"answer({self.text!r})" if self.output is None else "answer(output=...)"
        shown = ", ".join(f"{key}={value!r}" for key, value in self.arguments.items())
        return f"plan({self.tool!r}{', ' if shown else ''}{shown})"


class Script:
    """A stage-keyed script: what each turn does, not the position of each reply.

    ``FakeModel.plan("add_item", item="eggs").answer("Added eggs.")`` is a turn that calls
    ``add_item(item="eggs")`` and answers "Added eggs."; chain more ``plan``s for more calls and
    more ``answer``s for more turns. The script answers each model call from the stage it is
    (the first plan, a later step's pick, the arguments call's reply, the answer) and raises
    :class:`ScriptMismatch` when the turn asks for something else: a tool the conductor was
    not offered, an answer while a call is still to come, any call after the last move. A
    memory fold (``scribe``) is answered with ``scribe`` text and never counts as a move.

    ``calls`` records every request; ``remaining()`` counts moves not yet played.
    """

    __test__ = False

    def __init__(self, *, scribe: str = "Earlier: a few asks.") -> None:
        self._moves: list[_Move] = []
        self._scribe = scribe
        self.calls: list[GenerateRequest] = []

    def plan(self, tool: str, /, **arguments: Any) -> Script:
        """The turn calls ``tool``; its arguments call (if it has parameters) fills ``arguments``."""
        if not isinstance(tool, str) or not tool:
            raise ConfigError(f"Script.plan needs a tool name, got {tool!r}.")
        self._moves.append(_Move("plan", tool=tool, arguments=dict(arguments)))
        return self

    def answer(self, text: str = "", /, *, output: Any = None) -> Script:
        """The turn answers ``text`` (or, for an ``output_schema``, ``output`` as JSON)."""
        if not isinstance(text, str):
            raise ConfigError(f"Script.answer takes the answer's text, got {text!r}.")
        self._moves.append(_Move("answer", text=text, output=output))
        return self

    def remaining(self) -> int:
        """How many moves have not been played yet."""
        return sum(1 for move in self._moves if move.state not in ("filled", "answered", "chosen"))

    def _open(self) -> list[_Move]:
        return [move for move in self._moves if move.state in ("pending", "planned")]

    def _fail(self, request: GenerateRequest, why: str) -> ScriptMismatch:
        played = [m.describe() for m in self._moves if m.state not in ("pending", "planned")]
        return _mismatch(
            f"{why} (call {len(self.calls)}, stage {request.label!r}; moves played: "
            f"{', '.join(played) or 'none'}; still to play: "
            f"{', '.join(m.describe() for m in self._open()) or 'none'})"
        )

    async def generate(self, request: GenerateRequest) -> Generation:
        self.calls.append(request)
        await trio.lowlevel.checkpoint()
        if request.label == "scribe":
            return _generation(request, self._scribe)
        if request.label == "conductor":
            return _generation(request, self._conduct(request))
        if request.label == "arguments":
            return _generation(request, self._fill(request))
        return _generation(request, self._answer(request))

    async def generate_stream(self, request: GenerateRequest, on_text: TextSink) -> Generation:
        return await _stream_words(self, request, on_text)

    def _conduct(self, request: GenerateRequest) -> str:
        call, then = _plan_names(request)
        open_moves = self._open()
        if not open_moves:
            raise self._fail(request, "the script is over, but the turn asked for a plan")
        move = open_moves[0]
        if move.kind == "answer":
            option = _option(call, NO_TOOL if then is not None else DONE) or _option(call, DONE)
            if option is None:
                raise self._fail(
                    request, f"the script answers next, but the conductor must pick one of {call}"
                )
            if then is not None:
                return json.dumps({"call": option, "then": _option(then, DONE) or then[0]})
            return json.dumps({"call": option})
        if move.tool not in call:
            raise self._fail(
                request,
                f"the script plans {move.tool!r}, but the conductor was offered only {call}",
            )
        move.state = "chosen"
        if then is None:
            return json.dumps({"call": move.tool})
        following = open_moves[1] if len(open_moves) > 1 else None
        if following is not None and following.kind == "plan" and following.tool in then:
            following.state = "planned"
            return json.dumps({"call": move.tool, "then": following.tool})
        return json.dumps({"call": move.tool, "then": _option(then, DONE) or then[0]})

    def _fill(self, request: GenerateRequest) -> str:
        name = _arguments_tool(request)
        properties = _arguments_properties(request)
        candidates = [
            move
            for move in self._moves
            if move.kind == "plan" and move.state in ("chosen", "planned")
        ]
        move = next((m for m in candidates if m.tool == name), None)
        if move is None and name is None:
            move = next((m for m in candidates if set(m.arguments) <= set(properties)), None)
        if move is None:
            raise self._fail(
                request,
                f"the arguments call fills {name or 'a call'}, which the script did not plan",
            )
        unknown = sorted(set(move.arguments) - set(properties))
        if unknown:
            raise self._fail(
                request,
                f"the script fills {move.tool} with {unknown}, which it does not take "
                f"(its parameters: {sorted(properties)})",
            )
        for earlier in candidates[: candidates.index(move)]:
            earlier.state = "filled"  # ran without an arguments call (no parameters)
        move.state = "filled"
        return json.dumps(move.arguments)

    def _answer(self, request: GenerateRequest) -> str:
        open_moves = self._open()
        while open_moves and open_moves[0].state == "planned":  # ran without an arguments call
            open_moves.pop(0).state = "filled"
        if not open_moves:
            raise self._fail(request, "the script is over, but the turn asked for an answer")
        move = open_moves[0]
        if move.kind != "answer":
            raise self._fail(
                request, f"the turn answers, but the script still expects {move.describe()}"
            )
        for earlier in self._moves[: self._moves.index(move)]:
            if earlier.state == "chosen":
                earlier.state = "filled"
        move.state = "answered"
        if move.output is not None:
            return _as_json(move.output)
        return move.text


# ---------------------------------------------------------------- TestModel


def _value_for(schema: Any, name: str = "value") -> Any:
    """A value valid for a (compact) JSON Schema: the simplest one a reader can recognise."""
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return _value_for(schema[key][0], name)
    if schema.get("allOf"):
        return _value_for(schema["allOf"][0], name)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "string":
        fmt = schema.get("format")
        if fmt == "date":
            return "2025-01-01"
        if fmt == "date-time":
            return "2025-01-01T00:00:00Z"
        if fmt == "time":
            return "00:00:00"
        if fmt == "email":
            return "a@example.com"
        if fmt in ("uri", "url"):
            return "https://example.com"
        if fmt == "uuid":
            return "00000000-0000-0000-0000-000000000000"
        text = name.replace("_", " ")
        minimum, maximum = schema.get("minLength", 0), schema.get("maxLength")
        text = text + "x" * max(0, minimum - len(text))
        return text[:maximum] if maximum is not None else text
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        value: float = 0 if low is None else low + (1 if "exclusiveMinimum" in schema else 0)
        high = schema.get("maximum")
        if high is not None and value > high:
            value = high
        return int(value) if kind == "integer" else float(value)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    if kind == "array":
        count = schema.get("minItems", 0)
        return [_value_for(schema.get("items", {}), name) for _ in range(count)]
    if kind == "object" or "properties" in schema:
        required = schema.get("required", [])
        return {
            key: _value_for(sub, key)
            for key, sub in schema.get("properties", {}).items()
            if key in required
        }
    return None


class TestModel:
    """A model that plays every stage by itself, from the schemas it is given.

    Each turn calls ``call_tools`` (default: every tool it is offered, once each, in the
    order offered) with schema-valid arguments (``arguments`` overrides them per tool), then
    answers ``text`` (default: ``"Done."``) or, for a structured answer, ``output`` (default: the
    simplest value valid for the schema). No script to keep in step with the harness: what a
    test asserts is what the agent did with it.

    Note: a turn takes at most ``max_steps`` calls (5 by default).
    """

    __test__ = False

    def __init__(
        self,
        *,
        call_tools: Sequence[str] | Literal["all"] = "all",
        arguments: Mapping[str, Mapping[str, Any]] | None = None,
        text: str = "Done.",
        output: Any = None,
        scribe: str = "Earlier: a few asks.",
    ) -> None:
        if isinstance(call_tools, str) and call_tools != "all":
            raise ConfigError(f"call_tools is a list of tool names or 'all', got {call_tools!r}.")
        self.call_tools = call_tools
        self.arguments = {name: dict(values) for name, values in (arguments or {}).items()}
        self.text = text
        self.output = output
        self.scribe = scribe
        self.calls: list[GenerateRequest] = []
        self._queue: list[str] = []

    async def generate(self, request: GenerateRequest) -> Generation:
        self.calls.append(request)
        await trio.lowlevel.checkpoint()
        if request.label == "conductor":
            reply = self._conduct(request)
        elif request.label == "arguments":
            name = _arguments_tool(request) or ""
            values = _value_for(
                {**(request.schema or {}), "properties": _arguments_properties(request)}
            )
            reply = json.dumps({**(values or {}), **self.arguments.get(name, {})})
        elif request.label == "scribe":
            reply = self.scribe
        elif request.schema is not None:
            reply = _as_json(self.output if self.output is not None else _value_for(request.schema))
        else:
            reply = self.text
        return _generation(request, reply)

    async def generate_stream(self, request: GenerateRequest, on_text: TextSink) -> Generation:
        return await _stream_words(self, request, on_text)

    def _conduct(self, request: GenerateRequest) -> str:
        call, then = _plan_names(request)
        tools = _tool_names(call)
        if then is not None:  # a new turn: its calls, in order
            wanted = tools if self.call_tools == "all" else list(self.call_tools)
            self._queue = [name for name in wanted if name in tools]
            if not self._queue:
                return json.dumps(
                    {"call": _option(call, NO_TOOL) or call[0], "then": _option(then, DONE)}
                )
            first, rest = self._queue[0], self._queue[1:]
            self._queue = list(rest)  # a planned write is asked for again (its gate)
            if len(rest) <= 1:
                return json.dumps({"call": first, "then": rest[0] if rest else _option(then, DONE)})
            return json.dumps({"call": first})  # more than a first plan holds: step by step
        upcoming = next((name for name in self._queue if name in tools), None)
        if upcoming is not None:
            self._queue.remove(upcoming)
            return json.dumps({"call": upcoming})
        return json.dumps({"call": _option(call, DONE) or call[0]})


# ---------------------------------------------------------------- FunctionModel


@attrs.frozen
class StageCall:
    """What a :class:`FunctionModel`'s function is asked: the stage and what constrains it.

    ``stage`` is ``"conductor"`` (a plan: ``{"call", "then"}`` first, ``{"call"}`` later),
    ``"arguments"`` (a tool's arguments), ``"answer"`` or ``"scribe"``; ``schema`` the JSON Schema
    the reply must match (``None``: free text); ``tool`` the tool an arguments call fills.
    """

    stage: str
    schema: dict[str, Any] | None
    system: str
    prompt: str
    tool: str | None
    request: GenerateRequest


Reply = str | dict[str, Any] | list[Any] | pydantic.BaseModel


class FunctionModel:
    """A model that asks ``function(call: StageCall)`` for each reply (sync or async).

    A ``str`` is the reply's text; a dict, list or pydantic model is sent as its JSON; an
    exception the function raises fails that model call as a real model's failure would.
    """

    __test__ = False

    def __init__(self, function: Callable[[StageCall], Reply | Awaitable[Reply]]) -> None:
        if not callable(function):
            raise ConfigError(f"FunctionModel needs a function of a StageCall, got {function!r}.")
        self.function = function
        self.calls: list[GenerateRequest] = []

    async def generate(self, request: GenerateRequest) -> Generation:
        self.calls.append(request)
        call = StageCall(
            stage=request.label,
            schema=request.schema,
            system=request.system,
            prompt=request.prompt,
            tool=_arguments_tool(request) if request.label == "arguments" else None,
            request=request,
        )
        reply = self.function(call)
        if inspect.isawaitable(reply):
            reply = await reply
        else:
            await trio.lowlevel.checkpoint()
        return _generation(request, reply if isinstance(reply, str) else _as_json(reply))

    async def generate_stream(self, request: GenerateRequest, on_text: TextSink) -> Generation:
        return await _stream_words(self, request, on_text)


# ---------------------------------------------------------------- the guard

ALLOW_MODEL_REQUESTS_ENV = "GOLIATH_ALLOW_MODEL_REQUESTS"
"""Set to ``0`` (e.g. in CI, or a conftest) and an agent refuses to start on a real model."""
_forbidden = 0
TEST_MODELS: tuple[type, ...] = (FakeModel, Script, TestModel, FunctionModel)


def requests_forbidden() -> bool:
    """Whether :func:`forbid_model_requests` (or the environment) forbids real models now."""
    return _forbidden > 0 or os.environ.get(ALLOW_MODEL_REQUESTS_ENV, "").strip() in ("0", "false")


@contextlib.contextmanager
def forbid_model_requests() -> Iterator[None]:
    """While inside, an agent on a real model (anything but the models here) fails to start.

    Use it as an autouse fixture (``yield from``-style: ``with forbid_model_requests(): yield``)
    or set ``GOLIATH_ALLOW_MODEL_REQUESTS=0`` for a whole test run, so a test that would load
    a local model or call a server fails at once, naming the model.
    """
    global _forbidden
    _forbidden += 1
    try:
        yield
    finally:
        _forbidden -= 1


def check_model_allowed(model: Any) -> None:
    """Raise when requests to real models are forbidden and ``model`` is one (or a spec of one).

    Raises:
        GoliathError: names the model and how to allow it.
    """
    if not requests_forbidden():
        return
    if isinstance(model, TEST_MODELS):
        return
    if isinstance(model, str) and model.strip().startswith("fake:"):
        return
    shown = model if isinstance(model, str) else type(model).__qualname__
    error = GoliathError(
        f"A test reached a real model ({shown}) while model requests are forbidden "
        f"(forbid_model_requests() or {ALLOW_MODEL_REQUESTS_ENV}=0). Use a model from "
        "goliath.testing (TestModel, FunctionModel, FakeModel.plan(...)), or "
        "agent.override(model=...) for an agent built elsewhere."
    )
    mark(error, "harness")  # raised from a model call too: it must fail the run, not escalate
    raise error
