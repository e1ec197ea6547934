"""A tool step: one planned call, judged, filled, confirmed, executed and compressed.

The order is the point: the judge's cheap rules first (the tool exists, its prerequisites
ran), then one call fills the arguments (``arguments.py``), extensions may deny the call, the judge checks for a
repeat, a person confirms a write, the tool runs within ``tool_timeout``, and its output is
compressed to what the model may read. The step joins the turn's log *before* the tool runs, so
a run that fails or is cancelled mid-call still shows what it was doing.

A step ends either in the log (``None``: plan the next one) or in an :class:`Escalation` for the
story to carry out.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Mapping
from typing import Any, Literal

import attrs
import pydantic
import trio

from .._origin import origin
from .._util import maybe_await, message_of
from ..budget import ResultBudget, fit_excerpt
from ..compress import RESULT_CHARS, clip, summarize_tool_result
from ..durable import (
    PENDING_RESULT,
    Checkpoint,
    PendingCall,
    call_fingerprint,
    idempotency_key,
    mark_outcome_unknown,
)
from ..errors import GoliathError
from ..events import CheckEvent, ConfirmEvent, ToolEvent
from ..quarantine import without_instructions
from ..records import ConfirmRequest, Decision, SkipReason, StepRecord
from ..snapshot import WORKING_OUTPUT_BYTES, capped_snapshots, to_plain, try_snapshot
from ..tools import Tool, ToolContext, is_async_callable, report_tool_error, report_unshowable
from .arguments import (
    Arguments,
    Missing,
    context_steps,
    names_only_shown_keys,
    request_arguments,
    shown_keys,
    validate_arguments,
)
from .clause import asks_then_acts
from .clock import spoken_minutes
from .compose import blank_text, composed_arguments
from .condition import (
    asks_about_presence,
    condition_look,
    condition_met,
    findings,
    states_condition,
    unmet_note,
)
from .conductor import Plan
from .dates import plain_days
from .detail import ordinal_ids
from .flag import flag_met, other_row
from .given import (
    copied_ask,
    copied_search,
    copy_note,
    cut_request,
    repeated_filters,
    search_note,
    self_as_other,
    unchanged_values,
    undictated_texts,
    unknown_item_values,
    unnamed_filters,
    unsaid_choices,
    unsaid_today,
    unsaid_values,
)
from .hooks import Denied
from .intent import asks_for_write, withheld_note
from .judge import duplicate_verdict, last_two_failed, prerequisites_met
from .lookup import LookUp, unfound_note, ungrounded_ids, unshown_ids, unshown_note
from .options import listed_choices
from .place import item_in_place
from .prompts import answer_user, arguments_correction, arguments_system, repair_note
from .repair import (
    drift_note,
    drifted_values,
    names_a_near_match,
    names_an_empty_value,
    near_match_values,
    not_found_parameters,
    unmatched_items,
    unmatched_note,
)
from .same_day import day_met, today_from
from .state import TurnState
from .status import asked_done
from .switch import switched
from .threshold import threshold_met
from .write_gate import adds_item, is_absent, names_the_place, read_nothing, withheld_write

__all__ = ["Escalation", "Skipped", "Withheld", "resume_tool_step", "run_tool_step"]

PROCESSING_RESULT = "(tool executed; output processing did not complete)"
UNSUMMARIZABLE = "completed (result could not be summarized)"
CONTENT_CANDIDATE_CHARS = 16384
NO_HANDLER = "no confirmation handler"
"""Why a write is declined when nobody can be asked (docs/design.md, D13)."""


@attrs.frozen
class Escalation:
    """The step cannot go on: hand the turn over with this reason code (and error text)."""

    reason: str
    error: str | None = None


@attrs.frozen
class Withheld:
    """The write was not called: the ask did not ask for it (write_gate); the answer says why."""

    note: str


@attrs.frozen
class Skipped:
    """Why a planned call did not run, and the text the model sees in its place."""

    reason: SkipReason
    text: str
    extension: str | None = None
    """The extension that denied the call (``reason == "policy"``)."""


async def run_tool_step(
    turn: TurnState, plan: Plan, available: Mapping[str, Tool]
) -> Escalation | Withheld | LookUp | None:
    """Carry out the tool call ``plan`` names; the escalation it calls for, a write withheld
    because the ask did not ask for it, a look-up the call needs first, or ``None``."""
    tool = available.get(plan.tool or "")
    if tool is None:
        return Escalation("plan-invalid")
    if not prerequisites_met(tool, turn.steps):
        return Escalation("tool-prerequisite-missing")
    ctx = _tool_context(turn)
    if tool.writes and turn.config.write_intent_check:
        intent = await asks_for_write(turn.caller, tool, turn.ask, recent=turn.view.recent)
        turn.emit(CheckEvent(check="intent", passed=intent.asked, margin=intent.margin))
        if not intent.asked:
            return Withheld("" if turn.owed else withheld_note(tool))

    read_before = any(s.kind == "tool" and not s.writes and not s.failed for s in turn.steps)
    filled = await _arguments(turn, tool, plan.brief, read_before)
    if filled is None:
        return Withheld("") if turn.owed else Escalation("tool-args-invalid")
    placed = item_in_place(tool, filled.values, turn.ask)
    if placed is not None:  # "add a first-aid kit to my camping checklist" (place.py)
        try:
            filled = Arguments(validate_arguments(tool, placed))
        except pydantic.ValidationError:
            pass
    said = " ".join([turn.ask, *(exchange.ask for exchange in turn.view.recent)])
    today = today_from(turn.facts)
    if isinstance(filled, Arguments):  # "Saturday 22 March" -> "22 March" (dates.py)
        filled = Arguments(plain_days(tool, filled.values, today=today, said=said))
        filled = Arguments(switched(tool, filled.values, turn.ask))  # "switch it off" (switch.py)
        filled = Arguments(spoken_minutes(filled.values, said))  # "quarter past six" (clock.py)
        numbered = ordinal_ids(tool, filled.values, turn.seen_steps(), said, turn.seen_texts())
        if numbered:  # "1. id: 2, ..." filled as email_id=1: the line's id (detail.py)
            filled = Arguments({**filled.values, **numbered})
        listed = listed_choices(tool, filled.values, said)
        if listed:  # "Running, Focus or Road trip": the description's list (options.py)
            filled = _chosen(tool, filled, listed)
    if turn.recovering is not None and turn.recovering[0] == tool.name:
        failed_input, turn.recovering = turn.recovering[1], None
        if isinstance(filled, Arguments):  # after its look-up: the item the user described
            found = [step.result or "" for step in turn.steps if not step.writes]
            unmatched = unmatched_items(tool, failed_input, filled.values, found, turn.ask)
            if unmatched:
                return Withheld(unmatched_note(tool, unmatched))
    repaired_by_error = bool(turn.steps) and turn.steps[-1].index in turn.near_values
    if (
        turn.repairing is not None
        and tool.writes
        and isinstance(filled, Arguments)
        and not repaired_by_error  # the error's own item: no drift to fear
    ):
        drifted = drifted_values(tool, turn.steps[-1].input, filled.values)
        if drifted:  # the repair named another item: not this write's to change
            return Withheld(drift_note(tool, drifted))
    if tool.name not in turn.looked_up and not read_before:  # a read ran: its result decides
        lacking = ungrounded_ids(tool, filled.values, turn.seen_steps(), turn.seen_texts())
        if isinstance(filled, Missing):  # the item's own date, say: it is in a read
            lacking += [name for name in unknown_item_values(tool, filled) if name not in lacking]
        if lacking and any(not t.writes and t.name != tool.name for t in available.values()):
            turn.looked_up.add(tool.name)
            return LookUp(tool.name, tuple(lacking))
    if isinstance(filled, Arguments) and tool.writes:
        seen = turn.seen_texts()
        shown = [*seen, *(step.result or "" for step in turn.steps)]
        last_answer = turn.view.recent[-1].answer if turn.view.recent else ""
        unsaid = (
            unsaid_values(tool, filled.values, turn.steps, seen, said)
            or unchanged_values(tool, filled.values, turn.steps, said)
            or undictated_texts(tool, filled.values, turn.steps, seen, said)
            or self_as_other(tool, filled.values, turn.facts, said)
            or unsaid_choices(tool, filled.values, said, shown)
            or unsaid_today(tool, filled.values, today, f"{said} {last_answer}")
        )
        if unsaid:  # a number nobody gave: ask the user, never write it (docs/design.md)
            filled = Missing(", ".join(unsaid), filled.values)
        else:
            unsaid = unsaid_values(
                tool, filled.values, turn.steps, turn.seen_texts(), said, optional=True
            )
            unsaid += unsaid_today(
                tool, filled.values, today, f"{said} {last_answer}", optional=True
            )
            copied = copied_ask(tool, filled.values, turn.ask, optional=True)
            filled = _without(tool, filled, [*unsaid, *copied])  # their defaults apply
            if unsaid and unsaid_choices(tool, filled.values, said, shown):
                filled = Missing(", ".join(unsaid), filled.values)  # only a choice was left
    elif isinstance(filled, Arguments):  # a read: a filter nobody named would narrow it
        unnamed = unnamed_filters(tool, filled.values, turn.steps, turn.seen_texts())
        unnamed += repeated_filters(tool, filled.values)
        filled = _without(tool, filled, unnamed)
        done = asked_done(tool, filled.values, turn.ask)
        if done is not None:  # "which tasks did I finish?": the done ones, not the default
            try:
                filled = Arguments(validate_arguments(tool, done))
            except pydantic.ValidationError:
                pass
    skipped: Skipped | None = None
    tool_input = filled.values
    if turn.owed and tool.writes and isinstance(filled, Missing):
        return Withheld("")  # the planner would have answered: no question for a write it owed
    if isinstance(filled, Missing):
        skipped = Skipped("missing", filled.result)
    else:
        decision = await turn.phases.before_tool(tool, tool_input, plan.brief, turn.steps)
        if isinstance(decision, Denied):
            text = (
                f"denied by extension {decision.extension}: {clip(decision.reason, 160)}. "
                "Do not retry unless asked."
            )
            skipped = Skipped("policy", text, decision.extension)
        else:
            tool_input = decision
    if skipped is None and tool.resolve_input is not None:
        try:
            resolved = await maybe_await(tool.resolve_input(copy.deepcopy(tool_input), ctx))
            tool_input = validate_arguments(tool, resolved)
        except Exception:
            return Escalation("tool-args-invalid")
    await trio.lowlevel.checkpoint_if_cancelled()
    if skipped is None and tool.writes:
        note = withheld_write(tool, tool_input, turn.seen_steps())
        if note is not None:
            return Withheld(note)
        moved = other_row(tool_input, turn.ask, findings(turn.steps))
        if moved is not None:  # "any doors unlocked? lock them": the door that is unlocked
            try:
                tool_input = validate_arguments(tool, moved)
            except pydantic.ValidationError:
                pass
        decided = await _decided_condition(turn, tool_input)
        look = (
            condition_look(tool, list(available.values()), turn.ask, turn.steps)
            if decided is None and _conditional(turn.ask) and tool.name not in turn.looked_up
            else None
        )
        if look is not None:  # "porch light on? turn it off if so": the lights are read first
            turn.looked_up.add(tool.name)
            return LookUp(tool.name, (), read=look.name)
        if decided is not None:  # "if it's under 19", "if it's unlocked", "if it's today"
            check, go, line = decided
            turn.emit(CheckEvent(check=check, passed=go, margin=None))
            if not go:
                return Withheld(unmet_note(tool, line))
        elif turn.owed and not _plainly_absent(turn, tool, tool_input):
            return Withheld("")  # the harness cannot decide it: the planner's answer stands
        elif (
            turn.config.condition_check
            and _conditional(turn.ask)
            and not _plainly_absent(turn, tool, tool_input)
        ):  # "unless it's already there", and nothing like it was found: it goes ahead
            condition = await condition_met(turn.caller, tool, tool_input, turn.ask, turn.steps)
            if condition is not None:
                turn.emit(
                    CheckEvent(check="condition", passed=condition.go, margin=condition.margin)
                )
                if not condition.go:
                    return Withheld(unmet_note(tool))

    if skipped is None and tool.writes and _conditional(turn.ask):
        unshown = unshown_ids(tool, tool_input, turn.steps, turn.seen_texts())
        if unshown and read_before:
            # "if my bank emailed me, reply ...": the condition went ahead, yet no read showed
            # the item; nothing to ask about (lookup.py)
            return Withheld(unfound_note(tool, ", ".join(unshown)))

    input_snapshot = try_snapshot(tool_input)
    earlier: StepRecord | None = None
    if skipped is None:
        verdict, earlier = duplicate_verdict(turn.steps, tool, input_snapshot)
        if verdict == "repeat":
            return Escalation("repeated-tool-call")
        if verdict == "execute":
            earlier = None
    return await _decide_and_run(
        turn, tool, plan.brief, tool_input, ctx, skipped=skipped, earlier=earlier
    )


def _conditional(ask: str) -> bool:
    """Whether the ask states a condition in words ("if", "unless", "only", "make sure") or
    puts a question its change hangs on: "order arriving today? then mail theo to grab it"
    has no condition word, and the write went with no check at all (dev, third wording: an
    email sent to the wrong person about a parcel not coming that day)."""
    return states_condition(ask) or asks_then_acts(ask)


def _plainly_absent(turn: TurnState, tool: Tool, tool_input: Mapping[str, Any]) -> bool:
    """Whether the ask's condition is the item's presence ("unless it's already there") and
    the reads show it plainly absent: nothing like it in the list, or every read empty."""
    return asks_about_presence(turn.ask) and (
        is_absent(tool, tool_input, turn.seen_steps())
        or (adds_item(tool.name) and names_the_place(turn.ask) and read_nothing(turn.steps))
    )


async def _decided_condition(
    turn: TurnState, tool_input: Mapping[str, Any]
) -> tuple[Literal["comparison", "state", "day"], bool, str] | None:
    """A condition the harness decides from what the reads found, before any yes/no question:
    a number compared ("if it's under 19 degrees"), a state ("if the front door is
    unlocked"), a day ("if it's Noor's birthday today"). ``(check, go, found line)``, or
    ``None`` when none of them can decide."""
    reads = findings(turn.steps)
    if not reads:
        return None
    if _conditional(turn.ask):
        compared = await threshold_met(turn.caller, tool_input, turn.ask, reads)
        if compared is not None:
            return "comparison", compared[0], compared[1].line
    state = flag_met(tool_input, turn.ask, reads)
    if state is not None:
        return "state", state[0], state[1].line
    day = day_met(tool_input, turn.ask, reads, turn.facts)
    if day is not None:
        return "day", day[0], day[1].line
    return None


async def resume_tool_step(
    turn: TurnState, checkpoint: Checkpoint, available: Mapping[str, Tool]
) -> Escalation | None:
    """Carry on a turn paused at a write: the same call, asked again, run at most once.

    The arguments are those stored with the call (validated again, never re-derived), and the
    call's fingerprint must still match them: an approval can only ever run the write it saw.
    """
    pending = checkpoint.pending
    turn.steps[:] = copy.deepcopy(checkpoint.steps)
    turn.planned = None if checkpoint.planned is None else list(checkpoint.planned)
    tool = available.get(pending.tool)
    if tool is None or not tool.writes:
        return Escalation("plan-invalid", f"the paused write {pending.tool!r} is not available")
    try:
        tool_input = validate_arguments(tool, copy.deepcopy(pending.input))
    except pydantic.ValidationError:
        return Escalation("tool-args-invalid")
    expected = call_fingerprint(
        turn.request.turn_id, pending.call_id, tool.name, try_snapshot(tool_input) or {}
    )
    if expected != pending.fingerprint:
        return Escalation("tool-args-invalid", "the paused write no longer matches its approval")
    return await _decide_and_run(
        turn,
        tool,
        pending.brief,
        tool_input,
        _tool_context(turn),
        resumed=pending,
    )


async def _decide_and_run(
    turn: TurnState,
    tool: Tool,
    brief: str,
    tool_input: dict[str, Any],
    ctx: ToolContext,
    *,
    skipped: Skipped | None = None,
    earlier: StepRecord | None = None,
    resumed: PendingCall | None = None,
) -> Escalation | None:
    """A person confirms a write, the tool runs (or is skipped, or served from cache), and the
    step joins the log."""
    input_snapshot = try_snapshot(tool_input)
    call_id = ""
    if skipped is None and earlier is None and tool.writes:
        request = await _confirm_request(turn, tool, tool_input, brief, resumed)
        call_id = request.call_id
        answer = await _confirm(turn, tool, request, resumed)
        if not answer.approved:
            reason = f": {answer.reason}" if answer.reason else ""
            skipped = Skipped(
                "confirmation", f"declined by the user{reason}. Do not retry unless asked."
            )
        else:
            ctx = attrs.evolve(
                ctx,
                idempotency_key=idempotency_key(turn.request.turn_id, call_id, request.fingerprint),
            )
    await trio.lowlevel.checkpoint_if_cancelled()

    step = StepRecord(
        index=len(turn.steps),
        kind="tool",
        brief=brief,
        tool=tool.name,
        input=input_snapshot,
        writes=tool.writes,
        output_mode=tool.output_mode,
        result=PENDING_RESULT,
        output=earlier.output if earlier is not None else None,
    )
    turn.steps.append(step)
    progress = turn.request.progress
    outcome: dict[str, Any]
    ran_ms = 0.0
    if skipped is not None:
        step.skipped, step.skip_reason, step.extension = True, skipped.reason, skipped.extension
        text = skipped.text
        outcome = {"status": "skipped", "reason": skipped.reason, "extension": skipped.extension}
    elif earlier is not None:
        step.cached = True
        text = (
            earlier.result or ""
            if tool.output_mode == "content"
            else f"same as step {earlier.index + 1}"
        )
        outcome = {"status": "cached", "from_step": earlier.index}
    else:
        if tool.writes and progress is not None:
            await progress.executing(turn.steps, call_id)  # write-ahead: refused means no write
        try:
            text, outcome, ran_ms = await _execute(turn, tool, tool_input, ctx, step)
        except BaseException:
            if tool.writes and step.result == PENDING_RESULT:
                mark_outcome_unknown(step)  # cut off while it ran: it may have happened
            raise
    text = await turn.phases.after_tool(tool, input_snapshot, text, outcome, turn.steps[:-1])
    text = await _fit_result(turn, tool, text)
    step.result = text
    turn.emit(ToolEvent(tool=tool.name, input=input_snapshot, result=text, ms=ran_ms))
    if progress is not None:
        await progress.executed(turn.steps)
    if last_two_failed(turn.steps):
        return Escalation("tool-error", text)
    return None


async def _arguments(
    turn: TurnState, tool: Tool, brief: str, read_before: bool
) -> Arguments | Missing | None:
    """One call fills the tool's arguments; one retry for a malformed reply (design.md, D1)."""
    given = turn.given.pop(tool.name, None)
    if given is not None:  # the hit the ask names: no model call (detail.py)
        try:
            return Arguments(validate_arguments(tool, given))
        except pydantic.ValidationError:
            pass
    if not tool.has_arguments:
        try:
            return Arguments(validate_arguments(tool, {}))
        except pydantic.ValidationError:
            return None
    system = arguments_system(
        instructions=turn.instructions, brief=brief, tool=tool, facts=turn.facts
    )
    shown = context_steps(tool, await turn.model_steps())
    repair = () if turn.repairing is None else (repair_note(turn.repairing),)
    notes: tuple[str, ...] = repair
    for _attempt in range(2):

        def prompt(_compact: bool, notes: tuple[str, ...] = notes) -> str:
            return answer_user(
                ask=turn.ask,
                summary=turn.view.summary,
                recent=turn.view.recent,
                steps=shown,
                window=turn.window,
                notes=notes,
            )

        reply = await request_arguments(
            turn.caller, tool, system=system, prompt=prompt, ask=turn.ask
        )
        if isinstance(reply, Arguments):
            searched = copied_search(tool, reply.values, turn.ask)
            if searched and not _attempt:  # "what time is my flight to Porto?" as the query
                notes = (*repair, search_note(searched))
                continue
            copied = copied_ask(tool, reply.values, turn.ask)
            unshown = (  # a conditional write's condition decides first (run_tool_step)
                unshown_ids(tool, reply.values, turn.steps, turn.seen_texts())
                if read_before and not (tool.writes and _conditional(turn.ask))
                else []
            )
            if unshown and not copied:  # an id no result held, after a read (lookup.py)
                turn.emit(CheckEvent(check="id", passed=False))
                if _attempt:
                    return Missing(", ".join(unshown), reply.values)
                notes = (*repair, unshown_note(reply.values, unshown))
                continue
            if not copied:
                return reply
            if _attempt:  # the request copied twice: its frame cut, else ask the user
                cut = {name: cut_request(str(reply.values.get(name, ""))) for name in copied}
                if all(cut.values()):  # "put dish soap on my shopping list" → "dish soap"
                    try:
                        return Arguments(validate_arguments(tool, {**reply.values, **cut}))
                    except pydantic.ValidationError:
                        pass
                return Missing(", ".join(copied), reply.values)
            notes = (*repair, copy_note(copied))
            continue
        if isinstance(reply, Missing):
            facts = [f"{key}: {value}" for key, value in turn.facts.items()]
            keys = shown_keys([*facts, *(step.result or "" for step in shown)])
            if names_only_shown_keys(tool, reply, keys):  # "missing: from", a key it read
                try:
                    return Arguments(validate_arguments(tool, reply.values))
                except pydantic.ValidationError:
                    pass
            text = blank_text(tool, reply)
            if text:  # the email's body left blank, "missing: time now" (compose.py)
                composed = await composed_arguments(turn.caller, tool, reply, text, turn.ask)
                if composed is not None:
                    return composed
            return reply
        notes = (*repair, arguments_correction(reply.error))
    return None


def _chosen(tool: Tool, filled: Arguments, listed: Mapping[str, str | None]) -> Arguments | Missing:
    """The arguments with each copied list of choices replaced by the one the user named, or
    left out when they named none: a required one is then missing, and the user is asked."""
    values = {name: value for name, value in filled.values.items() if name not in listed}
    values.update({name: choice for name, choice in listed.items() if choice is not None})
    schema = tool.schema if isinstance(tool.schema, dict) else {}
    required = set(schema.get("required") or ())
    unsaid = [name for name, choice in listed.items() if choice is None and name in required]
    if unsaid:
        return Missing(", ".join(unsaid), values)
    try:
        return Arguments(validate_arguments(tool, values))
    except pydantic.ValidationError:
        return filled


def _without(tool: Tool, filled: Arguments, names: list[str]) -> Arguments:
    """The arguments with the optional ``names`` left out, so the tool's defaults apply."""
    if not names:
        return filled
    try:
        kept = {name: value for name, value in filled.values.items() if name not in names}
        return Arguments(validate_arguments(tool, kept))
    except pydantic.ValidationError:
        return filled


async def _confirm_request(
    turn: TurnState,
    tool: Tool,
    tool_input: dict[str, Any],
    brief: str,
    resumed: PendingCall | None,
) -> ConfirmRequest:
    """What the person is asked: the write, bound to its fingerprint."""
    await trio.lowlevel.checkpoint_if_cancelled()
    arguments = copy.deepcopy(try_snapshot(tool_input) or {})
    if resumed is not None:
        call_id, after_tool = resumed.call_id, resumed.after_tool
    else:
        previous = turn.steps[-1] if turn.steps else None
        read_just_before = previous is not None and previous.kind == "tool" and not previous.skipped
        call_id = f"call-{len(turn.steps)}"
        after_tool = previous.tool if read_just_before and previous is not None else None
    return ConfirmRequest(
        tool=tool.name,
        input=arguments,
        brief=brief,
        conversation_id=turn.request.conversation_id,
        turn_id=turn.request.turn_id,
        call_id=call_id,
        after_tool=after_tool,
        fingerprint=call_fingerprint(turn.request.turn_id, call_id, tool.name, arguments),
    )


async def _confirm(
    turn: TurnState, tool: Tool, request: ConfirmRequest, resumed: PendingCall | None
) -> Decision:
    """Ask before a write; no answer within ``confirm_timeout`` is a decline (design.md, D8).

    Without a handler the write fails closed (docs/design.md, D13): declined with the reason ``no
    confirmation handler``, unless the agent says ``auto_approve=True``
    (``requires_confirmation`` tools decline even then). A sync handler runs in a worker thread, so a person typing at
    ``input()`` blocks no other conversation and the deadline still ends the wait.

    With a progress port the turn first leaves a checkpoint (design.md, D11: its steps, the
    call and the first plan's calls still to come), so it can resume at this step after a
    restart; the deadline is wall-clock time, kept across restarts.
    """
    handler = turn.request.confirm or turn.config.confirm
    timeout = turn.config.confirm_timeout
    if resumed is not None:
        deadline = resumed.deadline
    else:
        deadline = time.time() + timeout if timeout is not None else None
    progress = turn.request.progress
    if progress is not None:
        pending = PendingCall(
            call_id=request.call_id,
            tool=request.tool,
            input=copy.deepcopy(request.input),
            brief=request.brief,
            fingerprint=request.fingerprint,
            after_tool=request.after_tool,
            deadline=deadline,
        )
        await progress.paused(
            Checkpoint(
                steps=copy.deepcopy(turn.steps),
                pending=pending,
                planned=None if turn.planned is None else list(turn.planned),
            )
        )
    remaining = math.inf if deadline is None else max(0.0, deadline - time.time())
    if resumed is None and timeout is not None:
        remaining = timeout  # a first ask waits exactly confirm_timeout on the turn's clock
    decision = Decision(approved=False, reason="no answer")
    started = trio.current_time()
    with trio.move_on_after(remaining):
        with origin("confirm"):
            if handler is None:
                approve = turn.config.auto_approve and not tool.requires_confirmation
                raw: Any = approve or Decision(approved=False, reason=NO_HANDLER)
            else:
                raw = await _ask(handler, request)
            decision = _decision(raw)
    waited = _ms_since(started)
    turn.emit(
        ConfirmEvent(tool=tool.name, approved=decision.approved, reason=decision.reason, ms=waited)
    )
    return decision


async def _ask(handler: Any, request: ConfirmRequest) -> Any:
    """The handler's answer: an async one awaited here, a sync one in a worker thread."""
    if is_async_callable(handler):
        return await handler(request)
    raw = await trio.to_thread.run_sync(handler, request, abandon_on_cancel=True)
    return await maybe_await(raw)


async def _execute(
    turn: TurnState, tool: Tool, tool_input: dict[str, Any], ctx: ToolContext, step: StepRecord
) -> tuple[str, dict[str, Any], float]:
    """Run the tool; the text the model sees, the outcome ``after_tool`` hooks see, and how
    many milliseconds the tool itself took."""
    started = trio.current_time()
    try:
        output = await _run_tool(turn, tool, tool_input, ctx)
    except Exception as exc:
        step.failed = True
        text = str(without_instructions(report_tool_error(tool, exc, step), lines=True))
        near = (
            {}
            if isinstance(exc, GoliathError)
            else near_match_values(exc, tool, tool_input, turn.ask)
        )  # the one item the error lists for the value ("RKY": "KEF (Reykjavik)")
        if not isinstance(exc, GoliathError) and (  # a refusal written for the model stands
            (not tool.writes and isinstance(exc, (ValueError, TypeError)))  # a value's form
            or (tool.writes and names_an_empty_value(exc, tool, tool_input))  # one left out
            or names_a_near_match(exc, tool, tool_input)  # "no trip 'Marrakech trip'; ..."
            or near
        ):
            turn.value_errors.add(step.index)  # one repair (run.py)
            if near:  # the repair takes it, with no model call
                turn.near_values[step.index] = near
        lacking = (
            None if isinstance(exc, GoliathError) else not_found_parameters(exc, tool, tool_input)
        )
        if lacking is not None:  # a write's "not found": one look-up, after any repair (run.py)
            turn.not_found[step.index] = lacking
        if turn.config.tool_errors == "raise":
            step.result = text
            raise
        return text, {"status": "failed", "error": message_of(exc)}, _ms_since(started)
    ran_ms = _ms_since(started)
    step.output, working, step.output_omitted = capped_snapshots(
        output, turn.config.raw_output_bytes, WORKING_OUTPUT_BYTES
    )
    if step.output is None and working is not None:  # over the record's cap: the turn's
        turn.full_outputs[step.index] = working  # rules still read it (seen_steps)
    step.result = PROCESSING_RESULT
    await trio.lowlevel.checkpoint_if_cancelled()
    return await _format(tool, output), {"status": "executed", "output": step.output}, ran_ms


def _ms_since(started: float) -> float:
    return round((trio.current_time() - started) * 1000, 3)


async def _run_tool(
    turn: TurnState, tool: Tool, tool_input: dict[str, Any], ctx: ToolContext
) -> Any:
    """Run the tool on a copy of its input, within ``tool_timeout`` (a hang fails the step).

    A sync tool runs in a thread that Trio cannot interrupt: it stops at the deadline only
    if it calls ``ctx.check_cancelled()``; otherwise the step waits for it to return.
    """
    timeout = turn.config.tool_timeout
    try:
        with trio.fail_after(timeout if timeout is not None else math.inf):
            return await tool.run(copy.deepcopy(tool_input), ctx)
    except trio.TooSlowError:
        raise TimeoutError(f"{tool.name} did not finish within {timeout:g} s") from None


async def _format(tool: Tool, output: Any) -> str:
    """What the model sees of an output: ``to_model_output`` or the structural summary."""
    try:
        if tool.to_model_output is not None:
            text = await maybe_await(tool.to_model_output(output))
            if not isinstance(text, str):
                raise TypeError(f"to_model_output returned {type(text).__name__}, not str")
            return str(without_instructions(text, lines=True))
        if tool.output_mode == "content" and isinstance(output, str):
            return str(without_instructions(output))
        try:  # an address to the assistant is cut from each field (quarantine.py)
            shown = without_instructions(to_plain(output))
        except Exception:
            shown = output  # the summary says why it cannot be shown
        if tool.output_mode == "content":
            return summarize_tool_result(shown, CONTENT_CANDIDATE_CHARS, strict=True)
        return summarize_tool_result(shown, strict=True)
    except Exception as exc:
        report_unshowable(tool, output, exc)
        return UNSUMMARIZABLE


async def _fit_result(turn: TurnState, tool: Tool, text: str) -> str:
    if tool.output_mode != "content":
        return clip(text, RESULT_CHARS)
    return await fit_excerpt(text, turn.budgets.tool_result_tokens, turn.config.count_tokens)


def _tool_context(turn: TurnState) -> ToolContext:
    return ToolContext(
        conversation_id=turn.request.conversation_id,
        turn_id=turn.request.turn_id,
        context=turn.request.context,
        steps=copy.deepcopy(turn.steps),
        recent=copy.deepcopy(turn.view.recent),
        result_budget=ResultBudget(
            max_tokens=turn.budgets.tool_result_tokens, count_tokens=turn.config.count_tokens
        ),
    )


def _decision(raw: Any) -> Decision:
    if isinstance(raw, Decision):
        return raw
    if isinstance(raw, bool):
        return Decision(approved=raw)
    if isinstance(raw, dict) and isinstance(raw.get("approved"), bool):
        reason = raw.get("reason")
        return Decision(approved=raw["approved"], reason=str(reason) if reason else None)
    raise GoliathError(
        f"A confirm handler must return True/False or Decision(approved, reason); got {raw!r}."
    )
