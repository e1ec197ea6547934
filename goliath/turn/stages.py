"""The turn's stages and what each may spend: one row per kind of model call the turn makes.

Only the turn knows its stages. The model port is told numbers — how many tokens the reply may
take, how long a free string in it may be — and gets the stage's name only to put in traces and
error messages (docs/architecture.md). A new stage (a verifier, a yes/no gate) is its own module
of ``goliath/turn/``, one row here and one call from ``run.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import attrs

from ..budget import input_limit

__all__ = ["STAGES", "Stage", "stage"]


@attrs.frozen
class Stage:
    """One kind of model call: its name and its caps.

    Attributes:
        name: what traces, ``budget`` events and errors call it.
        output_tokens: the most tokens its reply may take (``GenerateRequest.max_output_tokens``).
        string_length: the ``maxLength`` a bridge gives a free string of its reply's schema
            (``GenerateRequest.max_string_length``): small models loop inside an unbounded
            string until the token cap.
    """

    name: str
    output_tokens: int
    string_length: int

    def input_limit(self, window: int) -> int:
        """The largest prompt, in tokens, this stage may send in a window of ``window``."""
        return input_limit(window, self.output_tokens)


STAGES: Mapping[str, Stage] = MappingProxyType(
    {
        row.name: row
        for row in (
            # a plan is short, arguments may be longer, an answer longest, a brief short
            Stage("conductor", output_tokens=256, string_length=200),
            Stage("arguments", output_tokens=512, string_length=300),
            Stage("answer", output_tokens=384, string_length=1000),
            Stage("scribe", output_tokens=192, string_length=600),
            # the hand-off check replies one of two names
            Stage("handoff", output_tokens=16, string_length=8),
            # the world check replies one of two words
            Stage("world", output_tokens=16, string_length=8),
            # the pick check replies one of two function names
            Stage("pick", output_tokens=32, string_length=64),
            # the write-intent check replies yes or no
            Stage("intent", output_tokens=16, string_length=8),
            # the condition check replies yes or no
            Stage("condition", output_tokens=16, string_length=8),
            # the search's other word, one of the ask's
            Stage("requery", output_tokens=16, string_length=40),
            # the comparison names one found value from a closed list
            Stage("comparison", output_tokens=64, string_length=120),
            # a write's one text the arguments worker left blank (compose.py)
            Stage("compose", output_tokens=128, string_length=300),
        )
    }
)
"""Every stage of the turn, by name."""


def stage(name: str) -> Stage:
    """The row of the stage called ``name``; a name with no row is a bug in the turn."""
    try:
        return STAGES[name]
    except KeyError:
        raise LookupError(
            f"No stage named {name!r} in goliath/turn/stages.py; the stages are "
            f"{', '.join(STAGES)}. A new stage needs its row in STAGES."
        ) from None
