"""Shared fixtures for the model bridges: the real SmolLM2-135M model, loaded once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import trio
from bridge_helpers import smollm_file


@pytest.fixture(scope="session")
def smollm() -> Iterator[Any]:
    """One loaded SmolLM2-135M LlamaCppModel shared by the session's tests (0.3 s to load)."""
    smollm_file()
    from goliath.models.llamacpp import LlamaCppModel
    from goliath.models.packaged import SMOLLM2_135M

    model = LlamaCppModel(SMOLLM2_135M)
    trio.run(model.load)
    yield model
    model.close()
