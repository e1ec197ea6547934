"""Lifecycle extensions: ordered hooks that observe, patch, deny or stop a turn.

An extension is a subclass of :class:`Extension` (or any object with a ``name`` and some of its
hook methods) that overrides the hooks it needs; the others stay no-ops and are never called.
Hooks may be sync or async and take one argument, the :class:`HookContext`. They run one after
another in registration order, each seeing the previous one's changes. A hook returns ``None``
(no change), a patch (a dict of the phase's fields), or one of the decisions :class:`Deny`,
:class:`Stop`, :class:`Skip` where its phase allows it; anything else is an
:class:`~goliath.errors.ExtensionError`.

Hook names are checked when the agent is built: a public method that looks like a hook but is
not one (``before_tools``, ``on_finished``) is a :class:`~goliath.errors.ConfigError` naming the
hook it was probably meant to be, never a hook that silently does not run.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Awaitable, Sequence
from typing import Any, Literal, TypeAlias

import attrs

from .errors import ConfigError

__all__ = [
    "HOOKS",
    "STOP_PHASES",
    "Deny",
    "Extension",
    "HookContext",
    "Patch",
    "Plan",
    "PlanKind",
    "RunOutcome",
    "Skip",
    "Stop",
    "check_extensions",
    "is_default_hook",
]

HOOKS = (
    "before_run",
    "after_recall",
    "before_plan",
    "after_plan",
    "before_tool",
    "after_tool",
    "before_fallback",
    "after_answer",
    "before_remember",
    "on_error",
    "on_finish",
    "on_model_call",
)
"""Every hook, in the order a turn reaches them (``on_model_call`` fires at each model call)."""
STOP_PHASES = frozenset(
    {"before_run", "after_plan", "before_tool", "before_fallback", "after_answer"}
)
"""The hooks that may return :class:`Stop`."""
HOOK_PREFIXES = ("before_", "after_", "on_")
"""Public method names an extension keeps for hooks: one of these that is no hook is a typo."""


@attrs.frozen
class Deny:
    """``before_tool`` only: skip this tool call; the model sees the reason."""

    reason: str


@attrs.frozen
class Stop:
    """End the run now with ``text`` as its answer (phases that allow it)."""

    text: str
    reason: str


@attrs.frozen
class Skip:
    """``before_remember`` only: save nothing for this turn."""


PlanKind = Literal["tool", "answer", "escalate"]


def _check_plan(plan: Plan, _attribute: Any, _value: Any) -> None:
    if plan.kind not in ("tool", "answer", "escalate"):
        raise ValueError(f"Plan kind is 'tool', 'answer' or 'escalate', got {plan.kind!r}")
    if plan.kind == "tool" and (not isinstance(plan.tool, str) or not plan.tool):
        raise ValueError(f"a tool Plan names its tool, got tool={plan.tool!r}")
    if plan.kind != "tool" and plan.tool is not None:
        raise ValueError(f"a {plan.kind} Plan names no tool, got tool={plan.tool!r}")
    if not isinstance(plan.brief, str):
        raise ValueError(f"Plan brief is a string, got {plan.brief!r}")
    if plan.then is not None and not (
        isinstance(plan.then, tuple) and all(isinstance(name, str) for name in plan.then)
    ):
        raise ValueError(f"Plan then is None or a tuple of tool names, got {plan.then!r}")


@attrs.frozen(kw_only=True)
class Plan:
    """The turn's next step, as the conductor decoded it from the model's reply.

    The model writes one spelling (docs/design.md, "The plan"): ``{"call": NAME, "then": NAME}``
    for a turn's first plan, ``{"call": NAME}`` for a later step; the conductor checks it once
    and the rest of the turn trusts this. An ``after_plan`` hook sees it as ``ctx.plan`` and may
    return ``{"plan": Plan(...)}`` to replace it; its tool must be one the step may use.

    Attributes:
        kind: ``tool`` (call ``tool``), ``answer`` (reply now) or ``escalate`` (hand the turn
            over: the ask is beyond these functions).
        tool: the function to call; set exactly when ``kind`` is ``tool``.
        brief: what the step is for, which the argument filler and the step record show. The
            turn fills an empty one: a tool's description, or ``reply``.
        then: the calls a first plan puts after this one (none: answer after it), which the
            turn follows; ``None`` when the plan named this call alone and the turn asks again
            for the next step. It is read from the model's plan: a hook's replacement changes
            this step only.
        scores: the first plan's options' log-probabilities, when the bridge reported them.
    """

    kind: PlanKind = attrs.field(validator=_check_plan)
    tool: str | None = None
    brief: str = ""
    then: tuple[str, ...] | None = None
    scores: dict[str, float] | None = attrs.field(default=None, eq=False)


Patch: TypeAlias = dict[str, Any]
"""A hook's change: some of its phase's fields, by name (``{"input": {...}}``)."""


class HookContext:
    """What a hook receives: the run's identity, the app context, private state, phase data.

    Attributes always present: ``phase``, ``run_id``, ``conversation_id``, ``context`` (the
    application's object, not copied), ``state`` (a dict private to this extension for this
    run). The phase's data are further attributes (``ask``, ``steps``, ``tool`` ...); plain
    data are copies, so changing them changes nothing — return a patch instead.
    """

    phase: str
    run_id: str
    conversation_id: str | None
    context: Any
    state: dict[str, Any]

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(
            f"The {self.__dict__.get('phase', '?')} hook context has no attribute {name!r}; "
            f"it has {', '.join(sorted(self.__dict__))}."
        )

    def __repr__(self) -> str:
        return f"HookContext(phase={self.__dict__.get('phase')!r})"


class Extension:
    """Base class for extensions: set ``name`` and override any of the hooks below.

    Each hook gets the :class:`HookContext` of its phase, may be ``async``, and may return what
    its docstring says; a hook an extension does not override is never called. A plain
    function of one argument (no ``self``) or a staticmethod works as a hook too.

    ``observer_only = True`` declares that the extension only watches (tracing, metrics,
    audit logs): every hook returns ``None``. Such an extension keeps budgets lenient — an
    over-budget prompt still escalates ``context-budget`` — because nothing it does depends on
    every step happening; a hook of it that returns anything else is an ``ExtensionError``.
    """

    name: str = ""
    observer_only: bool = False

    def before_run(self, ctx: HookContext) -> Patch | Stop | Awaitable[Patch | Stop | None] | None:
        """First: ``ask``, ``instructions``, ``facts``. Patch any of them (facts merge), or stop."""
        return None

    def after_recall(self, ctx: HookContext) -> Patch | Awaitable[Patch | None] | None:
        """Memory is loaded: ``memory``. ``{"memory": ...}`` changes this run's view (not saved)."""
        return None

    def before_plan(self, ctx: HookContext) -> Patch | Awaitable[Patch | None] | None:
        """Before each plan: ``ask``, ``tools`` (descriptors), ``context_text``, ``steps``,
        ``attempt``. ``{"tools": [names], "context_text": str}`` narrows what the model sees."""
        return None

    def after_plan(self, ctx: HookContext) -> Patch | Stop | Awaitable[Patch | Stop | None] | None:
        """A plan was made: ``plan`` (a :class:`Plan`), ``tools``, ``steps``, ``attempt``.
        ``{"plan": Plan(...)}`` replaces it (its tool must be available), or stop."""
        return None

    def before_tool(
        self, ctx: HookContext
    ) -> Patch | Deny | Stop | Awaitable[Patch | Deny | Stop | None] | None:
        """Arguments are filled: ``tool``, ``input``, ``brief``, ``steps``. ``{"input": ...}``
        (validated again), :class:`Deny` to skip the call, or stop."""
        return None

    def after_tool(self, ctx: HookContext) -> Patch | Awaitable[Patch | None] | None:
        """The call ended: ``tool``, ``input``, ``result``, ``outcome``, ``steps`` (earlier
        ones). ``{"result": str}`` changes what the model reads, not what happened."""
        return None

    def before_fallback(
        self, ctx: HookContext
    ) -> Patch | Stop | Awaitable[Patch | Stop | None] | None:
        """The turn is handed to the fallback: ``request``. ``{"request": ...}`` (same
        ``reason``), or stop."""
        return None

    def after_answer(
        self, ctx: HookContext
    ) -> Patch | Stop | Awaitable[Patch | Stop | None] | None:
        """A non-blank answer: ``text``, ``handled_by``, ``best_effort``, ``steps``.
        ``{"text": str}`` (non-blank) replaces it, or stop."""
        return None

    def before_remember(
        self, ctx: HookContext
    ) -> Patch | Skip | Awaitable[Patch | Skip | None] | None:
        """Memory is about to be saved: ``memory`` (the candidate), ``exchange``.
        ``{"memory": ...}`` changes what is saved; :class:`Skip` saves nothing."""
        return None

    def on_error(self, ctx: HookContext) -> Awaitable[None] | None:
        """The run failed or was cancelled: ``error``, ``origin``, ``steps``, ``trace``.
        Observation only; runs before ``on_finish``."""
        return None

    def on_finish(self, ctx: HookContext) -> Awaitable[None] | None:
        """Last, once per run however it ended: ``outcome`` (a :class:`RunOutcome`),
        ``diagnostics``. Observation only."""
        return None

    def on_model_call(self, ctx: HookContext) -> Awaitable[None] | None:
        """A model call ended: ``label``, ``ms``, ``max_output_tokens``, ``queue_ms``,
        ``input_tokens``, ``output_tokens``, ``error``. Observation only (what tracing needs)."""
        return None


@attrs.frozen
class RunOutcome:
    """How a run ended, as ``on_finish`` sees it.

    ``status`` is ``completed``, ``stopped``, ``error`` or ``aborted`` (cancelled); ``result``
    is set for the first two, ``error`` and ``origin`` for the last two.
    """

    status: str
    result: Any = None
    error: BaseException | None = None
    origin: str | None = None
    steps: list[Any] = attrs.field(factory=list)
    trace: list[Any] = attrs.field(factory=list)


def is_default_hook(extension: Any, phase: str) -> bool:
    """Whether ``extension`` leaves ``phase`` as :class:`Extension`'s no-op (never called)."""
    default = getattr(Extension, phase, None)
    if default is None or phase in getattr(extension, "__dict__", {}):
        return False
    owner = extension if isinstance(extension, type) else type(extension)
    return getattr(owner, phase, None) is default


def check_extensions(extensions: Sequence[Any]) -> tuple[Any, ...]:
    """Validate names (non-blank, unique) and hook names at construction time."""
    seen: set[str] = set()
    for extension in extensions:
        name = getattr(extension, "name", None)
        if not isinstance(name, str) or not name.strip() or name in seen:
            raise ConfigError(
                f"Extension names must be nonempty and unique; got {name!r}. Give each extension "
                "a class attribute `name = '...'`."
            )
        seen.add(name)
        for method in _misspelled_hooks(extension):
            close = difflib.get_close_matches(method, HOOKS, n=1, cutoff=0.6)
            guess = f" Did you mean {close[0]!r}?" if close else ""
            raise ConfigError(
                f"Extension {name!r} defines {method!r}, which is not a hook, so it would never "
                f"run.{guess} The hooks are: {', '.join(HOOKS)}. (A helper method whose name "
                "starts with before_, after_ or on_ needs a leading underscore.)"
            )
    return tuple(extensions)


def _misspelled_hooks(extension: Any) -> list[str]:
    """Public callables of ``extension`` named like a hook that is not one, sorted."""
    owners = extension.__mro__ if isinstance(extension, type) else type(extension).__mro__
    names = set(getattr(extension, "__dict__", {}))
    for owner in owners:
        if owner not in (object, Extension):
            names.update(vars(owner))
    found = []
    for method in names:
        if method.startswith("_") or method in HOOKS or method in ("name", "observer_only"):
            continue
        looks_like_hook = method.startswith(HOOK_PREFIXES) or bool(
            difflib.get_close_matches(method, HOOKS, n=1, cutoff=0.8)
        )
        if looks_like_hook and callable(_static(extension, method)):
            found.append(method)
    return sorted(found)


def _static(extension: Any, attribute: str) -> Any:
    value = inspect.getattr_static(extension, attribute, None)
    return value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
