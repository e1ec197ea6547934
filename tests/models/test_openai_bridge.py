"""OpenAICompatibleModel against a real llama_cpp.server on 127.0.0.1, plus HTTP edge cases."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import stamina
import trio
from bridge_helpers import PLAN, assert_valid, smollm_file

from goliath.classify import classify_model_error, is_invalid_output
from goliath.errors import (
    ConfigError,
    ContextWindowError,
    GuardrailError,
    InvalidOutputError,
    ModelError,
    ModelUnavailableError,
)
from goliath.models import GenerateRequest
from goliath.models.openai import OpenAICompatibleModel

READY_TIMEOUT = 120.0
"""Seconds the server may take to load the model and bind its port."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """A llama_cpp.server process serving SmolLM2 on loopback, stopped (by pid) at teardown."""
    model_file = smollm_file()
    pytest.importorskip("llama_cpp.server", reason="needs the server extra")
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(model_file),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "4096",
            "--n_threads",
            "2",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    ready = threading.Event()
    log: list[str] = []

    def drain() -> None:  # read stderr to the end so the server never blocks on a full pipe
        assert process.stderr is not None
        for line in process.stderr:
            log.append(line)
            if "Uvicorn running on" in line:
                ready.set()
        ready.set()  # the process ended: stop waiting

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        if not ready.wait(READY_TIMEOUT) or process.poll() is not None:
            pytest.fail("llama_cpp.server did not start:\n" + "".join(log[-20:]))
        url = f"http://127.0.0.1:{port}/v1"
        models = httpx.get(f"{url}/models", timeout=10).json()
        assert models["data"], "the server lists its model"
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        reader.join(timeout=10)


def request(**fields: Any) -> GenerateRequest:
    values: dict[str, Any] = {
        "label": "conductor",
        "system": "You plan one step at a time. Reply with JSON only.",
        "prompt": "Ask: what is on my task list?\nChoose the next step.",
        "schema": PLAN,
        "max_output_tokens": 256,
    }
    values.update(fields)
    return GenerateRequest(**values)


@pytest.mark.slow
class TestAgainstLlamaCppServer:
    async def test_constrained_replies_parse_and_validate(self, server_url: str):
        """The json_object+schema form constrains the reply; usage comes back as tokens."""
        model = OpenAICompatibleModel(server_url, "smollm2")
        for each in (request(), request(prompt="Ask: add a task to buy milk.")):
            generation = await model.generate(each)
            assert_valid(generation, each)
            assert generation.input_tokens > 0 and generation.output_tokens > 0

    async def test_json_schema_style_is_rejected_by_llama_cpp_as_a_model_error(
        self, server_url: str
    ):
        """llama_cpp.server answers OpenAI's json_schema form with HTTP 500: a model-error."""
        model = OpenAICompatibleModel(server_url, "smollm2", response_format_style="json_schema")
        with pytest.raises(ModelError, match="HTTP 500") as caught:
            await model.generate(request())
        assert classify_model_error(caught.value) == "model-error"

    async def test_context_overflow_is_context_budget(self, server_url: str):
        """The server's 400 context_length_exceeded becomes ContextWindowError."""
        model = OpenAICompatibleModel(server_url, "smollm2")
        with pytest.raises(ContextWindowError, match="maximum context length") as caught:
            await model.generate(request(schema=None, prompt="word " * 5000))
        assert classify_model_error(caught.value) == "context-budget"

    async def test_a_slow_reply_times_out_as_a_model_error(self, server_url: str):
        """A reply slower than timeout= raises ModelError(code='TIMEOUT')."""
        model = OpenAICompatibleModel(server_url, "smollm2", timeout=0.05)
        long = request(schema=None, prompt="Write a long story.", max_output_tokens=120)
        with pytest.raises(ModelError, match="did not answer") as caught:
            await model.generate(long)
        assert caught.value.code == "TIMEOUT"

    async def test_cancelling_the_caller_closes_the_request_promptly(self, server_url: str):
        """Trio cancellation ends the HTTP call at once, mid-generation."""
        model = OpenAICompatibleModel(server_url, "smollm2")
        long = request(schema=None, prompt="Write a long story.", max_output_tokens=120)
        with trio.move_on_after(0.3) as scope:
            await model.generate(long)
        assert scope.cancelled_caught
        assert trio.current_time() - scope.deadline < 0.5


async def test_connection_refused_is_a_model_error():
    """Nothing listening on the port: ModelError(code='CONNECTION_ERROR'), classified model-error."""
    model = OpenAICompatibleModel(f"http://127.0.0.1:{free_port()}/v1", "m")
    with pytest.raises(ModelError, match="Is it running") as caught:
        await model.generate(request())
    assert caught.value.code == "CONNECTION_ERROR"
    assert classify_model_error(caught.value) == "model-error"


def mock(status: int, body: Any) -> OpenAICompatibleModel:
    def handler(_: httpx.Request) -> httpx.Response:
        if isinstance(body, str):
            return httpx.Response(status, text=body)
        return httpx.Response(status, json=body)

    return OpenAICompatibleModel(
        "http://127.0.0.1:9/v1", "m", transport=httpx.MockTransport(handler), max_attempts=1
    )


def reply(content: Any, finish: str = "stop", **message: Any) -> dict[str, Any]:
    return {
        "choices": [{"message": {"content": content, **message}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 3},
    }


class TestHttpClassification:
    @pytest.mark.parametrize(
        ("status", "body", "error", "classification"),
        [
            (
                401,
                {"error": {"message": "bad key", "code": "invalid_api_key"}},
                ModelUnavailableError,
                "model-unavailable",
            ),
            (
                404,
                {"error": {"message": "no such model"}},
                ModelUnavailableError,
                "model-unavailable",
            ),
            (
                400,
                {"error": {"message": "too long", "code": "context_length_exceeded"}},
                ContextWindowError,
                "context-budget",
            ),
            (
                400,
                {"error": {"message": "Prompt is too long for the context window"}},
                ContextWindowError,
                "context-budget",
            ),
            (
                400,
                {"error": {"message": "flagged", "code": "content_filter"}},
                GuardrailError,
                "guardrail",
            ),
            (429, {"error": {"message": "slow down"}}, ModelError, "model-error"),
            (503, "upstream unavailable", ModelError, "model-error"),
        ],
    )
    async def test_http_errors_map_onto_the_harness_classes(
        self, status: int, body: Any, error: type[ModelError], classification: str
    ):
        """Each HTTP failure becomes the harness error class that classifies it correctly."""
        with pytest.raises(error) as caught:
            await mock(status, body).generate(request())
        assert type(caught.value) is error
        assert f"HTTP {status}" in str(caught.value)
        assert classify_model_error(caught.value) == classification

    async def test_a_length_cut_schema_reply_is_invalid_output(self):
        """finish_reason 'length' on a schema request is InvalidOutputError."""
        with pytest.raises(InvalidOutputError, match="output cap") as caught:
            await mock(200, reply('{"kind": "to', finish="length")).generate(request())
        assert is_invalid_output(caught.value)

    async def test_unparsable_json_is_invalid_output(self):
        """A schema reply that is not JSON is InvalidOutputError."""
        with pytest.raises(InvalidOutputError, match="not valid JSON"):
            await mock(200, reply("sure! here it is")).generate(request())

    async def test_refusals_are_guardrail_errors(self):
        """A refusal or a content_filter finish is a guardrail, never handed to the cloud."""
        with pytest.raises(GuardrailError):
            await mock(200, reply(None, refusal="I can't help")).generate(request())
        with pytest.raises(GuardrailError):
            await mock(200, reply("", finish="content_filter")).generate(request())

    async def test_a_body_that_is_not_chat_completions_is_a_model_error(self):
        """A 200 with a foreign body is a ModelError quoting it."""
        with pytest.raises(ModelError, match="not a Chat Completions response"):
            await mock(200, {"hello": "world"}).generate(request())

    async def test_usage_is_reported(self):
        """Generation carries the server's prompt and completion token counts."""
        generation = await mock(200, reply('{"kind":"answer","brief":"b"}')).generate(request())
        assert (generation.input_tokens, generation.output_tokens) == (11, 3)


class TestRequestBody:
    def test_json_object_schema_form_bounds_free_strings(self):
        """The default form is llama.cpp's; unbounded strings get maxLength."""
        body = OpenAICompatibleModel("http://h/v1", "m").body(request())
        response_format = body["response_format"]
        assert response_format["type"] == "json_object"
        assert response_format["schema"]["properties"]["brief"]["maxLength"] == 200
        assert body["temperature"] == 0 and body["max_tokens"] == 256
        assert json.dumps(PLAN, separators=(",", ":")) in body["messages"][0]["content"]

    def test_json_schema_form_is_openais(self):
        """The json_schema style nests the schema with a name and the strict flag."""
        model = OpenAICompatibleModel(
            "http://h", "m", response_format_style="json_schema", max_string_length=0
        )
        body = model.body(request())
        assert model.base_url == "http://h/v1"
        assert body["response_format"] == {
            "type": "json_schema",
            "json_schema": {"name": "conductor", "schema": PLAN, "strict": False},
        }

    def test_free_text_requests_have_no_response_format(self):
        """Without a schema nothing constrains the reply."""
        body = OpenAICompatibleModel("http://h/v1", "m").body(request(schema=None))
        assert "response_format" not in body

    @pytest.mark.parametrize(
        ("args", "message"),
        [
            (("127.0.0.1:8080", "m"), "http"),
            (("http://h/v1", ""), "model name"),
        ],
    )
    def test_bad_arguments_are_config_errors(self, args: tuple[str, str], message: str):
        """A URL without a scheme, or no model name, is rejected at construction."""
        with pytest.raises(ConfigError, match=message):
            OpenAICompatibleModel(*args)


class TestStreaming:
    @pytest.mark.slow
    async def test_a_prose_reply_streams_in_pieces_from_llama_cpp_server(self, server_url: str):
        """generate_stream reads llama.cpp's server's SSE deltas; they add up to the text."""
        model = OpenAICompatibleModel(server_url, "smollm2")
        prose = GenerateRequest(
            label="answer",
            system="You are a helpful assistant.",
            prompt="Name three colours of the rainbow.",
            max_output_tokens=40,
        )
        pieces: list[tuple[float, str]] = []
        generation = await model.generate_stream(
            prose, lambda text: pieces.append((trio.current_time(), text))
        )
        finished = trio.current_time()
        assert len(pieces) > 3
        assert "".join(text for _, text in pieces) == generation.text
        assert pieces[0][0] < finished  # the first piece came before the reply was complete

    async def test_an_error_chunk_mid_stream_is_a_model_error(self):
        """A server that reports an error inside the stream fails the call with its message."""
        body = (
            'data: {"choices": [{"delta": {"content": "Hel"}}]}\n\n'
            'data: {"error": {"message": "the GPU fell over"}}\n\n'
        )

        def handler(_: httpx.Request) -> httpx.Response:
            return httpx.Response(200, headers={"content-type": "text/event-stream"}, text=body)

        model = OpenAICompatibleModel(
            "http://127.0.0.1:9/v1", "m", transport=httpx.MockTransport(handler)
        )
        seen: list[str] = []
        with pytest.raises(ModelError, match="the GPU fell over"):
            await model.generate_stream(request(schema=None, label="answer"), seen.append)
        assert seen == ["Hel"]

    async def test_a_server_that_does_not_stream_still_answers(self):
        """A plain JSON reply to a streaming request is read whole and handed over once."""
        model = mock(200, reply("All done."))
        seen: list[str] = []
        generation = await model.generate_stream(request(schema=None, label="answer"), seen.append)
        assert (generation.text, seen) == ("All done.", ["All done."])


class RateLimitedServer:
    """A real Chat Completions endpoint on 127.0.0.1 that answers from a queue of statuses."""

    def __init__(self, statuses: list[tuple[int, dict[str, str]]]) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.statuses = statuses
        self.arrivals: list[float] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", "0")))
                server.arrivals.append(time.monotonic())
                status, headers = server.statuses.pop(0) if server.statuses else (200, {})
                payload = json.dumps(
                    reply("Fine now.") if status == 200 else {"error": {"message": "later"}}
                ).encode()
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> RateLimitedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


class TestRetries:
    async def test_a_429_waits_what_retry_after_asks_then_succeeds(self):
        """One 429 with Retry-After: 1 no longer fails the call: it is tried again 1 s later."""
        with RateLimitedServer([(429, {"retry-after": "1"})]) as server:
            generation = await OpenAICompatibleModel(server.url, "m").generate(
                request(schema=None, label="answer")
            )
        assert generation.text == "Fine now."
        assert len(server.arrivals) == 2
        assert server.arrivals[1] - server.arrivals[0] >= 1.0

    async def test_a_streaming_call_is_retried_the_same_way(self):
        """generate_stream retries a 503 before any text was streamed."""
        with (
            stamina.set_testing(True, attempts=3),
            RateLimitedServer([(503, {}), (503, {})]) as server,
        ):
            seen: list[str] = []
            generation = await OpenAICompatibleModel(server.url, "m").generate_stream(
                request(schema=None, label="answer"), seen.append
            )
        assert (generation.text, seen, len(server.arrivals)) == ("Fine now.", ["Fine now."], 3)

    async def test_retries_end_after_max_attempts_with_the_last_error(self):
        """A server that stays rate limited fails after max_attempts tries (RATE_LIMITED)."""
        with (
            stamina.set_testing(True, attempts=2),
            RateLimitedServer([(429, {})] * 5) as server,
        ):
            model = OpenAICompatibleModel(server.url, "m", max_attempts=2)
            with pytest.raises(ModelError, match="HTTP 429") as caught:
                await model.generate(request(schema=None, label="answer"))
        assert caught.value.code == "RATE_LIMITED"
        assert len(server.arrivals) == 2

    async def test_a_client_error_is_never_retried(self):
        """400 is the request's fault: exactly one request."""
        with RateLimitedServer([(400, {})]) as server:
            with pytest.raises(ModelError):
                await OpenAICompatibleModel(server.url, "m").generate(
                    request(schema=None, label="answer")
                )
        assert len(server.arrivals) == 1
