"""The turn: one ask carried from recall to remember, in steps a small model can take.

``run.py`` tells the story top to bottom. Beside it: ``state`` (what the turn knows as it goes),
``conductor`` (plans the next step), ``tool_step`` (one planned call: judged, filled, confirmed,
executed, compressed), ``arguments`` (fills one tool's arguments), ``judge`` (rules that catch a
lost model), ``answer`` (the closing answer), ``scribe`` (folds the exchange into memory),
``prompts``, ``phases`` (what each extension hook sees and may change), ``generation`` (the
one way to call a model) and ``stages`` (the table of stages and their caps).
"""

from ..events import REASONS
from .run import DEVICE_FAILED, run_turn

__all__ = ["DEVICE_FAILED", "REASONS", "run_turn"]
