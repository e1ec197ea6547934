"""Helpers for the model-bridge tests (imported by name: tests/models is on sys.path)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from goliath.models import GenerateRequest, Generation
from goliath.models.packaged import SMOLLM2_135M


def smollm_file() -> Path:
    """The packaged SmolLM2 GGUF; skips when the ``local`` extra is not installed."""
    if not SMOLLM2_135M.installed():
        pytest.skip("needs SmolLM2-135M: ./install.sh small")
    return SMOLLM2_135M.path()


def assert_valid(generation: Generation, request: GenerateRequest) -> Any:
    """The reply parses (as the harness parses it) and validates against the request's schema."""
    value = json.loads(generation.text, strict=False)
    assert request.schema is not None
    jsonschema.validate(value, request.schema)
    return value


class RecordingModel:
    """Passes calls through to a real model and keeps every request and reply."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.calls: list[tuple[GenerateRequest, Generation]] = []

    def window(self) -> int:
        return int(self.model.window())

    def count_tokens(self, text: str) -> int:
        return int(self.model.count_tokens(text))

    async def generate(self, request: GenerateRequest) -> Generation:
        generation: Generation = await self.model.generate(request)
        self.calls.append((request, generation))
        return generation


PLAN: dict[str, Any] = {
    "type": "object",
    "properties": {
        "why": {"type": "string"},
        "kind": {"type": "string", "enum": ["tool", "answer", "escalate"]},
        "tool": {"type": "string", "enum": ["list_tasks", "add_task"]},
        "brief": {"type": "string"},
    },
    "required": ["kind", "brief"],
    "additionalProperties": False,
}
"""A schema with optional and required strings and enums, as bridges meet them (the shape of
the original plan): what the bridge tests constrain replies to."""
