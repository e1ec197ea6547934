"""Goliath: an agent harness that keeps small on-device language models on task.

Layers point one way — ``transports → actors → goliath``. This package is the harness: what a
turn is (``turn/``: the story in ``run.py`` and one module per stage), with no knowledge of
actors except in ``agent.py``, the facade that starts the runtime. Public names are re-exported
here; modules with a leading underscore are internal.
"""

from __future__ import annotations

from ._util import export_as
from .agent import Agent as Agent
from .budget import DEFAULT_WINDOW as DEFAULT_WINDOW
from .budget import Budgets as Budgets
from .budget import estimate_tokens as estimate_tokens
from .compress import summarize_tool_result as summarize_tool_result
from .config import DEFAULT_MAX_STEPS as DEFAULT_MAX_STEPS
from .errors import BudgetError as BudgetError
from .errors import ConfigError as ConfigError
from .errors import ExtensionError as ExtensionError
from .errors import GoliathError as GoliathError
from .extensions import Deny as Deny
from .extensions import Extension as Extension
from .extensions import Skip as Skip
from .extensions import Stop as Stop
from .records import ConfirmRequest as ConfirmRequest
from .records import Decision as Decision
from .records import Exchange as Exchange
from .records import FallbackRequest as FallbackRequest
from .records import MemoryState as MemoryState
from .records import RunResult as RunResult
from .records import StepRecord as StepRecord
from .tools import Tool as Tool
from .tools import ToolContext as ToolContext
from .tools import tool as tool

try:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _version

    __version__ = _version("goliath-harness")
except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = [
    "DEFAULT_MAX_STEPS",
    "DEFAULT_WINDOW",
    "Agent",
    "BudgetError",
    "Budgets",
    "ConfigError",
    "ConfirmRequest",
    "Decision",
    "Deny",
    "Exchange",
    "Extension",
    "ExtensionError",
    "FallbackRequest",
    "GoliathError",
    "MemoryState",
    "RunResult",
    "Skip",
    "StepRecord",
    "Stop",
    "Tool",
    "ToolContext",
    "estimate_tokens",
    "summarize_tool_result",
    "tool",
]

export_as("goliath", globals(), __all__)
