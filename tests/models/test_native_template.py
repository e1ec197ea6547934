"""The native-template baseline on the real default model (Qwen2.5-Coder-1.5B, llama.cpp here).

One read ask through the loop a user of llama.cpp's server with ``--jinja`` gets: the GGUF's own
chat template renders the tools, the model generates freely, and the reply is parsed for a call.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import trio

from goliath.evaluation import sample_tools
from goliath.evaluation.native import LlamaCppPrompts, NativeTemplateLoop, openai_tool
from goliath.models import Generation
from goliath.models.packaged import DEFAULT_MODEL

pytestmark = pytest.mark.slow


class Recorded(LlamaCppPrompts):
    """The real adapter, keeping every prompt and reply."""

    def __init__(self, model: Any) -> None:
        super().__init__(model)
        self.calls: list[tuple[str, Generation]] = []

    async def complete(self, prompt: str, max_tokens: int) -> Generation:
        generation = await super().complete(prompt, max_tokens)
        self.calls.append((prompt, generation))
        return generation


@pytest.fixture(scope="module")
def qwen() -> Iterator[Any]:
    if not DEFAULT_MODEL.installed():
        pytest.skip(f"the default model is not installed here: {DEFAULT_MODEL.install_hint()}")
    from goliath.models.llamacpp import LlamaCppModel

    model = LlamaCppModel(DEFAULT_MODEL)
    trio.run(model.load)
    yield model
    model.close()


async def test_a_read_ask_runs_through_the_models_own_template(qwen: Any) -> None:
    """The prompt is Qwen's template with the tools as OpenAI schemas, counted exactly; the
    model's free reply is parsed as a list_tasks call and the list's contents reach it."""
    adapter = Recorded(qwen)
    result = await NativeTemplateLoop(adapter, sample_tools(), max_steps=3).run(
        "what's on my task list?"
    )
    assert result.handled_by in ("device", "cloud"), result
    (first, generation), *rest = adapter.calls
    assert first.startswith("<|im_start|>system\nYou are a careful assistant")
    assert "# Tools" in first and "<tools>" in first  # Qwen2.5's own tools section
    assert json.dumps(openai_tool(sample_tools()[0]), ensure_ascii=False) in first
    assert first.endswith(
        "<|im_start|>user\nwhat's on my task list?<|im_end|>\n<|im_start|>assistant\n"
    )
    assert generation.input_tokens == len(
        qwen.llama.tokenize(first.encode(), add_bos=False, special=True)
    )
    assert result.model_calls == len(adapter.calls)
    assert result.input_tokens == sum(g.input_tokens for _, g in adapter.calls)
    # Greedy: the 1.5B model calls list_tasks first (in whichever form), and the tool's raw
    # output comes back to it as a tool response in the next prompt.
    assert result.steps[0].tool == "list_tasks", generation.text
    assert rest, generation.text
    assert (
        '<tool_response>\n[{"title": "Buy milk"}, {"title": "Call mom"}]\n</tool_response>'
        in (rest[0][0])
    )
