"""Fixtures shared by the conformance suite (tests/spec): small tool sets over fresh state."""

from __future__ import annotations

import pytest

from .helpers import TaskBox


@pytest.fixture
def box() -> TaskBox:
    """A fresh task list with its tools, counting every execution."""
    return TaskBox()
