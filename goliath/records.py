"""Records a turn produces and consumes: steps, exchanges, memory, results, requests.

They are msgspec Structs so they cross actors and transports as they are (JSON at the public
edge, MessagePack inside) and persist in stores. Following msgspec's schema-evolution rules,
new fields always get defaults and existing field types never change.
"""

from typing import Any, Generic, Literal

import msgspec
from typing_extensions import TypeVar

from .events import Event
from .snapshot import json_snapshot, to_builtins_hook

__all__ = [
    "RECENT_KEEP",
    "ConfirmRequest",
    "Decision",
    "Exchange",
    "FallbackRequest",
    "HandledBy",
    "MemoryState",
    "RunResult",
    "SkipReason",
    "StepRecord",
]

HandledBy = Literal["device", "cloud"]
Out = TypeVar("Out", default=Any)
"""The type of a structured answer (the ``output_schema``), ``Any`` when there is none."""
SkipReason = Literal["policy", "confirmation", "missing"]


class StepRecord(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One step of a turn, as the application sees it.

    ``result`` is the compressed text the model saw; ``output`` is a JSON snapshot of the raw
    tool output and is never rendered into device prompts. It is ``None`` when the output did
    not serialize or was larger than the agent's ``raw_output_bytes``; ``output_omitted`` then
    says which. ``outcome_unknown`` marks a write cut off while it ran (a crash, a cancel):
    it may or may not have happened, and Goliath never runs it again on its own.
    ``error_type`` names the exception a failed tool raised (``KeyError``,
    ``myapp.errors.Locked``); ``result`` then holds ``error: <type>: <message>. ...``.
    """

    index: int
    kind: Literal["tool", "answer"]
    brief: str
    tool: str | None = None
    input: Any = None
    result: str | None = None
    output: Any = None
    writes: bool = False
    output_mode: Literal["summary", "content"] | None = None
    skipped: bool = False
    skip_reason: SkipReason | None = None
    cached: bool = False
    failed: bool = False
    extension: str | None = None
    text: str | None = None
    output_omitted: str | None = None
    outcome_unknown: bool = False
    error_type: str | None = None


class Exchange(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One finished ask and its answer; ``at`` is seconds since the Unix epoch.

    ``interrupted`` marks an ask whose turn was cut off before it answered: by a crash or a
    restart, or by a cancel after a write ran; ``steps`` then holds what it did.
    """

    ask: str
    answer: str
    at: float
    best_effort: bool = False
    steps: list[StepRecord] = msgspec.field(default_factory=list)
    interrupted: bool = False


RECENT_KEEP = 3
"""How many exchanges a conversation keeps verbatim (older ones are folded into the brief)."""


class MemoryState(msgspec.Struct, kw_only=True):
    """What a conversation remembers: a rolling brief and the last three exchanges verbatim."""

    summary: str = ""
    recent: list[Exchange] = msgspec.field(default_factory=list)


class RunResult(msgspec.Struct, Generic[Out], kw_only=True, omit_defaults=True):
    """The outcome of one turn; ``RunResult[Weather]`` when the answer is a ``Weather`` model.

    ``text`` is the final reply (device, cloud, best-effort or an extension's stop text, else
    ``""``); ``output`` is the validated structured answer, only ever for device answers.
    ``model_calls``, ``input_tokens`` and ``output_tokens`` count what the device model did;
    ``queue_ms`` is how long its calls waited for the model behind other conversations.

    A msgspec Struct: :meth:`to_dict` and :meth:`to_json` give its plain JSON form (what
    ``json.dumps``, ``dataclasses.asdict`` or ``model_dump`` would be asked for elsewhere).
    """

    text: str
    handled_by: HandledBy
    steps: list[StepRecord] = msgspec.field(default_factory=list)
    output: Out | None = None
    best_effort: bool = False
    stopped: dict[str, str] | None = None
    diagnostics: list[dict[str, str]] = msgspec.field(default_factory=list)
    trace: list[Event] = msgspec.field(default_factory=list)
    conversation_id: str | None = None
    turn_id: str = ""
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    queue_ms: float = 0.0

    @property
    def failed_steps(self) -> list[StepRecord]:
        """The tool steps that failed (their ``error_type`` names each exception)."""
        return [step for step in self.steps if step.failed]

    def to_dict(self) -> dict[str, Any]:
        """Plain data (dicts, lists, strings, numbers): ``json.dumps`` takes it as it is.

        The structured ``output`` (a pydantic model) becomes its JSON dict; fields at their
        defaults are left out, as on the wire.
        """
        data: dict[str, Any] = json_snapshot(self)
        return data

    def to_json(self) -> str:
        """The result as JSON text (what the daemon's ``result`` event carries)."""
        return msgspec.json.encode(self, enc_hook=to_builtins_hook).decode()


class ConfirmRequest(msgspec.Struct, frozen=True, kw_only=True):
    """A write waiting for approval. ``input`` is a copy: changing it changes nothing.

    ``after_tool`` names the tool whose result the model had just read when it planned this
    write (``None`` when the write came first, or after a skipped step): a write planned right
    after reading data may have been put there by that data (prompt injection), so a person
    should look twice. ``fingerprint`` binds an approval to exactly this write
    (:func:`goliath.durable.call_fingerprint`: the turn, the call, the tool, the arguments).
    """

    tool: str
    input: dict[str, Any]
    brief: str
    conversation_id: str | None = None
    turn_id: str = ""
    call_id: str = ""
    after_tool: str | None = None
    fingerprint: str = ""


class Decision(msgspec.Struct, frozen=True):
    """An answer to a :class:`ConfirmRequest`, with an optional reason shown to the model."""

    approved: bool
    reason: str | None = None


class FallbackRequest(msgspec.Struct, frozen=True, kw_only=True):
    """What the cloud hand-off receives: the ask, memory, every step with raw outputs, and why.

    Never a transcript: the cloud agent gets the same structured record the device built.
    """

    ask: str
    summary: str
    recent: list[Exchange]
    steps: list[StepRecord]
    reason: str
    error: str | None = None
    conversation_id: str | None = None
