"""The everyday suite: 320+ asks over 27 toolsets, each in four or more wordings.

Run with ``goliath eval --model SPEC --fixtures evals/suite --split dev|held-out|all
[--baseline]``. Each domain module exposes ``TOOLSETS`` (name → factory of fresh tools over
fresh data) and ``CASES`` (:class:`~evals.suite.case.Case`); this module gathers them. The world
is the fixed one of ``evals/world.py``: Monday 10 March 2025, 09:00, the user is Jordan.

The split is fixed by a hash of each case's id (:func:`goliath.evaluation.fixtures.split_of`): tune on
``dev`` only, confirm on ``held-out``, report both.
"""

from __future__ import annotations

import importlib

from goliath.evaluation import Fixture, ToolsetFactory

from .. import world
from .case import Case, expand

__all__ = ["CASES", "FACTS", "FIXTURES", "TOOLSETS"]

DOMAINS = (
    "tasks",
    "calendar",
    "contacts",
    "notes",
    "email",
    "reminders",
    "shopping",
    "home",
    "media",
    "travel",
    "files",
    "health",
    "money",
    "phone",
    "typed",
    "assistant",
)
"""The domain modules, in the order their cases run."""

FACTS = dict(world.FACTS)
TOOLSETS: dict[str, ToolsetFactory] = {}
CASES: list[Case] = []

for _name in DOMAINS:
    _module = importlib.import_module(f"{__name__}.{_name}")
    for _key, _factory in _module.TOOLSETS.items():
        if _key in TOOLSETS:
            raise ValueError(f"toolset {_key!r} is defined twice (in {_name})")
        TOOLSETS[_key] = _factory
    CASES.extend(_module.CASES)

FIXTURES: list[Fixture] = expand(CASES)
