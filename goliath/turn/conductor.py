"""The conductor: plans the turn's calls, then picks each next one, under an enum constraint.

The first call of a turn returns ``{"call": name, "then": name}`` (the plan: a call, then the
next or "answer the user"), later ones ``{"call": name}`` (a planned write's gate, with the
plan's remainder shown as a hint). The names are the available functions plus three that are
not functions: no function needed, answer now, and hand off to a larger assistant
(``goliath.schema.plan_options``). Names, not free text, because a 1.5B model picks among names
far more reliably than it writes a brief (docs/design.md, "The plan").

Those two spellings are the only ones :func:`parse_plan` reads: the reply is checked here, once,
into a frozen :class:`~goliath.extensions.Plan` that the rest of the turn trusts. A script may
send ``{"call": name}`` for a first plan too: the turn then asks again for each next step.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import attrs

from .._origin import origin_of
from ..classify import is_invalid_output
from ..extensions import Plan
from ..schema import first_plan_schema, plan_options, plan_schema
from ..tools import Tool
from .generation import ModelCaller
from .prompts import compact_steps, conductor_system, conductor_user, plan_system, plan_user

__all__ = [
    "ANSWER_BRIEF",
    "HAND_OFF_BRIEF",
    "InvalidPlan",
    "Plan",
    "checked_plan",
    "parse_plan",
    "planning_prompts",
    "request_plan",
    "weigh_options",
]

ANSWER_BRIEF = "reply"
"""The brief of an answer step (its step record's)."""
HAND_OFF_BRIEF = "beyond this device's functions"
"""The brief of a plan that hands the turn over."""


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


def parse_plan(text: str, tool_names: Sequence[str]) -> Plan | InvalidPlan:
    """A plan from a reply: ``{"call": NAME, "then": NAME}`` (a first plan, which the turn
    follows) or ``{"call": NAME}`` (this call alone); anything else is an :class:`InvalidPlan`.

    Option names stand for answering (``general_knowledge_or_chat``, ``answer_the_user``) and
    for the hand-off (``beyond_these_functions``), whose ``then`` is ignored; a ``then`` that
    names no function means "nothing more". A tool plan's brief is filled in by the turn.
    """
    try:
        data = json.loads(text, strict=False)
    except ValueError:
        return InvalidPlan(_malformed_hint(tool_names))
    if not isinstance(data, dict) or set(data) not in ({"call"}, {"call", "then"}):
        return InvalidPlan(_malformed_hint(tool_names))
    name = data["call"]
    options = plan_options(tool_names)
    if name in (options.no_tool, options.done):
        return Plan(kind="answer", brief=ANSWER_BRIEF)
    if name == options.hand_off:
        return Plan(kind="escalate", brief=HAND_OFF_BRIEF)
    if not isinstance(name, str) or name not in tool_names:
        return InvalidPlan(_unknown_tool_hint(name, tool_names), needs_tool=True)
    if "then" not in data:
        return Plan(kind="tool", tool=name)
    then = data["then"]
    return Plan(kind="tool", tool=name, then=(then,) if then in tool_names else ())


def checked_plan(value: Any, tools: Sequence[Tool]) -> Plan:
    """The plan an ``after_plan`` hook returned, checked: a :class:`Plan` whose tool is one of
    ``tools``, its empty brief filled. Raises ``TypeError``/``ValueError`` naming what is wrong."""
    if not isinstance(value, Plan):
        dropped = (
            " (the dict form {'kind', 'tool', 'brief'} is gone)" if isinstance(value, dict) else ""
        )
        raise TypeError(
            "plan must be a goliath.extensions.Plan, such as Plan(kind='tool', tool=NAME) or "
            f"Plan(kind='answer'){dropped}; got {value!r}"
        )
    names = [tool.name for tool in tools]
    if value.kind == "tool" and value.tool not in names:
        raise ValueError(
            f"plan names tool {value.tool!r}, which this step may not use; "
            f"pick one of: {_names(names) or '(none)'}"
        )
    if value.brief:
        return value
    if value.kind == "tool":
        brief = next(tool.description for tool in tools if tool.name == value.tool)
    else:
        brief = ANSWER_BRIEF if value.kind == "answer" else HAND_OFF_BRIEF
    return attrs.evolve(value, brief=brief)


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
    then_any: bool = False,
) -> Plan | InvalidPlan:
    """One conductor call: the first plan of a turn, or a later step's next call.

    ``hand_off=False`` leaves the hand-off out of a first plan's options (the hand-off check
    decided it already). ``offered`` narrows the names the schema lets the model pick (default: ``tool_names``);
    a reply naming any of ``tool_names`` still parses, so scripts and hooks reach the judge.
    ``then_any`` lets a first plan's ``then`` name any of ``tool_names`` while its ``call`` is
    narrowed to ``offered``. Provider failures other than malformed output propagate.
    """
    names = list(tool_names if offered is None else offered)
    if first:
        schema = first_plan_schema(
            names,
            require_tool=require_tool,
            hand_off=hand_off,
            then_names=list(tool_names) if then_any else None,
        )
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
