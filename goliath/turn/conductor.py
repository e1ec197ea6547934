"""The conductor: plans the turn's calls, then picks each next one, under an enum constraint.

The first call of a turn returns ``{"call": name, "then": name}`` (the plan: a call, then the
next or "answer the user"; scripts may still send ``{"calls": [...]}``), later ones
``{"call": name}`` (a planned write's gate, with the plan's remainder shown as a hint). The
names are the available functions plus three that are not functions: no function needed,
answer now, and hand off to a larger assistant (``goliath.schema.plan_options``). Names, not
free text, because a 1.5B model picks among names far more reliably than it writes a brief
(docs/design.md, "The plan").
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import attrs

from .._origin import origin_of
from ..classify import is_invalid_output
from ..schema import first_plan_schema, plan_options, plan_schema
from .generation import ModelCaller
from .prompts import compact_steps, conductor_system, conductor_user, plan_system, plan_user

__all__ = [
    "InvalidPlan",
    "Plan",
    "parse_plan",
    "plan_from_patch",
    "planning_prompts",
    "request_plan",
    "weigh_options",
]

PlanKind = Literal["tool", "answer", "escalate"]


@attrs.frozen
class Plan:
    kind: PlanKind
    brief: str
    tool: str | None = None
    why: str | None = None
    rest: tuple[str, ...] = ()
    """The calls a first plan put after this one, run next (a write asks first)."""
    whole: bool = False
    """Whether this came from a first plan (``{"call", "then"}`` or ``{"calls"}``), which the
    turn then follows."""
    scores: dict[str, float] | None = attrs.field(default=None, eq=False)
    """The first plan's options' log-probabilities, when the bridge reported them."""

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "brief": self.brief}
        if self.tool is not None:
            data["tool"] = self.tool
        if self.why is not None:
            data["why"] = self.why
        return data


@attrs.frozen
class InvalidPlan:
    """A malformed plan, the hint the retry will carry, and whether it lacked a tool name."""

    hint: str
    needs_tool: bool = False


def _names(tool_names: Sequence[str]) -> str:
    return ", ".join(tool_names)


def _malformed_hint(tool_names: Sequence[str]) -> str:
    return (
        f'Your last reply was not a valid plan. Reply with JSON: "call" must be one of: '
        f"{_names(tool_names)}."
    )


def _unknown_tool_hint(name: object, tool_names: Sequence[str]) -> str:
    shown = name if isinstance(name, str) and name else "(none)"
    return f"There is no function {shown}. Pick one of: {_names(tool_names)}."


def _from_option(
    name: object, rest: Sequence[object], tool_names: Sequence[str], whole: bool = False
) -> Plan | InvalidPlan:
    options = plan_options(tool_names)
    if name in (options.no_tool, options.done):
        return Plan(kind="answer", brief="reply")
    if name == options.hand_off:
        return Plan(kind="escalate", brief="beyond this device's functions")
    if not isinstance(name, str) or name not in tool_names:
        return InvalidPlan(_unknown_tool_hint(name, tool_names), needs_tool=True)
    later = tuple(str(item) for item in rest if isinstance(item, str) and item in tool_names)
    return Plan(kind="tool", brief="", tool=name, rest=later, whole=bool(whole))


def parse_plan(text: str, tool_names: Sequence[str]) -> Plan | InvalidPlan:
    """A plan from a reply: a first plan ``{"call", "then"}`` (or ``{"calls": [...]}``), a later
    one ``{"call": NAME}``, or the original form ``{"kind", "tool", "brief"}`` that scripts and
    hooks may use.

    Option names stand for answering (``general_knowledge_or_chat``, ``answer_the_user``) and
    for the hand-off (``beyond_these_functions``); a tool plan's brief is filled in by the turn.
    """
    try:
        data = json.loads(text, strict=False)
    except ValueError:
        return InvalidPlan(_malformed_hint(tool_names))
    if isinstance(data, dict) and "kind" not in data:
        calls = data.get("calls")
        if isinstance(calls, list) and calls:
            return _from_option(calls[0], calls[1:], tool_names, whole=True)
        if "call" in data and "then" in data:  # a first plan: this call, then one more or none
            return _from_option(data["call"], [data["then"]], tool_names, whole=True)
        if "call" in data:
            return _from_option(data["call"], (), tool_names)
    if (
        not isinstance(data, dict)
        or data.get("kind") not in ("tool", "answer", "escalate")
        or not isinstance(data.get("brief"), str)
        or not isinstance(data.get("why", ""), (str, type(None)))
    ):
        return InvalidPlan(_malformed_hint(tool_names))
    tool = data.get("tool")
    if data["kind"] == "tool" and (not isinstance(tool, str) or tool not in tool_names):
        return InvalidPlan(_unknown_tool_hint(tool, tool_names), needs_tool=True)
    return Plan(
        kind=data["kind"],
        brief=data["brief"].strip(),
        tool=tool if data["kind"] == "tool" else None,
        why=(data.get("why") or "").strip() or None,
    )


def plan_from_patch(value: Any, tool_names: Sequence[str]) -> Plan:
    """Validate a plan an ``after_plan`` hook returned (a dict or a :class:`Plan`)."""
    if isinstance(value, Plan):
        value = value.as_dict()
    if not isinstance(value, dict):
        raise ValueError(f"plan must be a dict with kind, tool and brief; got {value!r}")
    parsed = parse_plan(json.dumps(value), tool_names)
    if isinstance(parsed, InvalidPlan):
        raise ValueError(f"invalid plan {value!r}: {parsed.hint}")
    return parsed


async def request_plan(
    caller: ModelCaller,
    *,
    system: str,
    prompt: Callable[[bool], str],
    tool_names: Sequence[str],
    require_tool: bool = False,
    first: bool = False,
    offered: Sequence[str] | None = None,
    hand_off: bool = True,
) -> Plan | InvalidPlan:
    """One conductor call: the first plan of a turn, or a later step's next call.

    ``hand_off=False`` leaves the hand-off out of a first plan's options (the hand-off check
    decided it already). ``offered`` narrows the names the schema lets the model pick (default: ``tool_names``);
    a reply naming any of ``tool_names`` still parses, so scripts and hooks reach the judge.
    Provider failures other than malformed output propagate.
    """
    names = list(tool_names if offered is None else offered)
    if first:
        schema = first_plan_schema(names, require_tool=require_tool, hand_off=hand_off)
    else:
        schema = plan_schema(names, require_tool=require_tool)
    try:
        generation = await caller.call(
            "conductor",
            system,
            prompt,
            schema,
            compactable=True,
            score="call" if first and not require_tool else None,
        )
    except Exception as exc:
        if origin_of(exc) == "model" and is_invalid_output(exc):
            return InvalidPlan(_malformed_hint(tool_names))
        raise
    plan = parse_plan(generation.text, tool_names)
    if isinstance(plan, Plan) and generation.scores:
        plan = attrs.evolve(plan, scores=dict(generation.scores))
    return plan


HAND_OFF_BIAS = 0.0
"""Log-probability added to the hand-off option before the first plan's options are compared
(tuned on the dev half's decision probe; docs/design.md, "The hand-off decision")."""
NO_TOOL_BIAS = 0.0
"""Log-probability added to the no-function option, likewise."""

Weighed = Literal["keep", "tool", "answer", "escalate"]


def weigh_options(
    plan: Plan,
    tool_names: Sequence[str],
    *,
    hand_off_bias: float | None = None,
    no_tool_bias: float | None = None,
) -> Weighed:
    """What the first plan's scored options say, once the two options that are not functions
    are weighed by their bias: ``keep`` the generated plan (same kind of choice), or switch to
    a ``tool`` (re-plan among the functions), ``answer`` or ``escalate``.

    Greedy generation takes the best first token, and a 1.5B model puts the hand-off well below
    a function it half fits; the biases move that line, measured on dev (both directions).
    """
    scores = plan.scores
    if not scores:
        return "keep"
    hand_off_bias = HAND_OFF_BIAS if hand_off_bias is None else hand_off_bias
    no_tool_bias = NO_TOOL_BIAS if no_tool_bias is None else no_tool_bias
    options = plan_options(tool_names)
    functions = [scores[name] for name in tool_names if name in scores]
    best_function = max(functions, default=-math.inf)
    weighed: dict[Weighed, float] = {
        "tool": best_function,
        "answer": scores.get(options.no_tool, -math.inf) + no_tool_bias,
        "escalate": scores.get(options.hand_off, -math.inf) + hand_off_bias,
    }
    choice = max(weighed, key=lambda kind: weighed[kind])
    if weighed[choice] == -math.inf:
        return "keep"
    return "keep" if choice == plan.kind else choice


WORKED_EXAMPLES_WINDOW = 2048
"""The smallest window whose first plan carries the worked examples (~250 tokens)."""


def planning_prompts(
    *,
    first: bool,
    instructions: str,
    context_text: str | None,
    max_steps: int,
    tools: Sequence[Any],
    facts: Mapping[str, str] | None,
    examples: Sequence[Mapping[str, Any]] | None,
    ask: str,
    view: Any,
    window: int,
    steps: Sequence[Any],
    planned: Sequence[str],
    hint: str | None,
) -> tuple[str, Callable[[bool], str]]:
    """The system prompt and the (compactable) user prompt of a first plan or a later step."""
    if first:
        system = plan_system(
            instructions=instructions,
            context_text=context_text,
            max_steps=max_steps,
            tools=tools,
            facts=facts,
            examples=examples,
            worked_examples=window >= WORKED_EXAMPLES_WINDOW,
        )

        def first_prompt(compact: bool) -> str:
            del compact  # a first plan has no step log to compact
            return plan_user(
                ask=ask, summary=view.summary, recent=view.recent, window=window, hint=hint
            )

        return system, first_prompt
    system = conductor_system(
        instructions=instructions,
        context_text=context_text,
        max_steps=max_steps,
        tools=tools,
        facts=facts,
        examples=examples,
    )

    def next_prompt(compact: bool) -> str:
        return conductor_user(
            ask=ask,
            summary=view.summary,
            recent=view.recent,
            steps=compact_steps(steps) if compact else steps,
            max_steps=max_steps,
            window=window,
            hint=hint,
            planned=planned,
        )

    return system, next_prompt
