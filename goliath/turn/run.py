"""One turn, top to bottom: recall → plan → tool step → … → answer → remember.

This is the story; each stage's details live beside it (conductor, arguments, tool_step, judge,
answer, scribe, prompts, phases, generation). A turn knows nothing of actors: the conversation
actor calls :func:`run_turn` with a ``generate`` port that reaches the model worker.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import trio

from .._origin import Origin, origin, origin_of
from .._util import maybe_await, named_message
from ..classify import classify_model_error
from ..config import AgentConfig, TurnRequest
from ..errors import BudgetError, ExtensionError, GoliathError
from ..events import (
    AnswerEvent,
    CheckEvent,
    EscalateEvent,
    PlanEvent,
    RecallEvent,
)
from ..extensions import RunOutcome
from ..memory.codec import copy_state
from ..records import FallbackRequest, RunResult, StepRecord
from ..session import Session
from ..tools import Tool
from .answer import AnswerInvalid, compose_answer
from .clause import hangs_on_condition
from .condition import check_first, findings, states_condition
from .conductor import InvalidPlan, Plan, planning_prompts, request_plan, weigh_options
from .detail import container_opener, described_hit, hit_reader, named_hit, only_hit
from .generation import ModelPort
from .given import widened_filters
from .grounding import (
    denial_note,
    denies_finding,
    echoes,
    found_items,
    grounding_note,
    names_nothing_found,
    step_summary,
    ungrounded_numbers,
    vague_note,
    with_change,
    with_findings,
)
from .handoff import (
    asks_about_own_data,
    asks_to_be_told,
    check_hand_off,
    names_emergency,
    nothing_to_change,
    only_thanks,
    unserved_action,
)
from .hooks import OBSERVER_SECONDS, StopRun
from .judge import cap_reached, found_nothing
from .lookup import LookUp, lookup_hint
from .part_of_day import part_of_day_note
from .pick import check_pick, rival
from .prompts import (
    answer_system,
    answer_user,
    compact_steps,
)
from .remember import remember, remember_what_ran
from .requery import choose_word, query_parameter, retry_words
from .retrieval import named_instead, past_stray_read, retrieve_tools
from .sibling import the_said_sibling
from .state import TurnState, resolve_window
from .tool_step import Escalation, Withheld, resume_tool_step, run_tool_step
from .world import asks_the_world, check_world
from .write_gate import adds_item

__all__ = ["DEVICE_FAILED", "Turn", "run_turn"]

NO_ANSWER = "Sorry, I could not answer that on this device."
"""Shown instead of a reply that echoed its own instructions when the turn looked nothing up."""

DEVICE_FAILED = frozenset({"model-error", "model-unavailable", "context-budget"})
"""Reasons after which the device model is not called again in this turn (not even the scribe)."""

NO_BEST_EFFORT = DEVICE_FAILED | {"answer-invalid"}


async def run_turn(
    config: AgentConfig, session: Session, request: TurnRequest, generate: ModelPort
) -> RunResult:
    """Run one turn of ``request`` in ``session`` and return its result.

    Raises the original exception of a tool hook, memory store, confirm handler, fallback or
    event callback; ``trio.Cancelled`` when cancelled (after ``on_error``/``on_finish`` ran).
    A bad window or budget rejects the run before any hook runs.
    """
    hands_over = session.hands_over(
        has_fallback=config.fallback is not None, retry_after=config.session_retry_after
    )
    window = await resolve_window(config, session, hands_over)
    turn = Turn(config, session, request, generate, window=window, hands_over=hands_over)
    return await turn.run()


class Turn(TurnState):
    """The story of one turn. Methods appear in the order a turn reaches them."""

    async def run(self) -> RunResult:
        try:
            result = await self._recall_and_loop()
        except StopRun as stop:
            result = self.result(stop.text, stopped=stop)
            await self._finish(RunOutcome("stopped", result=result))
            return self._with_diagnostics(result)
        except BaseException as exc:
            await self._fail(exc)
            raise
        if not self.hands_over:
            model_error = any(
                isinstance(event, EscalateEvent) and event.reason == "model-error"
                for event in self.trace
            )
            self.session.record_turn(model_error=model_error)
        await self._finish(RunOutcome("completed", result=result))
        return self._with_diagnostics(result)

    async def _recall_and_loop(self) -> RunResult:
        await trio.lowlevel.checkpoint_if_cancelled()
        with origin("config"):
            facts = self.config.facts
            resolved = await maybe_await(facts()) if callable(facts) else facts
            self.facts = dict(resolved or {})
        self.ask, self.instructions, self.facts = await self.phases.before_run(
            self.ask, self.instructions, self.facts
        )
        await trio.lowlevel.checkpoint_if_cancelled()
        with origin("memory"):
            loaded = await self.session.memory.load()
        self.original = copy_state(loaded)
        self.view = await self.phases.after_recall(copy_state(loaded))
        self.emit(RecallEvent(summary=self.view.summary, recent=len(self.view.recent)))
        if self.hands_over and self.request.resume is None:
            return await self._escalate("model-error", "session fallback")
        try:
            if self.request.resume is not None:  # paused at a write: carry on at that step
                tools = {tool.name: tool for tool in self.config.tools.values()}
                escalation = await resume_tool_step(self, self.request.resume, tools)
                if escalation is not None:
                    return await self._escalate(escalation.reason, escalation.error)
            return await self._loop()
        except Exception as exc:
            return await self._escalate_failure(exc)

    async def _escalate_failure(self, exc: Exception) -> RunResult:
        """Turn a failure escaping the loop into an escalation, or let it reject the run."""
        if self.escalating:
            raise exc
        if isinstance(exc, BudgetError) and not self.extensions.strict_budgets:
            return await self._escalate("context-budget", str(exc))
        if origin_of(exc) != "model":
            raise exc
        classification = classify_model_error(exc)
        if classification == "guardrail":
            self.emit(EscalateEvent(reason="guardrail", error=named_message(exc)))
            return self.result("")
        return await self._escalate(classification, named_message(exc))

    # ------------------------------------------------------------------ the step loop

    async def _loop(self) -> RunResult:
        retried = False
        failed: InvalidPlan | None = None  # the malformed plan the retry corrects
        attempt = 0
        while True:
            await trio.lowlevel.checkpoint_if_cancelled()
            if cap_reached(self.steps, self.config.max_steps):
                return await self._escalate("too-many-steps")
            available, context_text = await self.phases.before_plan(
                list(self.config.tools.values()), self.ask, self.steps, attempt
            )
            plan = await self._plan(available, context_text, failed)
            if isinstance(plan, InvalidPlan):  # one retry per step, with a hint (design.md, D2)
                if retried:
                    return await self._escalate("plan-invalid")
                retried, failed, attempt = True, plan, attempt + 1
                continue
            plan = await self.phases.after_plan(plan, available, self.steps, attempt)
            retried, failed, attempt = False, None, 0
            self.emit(
                PlanEvent(
                    index=len(self.steps),
                    kind="tool" if plan.kind == "tool" else "answer",
                    tool=plan.tool,
                    brief=plan.brief,
                )
            )
            if plan.kind == "escalate":
                return await self._escalate("conductor-asked")
            if plan.kind == "answer":
                return await self._answer(plan)
            recovering = self.recovering is not None and self.recovering[0] == plan.tool
            looking = self.recovering is not None and not recovering  # the look-up itself
            outcome = await run_tool_step(self, plan, {tool.name: tool for tool in available})
            if looking and isinstance(outcome, Escalation) and outcome.reason == "tool-error":
                # the look-up was the harness's idea: its failure is the second in a row, but
                # the answer can say what neither call found (no hand-off)
                return await self._answer(Plan(kind="answer", brief="reply"))
            repairing, self.repairing = self.repairing, None
            if (
                (repairing is not None or recovering)
                and isinstance(outcome, Escalation)
                and outcome.reason == "repeated-tool-call"
            ):  # the repair or look-up changed nothing: a look-up, or answer from the failure
                self.lookup = None if recovering else self._recovery(available)
                if self.lookup is not None:
                    continue
                return await self._answer(Plan(kind="answer", brief="reply"))
            if isinstance(outcome, LookUp):  # the call needs an id: a look-up first
                self.lookup = outcome
                continue
            if isinstance(outcome, Withheld):  # the ask did not ask for this write: answer
                if outcome.note:
                    self.notes.append(outcome.note)
                return await self._answer(Plan(kind="answer", brief="reply"))
            if outcome is not None:
                return await self._escalate(outcome.reason, outcome.error)

    async def _plan(
        self, available: list[Tool], context_text: str | None, failed: InvalidPlan | None
    ) -> Plan | InvalidPlan:
        plan = await self._next_plan(available, context_text, failed)
        if isinstance(plan, Plan) and self.steps:  # a later write, too: the verb the ask says
            plan = self._said_sibling(plan, available)
        if isinstance(plan, Plan) and self._read_after_change(plan, available):
            return Plan(kind="answer", brief="reply")  # the change was the ask: say it is done
        if isinstance(plan, Plan) and plan.kind == "answer":
            seen = self.seen_steps()
            reader = hit_reader(available, seen, self.ask)  # a hit is read first
            if reader is not None:
                self._give_hit(reader, seen[-1], planned=False)
                return Plan(kind="tool", brief=reader.description, tool=reader.name)
            owed = await self._owed_write(available, context_text)
            if owed is not None:  # "are any doors unlocked? lock them if so", answered
                return owed
        if isinstance(plan, Plan) and plan.kind == "tool" and plan.tool not in self.given:
            seen = self.seen_steps()
            reader = hit_reader(available, seen, self.ask)
            if reader is not None and reader.name == plan.tool:  # a planned read of a hit
                self._give_hit(reader, seen[-1], planned=True)
        if (
            isinstance(plan, Plan)
            and plan.kind == "tool"
            and _conditional_add(plan, available, self.ask)
        ):
            seen = self.seen_steps()
            opener = container_opener(available, seen, self.ask)  # open the list first
            if opener is not None:
                given = named_hit(opener, seen[-1], self.ask)
                if given is not None:
                    self.given[opener.name] = given
                    if self.planned is not None:  # the add stays planned, after the read
                        self.planned = [plan.tool or "", *self.planned]
                    return Plan(kind="tool", brief=opener.description, tool=opener.name)
        return plan

    def _said_sibling(self, plan: Plan, available: list[Tool]) -> Plan:
        """``plan``, its writes of another kind of change than the ask says given way to
        their siblings (``sibling.py``)."""
        said = the_said_sibling(plan, available, self.ask)
        if said is not plan:
            self.emit(CheckEvent(check="verb", passed=False))
        return said

    def _past_stray_read(self, plan: Plan, available: list[Tool]) -> Plan:
        """``plan``, started at its next read when it opens with one the ask never mentions
        (``retrieval.past_stray_read``)."""
        started = past_stray_read(plan, available, self.ask)
        if started is not plan:
            self.emit(CheckEvent(check="stray", passed=False))
        return started

    def _give_hit(self, reader: Tool, last: StepRecord, *, planned: bool) -> None:
        """The hit ``reader`` opens, filled by the harness when the ask names one, there is
        one, or the ask's words describe one alone (``detail.py``); else the worker picks.
        The trace shows a fill of a read the plan put next, and any by description."""
        given = named_hit(reader, last, self.ask) or only_hit(reader, last)
        described = given is None
        if described:
            given = described_hit(reader, last, self.ask)
        if given is not None:
            self.given[reader.name] = given
            if planned or described:
                self.emit(CheckEvent(check="hit", passed=True))

    async def _owed_write(self, available: list[Tool], context_text: str | None) -> Plan | None:
        """The write a check-then-act ask asks for, when the planner would answer after the
        check with no write tried: the planned one, else one among the writes. After the
        look-up, the 1.5B model answered "are any doors unlocked? lock them if so" and "if
        there isn't a reminder for it, set one" with the finding alone (dev, second wording).
        The write runs only where the harness decides the condition from what was read (a
        flag, a number, a day, the item absent from the list: ``tool_step``); anywhere else it
        is dropped unseen and the answer is the planner's (docs/design.md, "The write a check
        owes")."""
        if self.owed or not hangs_on_condition(self.ask) or self.notes:
            return None
        if any(step.kind == "tool" and step.writes for step in self.steps):
            return None
        if not findings(self.steps):
            return None
        writes = [tool.name for tool in available if tool.writes]
        planned = [name for name in self.planned or () if name in writes]
        choices = planned[:1] or writes
        if not choices:
            return None
        self.owed = True
        if self.planned is not None:  # the owed write is the plan's last call
            self.planned = []
        if len(choices) == 1:
            tool = next(tool for tool in available if tool.name == choices[0])
            return Plan(kind="tool", brief=tool.description, tool=tool.name)
        plan = await self._plan_among(available, context_text, choices, planned=[], hint=None)
        if not isinstance(plan, Plan) or plan.kind != "tool" or plan.tool not in choices:
            return None
        return plan

    async def _plan_among(
        self,
        available: list[Tool],
        context_text: str | None,
        offered: list[str],
        *,
        planned: list[str],
        hint: str | None,
    ) -> Plan | InvalidPlan:
        """A later step's call, narrowed to ``offered`` (a look-up's reads, an owed write's
        writes), its brief filled from the function."""
        system, prompt = await self._prompts(
            available, context_text, first=False, planned=planned, hint=hint
        )
        plan = await request_plan(
            self.caller,
            system=system,
            prompt=prompt,
            tool_names=[tool.name for tool in available],
            offered=offered,
            require_tool=True,
        )
        if isinstance(plan, Plan) and plan.kind == "tool" and not plan.brief:
            tool = next(tool for tool in available if tool.name == plan.tool)
            plan = attrs.evolve(plan, brief=tool.description)
        return plan

    def _read_after_change(self, plan: Plan, available: list[Tool]) -> bool:
        """Whether ``plan`` reads after the turn's write ran, for an ask that asks to be told
        nothing: "add call the bank to my to-do list" became ``create_task`` then
        ``list_tasks``, and the answer recited the list (docs/design.md, "Nothing read after
        the asked change")."""
        if plan.kind != "tool":
            return False
        tools = {tool.name: tool for tool in available}
        tool = tools.get(plan.tool or "")
        if tool is None or tool.writes:
            return False
        if any(name in tools and tools[name].writes for name in self.planned or ()):
            return False  # a read that a planned change waits for (a look-up)
        changed = any(
            step.kind == "tool" and step.writes and not (step.skipped or step.failed or step.cached)
            for step in self.steps
        )
        return changed and not asks_to_be_told(self.ask)

    async def _next_plan(
        self, available: list[Tool], context_text: str | None, failed: InvalidPlan | None
    ) -> Plan | InvalidPlan:
        if not available:
            return Plan(kind="answer", brief="reply")
        if self.lookup is None:
            self.lookup = self._recovery(available)
        if self.lookup is not None:
            return await self._look_up(available, context_text)
        repair = self._repair(available) or self._widen(available) or await self._requery(available)
        if repair is not None:
            return repair
        first = not self.steps
        last_answer = self.view.recent[-1].answer if self.view.recent else ""
        if first and only_thanks(self.ask, last_answer):  # "you're a star, thanks": a reply
            return Plan(kind="answer", brief="reply")
        if first and self.config.hand_off_check and not self.hand_off_checked:
            self.hand_off_checked = True
            if names_emergency(self.ask):  # "chest pain really bad + sweating, what do i do"
                self.emit(CheckEvent(check="handoff", passed=False, margin=None))
                return Plan(kind="escalate", brief="a medical emergency")
            outside = unserved_action(
                self.ask, list(self.config.tools.values()), follow_up=bool(self.view.recent)
            )
            if outside is not None:  # "... and book the best one" beside a to-do list
                self.emit(CheckEvent(check="handoff", passed=False, margin=None))
                return Plan(kind="escalate", brief=f"no function does {outside!r}")
            if asks_about_own_data(self.ask, available):  # a look-up: the functions serve it
                self.emit(CheckEvent(check="handoff", passed=True, margin=None))
            else:
                verdict = await check_hand_off(
                    self.caller,
                    available,
                    self.ask,
                    recent=self.view.recent,
                    cloud_needs=self.config.cloud_needs,
                    margin=self.config.hand_off_margin,
                )
                self.emit(
                    CheckEvent(check="handoff", passed=not verdict.hand_off, margin=verdict.margin)
                )
                if verdict.hand_off:
                    return Plan(kind="escalate", brief="the hand-off check chose the cloud")
                if nothing_to_change(verdict, self.ask, list(self.config.tools.values())):
                    return Plan(kind="escalate", brief="a change, and every function only reads")
        if first and self.config.world_check and not self.world_checked:
            self.world_checked = True
            if asks_the_world(self.ask, list(self.config.tools.values())):
                world = await check_world(self.caller, self.ask, margin=self.config.world_margin)
                self.emit(CheckEvent(check="world", passed=not world.world, margin=world.margin))
                if world.world:  # "what's the country code for Germany?": no function knows
                    return Plan(kind="answer", brief="reply")
        if first and self.config.tool_retrieval is not None:  # the checks saw every function
            available = retrieve_tools(available, self.ask, self.config.tool_retrieval)
        names = {tool.name for tool in available}
        offered = self._offered(available)
        if not first and self.planned is not None:  # following a whole plan
            planned = [name for name in self.planned if name in names]
            if not planned:  # every planned call ran: answer
                return Plan(kind="answer", brief="reply")
            upcoming = next(tool for tool in available if tool.name == planned[0])
            if not upcoming.writes:  # a planned read runs as planned
                self.planned = planned[1:]
                return Plan(kind="tool", brief=upcoming.description, tool=upcoming.name)
            offered = [upcoming.name]  # a planned write: do it, or answer (its condition failed)
        system, prompt = await self._prompts(
            available,
            context_text,
            first=first,
            planned=[name for name in self.planned or () if name in names],
            hint=failed.hint if failed is not None else None,
        )
        plan = await request_plan(
            self.caller,
            system=system,
            prompt=prompt,
            tool_names=[t.name for t in available],
            offered=offered,
            require_tool=failed is not None and failed.needs_tool,
            first=first,
            hand_off=not (first and self.hand_off_checked),
        )
        if first and isinstance(plan, Plan):
            plan = await self._weighed(plan, available, system, prompt, offered)
            if isinstance(plan, Plan) and plan.kind == "tool" and self.config.named_pick_check:
                plan = await self._named(plan, available, system, prompt)
            if isinstance(plan, Plan):  # "take it out of my calendar": not move_event
                plan = self._said_sibling(plan, available)
            if isinstance(plan, Plan):  # "add it if nothing clashes": the check comes first
                plan = check_first(plan, available, self.ask)
            if isinstance(plan, Plan):  # "is the porch light on?": not get_thermostat first
                plan = self._past_stray_read(plan, available)
            if isinstance(plan, Plan) and plan.kind == "tool" and self.config.pick_check:
                plan = await self._second_opinion(plan, available)
        if isinstance(plan, Plan) and plan.kind == "tool":
            if first:
                self.planned = None if plan.then is None else list(plan.then)
            elif self.planned:
                self.planned = self.planned[1:]
            if not plan.brief:
                tool = next(t for t in available if t.name == plan.tool)
                plan = attrs.evolve(plan, brief=tool.description)
        return plan

    async def _prompts(
        self,
        available: list[Tool],
        context_text: str | None,
        *,
        first: bool,
        planned: list[str],
        hint: str | None,
    ) -> tuple[str, Callable[[bool], str]]:
        """The planning call's system and user prompts, as every plan of this turn builds them."""
        return planning_prompts(
            first=first,
            instructions=self.instructions,
            context_text=context_text,
            max_steps=self.config.max_steps,
            tools=available,
            facts=self.facts,
            examples=self.config.examples,
            ask=self.ask,
            view=self.view,
            window=self.window,
            steps=[] if first else await self.model_steps(),
            planned=planned,
            hint=hint,
        )

    async def _look_up(self, available: list[Tool], context_text: str | None) -> Plan | InvalidPlan:
        """The read that finds what a waiting call needs (``lookup.py``); the call is asked
        again after it."""
        lookup, self.lookup = self.lookup, None
        waiting = next((tool for tool in available if tool.name == lookup.tool), None)
        reads = [tool.name for tool in available if not tool.writes and tool is not waiting]
        if waiting is None or not reads:
            return Plan(kind="answer", brief="reply")
        later = [lookup.tool, *(self.planned or [])]
        if lookup.read in reads:  # the harness knows which read: no model call picks it
            self.planned = later
            read = next(tool for tool in available if tool.name == lookup.read)
            return Plan(kind="tool", brief=read.description, tool=read.name)
        plan = await self._plan_among(
            available,
            context_text,
            reads,
            planned=later,
            hint=lookup_hint(waiting, lookup.parameters, failed=lookup.failed),
        )
        if isinstance(plan, Plan) and plan.kind == "tool":
            self.planned = later
        return plan

    async def _weighed(
        self,
        plan: Plan,
        available: list[Tool],
        system: str,
        prompt: Callable[[bool], str],
        offered: list[str],
    ) -> Plan | InvalidPlan:
        """The first plan once its scored options are weighed (design.md, "The hand-off
        decision"): the same plan, the hand-off, a reply, or a plan among the functions alone."""
        weighed = weigh_options(plan, [tool.name for tool in available])
        if weighed == "keep":
            return plan
        if weighed == "escalate":
            return Plan(kind="escalate", brief="beyond this device's functions")
        if weighed == "answer":
            return Plan(kind="answer", brief="reply")
        return await request_plan(
            self.caller,
            system=system,
            prompt=prompt,
            tool_names=[t.name for t in available],
            offered=offered,
            require_tool=True,
            first=True,
            hand_off=not self.hand_off_checked,
        )

    async def _second_opinion(self, plan: Plan, available: list[Tool]) -> Plan:
        """The first plan's function, or the one the ask's words name instead when the model,
        shown just the two, takes it in both orders (``pick.py``; docs/design.md, "The pick
        check"). A ``then`` that was that function is dropped: it is now the first call."""
        other = rival(plan.tool or "", available, self.ask)
        if other is None:
            return plan
        tools = {tool.name: tool for tool in available}
        verdict = await check_pick(self.caller, self.ask, tools[plan.tool or ""], tools[other])
        self.emit(CheckEvent(check="pick", passed=not verdict.switch, margin=verdict.margin))
        if not verdict.switch:
            return plan
        then = plan.then
        if then and then[0] == other:
            then = then[1:]
        return attrs.evolve(plan, tool=other, brief=tools[other].description, then=then)

    async def _named(
        self, plan: Plan, available: list[Tool], system: str, prompt: Callable[[bool], str]
    ) -> Plan:
        """The first plan again, its call among the functions the ask names, when the ask
        names nothing of the function picked (``retrieval.named_instead``; docs/design.md, "A
        pick the ask never names"). Its ``then`` may still be any function."""
        named = named_instead(plan.tool or "", available, self.ask)
        if not named:
            return plan
        again = await request_plan(
            self.caller,
            system=system,
            prompt=prompt,
            tool_names=[tool.name for tool in available],
            offered=named,
            require_tool=True,
            first=True,
            hand_off=False,
            then_any=True,
        )
        return again if isinstance(again, Plan) and again.kind == "tool" else plan

    def _repair(self, available: list[Tool]) -> Plan | None:
        """The same call again, once, when it just failed on the form of a value (a read) or
        on a near-miss "not found" (a read or a write): the 1.5B model copies "Monday 10 March
        2025" into a date or calls the hallway light "hallway light", and the error names what
        the tool reads; left to the plan, it answers from the failure instead (docs/design.md,
        "A read that failed on the form of a value is filled again")."""
        last = self.steps[-1] if self.steps else None
        if last is None or last.index not in self.value_errors or last.tool in self.repaired:
            return None
        tool = next((tool for tool in available if tool.name == last.tool), None)
        if tool is None or last.tool is None or not tool.has_arguments:
            return None  # a call without arguments can only fail the same way again
        self.repaired.add(last.tool)
        self.repairing = last.result or ""
        near = self.near_values.get(last.index)
        if near and isinstance(last.input, dict):  # the item the error names: no model call
            self.given[last.tool] = {**last.input, **near}
        return Plan(kind="tool", brief=last.brief, tool=last.tool)

    def _recovery(self, available: list[Tool]) -> LookUp | None:
        """A look-up, once, after a write failed "not found": "mark my high-priority
        work task as done" failed as ``complete_task(title="high-priority work")``, and only
        the list shows which task that is. The write is asked again after the look-up, and
        must then name an item the look-up found that fits what the user said
        (``repair.unmatched_items``; docs/design.md, "A write that found nothing looks it up
        once"). A near miss is filled again first; the look-up follows a repair that wrote the
        same call again. Left to the plan, the turn answered from the failure."""
        last = self.steps[-1] if self.steps else None
        if last is None or last.tool is None or last.tool in self.recovered:
            return None
        if last.index in self.value_errors and last.tool not in self.repaired:
            return None  # a near miss is filled again first (_repair)
        lacking = self.not_found.get(last.index)
        if lacking is None or not any(
            not tool.writes and tool.name != last.tool for tool in available
        ):
            return None
        self.recovered.add(last.tool)
        self.recovering = (last.tool, last.input)
        return LookUp(last.tool, lacking, failed=True)

    def _empty_read(self, done: set[str]) -> StepRecord | None:
        """The last step, when it is a call (not served from cache) that found nothing and
        whose function is not in ``done``: what the two retries of an empty read start from."""
        last = self.steps[-1] if self.steps else None
        if (
            last is None
            or last.kind != "tool"
            or last.cached
            or last.tool is None
            or last.tool in done
            or not isinstance(last.input, dict)
            or not found_nothing(last)
        ):
            return None
        return last

    def _widen(self, available: list[Tool]) -> Plan | None:
        """A read that found nothing runs once more without the filters the user did not name
        (``given.widened_filters``), with no model call: the 1.5B model narrows a search with
        a guessed ``kind`` or ``folder`` and, left to the plan, answers "nothing found"."""
        last = self._empty_read(self.widened)
        if last is None:
            return None
        tool = next((tool for tool in available if tool.name == last.tool), None)
        if tool is None:
            return None
        said = " ".join([self.ask, *(exchange.ask for exchange in self.view.recent)])
        dropped = widened_filters(tool, last.input, said)
        if not dropped:
            return None
        self.widened.add(tool.name)
        self.given[tool.name] = {k: v for k, v in last.input.items() if k not in dropped}
        return Plan(kind="tool", brief=last.brief, tool=tool.name)

    async def _requery(self, available: list[Tool]) -> Plan | None:
        """A search that found nothing runs once more with one other word of the ask, picked by
        the model (``requery.py``): "what pressure do my bike tyres take?" searched the notes
        for "pressure" and, left to the plan, answered that nothing was found. Only while two
        steps are left (the search and one more)."""
        last = self._empty_read(self.requeried)
        if last is None or len(self.steps) + 2 > self.config.max_steps:
            return None
        tool = next((tool for tool in available if tool.name == last.tool), None)
        parameter = None if tool is None else query_parameter(tool)
        searched = last.input.get(parameter or "")
        if tool is None or parameter is None or not isinstance(searched, str):
            return None
        self.requeried.add(tool.name)
        choices = retry_words(
            self.ask, list(self.config.tools.values()), parameter, last.input, function=tool
        )
        word = await choose_word(self.caller, self.ask, tool, searched, choices)
        if word is None:
            return None
        self.given[tool.name] = {**last.input, parameter: word}
        return Plan(kind="tool", brief=last.brief, tool=tool.name)

    def _offered(self, available: list[Tool]) -> list[str]:
        """The names a plan may pick: not a read without parameters that already ran, whose
        repeat can only return the same lines (the 1.5B model re-picks it instead of
        answering; the judge would serve it from cache, then hand the turn over)."""
        ran = {s.tool for s in self.steps if s.kind == "tool" and not (s.failed or s.skipped)}
        offered = [
            tool.name
            for tool in available
            if tool.writes or tool.name not in ran or tool.schema.get("properties")
        ]
        return offered or [tool.name for tool in available]

    # ------------------------------------------------------------------ answers

    async def _answer(self, plan: Plan) -> RunResult:
        part = part_of_day_note(self.ask, self.steps)
        if part is not None:  # "anything on Wednesday night?": which rows are the night
            self.notes.append(part)
        try:
            text, output = await self._compose(best_effort=False)
        except AnswerInvalid:
            return await self._escalate("answer-invalid")
        if not text.strip():
            return await self._escalate("empty-answer")
        if self.output_schema is None:
            text = with_change(await self._grounded(text), self.steps)
        return await self._finish_answer(text, brief=plan.brief, output=output)

    async def _grounded(self, text: str) -> str:
        """The answer, if it states only what the steps found; else one retry naming the
        invented numbers, then a plain summary of the steps (an echo of the prompt too)."""
        rules = answer_system(instructions="", structured=False, best_effort=False)
        looked = any(step.kind == "tool" for step in self.steps)
        known = [
            self.ask,
            *self.facts.values(),
            *(e.answer + " " + e.ask for e in self.view.recent),
        ]
        for attempt in range(2):
            if echoes(text, rules):
                break
            invented = ungrounded_numbers(text, self.steps, known) if looked else []
            found = found_items(self.steps) if attempt == 0 and not invented else 0
            denied = found > 0 and denies_finding(text)
            vague = (
                self.config.answer_check
                and attempt == 0
                and not (invented or denied)
                and names_nothing_found(text, self.steps, self.ask)
            )
            if vague:
                self.emit(CheckEvent(check="answer", passed=False))
                retried, _ = await self._compose(best_effort=False, notes=(vague_note(),))
                text = retried.strip() or text  # checked once more for invented numbers
                if names_nothing_found(text, self.steps, self.ask):
                    text = with_findings(text, self.steps)  # the lines it left out, as found
                continue
            if not invented and not denied:
                return text
            if attempt == 0:
                note = grounding_note(invented) if invented else denial_note(found)
                retried, _ = await self._compose(best_effort=False, notes=(note,))
                text = retried.strip() or text
                if (
                    denied
                    and not denies_finding(text)  # a second negative stands: it may be true
                    and names_nothing_found(text, self.steps, self.ask)
                ):
                    text = with_findings(text, self.steps)  # the retry names nothing found
                continue
            break
        return step_summary(self.steps) if looked else NO_ANSWER

    async def _compose(self, *, best_effort: bool, notes: tuple[str, ...] = ()) -> tuple[str, Any]:
        notes = (*self.notes, *notes)
        system = answer_system(
            instructions=self.instructions,
            structured=self.output_schema is not None,
            best_effort=best_effort,
            facts=self.facts,
        )

        projected = await self.model_steps()

        def prompt(more: tuple[str, ...], compact: bool) -> str:
            return answer_user(
                ask=self.ask,
                summary=self.view.summary,
                recent=self.view.recent,
                steps=compact_steps(projected) if compact else projected,
                window=self.window,
                notes=notes + more,
            )

        return await compose_answer(
            self.caller,
            system=system,
            prompt=prompt,
            output_schema=self.output_schema,
            nudge_when_empty=not best_effort,
        )

    async def _finish_answer(
        self,
        text: str,
        *,
        brief: str | None = None,
        output: Any = None,
        persist: bool = True,
        best_effort: bool = False,
        device_failed: bool = False,
    ) -> RunResult:
        await trio.lowlevel.checkpoint_if_cancelled()
        if text.strip():
            text = await self.phases.after_answer(text, self.handled_by, best_effort, self.steps)
        if brief is not None:
            self.steps.append(
                StepRecord(index=len(self.steps), kind="answer", brief=brief, text=text)
            )
        if text:
            self.emit(AnswerEvent(text=text))
        if persist:
            await remember(self, text, best_effort=best_effort, device_failed=device_failed)
        return self.result(text, output=output, best_effort=best_effort)

    # ------------------------------------------------------------------ escalation

    async def _escalate(self, reason: str, error: str | None = None) -> RunResult:
        """Hand the turn over: to the fallback when there is one, else a best-effort answer."""
        self.escalating = True
        self.emit(EscalateEvent(reason=reason, error=error))
        fallback = self.config.fallback
        if fallback is None:
            if reason in NO_BEST_EFFORT:
                return self.result("")
            text, output = await self._best_effort()
            rules = answer_system(instructions="", structured=False, best_effort=True)
            if output is None and text.strip() and echoes(text, rules):
                text = step_summary(self.steps)  # never the prompt's own words as the answer
            return await self._finish_answer(
                text, output=output, persist=bool(text.strip()), best_effort=True
            )
        request = FallbackRequest(
            ask=self.ask,
            summary=self.view.summary,
            recent=copy.deepcopy(self.view.recent),
            steps=copy.deepcopy(self.steps),
            reason=reason,
            error=error,
            conversation_id=self.request.conversation_id,
        )
        request = await self.phases.before_fallback(request)
        await trio.lowlevel.checkpoint_if_cancelled()
        self.handled_by = "cloud"
        with origin("fallback"):
            reply = await maybe_await(fallback(request))
            text = _fallback_text(reply)
        return await self._finish_answer(text, device_failed=reason in DEVICE_FAILED)

    async def _best_effort(self) -> tuple[str, Any]:
        try:
            return await self._compose(best_effort=True)
        except AnswerInvalid:
            self.emit(EscalateEvent(reason="answer-invalid"))
        except BudgetError:
            if self.extensions.strict_budgets:
                raise
        except Exception as exc:
            if origin_of(exc) != "model":
                raise
            if classify_model_error(exc) == "guardrail":
                self.emit(EscalateEvent(reason="guardrail", error=named_message(exc)))
        return "", None

    # ------------------------------------------------------------------ how it ended

    def _with_diagnostics(self, result: RunResult) -> RunResult:
        result.diagnostics = list(self.extensions.diagnostics)
        return result

    async def _fail(self, exc: BaseException) -> None:
        """Let ``on_error`` then ``on_finish`` observe a failed or cancelled run."""
        aborted = isinstance(exc, trio.Cancelled)
        if aborted:
            where: Origin = "harness"
        elif isinstance(exc, StopRun):  # pragma: no cover - handled by run()
            return
        else:
            where = _origin_for(exc)
        outcome = RunOutcome(
            "aborted" if aborted else "error",
            error=exc,
            origin=where,
            steps=self.steps,
            trace=self.trace,
        )
        with trio.CancelScope(shield=aborted) as scope:
            if aborted:
                scope.deadline = trio.current_time() + OBSERVER_SECONDS
                await remember_what_ran(self)
            await self.extensions.observe(
                "on_error",
                {"error": exc, "origin": where, "steps": self.steps, "trace": self.trace},
            )
            await self._finish(outcome)

    async def _finish(self, outcome: RunOutcome) -> None:
        with trio.move_on_after(OBSERVER_SECONDS):
            await self.extensions.observe("on_finish", {"outcome": outcome})


def _fallback_text(reply: Any) -> str:
    if isinstance(reply, str):
        return reply
    if isinstance(reply, dict) and isinstance(reply.get("text"), str):
        return str(reply["text"])
    raise GoliathError(
        f"A fallback must return the cloud's answer as a str (or {{'text': str}}); got {reply!r}."
    )


def _origin_for(exc: BaseException) -> Origin:
    if isinstance(exc, ExtensionError):
        return "extension"
    if isinstance(exc, BudgetError):
        return "budget"
    found = origin_of(exc)
    return found if found is not None else "harness"


def _conditional_add(plan: Plan, available: Sequence[Tool], ask: str) -> bool:
    """Whether ``plan`` adds an item under a condition of the ask ("unless it's there")."""
    tool = next((tool for tool in available if tool.name == plan.tool), None)
    return tool is not None and tool.writes and adds_item(tool.name) and states_condition(ask)
