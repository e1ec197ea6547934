"""How one turn runs its extensions' hooks: in order, each seeing the previous one's changes.

The shape of an extension and what each hook may return are in :mod:`goliath.extensions`;
this module calls the hooks (sync or async), keeps each extension's private per-run state,
checks what comes back — a patch of the phase's own fields, or a decision the phase allows —
and turns anything else into an :class:`~goliath.errors.ExtensionError`. What each phase's data
are, and how a patch is validated, is :mod:`goliath.turn.phases`.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import trio

from .._util import maybe_await, message_of
from ..errors import ExtensionError
from ..extensions import STOP_PHASES, Deny, HookContext, Skip, Stop, is_default_hook

__all__ = ["OBSERVER_SECONDS", "Denied", "ExtensionRunner", "StopRun", "Validator"]

OBSERVER_SECONDS = 5.0
"""How long ``on_error``/``on_finish`` observers may take in total when a run was cancelled."""


@attrs.frozen
class Denied:
    """Internal: which extension denied a tool call, and why."""

    extension: str
    reason: str


Validator = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
"""Checks one hook's patch against the current data and returns the accepted values."""


class StopRun(Exception):
    """Internal: an extension stopped the run. Never escapes ``Agent.run``."""

    def __init__(self, extension: str, phase: str, text: str, reason: str) -> None:
        super().__init__(f"{extension} stopped the run in {phase}: {reason}")
        self.extension = extension
        self.phase = phase
        self.text = text
        self.reason = reason


def _resolve_hook(extension: Any, phase: str) -> Callable[[HookContext], Any] | None:
    """The hook ``extension`` defines for ``phase``; ``None`` when it keeps the base no-op."""
    hook = getattr(extension, phase, None)
    if hook is None or not callable(hook) or is_default_hook(extension, phase):
        return None
    if not isinstance(extension, type) and phase not in getattr(extension, "__dict__", {}):
        plain = _plain_function(type(extension), phase)
        if plain is not None:
            return plain  # a plain function written without self
    return hook  # type: ignore[no-any-return]


_PLAIN_FUNCTIONS: dict[tuple[type, str], Callable[[HookContext], Any] | None] = {}
PLAIN_FUNCTIONS_CACHED = 1024
"""Entries of the (class, hook) cache below; it is emptied when full."""


def _plain_function(cls: type, phase: str) -> Callable[[HookContext], Any] | None:
    """A class attribute that is a one-argument function not taking ``self`` (cached: hooks
    are looked up several times per turn, and reading a signature is slow)."""
    key = (cls, phase)
    if key in _PLAIN_FUNCTIONS:
        return _PLAIN_FUNCTIONS[key]
    found: Callable[[HookContext], Any] | None = None
    raw = inspect.getattr_static(cls, phase, None)
    if inspect.isfunction(raw):
        params = list(inspect.signature(raw).parameters.values())
        if len(params) == 1 and params[0].name not in ("self", "cls"):
            found = raw
    if len(_PLAIN_FUNCTIONS) >= PLAIN_FUNCTIONS_CACHED:
        _PLAIN_FUNCTIONS.clear()
    _PLAIN_FUNCTIONS[key] = found
    return found


def _observer_only(extension: Any) -> bool:
    return getattr(extension, "observer_only", False) is True


def _deepcopy(value: Any) -> Any:
    try:
        return copy.deepcopy(value)
    except Exception:
        return value


class ExtensionRunner:
    """Runs one turn's hooks, keeping each extension's private per-run state."""

    def __init__(
        self, extensions: Sequence[Any], *, run_id: str, conversation_id: str | None, context: Any
    ) -> None:
        self.extensions = tuple(extensions)
        self.run_id = run_id
        self.conversation_id = conversation_id
        self.context = context
        self.states: dict[str, dict[str, Any]] = {ext.name: {} for ext in self.extensions}
        self.diagnostics: list[dict[str, str]] = []

    @property
    def active(self) -> bool:
        return bool(self.extensions)

    @property
    def strict_budgets(self) -> bool:
        """Whether an over-budget prompt raises ``BudgetError`` instead of escalating.

        Any extension that may steer the run makes budgets strict; observer-only ones do not.
        """
        return any(not _observer_only(extension) for extension in self.extensions)

    def observes(self, phase: str) -> bool:
        """Whether any extension defines ``phase`` (to skip building data nobody reads)."""
        return any(_resolve_hook(extension, phase) is not None for extension in self.extensions)

    def _context(self, extension: Any, phase: str, data: dict[str, Any]) -> HookContext:
        return HookContext(
            phase=phase,
            run_id=self.run_id,
            conversation_id=self.conversation_id,
            context=self.context,
            state=self.states[extension.name],
            **{key: _deepcopy(value) for key, value in data.items()},
        )

    async def _call(self, extension: Any, phase: str, data: dict[str, Any]) -> Any:
        hook = _resolve_hook(extension, phase)
        if hook is None:
            return None
        await trio.lowlevel.checkpoint_if_cancelled()
        try:
            result = await maybe_await(hook(self._context(extension, phase, data)))
        except Exception as exc:
            raise ExtensionError(extension.name, phase, exc) from exc
        await trio.lowlevel.checkpoint_if_cancelled()
        return result

    def _fail(self, extension: Any, phase: str, problem: str) -> ExtensionError:
        return ExtensionError(extension.name, phase, ValueError(problem))

    async def transform(
        self,
        phase: str,
        data: dict[str, Any],
        keys: frozenset[str],
        *,
        validate: Validator | None = None,
        deny: bool = False,
        skip: bool = False,
    ) -> tuple[dict[str, Any], Denied | Skip | None]:
        """Run every hook of a transforming phase.

        Returns ``(patch, decision)``: the merged patch of all hooks (later wins) and a
        :class:`Deny`/:class:`Skip` that ended the chain, or ``None``. Raises :class:`StopRun`
        for an allowed stop and :class:`ExtensionError` for anything invalid.
        """
        patch: dict[str, Any] = {}
        current = dict(data)
        for extension in self.extensions:
            result = await self._call(extension, phase, current)
            if result is None:
                continue
            if _observer_only(extension):
                raise self._fail(
                    extension,
                    phase,
                    f"returned {result!r}, but the extension is observer_only: its hooks must "
                    "return None (set observer_only = False to steer runs)",
                )
            if isinstance(result, Stop):
                if phase not in STOP_PHASES:
                    raise self._fail(extension, phase, f"Stop is not allowed in {phase}")
                if not isinstance(result.text, str) or not isinstance(result.reason, str):
                    raise self._fail(extension, phase, "Stop(text, reason) needs two strings")
                raise StopRun(extension.name, phase, result.text, result.reason)
            if isinstance(result, Deny):
                if not deny:
                    raise self._fail(
                        extension, phase, f"Deny is only allowed in before_tool, not {phase}"
                    )
                return patch, Denied(extension.name, str(result.reason))
            if isinstance(result, Skip):
                if not skip:
                    raise self._fail(
                        extension, phase, f"Skip is only allowed in before_remember, not {phase}"
                    )
                return patch, result
            if not isinstance(result, dict):
                raise self._fail(
                    extension,
                    phase,
                    f"returned {result!r}; expected None, a dict patch of {sorted(keys)}"
                    + (", Deny(reason)" if deny else "")
                    + (", Skip()" if skip else "")
                    + (", Stop(text, reason)" if phase in STOP_PHASES else ""),
                )
            unknown = set(result) - keys
            if unknown:
                raise self._fail(
                    extension,
                    phase,
                    f"unknown patch keys {sorted(unknown)}; allowed: {sorted(keys)}",
                )
            try:
                checked = validate(result, current) if validate else result
            except Exception as exc:
                raise ExtensionError(extension.name, phase, exc) from exc
            patch.update(checked)
            current.update(checked)
        return patch, None

    async def observe(self, phase: str, data: dict[str, Any]) -> None:
        """Run ``on_error``/``on_finish`` observers: failures become diagnostics, never errors."""
        for extension in self.extensions:
            if _resolve_hook(extension, phase) is None:
                continue
            try:
                await self._call(extension, phase, {**data, "diagnostics": list(self.diagnostics)})
            except ExtensionError as exc:
                self.diagnostics.append(
                    {"extension": extension.name, "phase": phase, "error": message_of(exc.cause)}
                )
