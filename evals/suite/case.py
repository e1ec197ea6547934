"""One everyday ask in several wordings: the unit the suite is written in.

A :class:`Case` is what a user wants (a read, an add, a check-then-act ...) with what a good run
of it does; its :attr:`Case.asks` are that want in at least four wordings, written before any
tuning: the plain one first, then paraphrases with other words and word order, politeness,
typos, implicit references ("her", "that one") or different values. Each wording becomes one
:class:`~goliath.evaluation.Fixture`; all wordings of a case share its ``group``, so the dev /
held-out split (a hash of the case id) never puts one wording on each side.

A wording may override what the answer must mention, what the arguments must contain or equal
and what a perfect arguments stage fills (when it changes a value, e.g. another title), with :class:`Ask`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import attrs

from goliath.evaluation import Fixture

__all__ = ["CATEGORIES", "Ask", "Case", "expand"]

CATEGORIES = (
    "read",  # look something up and say it
    "add",  # one write with values from the ask
    "update",  # complete, cancel, change, archive ... an item named in the ask
    "check-then-act",  # look, then write only if a condition holds ("unless", "if I'm free")
    "two-step",  # a look-up whose result feeds a second call (search → read, find → send)
    "missing",  # a write whose required value the user did not give: ask, never invent
    "follow-up",  # needs the earlier exchange ("text her that", "move it to 3")
    "decline",  # the user declines the write: it must not run, the answer must say so
    "chat",  # small talk: no tool
    "knowledge",  # general knowledge: no tool, the model's own knowledge
    "escalate",  # beyond the device or its tools: must go to the cloud
    "injection",  # a tool result carries an instruction that must not be followed
    "large",  # a tool output of 20-90 KB whose answer is in it
)

Category = Literal[
    "read",
    "add",
    "update",
    "check-then-act",
    "two-step",
    "missing",
    "follow-up",
    "decline",
    "chat",
    "knowledge",
    "escalate",
    "injection",
    "large",
]


@attrs.frozen
class Ask:
    """One wording, with what it changes from its case (``None``: as the case says)."""

    text: str
    mentions: Sequence[str] | None = None
    forbids: Sequence[str] | None = None
    arguments: Sequence[Mapping[str, Any]] | None = None
    arg_mentions: Mapping[str, Sequence[str]] | None = None
    arg_values: Mapping[str, Any] | None = None
    withheld: Sequence[tuple[str, Mapping[str, Any]]] | None = None


@attrs.frozen(kw_only=True)
class Case:
    """An everyday ask, its wordings, and what a good run of it does.

    Attributes:
        id: kebab-case, unique in the suite; the split hashes it.
        category: one of :data:`CATEGORIES`.
        toolset: the name of the toolset its attempts run against.
        asks: at least four wordings (str or :class:`Ask`); the first is the plain one.
        tools: the ordered tool steps of a good run (skipped steps count).
        handled_by: ``"device"``, or ``"cloud"`` for an ask that must be handed over.
        mentions / forbids: words the answer must / must not contain (lower case).
        writes: write tools that must really run, in order (``[]``: nothing may be written).
        arguments: what a perfect arguments stage fills for each tool step with parameters, in order.
        arg_mentions: ``"tool.field"`` → words that argument must contain when it runs.
        arg_values: ``"tool.field"`` → the value, with its type, that argument must hold when
            it runs (a number as a number, a list without repeats; see ``Fixture``).
        alternatives: other tool sequences that are just as right.
        decline: the user declines every write.
        history: earlier ``(ask, answer)`` exchanges already in memory.
        withheld: the write a check-then-act ask asks for on a condition its reads rule out,
            ``(tool, arguments)``, which a good run must not make (the condition probe).
    """

    id: str
    category: Category
    toolset: str
    asks: Sequence[str | Ask]
    tools: Sequence[str] = ()
    handled_by: Literal["device", "cloud"] = "device"
    mentions: Sequence[str] = ()
    forbids: Sequence[str] = ()
    writes: Sequence[str] | None = None
    arguments: Sequence[Mapping[str, Any]] = ()
    arg_mentions: Mapping[str, Sequence[str]] = attrs.field(factory=dict)
    arg_values: Mapping[str, Any] = attrs.field(factory=dict)
    alternatives: Sequence[Sequence[str]] = ()
    decline: bool = False
    history: Sequence[tuple[str, str]] = ()
    withheld: Sequence[tuple[str, Mapping[str, Any]]] = ()

    def fixtures(self) -> list[Fixture]:
        """One fixture per wording: ``<id>-1``, ``<id>-2`` ..., all in the group ``<id>``."""
        out = []
        for number, wording in enumerate(self.asks, start=1):
            ask = wording if isinstance(wording, Ask) else Ask(wording)
            out.append(
                Fixture(
                    f"{self.id}-{number}",
                    ask.text,
                    list(self.tools),
                    self.handled_by,
                    mentions=list(ask.mentions if ask.mentions is not None else self.mentions),
                    forbids=list(ask.forbids if ask.forbids is not None else self.forbids),
                    toolset=self.toolset,
                    decline=self.decline,
                    writes=None if self.writes is None else list(self.writes),
                    alternatives=[list(option) for option in self.alternatives],
                    group=self.id,
                    category=self.category,
                    arguments=[
                        dict(args)
                        for args in (ask.arguments if ask.arguments is not None else self.arguments)
                    ],
                    arg_mentions={
                        key: list(words)
                        for key, words in (
                            ask.arg_mentions if ask.arg_mentions is not None else self.arg_mentions
                        ).items()
                    },
                    arg_values=dict(
                        ask.arg_values if ask.arg_values is not None else self.arg_values
                    ),
                    history=[tuple(pair) for pair in self.history],
                    withheld=list(ask.withheld if ask.withheld is not None else self.withheld),
                )
            )
        return out


def expand(cases: Sequence[Case]) -> list[Fixture]:
    """Every wording of every case, in order."""
    return [fixture for case in cases for fixture in case.fixtures()]
