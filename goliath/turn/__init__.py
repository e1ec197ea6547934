"""The turn: one ask carried from recall to remember, in steps a small model can take.

``run.py`` tells the story top to bottom; each stage lives beside it — ``conductor`` (plans the
next step), ``worker`` (fills one tool's arguments), ``judge`` (rules that catch a lost model),
``answer`` (the closing answer), ``scribe`` (folds the exchange into memory), ``prompts``,
``phases`` (the extension hooks of each stage) and ``generation`` (the one way to call a model).
"""

from .run import DEVICE_FAILED, REASONS, run_turn

__all__ = ["DEVICE_FAILED", "REASONS", "run_turn"]
