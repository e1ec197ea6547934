"""The public surface is exactly what spec/API.md §1 names, and each name says where it lives."""

from __future__ import annotations

import goliath

API = {
    "Agent",
    "tool",
    "Tool",
    "ToolContext",
    "RunResult",
    "StepRecord",
    "Exchange",
    "MemoryState",
    "ConfirmRequest",
    "Decision",
    "FallbackRequest",
    "Budgets",
    "Extension",
    "Deny",
    "Stop",
    "Skip",
    "GoliathError",
    "ExtensionError",
    "BudgetError",
    "ConfigError",
    "DEFAULT_WINDOW",
    "DEFAULT_MAX_STEPS",
    "summarize_tool_result",
    "estimate_tokens",
}


def test_all_is_exactly_the_documented_api() -> None:
    """goliath.__all__ lists the API's names, no more, no fewer, and each one exists."""
    assert set(goliath.__all__) == API
    for name in goliath.__all__:
        assert hasattr(goliath, name), name


def test_errors_are_shown_under_the_package_name() -> None:
    """Tracebacks say goliath.ConfigError, not goliath.errors.ConfigError."""
    assert goliath.ConfigError.__module__ == "goliath"
    assert repr(goliath.ConfigError("x")).startswith("ConfigError(")
    assert issubclass(goliath.ConfigError, ValueError)


def test_defaults_match_the_spec() -> None:
    """DEFAULT_WINDOW is 4096 and DEFAULT_MAX_STEPS is 5."""
    assert (goliath.DEFAULT_WINDOW, goliath.DEFAULT_MAX_STEPS) == (4096, 5)
