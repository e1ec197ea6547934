"""Stage probes: score one stage of the turn with one real model call per ask.

A full eval runs every stage of every ask on the real model; a probe runs the turn with a
*perfect* scripted model for every call but one, sends that one call to the real model, and
stops. So a change to one stage's prompt or structure is screened on hundreds of asks in
minutes, with the stage seeing exactly what it sees in a real turn (the same prompts, memory,
facts and step log), before a full end-to-end run confirms it.

- ``decision``: the turn's first planning call (a tool, and which; an answer; an escalation).
- ``plan``: the same call, scored on every call it plans, not only the first: a plan with a
  call too many fails here (the turn follows its whole plan), as it does end to end.
- ``handoff``: the hand-off check alone (``Agent(hand_off_check=True)``), both directions:
  must-escalate asks handed over, every other ask kept; its margins are in the report for
  ``python -m goliath.evaluation.tuning`` to sweep.
- ``intent``: the write-intent check alone, on pairs of an ask and a write of its toolset:
  every write a good run of the ask makes (wanted: asked), and, for an ask whose good runs
  write nothing, every write of its toolset (wanted: not asked).
- ``condition``: the condition check alone, on each write a good run makes after a read
  (wanted: go) and each write a check-then-act ask asks for on a condition its reads rule out
  (``Fixture.withheld``; wanted: withheld), with perfect reads before it.
- ``next``: each later planning call of a good run, after perfect earlier steps (the next tool,
  or answering once the steps are enough).
- ``arguments``: each arguments call of a good run, after perfect earlier steps.
- ``answer``: the closing answer after a perfect run's steps.

The perfect script is :func:`perfect_script`, the one the scripted eval tests use too.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import attrs
import msgspec
import pydantic

from ..agent import Agent
from ..models import GenerateRequest, Generation
from ..records import ConfirmRequest, Decision, FallbackRequest
from ..schema import plan_options
from ..tools import Tool
from ..turn.arguments import validate_arguments
from ..turn.conductor import InvalidPlan, Plan, parse_plan
from ..turn.handoff import asks_about_own_data, only_thanks
from ..turn.retrieval import named_instead
from .fixtures import DEFAULT_TOOLSET, TOOLSETS, Fixture, FixtureSuite, toolset_tools
from .grade import call_problems, ungrounded_numbers

__all__ = [
    "PROBES",
    "ProbeOutcome",
    "ProbeReport",
    "format_probe_report",
    "hand_off_line",
    "perfect_answer",
    "perfect_script",
    "run_probe",
]

Probe = Literal["decision", "plan", "handoff", "intent", "condition", "next", "arguments", "answer"]
PROBES: tuple[Probe, ...] = (
    "decision",
    "plan",
    "handoff",
    "intent",
    "condition",
    "next",
    "arguments",
    "answer",
)


def perfect_answer(fixture: Fixture) -> str:
    """An answer that says every word the fixture wants and none it forbids."""
    words = " and ".join(fixture.mentions)
    return f"Here you go: {words}." if words else "Hello! All set."


def perfect_script(
    fixture: Fixture,
    tools: Mapping[str, Tool],
    arguments: Sequence[Mapping[str, Any]] = (),
    *,
    named_pick: bool = False,
) -> list[tuple[str, dict[str, Any]]]:
    """What a flawless model replies in Goliath's turn, call by call, with each call's stage.

    Plans name each tool of ``fixture.tools`` in turn, an arguments reply follows each tool that
    has parameters (from ``arguments``, in order), then an answer plan and the answer. An ask
    that must go to the cloud is one escalate plan. With ``named_pick`` (the agent's
    ``named_pick_check``), a first function the ask never names is planned twice.
    """
    options = plan_options(list(tools))
    if fixture.handled_by == "cloud":
        return [("conductor", {"json": {"call": options.hand_off}})]
    if not fixture.tools and only_thanks(fixture.ask):  # answered with no plan (handoff.py)
        return [("answer", {"text": perfect_answer(fixture)})]
    replies = iter(arguments)
    script: list[tuple[str, dict[str, Any]]] = []
    for position, name in enumerate(fixture.tools):
        script.append(("conductor", {"json": {"call": name}}))  # one step at a time
        if named_pick and position == 0 and named_instead(name, list(tools.values()), fixture.ask):
            script.append(("conductor", {"json": {"call": name}, "again": True}))  # run.py
        if tools[name].has_arguments:
            script.append(("arguments", {"json": dict(next(replies, {}))}))
    leftover = list(replies)
    if leftover:
        raise ValueError(f"{fixture.id}: arguments left over after the last tool: {leftover}")
    script.append(("conductor", {"json": {"call": options.done}}))
    script.append(("answer", {"text": perfect_answer(fixture)}))
    return script


HAND_OFF = -2
"""The splice's ``probe`` for the hand-off check (every call real until its reply)."""


_CHECK_PASSES: dict[str, tuple[str, str]] = {
    "handoff": ("handoff", '{"kind": "lookup"}'),
    "world": ("world", '{"source": "mine"}'),
    "intent": ("intent", '{"asked": "yes"}'),
    "condition": ("condition", '{"go": "yes"}'),
}
"""The turn's checks, as a perfect run passes them: the device keeps the ask, the question
goes to the functions, the write was asked for, its condition holds. A model that scores
options turns them on, and the perfect script holds none; without these, every probe of a
later stage (next, arguments, answer) of an ask that reaches a check stopped at the check
("never reached": 35 of 49 dev answer probes of reads on 2026-12-05)."""


class _Stop(Exception):
    """The probed call has been made; the turn stops here."""


class _Splice:
    """A model that replays a perfect script, except the call at ``probe`` goes to ``real``.

    With ``probe=-1`` (the decision probe) every call goes to ``real`` until the turn reports
    its first plan (:meth:`observe`); the next call stops the turn. The first step may take
    more than one planning call, and the plan is what the probe scores. With ``probe=-2``
    (:data:`HAND_OFF`) the call after the hand-off check's reply stops it.
    """

    def __init__(self, real: Any, script: Sequence[tuple[str, dict[str, Any]]], probe: int):
        self.real = real
        self.script = script
        self.probe = probe
        self.calls = 0
        self.request: GenerateRequest | None = None
        self.reply: Generation | None = None
        self.seconds = 0.0
        self.input_tokens = 0
        self.planned: list[Any] = []
        self.scores: dict[str, float] | None = None
        """The first plan's scored options, where the bridge scores them."""
        self.hand_off_scores: dict[str, float] | None = None
        """The hand-off check's scored options (``phone``, ``cloud``)."""

    def observe(self, event: Any) -> None:
        """Keep the plan and what follows it (an escalation of the plan's own asking)."""
        if event.type == "plan" or (self.planned and event.type == "escalate"):
            self.planned.append(event)

    @property
    def scores_options(self) -> bool:
        """The real model's (so the turn's checks are on as they are for it)."""
        return getattr(self.real, "scores_options", False) is True

    def window(self) -> int:
        window = getattr(self.real, "window", None)
        return int(window()) if callable(window) else 4096

    def count_tokens(self, text: str) -> int:
        count = getattr(self.real, "count_tokens", None)
        if callable(count):
            return int(count(text))
        from ..budget import estimate_tokens

        return estimate_tokens(text)

    async def probed(self, request: GenerateRequest) -> None:
        """Send the probed call to the real model and keep its request, reply and costs."""
        self.request = request
        started = time.perf_counter()
        self.reply = await self.real.generate(request)
        self.seconds = time.perf_counter() - started
        self.input_tokens = self.reply.input_tokens

    async def generate(self, request: GenerateRequest) -> Generation:
        index = self.calls
        self.calls += 1
        if self.probe < 0:
            if self.planned or (self.probe == HAND_OFF and self.hand_off_scores is not None):
                raise _Stop
            started = time.perf_counter()
            reply: Generation = await self.real.generate(request)
            self.reply, self.request = reply, request
            if request.label == "handoff":
                self.hand_off_scores = dict(reply.scores or {})
            elif self.scores is None and reply.scores:
                self.scores = dict(reply.scores)
            self.seconds += time.perf_counter() - started
            self.input_tokens += reply.input_tokens
            return reply
        if index == self.probe:
            await self.probed(request)
            raise _Stop
        passes = _CHECK_PASSES.get(request.label)
        if passes is not None and (index >= len(self.script) or self.script[index][0] != passes[0]):
            self.calls -= 1  # a check the perfect script has no entry for: it passes
            return Generation(text=passes[1], input_tokens=0, output_tokens=0)
        if index >= len(self.script):
            raise _Stop
        label, entry = self.script[index]
        if label != request.label:
            raise _Stop  # the turn took another path than the perfect one: nothing to probe
        text = entry["text"] if "text" in entry else json.dumps(entry["json"])
        return Generation(text=text, input_tokens=0, output_tokens=0)


@attrs.frozen
class ProbeOutcome:
    """One probed call: what the stage replied and whether it was right."""

    id: str
    probe: str
    step: int
    passed: bool
    reply: str
    reasons: list[str]
    input_tokens: int
    seconds: float
    scores: dict[str, float] | None = None
    """The first plan's options' log-probabilities (decision and plan probes, llama.cpp)."""
    wanted: str = ""
    """What the probe wanted: ``escalate`` for an ask that must be handed over, else
    ``device`` (decision and plan probes)."""
    check_scores: dict[str, float] | None = None
    """The hand-off check's scored kinds, when it ran before the plan (decision and plan
    probes)."""
    ask: str = ""
    """The ask probed: the hand-off sweep reads whether it only asks (``handoff.only_asks``)."""


@attrs.frozen
class ProbeReport:
    """Every probed call of one probe over a set of fixtures."""

    probe: str
    outcomes: list[ProbeOutcome]

    @property
    def passed(self) -> int:
        return sum(outcome.passed for outcome in self.outcomes)

    @property
    def total(self) -> int:
        return len(self.outcomes)


def _approve(_request: ConfirmRequest) -> Decision:
    return Decision(approved=True)


def _decline(_request: ConfirmRequest) -> Decision:
    return Decision(approved=False, reason="not now")


async def _cloud(_request: FallbackRequest) -> str:
    return "(cloud)"


def _expected_decisions(fixture: Fixture) -> set[str]:
    if fixture.handled_by == "cloud":
        return {"escalate"}
    return {option[0] if option else "answer" for option in fixture.accepted_tools}


def _decision_of(planned: Sequence[Any]) -> str:
    """The first plan's tool, ``answer`` or ``escalate`` (an escalate plan reports as answer)."""
    if not planned:
        return "(no plan)"
    first = planned[0]
    if first.kind == "tool":
        return str(first.tool)
    asked = any(
        event.type == "escalate" and event.reason == "conductor-asked" for event in planned[1:]
    )
    return "escalate" if asked else "answer"


def _calls_of(planned: Sequence[Any], reply: str, tools: Mapping[str, Tool]) -> str:
    """Every call the first plan names, comma-separated; ``answer`` or ``escalate`` when none."""
    first = _decision_of(planned)
    if first in ("answer", "escalate", "(no plan)"):
        return first
    plan = parse_plan(reply, list(tools))
    rest = plan.then or () if isinstance(plan, Plan) and plan.tool == first else ()
    return ",".join((first, *(name for name in rest if name in tools)))


def _score_calls(fixture: Fixture, got: str, tools: Mapping[str, Tool]) -> list[str]:
    """A plan passes when its calls are a good run's or, for a check-then-act ask, are once
    the planned writes that its condition rules out are dropped (the turn asks before each
    planned write; a write planned for a plain read is wrong, asked or not)."""
    if fixture.handled_by == "cloud":
        return [] if got == "escalate" else [f"planned {got}, wanted escalate"]
    if got in ("escalate", "(no plan)"):
        return [f"planned {got}, wanted a good run's calls"]
    calls = () if got == "answer" else tuple(got.split(","))
    reads = tuple(name for name in calls if not tools[name].writes)
    accepted = fixture.accepted_tools
    conditional = fixture.category == "check-then-act"
    if calls in accepted or (conditional and reads != calls and reads in accepted):
        return []
    wanted = " or ".join("[" + ",".join(option) + "]" for option in accepted)
    return [f"planned [{','.join(calls)}], wanted {wanted}"]


def _planned_at(entry: Mapping[str, Any], tools: Mapping[str, Tool]) -> str:
    """The tool a perfect script's plan names, or its kind (``answer``, ``escalate``)."""
    plan = parse_plan(json.dumps(entry["json"]), list(tools))
    assert isinstance(plan, Plan), entry
    return plan.tool or plan.kind


def _score_decision(fixture: Fixture, got: str) -> list[str]:
    wanted = _expected_decisions(fixture)
    return [] if got in wanted else [f"chose {got}, wanted {' or '.join(sorted(wanted))}"]


def _words(value: Any) -> str:
    return json.dumps(value, default=str).lower() if not isinstance(value, str) else value.lower()


def _score_arguments(
    fixture: Fixture, tool: Tool, expected: Mapping[str, Any], reply: str
) -> list[str]:
    try:
        data = json.loads(reply, strict=False)
    except ValueError:
        return ["reply is not JSON"]
    if not isinstance(data, dict):
        return ["reply is not an object"]
    missing = str(data.pop("missing", "") or "").strip()
    wants_missing = bool(str(expected.get("missing", "")).strip())
    if wants_missing:
        required = tool.schema.get("required", [])
        blank = [name for name in required if not str(data.get(name, "")).strip()]
        if not missing and not blank:
            return [f"filled {json.dumps(data)[:80]} instead of naming what is missing"]
        return []
    reasons = []
    if missing and missing.lower() not in ("none", "n/a", "nothing", "-"):
        reasons.append(f"named {missing!r} missing")
    for key, words in fixture.arg_mentions.items():
        name, field = key.split(".")
        if name != tool.name:
            continue
        value = _words(data.get(field, ""))
        reasons.extend(
            f'{field} {value[:50]!r} lacks "{word}"' for word in words if word not in value
        )
    try:  # typed values are judged as the tool would get them ("21.5" becomes 21.5)
        typed = validate_arguments(tool, data)
    except pydantic.ValidationError:
        typed = data
    reasons.extend(
        reason.removeprefix(f"{tool.name} ") for reason in call_problems(fixture, tool.name, typed)
    )
    ask = fixture.ask.lower().strip(" ?.!")
    for field, value in data.items():
        if isinstance(value, str) and len(ask) > 20 and ask in value.lower():
            reasons.append(f"{field} copies the ask")
    for field in tool.schema.get("required", []):
        if field not in data:
            reasons.append(f"{field} not filled")
    return reasons


def _score_answer(
    fixture: Fixture, reply: str, steps: Sequence[Any], known: Sequence[str]
) -> list[str]:
    text = reply.lower()
    reasons = [f'answer lacks "{word}"' for word in fixture.mentions if word not in text]
    reasons += [f'answer contains "{word}"' for word in fixture.forbids if word in text]
    if not reply.strip():
        reasons.append("empty answer")
    if fixture.tools:
        invented = ungrounded_numbers(reply, steps, known)
        if invented:
            reasons.append(f"answer states {', '.join(invented)}, which no step returned")
    return reasons


async def _probe_one(
    real: Any,
    fixture: Fixture,
    tools: dict[str, Tool],
    facts: Mapping[str, str] | None,
    probe: Probe,
    agent_options: Mapping[str, Any] | None = None,
) -> list[ProbeOutcome]:
    from .runner import history_memory

    named_pick = dict(agent_options or {}).get("named_pick_check") is True
    script = perfect_script(fixture, tools, fixture.arguments, named_pick=named_pick)
    if probe in ("decision", "plan"):
        targets = [-1]
    elif probe == "handoff":
        targets = [HAND_OFF]
    elif probe == "answer":
        targets = [index for index, (label, _) in enumerate(script) if label == "answer"]
    elif probe == "next":
        targets = [
            i
            for i, (label, entry) in enumerate(script)
            if label == "conductor" and "again" not in entry
        ][1:]
    else:
        targets = [index for index, (label, _) in enumerate(script) if label == "arguments"]
    argument_steps = [name for name in fixture.tools if tools[name].has_arguments]
    outcomes = []
    for number, target in enumerate(targets):
        if probe == "handoff" and asks_about_own_data(fixture.ask, list(tools.values())):
            outcomes.append(_kept_by_rule(fixture))  # the turn asks no check: nothing to call
            continue
        splice = _Splice(real, script, target)
        memory = history_memory(fixture.history)
        agent = Agent(
            splice,
            tools=tools,
            fallback=_cloud,
            confirm=_decline if fixture.decline else _approve,
            facts=dict(facts) if facts else None,
            memory=memory,
            on_event=splice.observe,
            **{
                **dict(agent_options or {}),
                **({"hand_off_check": True} if probe == "handoff" else {}),
            },
        )
        async with agent:
            try:  # the stop is a model failure to the turn: it hands over, or raises
                await agent.run(fixture.ask)
            except Exception as exc:
                if not _stopped(exc):
                    raise
        if splice.reply is None or splice.request is None:
            outcomes.append(
                ProbeOutcome(fixture.id, probe, number, False, "", ["never reached"], 0, 0.0)
            )
            continue
        reply = splice.reply.text
        if probe == "handoff":
            reply, reasons = _score_hand_off(fixture, splice, reply)
        elif probe == "decision":
            reply = _decision_of(splice.planned)
            reasons = _score_decision(fixture, reply)
        elif probe == "plan":
            reply = _calls_of(splice.planned, reply, tools)
            reasons = _score_calls(fixture, reply, tools)
        elif probe == "next":
            wanted = _planned_at(script[target][1], tools)
            plan = parse_plan(reply, list(tools))
            got = "(invalid)" if isinstance(plan, InvalidPlan) else (plan.tool or plan.kind)
            reasons = [] if got == wanted else [f"chose {got}, wanted {wanted}"]
        elif probe == "arguments":
            tool = tools[argument_steps[number]]
            reasons = _score_arguments(fixture, tool, fixture.arguments[number], reply)
        else:
            known = [
                fixture.ask,
                *(f"{a} {b}" for a, b in fixture.history),
                *(facts or {}).values(),
            ]
            reasons = _score_answer(fixture, reply, _log_steps(splice.request), known)
        outcomes.append(
            ProbeOutcome(
                fixture.id,
                probe,
                number,
                not reasons,
                reply,
                reasons,
                splice.input_tokens,
                round(splice.seconds, 3),
                scores=splice.hand_off_scores
                if probe == "handoff"
                else splice.scores
                if probe in ("decision", "plan")
                else None,
                wanted=("escalate" if fixture.handled_by == "cloud" else "device")
                if probe in DECIDING
                else "",
                check_scores=splice.hand_off_scores if probe in ("decision", "plan") else None,
                ask=fixture.ask,
            )
        )
    return outcomes


DECIDING = ("decision", "plan", "handoff")
"""The probes that score the hand-off decision (their outcomes say what was wanted)."""


def _kept_by_rule(fixture: Fixture) -> ProbeOutcome:
    """The outcome of an ask the turn keeps on the device without the check (a question about
    the user's own data, ``asks_about_own_data``)."""
    wanted = "escalate" if fixture.handled_by == "cloud" else "device"
    reasons = [] if wanted == "device" else ["kept without the check (a question about own data)"]
    return ProbeOutcome(
        fixture.id, "handoff", 0, not reasons, "device", reasons, 0, 0.0, wanted=wanted
    )


def _score_hand_off(fixture: Fixture, splice: _Splice, text: str) -> tuple[str, list[str]]:
    """``escalate`` or ``device``, as the turn decided with the check's margin; right when it
    is what the ask needs."""
    from ..turn.handoff import only_asks, read_hand_off

    verdict = read_hand_off(
        Generation(text=text, scores=splice.hand_off_scores or None),
        question=only_asks(fixture.ask),
    )
    got = "escalate" if verdict.hand_off else "device"
    wanted = "escalate" if fixture.handled_by == "cloud" else "device"
    named = f" (named {verdict.kind})" if verdict.kind else ""
    return got, [] if got == wanted else [f"check chose {got}{named}, wanted {wanted}"]


def intent_pairs(fixture: Fixture, tools: Mapping[str, Tool]) -> list[tuple[Tool, bool]]:
    """The writes the intent probe asks about for ``fixture``, each with whether it is asked
    for: the writes of its good runs, or, when no good run writes, every write it could make."""
    wanted = {name for option in fixture.accepted_tools for name in option if tools[name].writes}
    if wanted:
        return [(tools[name], True) for name in tools if name in wanted]
    return [(tool, False) for tool in tools.values() if tool.writes]


async def _probe_intent(
    real: Any, fixture: Fixture, tools: Mapping[str, Tool]
) -> list[ProbeOutcome]:
    from ..records import Exchange
    from ..turn.intent import intent_request, read_intent

    recent = [Exchange(ask=ask, answer=answer, at=0.0) for ask, answer in fixture.history]
    outcomes = []
    for number, (tool, asked) in enumerate(intent_pairs(fixture, tools)):
        started = time.perf_counter()
        reply = await real.generate(intent_request(fixture.ask, tool, recent))
        seconds = time.perf_counter() - started
        verdict = read_intent(reply)
        reasons = (
            []
            if verdict.asked == asked
            else [
                f"{tool.name}: {'withheld' if asked else 'let through'} a write "
                f"{'asked for' if asked else 'nobody asked for'}"
            ]
        )
        outcomes.append(
            ProbeOutcome(
                fixture.id,
                "intent",
                number,
                not reasons,
                f"{tool.name}={'yes' if verdict.asked else 'no'}",
                reasons,
                reply.input_tokens,
                round(seconds, 3),
                scores=dict(reply.scores) if reply.scores else None,
                wanted="yes" if asked else "no",
            )
        )
    return outcomes


def condition_pairs(fixture: Fixture, tools: Mapping[str, Tool]) -> list[tuple[Fixture, bool]]:
    """The runs the condition probe makes for ``fixture``, each ending in the write it asks
    about, with whether that write should go ahead: every write of the good run that follows a
    read (go), and every :attr:`Fixture.withheld` write after the good run's reads (withheld)."""
    pairs: list[tuple[Fixture, bool]] = []
    with_arguments = 0
    for position, name in enumerate(fixture.tools):
        with_arguments += tools[name].has_arguments
        earlier = fixture.tools[:position]
        if tools[name].writes and any(not tools[read].writes for read in earlier):
            run = attrs.evolve(
                fixture,
                tools=fixture.tools[: position + 1],
                arguments=fixture.arguments[:with_arguments],
            )
            pairs.append((run, True))
    for name, arguments in fixture.withheld:
        if name not in tools:
            raise ValueError(f"{fixture.id}: withheld names {name!r}, not a tool of its toolset")
        run = attrs.evolve(
            fixture,
            tools=(*fixture.tools, name),
            arguments=(*fixture.arguments, *([arguments] if tools[name].has_arguments else [])),
        )
        pairs.append((run, False))
    return pairs


class _ConditionSplice(_Splice):
    """Replays a perfect script and sends the first condition check to ``real``; every other
    check is off (the probe asks for the condition check alone)."""

    def __init__(self, real: Any, script: Sequence[tuple[str, dict[str, Any]]]):
        super().__init__(real, script, probe=10_000)
        self.ran: list[str] = []

    def observe(self, event: Any) -> None:
        if event.type == "tool":
            self.ran.append(event.tool)

    async def generate(self, request: GenerateRequest) -> Generation:
        if request.label == "condition":
            await self.probed(request)
            raise _Stop
        return await super().generate(request)


async def _probe_condition(
    real: Any,
    fixture: Fixture,
    tools: dict[str, Tool],
    facts: Mapping[str, str] | None,
    agent_options: Mapping[str, Any] | None = None,
) -> list[ProbeOutcome]:
    from ..turn.condition import read_condition
    from .runner import history_memory

    outcomes = []
    for number, (run, go) in enumerate(condition_pairs(fixture, tools)):
        write = run.tools[-1]
        splice = _ConditionSplice(real, perfect_script(run, tools, run.arguments))
        agent = Agent(
            splice,
            tools=tools,
            fallback=_cloud,
            confirm=_approve,
            facts=dict(facts) if facts else None,
            memory=history_memory(fixture.history),
            on_event=splice.observe,
            **{
                **dict(agent_options or {}),
                "hand_off_check": False,
                "write_intent_check": False,
                "condition_check": True,
                "named_pick_check": False,
            },
        )
        async with agent:
            try:
                await agent.run(fixture.ask)
            except Exception as exc:
                if not _stopped(exc):
                    raise
        if splice.reply is not None:
            verdict = read_condition(splice.reply)
            got = "go" if verdict.go else "withheld"
            scores = dict(splice.reply.scores) if splice.reply.scores else None
        else:  # never asked: the write gate withheld it, or it ran unasked (no read found)
            got = "go" if write in splice.ran else "withheld by the gate"
            scores = None
        wanted = "go" if go else "withheld"
        reasons = [] if got.startswith(wanted) else [f"{write}: {got}, wanted {wanted}"]
        outcomes.append(
            ProbeOutcome(
                fixture.id,
                "condition",
                number,
                not reasons,
                f"{write}={got}",
                reasons,
                splice.input_tokens,
                round(splice.seconds, 3),
                scores=scores,
                wanted=wanted,
            )
        )
    return outcomes


def _stopped(exc: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, _Stop):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


class _LoggedStep(msgspec.Struct):
    kind: str
    output: Any
    result: str
    input: Any


def _log_steps(request: GenerateRequest) -> list[Any]:
    """What the answer stage was shown, as steps the grounding check can read."""
    return [_LoggedStep(kind="tool", output=None, result=request.prompt, input=None)]


async def run_probe(
    *,
    model: Any,
    fixtures: Iterable[Fixture] | FixtureSuite,
    probe: Probe,
    toolsets: Mapping[str, Any] | None = None,
    facts: Mapping[str, str] | None = None,
    agent_options: Mapping[str, Any] | None = None,
) -> ProbeReport:
    """Probe one stage on every fixture (every arguments step of each, for ``arguments``).

    A fixture whose good run never reaches the stage (an ask with no tool has no arguments call)
    contributes nothing; a cloud ask contributes only a decision.
    """
    registry: dict[str, Any] = dict(TOOLSETS)
    if isinstance(fixtures, FixtureSuite):
        registry.update(fixtures.toolsets)
        facts = facts if facts is not None else dict(fixtures.facts)
        chosen = list(fixtures.fixtures)
    else:
        chosen = list(fixtures)
    registry.update(toolsets or {})
    outcomes: list[ProbeOutcome] = []
    for fixture in chosen:
        if probe == "intent":
            if fixture.handled_by == "device":
                name = fixture.toolset or DEFAULT_TOOLSET
                tools = toolset_tools(registry[name], name)
                outcomes.extend(await _probe_intent(model, fixture, tools))
            continue
        if probe not in DECIDING and fixture.handled_by == "cloud":
            continue
        name = fixture.toolset or DEFAULT_TOOLSET
        tools = toolset_tools(registry[name], name)
        if probe == "condition":
            outcomes.extend(await _probe_condition(model, fixture, tools, facts, agent_options))
            continue
        outcomes.extend(await _probe_one(model, fixture, tools, facts, probe, agent_options))
    return ProbeReport(probe, outcomes)


def format_probe_report(report: ProbeReport) -> str:
    """A line per failed call, then the pass count and costs."""
    lines = [
        f"FAIL  {o.id}{'#' + str(o.step + 1) if o.probe == 'arguments' else ''}  "
        f"{'; '.join(o.reasons)}  reply: {o.reply[:120]!r}"
        for o in report.outcomes
        if not o.passed
    ]
    if report.probe in DECIDING:
        lines.append(hand_off_line(report))
    if report.probe == "intent":
        asked = [o for o in report.outcomes if o.wanted == "yes"]
        unasked = [o for o in report.outcomes if o.wanted == "no"]
        lines.append(
            f"intent: asked writes let through {sum(o.passed for o in asked)}/{len(asked)}; "
            f"unasked writes withheld {sum(o.passed for o in unasked)}/{len(unasked)}"
        )
    if report.probe == "condition":
        go = [o for o in report.outcomes if o.wanted == "go"]
        ruled_out = [o for o in report.outcomes if o.wanted == "withheld"]
        lines.append(
            f"condition: writes that should go let through {sum(o.passed for o in go)}/"
            f"{len(go)}; writes whose condition failed withheld "
            f"{sum(o.passed for o in ruled_out)}/{len(ruled_out)}"
        )
    seconds = sum(o.seconds for o in report.outcomes)
    tokens = sum(o.input_tokens for o in report.outcomes)
    count = max(1, report.total)
    lines.append(
        f"{report.probe}: {report.passed}/{report.total} passed · "
        f"{tokens / count:.0f} prompt tokens · {seconds / count:.2f} s per call"
    )
    return "\n".join(lines)


def hand_off_line(report: ProbeReport) -> str:
    """The hand-off decision in both directions: asks that must go to the cloud handed over,
    and every other ask handed over (which should be none)."""
    must = [o for o in report.outcomes if o.wanted == "escalate"]
    other = [o for o in report.outcomes if o.wanted == "device"]
    handed = sum(o.reply == "escalate" for o in must)
    wrongly = sum(o.reply == "escalate" for o in other)
    return (
        f"hand-off: must-escalate handed over {handed}/{len(must)}; "
        f"device asks handed over {wrongly}/{len(other)}"
    )
