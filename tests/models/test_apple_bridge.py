"""AppleModel against a fake apple_fm_sdk on Linux, and live on macOS 26 when the SDK is there."""

from __future__ import annotations

import importlib
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import trio
from bridge_helpers import PLAN

from goliath.classify import classify_model_error, is_invalid_output
from goliath.errors import ModelError, ModelUnavailableError
from goliath.models import GenerateRequest
from goliath.models.apple import AppleModel, apple_schema

FAKE_ROOT = Path(__file__).parent / "fake_apple_fm_sdk"


@pytest.fixture
def sdk(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The fake SDK, importable as ``apple_fm_sdk`` for this test only."""
    monkeypatch.syspath_prepend(str(FAKE_ROOT))
    monkeypatch.delitem(sys.modules, "apple_fm_sdk", raising=False)
    module = importlib.import_module("apple_fm_sdk")
    module.reset()
    yield module
    sys.modules.pop("apple_fm_sdk", None)


@pytest.fixture
def model(sdk: ModuleType) -> Iterator[AppleModel]:
    apple = AppleModel()
    yield apple
    apple.close()


def request(**fields: Any) -> GenerateRequest:
    values: dict[str, Any] = {
        "label": "conductor",
        "system": "You plan one step at a time.",
        "prompt": "Ask: what is on my list?",
        "schema": PLAN,
        "max_output_tokens": 256,
    }
    values.update(fields)
    return GenerateRequest(**values)


class TestGeneration:
    async def test_guided_generation_returns_the_json_text(self, sdk: Any, model: AppleModel):
        """A schema request returns GeneratedContent's JSON; a fresh session per call."""
        sdk.FAKE.replies = [{"kind": "tool", "tool": "list_tasks", "brief": "list"}, "Hello!"]
        generation = await model.generate(request())
        assert json.loads(generation.text) == {
            "kind": "tool",
            "tool": "list_tasks",
            "brief": "list",
        }
        text = await model.generate(request(schema=None, label="answer", system="Answer."))
        assert text.text == "Hello!"
        first, second = sdk.FAKE.calls
        assert (first.instructions, first.prompt) == (
            "You plan one step at a time.",
            "Ask: what is on my list?",
        )
        assert second.instructions == "Answer." and second.json_schema is None

    async def test_options_ask_for_greedy_capped_replies(self, sdk: Any, model: AppleModel):
        """Sampling is greedy and maximum_response_tokens is the stage's output cap."""
        sdk.FAKE.replies = [{"kind": "answer", "brief": "b"}]
        await model.generate(request(max_output_tokens=123))
        options = sdk.FAKE.calls[0].options
        assert options.sampling.mode_type == sdk.SamplingModeType.GREEDY
        assert options.maximum_response_tokens == 123

    async def test_schema_is_sent_in_apples_dialect(self, sdk: Any, model: AppleModel):
        """Objects are closed, titled and ordered with x-order (why first, as generated)."""
        sdk.FAKE.replies = [{"kind": "answer", "brief": "b"}]
        await model.generate(request())
        sent = sdk.FAKE.calls[0].json_schema
        assert sent["x-order"] == ["why", "kind", "tool", "brief"]
        assert sent["additionalProperties"] is False and sent["title"] == "Reply"
        assert sent["required"] == ["kind", "brief"]

    async def test_the_sdk_runs_on_one_asyncio_thread_not_trios(self, sdk: Any, model: AppleModel):
        """Every SDK call happens on the bridge's own thread, inside a running asyncio loop."""
        sdk.FAKE.replies = [{"kind": "answer", "brief": "b"}] * 3
        for _ in range(3):
            await model.generate(request())
        assert len(sdk.FAKE.threads) == 1
        assert threading.get_ident() not in sdk.FAKE.threads
        assert len({call.loop for call in sdk.FAKE.calls}) == 1

    async def test_usage_is_counted_with_the_models_tokenizer(self, sdk: Any, model: AppleModel):
        """input/output tokens come from token_count (instructions + prompt, reply)."""
        sdk.FAKE.replies = ["one two three"]
        generation = await model.generate(request(schema=None, system="a b", prompt="c d e"))
        assert (generation.input_tokens, generation.output_tokens) == (3 + 4, 4)


class TestStreaming:
    async def test_prose_streams_through_stream_response_in_trio(self, sdk: Any, model: AppleModel):
        """stream_response's snapshots become the pieces each adds, delivered in Trio's thread."""
        sdk.FAKE.replies = ["Buy milk and call mom."]
        pieces: list[tuple[int, str]] = []
        generation = await model.generate_stream(
            request(label="answer", schema=None),
            lambda text: pieces.append((threading.get_ident(), text)),
        )
        assert [text for _, text in pieces] == ["Buy", " milk", " and", " call", " mom."]
        assert {thread for thread, _ in pieces} == {threading.get_ident()}
        assert generation.text == "Buy milk and call mom."
        assert len(sdk.FAKE.streamed) == 1

    async def test_structured_replies_are_not_streamed(self, sdk: Any, model: AppleModel):
        """A schema request goes through respond() with guided generation, as before."""
        sdk.FAKE.replies = [{"kind": "answer", "brief": "b"}]
        seen: list[str] = []
        generation = await model.generate_stream(request(), seen.append)
        assert json.loads(generation.text) == {"kind": "answer", "brief": "b"}
        assert (seen, sdk.FAKE.streamed) == ([], [])

    async def test_an_agent_streams_apples_answer(self, sdk: Any, model: AppleModel):
        """Agent.run_stream over the Apple bridge yields the answer as token events."""
        from goliath import Agent
        from goliath.streaming import TokenEvent

        sdk.FAKE.replies = ["Hello there, friend."]
        async with Agent(model) as agent:
            events = [event async for event in agent.run_stream("hi")]
        tokens = [event.text for event in events if isinstance(event, TokenEvent)]
        assert tokens == ["Hello", " there,", " friend."]


class TestWindowAndCounting:
    async def test_window_is_context_size_and_counting_is_token_count(
        self, sdk: Any, model: AppleModel
    ):
        """After load, window() is context_size and count_tokens uses the model's counter."""
        sdk.FAKE.context_size = 8192
        assert model.window() == 4096  # before load: Apple's window
        await model.load()
        assert model.window() == 8192
        assert await model.count_tokens("three words here") == 4

    async def test_counting_falls_back_to_the_estimate_on_older_systems(
        self, sdk: Any, model: AppleModel
    ):
        """When token_count fails (macOS before 26.4) counts are pessimistic estimates."""
        from goliath.budget import estimate_tokens

        sdk.FAKE.token_count_error = sdk.FoundationModelsError("unsupported on this OS")
        text = "three words here"
        assert await model.count_tokens(text) == estimate_tokens(text)


class TestErrors:
    @pytest.mark.parametrize(
        ("name", "classification", "invalid"),
        [
            ("GuardrailViolationError", "guardrail", False),
            ("RefusalError", "guardrail", False),
            ("ExceededContextWindowSizeError", "context-budget", False),
            ("AssetsUnavailableError", "model-unavailable", False),
            ("UnsupportedLanguageOrLocaleError", "model-unavailable", False),
            ("DecodingFailureError", "model-error", True),
            ("InvalidGenerationSchemaError", "model-error", False),
            ("UnsupportedGuideError", "model-error", False),
            ("RateLimitedError", "model-error", False),
            ("ConcurrentRequestsError", "model-error", False),
            ("GenerationError", "model-error", False),
        ],
    )
    async def test_sdk_errors_map_by_type(
        self, sdk: Any, model: AppleModel, name: str, classification: str, invalid: bool
    ):
        """Each SDK error class lands in the right harness classification, chained."""
        original = getattr(sdk, name)("boom")
        sdk.FAKE.replies = [original]
        with pytest.raises(ModelError) as caught:
            await model.generate(request())
        assert caught.value.__cause__ is original
        assert classify_model_error(caught.value) == classification
        assert is_invalid_output(caught.value) is invalid

    @pytest.mark.parametrize(
        ("reason", "advice"),
        [
            ("APPLE_INTELLIGENCE_NOT_ENABLED", "turn on Apple Intelligence"),
            ("DEVICE_NOT_ELIGIBLE", "cannot run Apple Intelligence"),
            ("MODEL_NOT_READY", "still downloading"),
        ],
    )
    async def test_unavailability_reasons_are_surfaced(
        self, sdk: Any, model: AppleModel, reason: str, advice: str
    ):
        """is_available() == (False, reason) raises ModelUnavailableError naming the reason."""
        sdk.FAKE.available = (False, sdk.SystemLanguageModelUnavailableReason[reason])
        with pytest.raises(ModelUnavailableError, match=reason) as caught:
            await model.generate(request())
        assert advice in str(caught.value)
        assert classify_model_error(caught.value) == "model-unavailable"
        sdk.FAKE.available = (True, None)  # it became ready: the next call loads and runs
        sdk.FAKE.replies = [{"kind": "answer", "brief": "b"}]
        assert json.loads((await model.generate(request())).text)["kind"] == "answer"

    async def test_a_missing_sdk_says_which_extra_to_install(self, monkeypatch: pytest.MonkeyPatch):
        """Without apple_fm_sdk the error names the apple extra (and macOS 26 off a Mac)."""
        monkeypatch.setitem(sys.modules, "apple_fm_sdk", None)  # makes the import fail
        model = AppleModel()
        try:
            with pytest.raises(ModelUnavailableError, match=r"goliath-harness\[apple\]") as caught:
                await model.generate(request())
            if sys.platform != "darwin":
                assert "macOS 26" in str(caught.value)
        finally:
            model.close()


class TestCancellation:
    async def test_trio_cancellation_cancels_the_asyncio_task(self, sdk: Any, model: AppleModel):
        """Cancelling the Trio caller cancels the SDK's request, and waits for it to stop."""
        sdk.FAKE.replies = [sdk.never()]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(model.generate, request())
            await trio.to_thread.run_sync(sdk.FAKE.started.wait)
            nursery.cancel_scope.cancel()
        assert len(sdk.FAKE.cancelled) == 1
        sdk.FAKE.replies = [{"kind": "answer", "brief": "b"}]
        assert (await model.generate(request())).text  # the bridge still works


def test_apple_schema_closes_nested_objects():
    """Nested objects get their own title, x-order and additionalProperties false."""
    schema = {
        "type": "object",
        "properties": {
            "task": {"type": "object", "properties": {"title": {"type": "string"}}},
            "tags": {"type": "array", "items": {"type": "object", "properties": {"n": {}}}},
        },
    }
    converted = apple_schema(schema)
    task = converted["properties"]["task"]
    assert task["title"] == "Task" and task["x-order"] == ["title"]
    assert task["additionalProperties"] is False
    assert converted["properties"]["tags"]["items"]["x-order"] == ["n"]


def _live_sdk_available() -> bool:
    if sys.platform != "darwin":
        return False
    try:
        import apple_fm_sdk
    except ImportError:
        return False
    available, _ = apple_fm_sdk.SystemLanguageModel().is_available()
    return bool(available)


@pytest.mark.slow
@pytest.mark.skipif(
    not _live_sdk_available(),
    reason="needs macOS 26 with Apple Intelligence on and apple-fm-sdk installed",
)
async def test_live_apple_model_answers_with_schema_valid_json():
    """On a Mac with the SDK: a guided plan parses, tokens are counted, window is the model's."""
    model = AppleModel()
    try:
        generation = await model.generate(request())
        plan = json.loads(generation.text)
        assert plan["kind"] in ("tool", "answer", "escalate")
        assert model.window() >= 4096
        assert await model.count_tokens("hello world") > 0
    finally:
        model.close()
