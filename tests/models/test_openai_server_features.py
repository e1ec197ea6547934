"""What the OpenAI bridge sends a llama.cpp or vLLM server beyond OpenAI's API, and reads back.

Against a real Chat Completions endpoint on 127.0.0.1 (a small threaded HTTP server written
here) that records every request body and answers like llama-server: usage with
``prompt_tokens_details.cached_tokens``, ``timings``, and ``logprobs`` when asked.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import trio

from actors.model_worker import ModelWorker
from goliath.errors import ConfigError
from goliath.models import GenerateRequest
from goliath.models.openai import OpenAICompatibleModel
from goliath.models.slots import SlotPins

PLAN = {
    "type": "object",
    "properties": {"step": {"type": "string"}},
    "required": ["step"],
}


class RecordingServer:
    """A Chat Completions endpoint that keeps the bodies it was sent.

    Each reply waits ``delay`` seconds (so calls overlap), says it served ``cached`` prompt
    tokens from cache, and carries ``logprobs`` when the request asked for them.
    """

    def __init__(self, *, delay: float = 0.0, cached: int = 7, cached_as: str = "usage") -> None:
        self.bodies: list[dict[str, Any]] = []
        self.delay = delay
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
                server.bodies.append(body)
                time.sleep(server.delay)
                constrained = ("response_format", "json_schema", "grammar", "structured_outputs")
                guided = any(key in body for key in (*constrained, "guided_json"))
                content = '{"step": "list"}' if guided else "Hello there."
                choice: dict[str, Any] = {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
                if body.get("logprobs"):
                    top = body.get("top_logprobs", 0)
                    choice["logprobs"] = {
                        "content": [
                            {
                                "token": piece,
                                "logprob": -0.5 * (index + 1),
                                "top_logprobs": [
                                    {"token": f"{piece}{alt}", "logprob": -1.0 - alt}
                                    for alt in range(top)
                                ],
                            }
                            for index, piece in enumerate(["Hello", " there", "."])
                        ]
                    }
                usage: dict[str, Any] = {"prompt_tokens": 40, "completion_tokens": 3}
                reply: dict[str, Any] = {"choices": [choice], "usage": usage}
                if cached_as == "usage":
                    usage["prompt_tokens_details"] = {"cached_tokens": cached}
                else:
                    reply["timings"] = {"cache_n": cached, "prompt_n": 40 - cached}
                payload = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> RecordingServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


def plan_request() -> GenerateRequest:
    return GenerateRequest(
        label="conductor", system="Plan one step.", prompt="Ask: my tasks?", schema=PLAN
    )


def prose_request() -> GenerateRequest:
    return GenerateRequest(label="answer", system="Answer briefly.", prompt="Say hello.")


class TestGuidedGeneration:
    @pytest.mark.parametrize(
        ("style", "field", "expected"),
        [
            ("llama_json_schema", "json_schema", PLAN),
            ("vllm", "structured_outputs", {"json": PLAN}),
            ("vllm_guided", "guided_json", PLAN),
        ],
    )
    async def test_the_schema_goes_in_the_servers_own_parameter(
        self, style: str, field: str, expected: Any
    ):
        """llama-server's json_schema and vLLM's structured output carry the schema, and no
        response_format is sent beside them."""
        with RecordingServer() as server:
            model = OpenAICompatibleModel(
                server.url, "m", response_format_style=style, max_string_length=0
            )  # type: ignore[arg-type]
            generation = await model.generate(plan_request())
        assert generation.text == '{"step": "list"}'
        (body,) = server.bodies
        assert body[field] == expected
        assert "response_format" not in body

    async def test_llama_grammar_sends_gbnf_made_from_the_schema(self):
        """The grammar style sends GBNF (from llama-cpp-python's converter) in ``grammar``."""
        pytest.importorskip("llama_cpp", reason="the grammar converter is llama-cpp-python's")
        with RecordingServer() as server:
            model = OpenAICompatibleModel(
                server.url, "m", response_format_style="llama_grammar", max_string_length=0
            )
            await model.generate(plan_request())
            await model.generate(plan_request())
        grammars = [body["grammar"] for body in server.bodies]
        assert grammars[0] == grammars[1]
        assert "root ::=" in grammars[0] and '\\"step\\"' in grammars[0]
        assert "json_schema" not in server.bodies[0]

    async def test_prose_is_never_constrained(self):
        with RecordingServer() as server:
            model = OpenAICompatibleModel(server.url, "m", response_format_style="vllm")
            await model.generate(prose_request())
        (body,) = server.bodies
        assert not {"structured_outputs", "json_schema", "grammar", "response_format"} & set(body)

    def test_an_unknown_style_names_the_accepted_ones(self):
        with pytest.raises(ConfigError, match="llama_json_schema"):
            OpenAICompatibleModel("http://127.0.0.1:1/v1", "m", response_format_style="xml")  # type: ignore[arg-type]


class TestPromptCacheAndSlots:
    async def test_cache_prompt_is_sent_and_cached_tokens_are_counted(self):
        """cache_prompt: true goes with every call; the cached tokens the server reports (in
        usage, or llama-server's timings.cache_n) add up in statistics()."""
        with RecordingServer(cached=30) as server:
            model = OpenAICompatibleModel(server.url, "m", cache_prompt=True)
            await model.generate(plan_request())
            await model.generate_stream(prose_request(), lambda _piece: None)
        assert [body["cache_prompt"] for body in server.bodies] == [True, True]
        stats = model.statistics()
        assert (stats.calls, stats.prompt_tokens, stats.cached_tokens) == (2, 80, 60)
        with RecordingServer(cached=12, cached_as="timings") as server:
            model = OpenAICompatibleModel(server.url, "m")
            await model.generate(plan_request())
        assert "cache_prompt" not in server.bodies[0]
        assert model.statistics().cached_tokens == 12

    async def test_without_slots_no_id_slot_is_sent(self):
        with RecordingServer() as server:
            await OpenAICompatibleModel(server.url, "m").generate(plan_request())
        assert "id_slot" not in server.bodies[0]

    async def test_each_conversation_keeps_its_slot_through_the_model_worker(self):
        """Three conversations, three turns each, all at once, through the runtime's model
        worker with three slots: every call of one conversation carries the same id_slot, and
        no two conversations share one."""
        with RecordingServer(delay=0.05) as server:
            model = OpenAICompatibleModel(server.url, "m", slots=3, cache_prompt=True)
            worker = ModelWorker(model, slots=3)
            async with trio.open_nursery() as nursery:
                await nursery.start(worker.serve)

                async def conversation(name: str) -> None:
                    for turn in range(3):
                        request = GenerateRequest(
                            label="answer", system="Answer.", prompt=f"{name} turn {turn}"
                        )
                        await worker.generate(request, conversation=name)

                async with trio.open_nursery() as users:
                    for name in ("ana", "ben", "cy"):
                        users.start_soon(conversation, name)
                nursery.cancel_scope.cancel()
        slots: dict[str, set[int]] = {}
        for body in server.bodies:
            name = body["messages"][1]["content"].split()[0]
            slots.setdefault(name, set()).add(body["id_slot"])
        assert sorted(slots) == ["ana", "ben", "cy"]
        assert all(len(used) == 1 for used in slots.values()), slots
        assert sorted(next(iter(used)) for used in slots.values()) == [0, 1, 2]

    def test_slots_must_be_a_count(self):
        with pytest.raises(ConfigError, match="slots must be an int"):
            OpenAICompatibleModel("http://127.0.0.1:1/v1", "m", slots=-1)


class TestSlotPins:
    def test_a_conversation_gets_its_slot_back(self):
        pins = SlotPins(2)
        first = pins.acquire("a")
        pins.release(first)
        other = pins.acquire("b")
        pins.release(other)
        assert other != first
        assert pins.acquire("a") == first

    def test_a_busy_pinned_slot_is_not_waited_for(self):
        """When another conversation holds a's slot, a takes the free one and moves its pin."""
        pins = SlotPins(2)
        slot_a = pins.acquire("a")
        pins.release(slot_a)
        pins.acquire("b")  # the least recently used free slot: the one a did not use
        held_by_c = pins.acquire("c")  # the only free slot is a's
        assert held_by_c == slot_a
        assert pins.pinned("a") is None  # a lost its pin to c
        pins.release(held_by_c)
        moved = pins.acquire("a")
        assert moved == slot_a  # free again; c's pin is taken over
        assert pins.pinned("c") is None and pins.pinned("a") == slot_a

    def test_more_calls_than_slots_share_the_least_busy_one(self):
        pins = SlotPins(1)
        assert pins.acquire("a") == 0
        assert pins.acquire("b") == 0
        pins.release(0)
        pins.release(0)
        assert pins.acquire(None) == 0


class TestLogprobs:
    async def test_token_logprobs_and_alternatives_are_read(self):
        """logprobs=2 asks for the chosen tokens and two alternatives each; generate_scored
        returns them, and the reply's log-probability is their sum."""
        with RecordingServer() as server:
            model = OpenAICompatibleModel(server.url, "m", logprobs=2)
            scored = await model.generate_scored(prose_request())
        body = server.bodies[0]
        assert (body["logprobs"], body["top_logprobs"]) == (True, 2)
        assert [token.token for token in scored.tokens] == ["Hello", " there", "."]
        assert scored.tokens[1].top == {" there0": -1.0, " there1": -2.0}
        assert scored.logprob() == pytest.approx(-3.0)
        assert scored.generation.text == "Hello there."

    async def test_logprobs_true_asks_for_the_chosen_tokens_only(self):
        with RecordingServer() as server:
            model = OpenAICompatibleModel(server.url, "m", logprobs=True)
            scored = await model.generate_scored(prose_request())
        assert server.bodies[0]["logprobs"] is True
        assert "top_logprobs" not in server.bodies[0]
        assert all(token.top == {} for token in scored.tokens)

    async def test_a_server_without_logprobs_gives_none(self):
        with RecordingServer() as server:
            scored = await OpenAICompatibleModel(server.url, "m").generate_scored(prose_request())
        assert "logprobs" not in server.bodies[0]
        assert scored.tokens == []

    def test_too_many_alternatives_is_a_config_error(self):
        with pytest.raises(ConfigError, match="logprobs must be"):
            OpenAICompatibleModel("http://127.0.0.1:1/v1", "m", logprobs=50)
