"""Fixtures: what an ask should lead to, and the fake tools each attempt runs against.

A :class:`Fixture` says which tool steps a good run takes (in order), where it should finish
(on the device or in the cloud) and what the answer must and must not say. Tools come from a
named *toolset*: a zero-argument factory that returns fresh tools over fresh, deterministic
data, so every attempt starts from the same world and no attempt can see another's writes.

A fixture suite is a module (or a ``.py`` file) exposing ``FIXTURES`` and, optionally,
``TOOLSETS`` (name → factory) and ``FACTS`` (what the agent knows, such as today's date);
:func:`load_fixtures` reads one. This module's own ``FIXTURES`` are the five originals of the
TypeScript library over :func:`sample_tools`.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import attrs

from ..errors import ConfigError
from ..tools import Tool, tool, tools_by_name
from ..turn import REASONS

__all__ = [
    "DEFAULT_TOOLSET",
    "FIXTURES",
    "SPLITS",
    "TOOLSETS",
    "Escalation",
    "Fixture",
    "FixtureSuite",
    "Split",
    "ToolsetFactory",
    "load_fixtures",
    "sample_tools",
    "select_split",
    "split_of",
    "toolset_tools",
]

Escalation = Literal["forbidden", "allowed", "expected"]
ToolsetFactory = Callable[[], "Iterable[Tool] | Mapping[str, Tool]"]
"""A zero-argument factory of fresh tools over fresh data (called once per attempt)."""

DEFAULT_TOOLSET = "sample"
"""The toolset of a fixture that names none: :func:`sample_tools`."""

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def _names(value: object, field: str) -> tuple[str, ...]:
    """A tuple of strings from a list or tuple; a bare string is a mistake, not a sequence."""
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise ConfigError(
            f"Fixture {field} must be a list of strings, got {value!r}"
            + (f" (did you mean [{value!r}]?)" if isinstance(value, str) else "")
        )
    if not all(isinstance(item, str) and item for item in value):
        raise ConfigError(f"Fixture {field} must hold non-empty strings, got {value!r}.")
    return tuple(value)


def _tools(value: Any) -> tuple[str, ...]:
    return _names(value, "tools")


def _mentions(value: Any) -> tuple[str, ...]:
    return _names(value, "mentions")


def _forbids(value: Any) -> tuple[str, ...]:
    return _names(value, "forbids")


def _optional_names(value: Any) -> tuple[str, ...] | None:
    return None if value is None else _names(value, "writes")


def _alternatives(value: Any) -> tuple[tuple[str, ...], ...]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise ConfigError(f"Fixture alternatives must be a list of tool-name lists, got {value!r}.")
    return tuple(_names(item, "alternatives") for item in value)


def _check_id(_instance: Any, _attribute: Any, value: Any) -> None:
    if not isinstance(value, str) or not _ID.match(value):
        raise ConfigError(
            f"Fixture id must be lower-case letters, digits and hyphens (e.g. 'add-task'), "
            f"got {value!r}."
        )


def _check_str(_instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"Fixture {attribute.name} must be a non-blank string, got {value!r}.")


def _check_handled_by(_instance: Any, _attribute: Any, value: Any) -> None:
    if value not in ("device", "cloud"):
        raise ConfigError(f"Fixture handled_by must be 'device' or 'cloud', got {value!r}.")


def _check_escalation(_instance: Any, _attribute: Any, value: Any) -> None:
    if value not in (None, "forbidden", "allowed", "expected"):
        raise ConfigError(
            f"Fixture escalation must be 'forbidden', 'allowed', 'expected' or None, got {value!r}."
        )


def _check_reason(_instance: Any, _attribute: Any, value: Any) -> None:
    if value is not None and value not in REASONS:
        raise ConfigError(
            f"Fixture expected_reason {value!r} is not an escalation reason; use one of: "
            f"{', '.join(REASONS)}."
        )


def _arg_mentions(value: Any) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"Fixture arg_mentions must be a dict of 'tool.field' → words, got {value!r}."
        )
    checked: dict[str, tuple[str, ...]] = {}
    for key, words in value.items():
        if not isinstance(key, str) or key.count(".") != 1:
            raise ConfigError(f"Fixture arg_mentions keys are 'tool.field', got {key!r}.")
        checked[key] = _names(words, f"arg_mentions[{key!r}]")
    return checked


def _is_json_value(value: Any) -> bool:
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_is_json_value(item) for item in value)
    if isinstance(value, Mapping):
        return all(isinstance(key, str) and _is_json_value(item) for key, item in value.items())
    return False


def _arg_values(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"Fixture arg_values must be a dict of 'tool.field' → value, got {value!r}."
        )
    checked: dict[str, Any] = {}
    for key, wanted in value.items():
        if not isinstance(key, str) or key.count(".") != 1:
            raise ConfigError(f"Fixture arg_values keys are 'tool.field', got {key!r}.")
        if not _is_json_value(wanted):
            raise ConfigError(
                f"Fixture arg_values[{key!r}] must be a JSON value (null, bool, number, string, "
                f"list, object), got {wanted!r}."
            )
        checked[key] = wanted
    return checked


def _arguments(value: Iterable[Mapping[str, Any]]) -> tuple[Mapping[str, Any], ...]:
    return tuple(value)


def _withheld(value: Any) -> tuple[tuple[str, Mapping[str, Any]], ...]:
    pairs = tuple(tuple(pair) for pair in value)
    if not all(
        len(pair) == 2 and isinstance(pair[0], str) and isinstance(pair[1], Mapping)
        for pair in pairs
    ):
        raise ConfigError(
            f"Fixture withheld must be (tool, arguments) pairs, a name and a dict, got {value!r}."
        )
    return tuple((name, dict(arguments)) for name, arguments in pairs)


def _history(value: Any) -> tuple[tuple[str, str], ...]:
    pairs = tuple(tuple(pair) for pair in value)
    if not all(len(pair) == 2 and all(isinstance(part, str) for part in pair) for pair in pairs):
        raise ConfigError(f"Fixture history must be (ask, answer) pairs of strings, got {value!r}.")
    return pairs


Split = Literal["dev", "held-out"]
SPLITS: tuple[str, ...] = ("dev", "held-out", "all")
"""The halves of a suite ``goliath eval --split`` can run (``all``: both)."""


def split_of(group: str) -> Split:
    """The half an ask belongs to, by a hash of its id: stable across runs and machines.

    Paraphrases share a group, so all wordings of one ask land in the same half: tuning on dev
    never sees a held-out ask in other words.
    """
    digest = hashlib.sha256(group.encode()).digest()
    return "dev" if digest[0] % 2 == 0 else "held-out"


def select_split(fixtures: Iterable[Fixture], split: str) -> list[Fixture]:
    """The fixtures of one half (``dev``, ``held-out``) or all of them (``all``)."""
    if split not in SPLITS:
        raise ConfigError(f"split must be one of {', '.join(SPLITS)}; got {split!r}.")
    return [fixture for fixture in fixtures if split == "all" or fixture.split == split]


def _check_toolset(_instance: Any, _attribute: Any, value: Any) -> None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ConfigError(f"Fixture toolset must be a toolset name or None, got {value!r}.")


@attrs.frozen
class Fixture:
    """One everyday ask and what a good run of it looks like.

    Attributes:
        id: a short kebab-case name, unique within a suite.
        ask: what the user says.
        tools: the exact, ordered tool steps a good run takes (skipped steps count: a write the
            user declined, or one the arguments stage could not fill, is still a step).
        handled_by: where the turn should finish, ``"device"`` or ``"cloud"``.
        escalation: ``"forbidden"`` (a hand-off fails the fixture), ``"expected"`` (staying on
            the device fails it) or ``"allowed"``; default from ``handled_by``.
        expected_reason: the escalation reason the LAST escalate event must carry (e.g.
            ``"guardrail"``); an empty answer is then acceptable.
        mentions: words the answer must contain (compared lower-cased).
        forbids: words the answer must not contain (compared lower-cased).
        toolset: the name of the toolset the attempt runs against (default ``"sample"``).
        decline: the user declines every write this run asks to confirm.
        writes: the write tools that must actually have run, in order (not declined, not
            skipped for a missing value, not failed); ``None`` does not check.
        alternatives: other tool sequences that are just as right as ``tools``.
        group: the ask this fixture words; paraphrases of one ask share it, and the dev /
            held-out split is taken by a hash of it (default: the id).
        category: the kind of ask (``read``, ``add``, ``check-then-act`` ...), for reports.
        arguments: what a perfect arguments stage fills for each tool step that has parameters, in the
            order of ``tools`` (used by scripted tests and the stage probes, never by the judge).
        arg_mentions: ``"tool.field"`` → words that field must contain (lower-cased) in every
            call of that tool that really ran; how the judge tells a right value from an
            invented or copied one.
        arg_values: ``"tool.field"`` → the value that field must hold, with its type, in every
            call of that tool that really ran: a number equal as a number (21.5 stays 21.5, not
            21 or "21.5"), a bool, a string equal but for case and outer spaces (no extra
            words), a list with the same items in any order and none repeated, an object whose
            named keys hold these values (other keys are not checked), ``None`` for a value
            that must be left out.
        history: earlier exchanges of the conversation, ``(ask, answer)`` pairs, oldest first;
            the attempt starts with them in memory (a follow-up such as "text her that").
        withheld: for an ask whose condition its reads rule out ("add it unless it's there"
            when it is), the write it asks for on that condition, ``(tool, arguments)``: what a
            good run must *not* make. Never used by the judge (``writes`` says what may run);
            the condition probe asks about it.
    """

    id: str = attrs.field(validator=_check_id)
    ask: str = attrs.field(validator=_check_str)
    tools: tuple[str, ...] = attrs.field(converter=_tools)
    handled_by: Literal["device", "cloud"] = attrs.field(validator=_check_handled_by)
    escalation: Escalation | None = attrs.field(default=None, validator=_check_escalation)
    expected_reason: str | None = attrs.field(default=None, validator=_check_reason)
    mentions: tuple[str, ...] = attrs.field(default=(), converter=_mentions)
    forbids: tuple[str, ...] = attrs.field(default=(), converter=_forbids)
    toolset: str | None = attrs.field(default=None, kw_only=True, validator=_check_toolset)
    decline: bool = attrs.field(default=False, kw_only=True, converter=bool)
    writes: tuple[str, ...] | None = attrs.field(
        default=None, kw_only=True, converter=_optional_names
    )
    alternatives: tuple[tuple[str, ...], ...] = attrs.field(
        default=(), kw_only=True, converter=_alternatives
    )
    group: str | None = attrs.field(default=None, kw_only=True)
    category: str | None = attrs.field(default=None, kw_only=True)
    arguments: tuple[Mapping[str, Any], ...] = attrs.field(
        default=(), kw_only=True, converter=_arguments
    )
    arg_mentions: Mapping[str, tuple[str, ...]] = attrs.field(
        factory=dict, kw_only=True, converter=_arg_mentions
    )
    arg_values: Mapping[str, Any] = attrs.field(factory=dict, kw_only=True, converter=_arg_values)
    history: tuple[tuple[str, str], ...] = attrs.field(default=(), kw_only=True, converter=_history)
    withheld: tuple[tuple[str, Mapping[str, Any]], ...] = attrs.field(
        default=(), kw_only=True, converter=_withheld
    )

    @property
    def group_id(self) -> str:
        """The ask this fixture words (its paraphrases share it); the split hashes it."""
        return self.group or self.id

    @property
    def split(self) -> Split:
        """``"dev"`` or ``"held-out"``, fixed by a hash of :attr:`group_id`."""
        return split_of(self.group_id)

    @property
    def effective_escalation(self) -> Escalation:
        """The escalation rule in force: the explicit one, else from ``handled_by``."""
        if self.escalation is not None:
            return self.escalation
        return "expected" if self.handled_by == "cloud" else "forbidden"

    @property
    def accepted_tools(self) -> tuple[tuple[str, ...], ...]:
        """Every tool sequence that passes: ``tools`` first, then the alternatives."""
        return (self.tools, *self.alternatives)


def sample_tools() -> list[Tool]:
    """The original tiny task list, fresh per call.

    ``list_tasks`` (no parameters) returns the list, initially "Buy milk" and "Call mom";
    ``create_task(title)`` is a write that appends and returns ``{"ok": True, "title": title}``.
    """
    tasks: list[dict[str, Any]] = [{"title": "Buy milk"}, {"title": "Call mom"}]

    @tool
    def list_tasks() -> list[dict[str, Any]]:
        """The user's open tasks."""
        return [dict(task) for task in tasks]

    @tool(writes=True)
    def create_task(title: str) -> dict[str, Any]:
        """Add a task.

        Args:
            title: What needs doing, in a few words.
        """
        tasks.append({"title": title})
        return {"ok": True, "title": title}

    return [list_tasks, create_task]


FIXTURES: tuple[Fixture, ...] = (
    Fixture("list-today", "what's on my list today?", ["list_tasks"], "device", mentions=["milk"]),
    Fixture("add-task", "add buy eggs to my list", ["create_task"], "device", mentions=["eggs"]),
    Fixture(
        "add-after-check",
        "if I don't already have it, add call the dentist",
        ["list_tasks", "create_task"],
        "device",
        mentions=["dentist"],
    ),
    Fixture("small-talk", "morning!", [], "device"),
    Fixture(
        "plan-week",
        "plan my whole week around the dentist and the product launch, and reschedule "
        "anything that clashes",
        [],
        "cloud",
    ),
)
"""The five original fixtures, over :func:`sample_tools`."""

TOOLSETS: Mapping[str, ToolsetFactory] = {DEFAULT_TOOLSET: sample_tools}


def toolset_tools(factory: ToolsetFactory, name: str) -> dict[str, Tool]:
    """Call a toolset factory and key its tools by name, with an error that names the toolset."""
    try:
        return tools_by_name(factory())
    except ConfigError as exc:
        raise ConfigError(f"Toolset {name!r}: {exc}") from exc


def _fixture_tuple(value: Iterable[Fixture]) -> tuple[Fixture, ...]:
    return tuple(value)


@attrs.frozen
class FixtureSuite:
    """Fixtures with the toolsets and facts they run against, as :func:`load_fixtures` reads them.

    Attributes:
        fixtures: the fixtures, in the order they run.
        toolsets: toolset name → factory; ``"sample"`` (:func:`sample_tools`) is always there.
        facts: what the agent knows on every attempt (``Agent(facts=...)``), e.g. today's date.
        source: where the suite came from (a path or module name), for reports.
    """

    fixtures: tuple[Fixture, ...] = attrs.field(converter=_fixture_tuple)
    toolsets: Mapping[str, ToolsetFactory] = attrs.field(factory=dict)
    facts: Mapping[str, str] = attrs.field(factory=dict)
    source: str = ""

    def __attrs_post_init__(self) -> None:
        check_fixtures(self.fixtures, {**TOOLSETS, **self.toolsets})


def check_fixtures(fixtures: Sequence[object], toolsets: Mapping[str, ToolsetFactory]) -> None:
    """Fixtures are Fixture objects with unique ids whose toolsets exist."""
    if not fixtures:
        raise ConfigError("There are no fixtures to run; a suite needs at least one Fixture.")
    seen: set[str] = set()
    for fixture in fixtures:
        if not isinstance(fixture, Fixture):
            raise ConfigError(f"Expected a goliath.evaluation.Fixture, got {fixture!r}.")
        if fixture.id in seen:
            raise ConfigError(f"Two fixtures have the id {fixture.id!r}; ids must be unique.")
        seen.add(fixture.id)
        name = fixture.toolset or DEFAULT_TOOLSET
        if name not in toolsets:
            raise ConfigError(
                f"Fixture {fixture.id!r} names the toolset {name!r}, which is not registered; "
                f"known toolsets: {', '.join(sorted(toolsets))}. Add it to TOOLSETS."
            )
        if not callable(toolsets[name]):
            raise ConfigError(f"Toolset {name!r} must be a zero-argument factory of tools.")


def load_fixtures(source: str | os.PathLike[str] | ModuleType) -> FixtureSuite:
    """Read a fixture suite from a module, a module name (``evals.everyday``) or a ``.py`` file.

    The module must expose ``FIXTURES`` (a list of :class:`Fixture`); ``TOOLSETS`` (name →
    zero-argument factory of tools) and ``FACTS`` (name → text) are optional.

    Raises:
        ConfigError: the file or module cannot be found or imported, or its contents are wrong.
    """
    if isinstance(source, ModuleType):
        module, label = source, source.__name__
    else:
        label = os.fspath(source)
        module = _import(label)
    fixtures = getattr(module, "FIXTURES", None)
    if not isinstance(fixtures, (list, tuple)):
        raise ConfigError(
            f"{label} has no FIXTURES list; a fixture suite defines FIXTURES = [Fixture(...), ...]."
        )
    toolsets = getattr(module, "TOOLSETS", {})
    facts = getattr(module, "FACTS", {})
    if not isinstance(toolsets, Mapping):
        raise ConfigError(f"{label}: TOOLSETS must be a dict of name → factory of tools.")
    if not isinstance(facts, Mapping) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in facts.items()
    ):
        raise ConfigError(f"{label}: FACTS must be a dict of strings.")
    try:
        return FixtureSuite(fixtures, dict(toolsets), dict(facts), label)
    except ConfigError as exc:
        raise ConfigError(f"{label}: {exc}") from None


def _import(label: str) -> ModuleType:
    path = Path(label)
    if path.is_dir() and (path / "__init__.py").is_file():  # a suite package: evals/suite
        path, label = path / "__init__.py", str(path / "__init__.py")
    if label.endswith(".py") or path.is_file():
        if not path.is_file():
            raise ConfigError(
                f"No fixture file at {label}. Pass a .py file or a module name (evals.everyday); "
                "relative paths are resolved from the current directory."
            )
        dotted = _dotted_name(path.resolve())
        if dotted is not None:  # inside a package: import it as such, relative imports work
            root, name = dotted
            if str(root) not in sys.path:
                sys.path.insert(0, str(root))
            return _import_module(name, label)
        return _exec_file(path, label)
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return _import_module(label, label)


def _dotted_name(path: Path) -> tuple[Path, str] | None:
    """``(root, "pkg.module")`` when ``path`` lives in a package (folders with __init__.py)."""
    parts = [] if path.stem == "__init__" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return (folder, ".".join(parts)) if len(parts) > 1 or path.stem == "__init__" else None


def _import_module(name: str, label: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ConfigError(
            f"Cannot import the fixture module {label!r}: {exc}. Pass a .py path or a module "
            "name importable from the current directory."
        ) from exc
    except ConfigError as exc:
        raise ConfigError(f"{label}: {exc}") from exc
    except Exception as exc:
        raise ConfigError(f"Importing the fixtures in {label} failed: {exc}") from exc


def _exec_file(path: Path, label: str) -> ModuleType:
    name = f"_goliath_fixtures_{path.stem}_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has one
        raise ConfigError(f"Cannot load {label} as a Python module.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        if isinstance(exc, ConfigError):
            raise ConfigError(f"{label}: {exc}") from exc
        raise ConfigError(f"Importing the fixtures in {label} failed: {exc}") from exc
    return module
