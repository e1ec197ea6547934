"""The OpenAI bridge's usage on streams, its scored choices, and replies it must not take whole.

Against a real HTTP server on 127.0.0.1 (written here) that answers each request body with what
the test scripts: a Chat Completions reply as llama-server sends it (``usage``, ``timings``,
``logprobs``), a Server-Sent Event stream whose usage chunk comes only when
``stream_options.include_usage`` asks for it, or raw bytes.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from goliath.errors import ConfigError, ContextWindowError, ModelError
from goliath.models import GenerateRequest
from goliath.models.openai import OpenAICompatibleModel

CHOICE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "call": {"type": "string", "enum": ["list_tasks", "add_task", "answer", "escalate"]},
        "then": {"type": "string", "enum": ["done", "list_tasks"]},
    },
    "required": ["call", "then"],
    "additionalProperties": False,
}
"""The first plan's shape: the scored field first, as ``goliath.schema`` makes it."""

Raw = tuple[int, dict[str, str], bytes]
Reply = dict[str, Any] | list[dict[str, Any]] | Raw
"""A JSON body (200), the chunks of an event stream (200), or status, headers and bytes."""


class ScriptedServer:
    """A Chat Completions endpoint that keeps every body and answers what ``respond`` says."""

    def __init__(self, respond: Callable[[dict[str, Any]], Reply]) -> None:
        self.bodies: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
                server.bodies.append(body)
                reply = respond(body)
                if isinstance(reply, tuple):
                    status, headers, payload = reply
                elif isinstance(reply, list):
                    status, headers = 200, {"content-type": "text/event-stream"}
                    events = [f"data: {json.dumps(chunk)}\n\n" for chunk in reply]
                    payload = ("".join(events) + "data: [DONE]\n\n").encode()
                else:
                    status, headers = 200, {"content-type": "application/json"}
                    payload = json.dumps(reply).encode()
                self.send_response(status)
                for name, value in headers.items():
                    if name != "content-length":
                        self.send_header(name, value)
                if isinstance(reply, dict) or "content-length" in headers:  # else: until close
                    self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


def completion(
    content: str, *, logprobs: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    choice: dict[str, Any] = {
        "index": 0,
        "message": {"role": "assistant", "content": content},
        "finish_reason": "stop",
    }
    if logprobs is not None:
        choice["logprobs"] = {"content": logprobs}
    return {"choices": [choice], **extra}


def llama_stream(
    body: dict[str, Any],
    pieces: list[str],
    *,
    logprobs: list[dict[str, Any]] | None = None,
    last: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The chunks llama-server streams: one per token (with its log-probabilities), the finish,
    and ``choices: []`` with ``usage`` and ``timings`` only when the body asks for usage."""
    chunks: list[dict[str, Any]] = []
    for index, piece in enumerate(pieces):
        choice: dict[str, Any] = {"index": 0, "delta": {"content": piece}, "finish_reason": None}
        if logprobs is not None:
            choice["logprobs"] = {"content": [logprobs[index]]}
        chunks.append({"object": "chat.completion.chunk", "choices": [choice]})
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    if (body.get("stream_options") or {}).get("include_usage"):
        chunks.append({"object": "chat.completion.chunk", "choices": [], **(last or {})})
    return chunks


USAGE = {"prompt_tokens": 40, "completion_tokens": 3, "total_tokens": 43}
TIMINGS = {"cache_n": 28, "prompt_n": 12, "predicted_n": 3, "predicted_ms": 50.0}


def prose() -> GenerateRequest:
    return GenerateRequest(label="answer", system="Answer briefly.", prompt="Say hello.")


def scored(score: str | None = "call") -> GenerateRequest:
    return GenerateRequest(
        label="conductor",
        system="Pick the call.",
        prompt="Ask: my tasks?",
        schema=CHOICE,
        max_output_tokens=32,
        score=score,
    )


def token(text: str, logprob: float, top: dict[str, float] | None = None) -> dict[str, Any]:
    alternatives = [
        {"token": t, "logprob": v, "bytes": list(t.encode())} for t, v in (top or {}).items()
    ]
    return {
        "token": text,
        "logprob": logprob,
        "bytes": list(text.encode()),
        "top_logprobs": alternatives,
    }


PICK = '{"call": "list_tasks", "then": "done"}'
PICK_TOKENS = [
    token('{"', -0.01, {'{"': -0.01}),
    token("call", -0.01, {"call": -0.01}),
    token('":', -0.01, {'":': -0.01}),
    token(' "', -0.02, {' "': -0.02, '"': -4.5}),
    # The value begins: list_tasks is likely, "a" starts add_task and answer alike, and
    # escalate is not among the alternatives (so it scores -inf).
    token("list", -0.3, {"list": -0.3, "add": -2.0, "a": -2.5, "ans": -3.0, "xyz": -6.0}),
    token("_tasks", -0.01, {"_tasks": -0.01}),
    token('",', -0.01, {'",': -0.01}),
    token(' "', -0.01, {' "': -0.01}),
    token("then", -0.01, {"then": -0.01}),
    token('":', -0.01, {'":': -0.01}),
    token(' "', -0.01, {' "': -0.01}),
    token("done", -0.01, {"done": -0.01, "list": -5.0}),
    token('"}', -0.01, {'"}': -0.01}),
]
assert "".join(item["token"] for item in PICK_TOKENS) == PICK


def logaddexp(*values: float) -> float:
    high = max(values)
    return high + math.log(sum(math.exp(value - high) for value in values))


EXPECTED = {
    "list_tasks": -0.3,
    "add_task": logaddexp(-2.0, -2.5),
    "answer": logaddexp(-2.5, -3.0),
    "escalate": -math.inf,
}


class TestStreamedUsage:
    async def test_a_stream_asks_for_its_usage_and_reports_it(self):
        """llama-server sends a stream's usage only when stream_options.include_usage asks; the
        bridge asks, and the Generation has the prompt, cached and output tokens."""

        def respond(body: dict[str, Any]) -> Reply:
            return llama_stream(
                body, ["Hello", " there", "."], last={"usage": USAGE, "timings": TIMINGS}
            )

        with ScriptedServer(respond) as server:
            model = OpenAICompatibleModel(server.url, "m")
            pieces: list[str] = []
            generation = await model.generate_stream(prose(), pieces.append)
        (body,) = server.bodies
        assert body["stream"] is True
        assert body["stream_options"] == {"include_usage": True}
        assert "".join(pieces) == generation.text == "Hello there."
        assert (generation.input_tokens, generation.cached_tokens) == (40, 28)
        assert generation.output_tokens == 3
        stats = model.statistics()
        assert (stats.calls, stats.prompt_tokens, stats.cached_tokens) == (1, 40, 28)

    async def test_without_stream_usage_a_llama_server_stream_reports_nothing(self):
        """stream_usage=False sends no stream_options, and llama-server then sends no usage:
        the reason the bridge asks."""

        def respond(body: dict[str, Any]) -> Reply:
            return llama_stream(body, ["Hi."], last={"usage": USAGE, "timings": TIMINGS})

        with ScriptedServer(respond) as server:
            model = OpenAICompatibleModel(server.url, "m", stream_usage=False)
            generation = await model.generate_stream(prose(), lambda _piece: None)
        assert "stream_options" not in server.bodies[0]
        assert (generation.input_tokens, generation.cached_tokens) == (0, 0)

    @pytest.mark.parametrize("streamed", [False, True])
    async def test_timings_alone_fill_the_usage(self, streamed: bool):
        """A reply with llama-server's timings and no usage: prompt = evaluated + cached."""

        def respond(body: dict[str, Any]) -> Reply:
            if body["stream"]:
                return llama_stream(body, ["Hi", "."], last={"timings": TIMINGS})
            return completion("Hi.", timings=TIMINGS)

        with ScriptedServer(respond) as server:
            model = OpenAICompatibleModel(server.url, "m")
            if streamed:
                generation = await model.generate_stream(prose(), lambda _piece: None)
            else:
                generation = await model.generate(prose())
        assert (generation.input_tokens, generation.cached_tokens) == (40, 28)
        assert generation.output_tokens == 3

    async def test_a_server_that_refuses_stream_options_is_asked_again_without(self):
        """A strict server that answers 400 to stream_options is asked once more without it,
        and is not sent it again."""

        def respond(body: dict[str, Any]) -> Reply:
            if "stream_options" in body:
                error = {"error": {"message": "Unrecognized request argument: stream_options"}}
                return 400, {"content-type": "application/json"}, json.dumps(error).encode()
            return llama_stream(body, ["Hi."])

        with ScriptedServer(respond) as server:
            model = OpenAICompatibleModel(server.url, "m")
            first = await model.generate_stream(prose(), lambda _piece: None)
            second = await model.generate_stream(prose(), lambda _piece: None)
        assert first.text == second.text == "Hi."
        assert ["stream_options" in body for body in server.bodies] == [True, False, False]

    async def test_a_context_error_is_not_mistaken_for_a_refusal(self):
        def respond(body: dict[str, Any]) -> Reply:
            error = {"error": {"message": "the request exceeds the available context size"}}
            return 400, {"content-type": "application/json"}, json.dumps(error).encode()

        with ScriptedServer(respond) as server:
            model = OpenAICompatibleModel(server.url, "m")
            with pytest.raises(ContextWindowError):
                await model.generate_stream(prose(), lambda _piece: None)
        assert len(server.bodies) == 1


class TestScoredChoices:
    @pytest.mark.parametrize("streamed", [False, True])
    async def test_every_option_is_scored_at_the_token_where_the_value_starts(self, streamed: bool):
        """A request naming a field to score asks for logprobs with 20 alternatives; each
        option gets the log-probability of the alternatives there that start it (shared first
        tokens count for both; an option with none scores -inf), as in-process."""

        def respond(body: dict[str, Any]) -> Reply:
            if body["stream"]:
                pieces = [item["token"] for item in PICK_TOKENS]
                return llama_stream(body, pieces, logprobs=PICK_TOKENS)
            return completion(PICK, logprobs=PICK_TOKENS, usage=USAGE)

        with ScriptedServer(respond) as server:
            model = OpenAICompatibleModel(
                server.url, "m", response_format_style="llama_json_schema"
            )
            if streamed:
                generation = await model.generate_stream(scored(), lambda _piece: None)
            else:
                generation = await model.generate(scored())
        (body,) = server.bodies
        assert (body["logprobs"], body["top_logprobs"]) == (True, 20)
        assert generation.text == PICK
        assert generation.scores is not None
        assert set(generation.scores) == set(EXPECTED)
        for option, value in EXPECTED.items():
            assert generation.scores[option] == pytest.approx(value), option
        assert max(generation.scores, key=generation.scores.__getitem__) == "list_tasks"

    async def test_a_value_starting_with_its_quote_is_scored_too(self):
        """A token that writes the opening quote and the value's start (' "list'): only the
        alternatives that write the same lead and an option's start count."""
        tokens = [
            token('{"call":', -0.01, {'{"call":': -0.01}),
            token(' "list', -0.2, {' "list': -0.2, ' "add': -2.2, ' "': -3.0, "list": -4.0}),
            token('_tasks", "then": "done"}', -0.01, {}),
        ]
        text = "".join(item["token"] for item in tokens)
        with ScriptedServer(lambda _body: completion(text, logprobs=tokens)) as server:
            generation = await OpenAICompatibleModel(server.url, "m").generate(scored())
        assert generation.scores is not None
        assert generation.scores["list_tasks"] == pytest.approx(-0.2)
        assert generation.scores["add_task"] == pytest.approx(-2.2)
        assert generation.scores["escalate"] == generation.scores["answer"] == -math.inf

    async def test_generate_scored_has_the_tokens_and_the_scores(self):
        with ScriptedServer(lambda _body: completion(PICK, logprobs=PICK_TOKENS)) as server:
            result = await OpenAICompatibleModel(server.url, "m").generate_scored(scored())
        assert [item.token for item in result.tokens] == [item["token"] for item in PICK_TOKENS]
        assert result.generation.scores is not None
        assert result.generation.scores["list_tasks"] == pytest.approx(-0.3)

    async def test_nothing_to_score_asks_for_no_logprobs(self):
        """No score, a field that is not an enum of the schema, or score_alternatives=0: no
        logprobs are asked for, and scores are None."""
        with ScriptedServer(lambda _body: completion(PICK)) as server:
            model = OpenAICompatibleModel(server.url, "m")
            plain = await model.generate(scored(score=None))
            missing = await model.generate(scored(score="brief"))
            off = await OpenAICompatibleModel(server.url, "m", score_alternatives=0).generate(
                scored()
            )
        assert all("logprobs" not in body for body in server.bodies)
        assert plain.scores is missing.scores is off.scores is None

    @pytest.mark.parametrize(
        "logprobs",
        [
            None,  # the server ignored the parameter
            "not an object",
            {"content": "not a list"},
            {"content": [{"token": "{", "logprob": "high"}, 7, None]},
            # chosen tokens only (no alternatives): the options cannot be told apart
            {"content": [{**item, "top_logprobs": []} for item in PICK_TOKENS]},
            {"content": [{"token": PICK, "logprob": float("nan"), "top_logprobs": []}]},
            # one token before the value is malformed: the rest no longer spell the reply
            {
                "content": [
                    {**item, "logprob": "x"} if i == 2 else item
                    for i, item in enumerate(PICK_TOKENS)
                ]
            },
        ],
    )
    async def test_missing_or_malformed_logprobs_give_no_scores_and_no_error(self, logprobs: Any):
        def respond(_body: dict[str, Any]) -> Reply:
            reply = completion(PICK, usage=USAGE)
            if logprobs is not None:
                reply["choices"][0]["logprobs"] = logprobs
            return reply

        with ScriptedServer(respond) as server:
            generation = await OpenAICompatibleModel(server.url, "m").generate(scored())
        assert generation.text == PICK
        assert generation.scores is None
        assert generation.input_tokens == 40

    async def test_a_server_that_refuses_logprobs_answers_without_scores(self):
        """llama_cpp.server answers 500 to logprobs on a model loaded without logits_all: the
        call is made again without them and succeeds with scores None, and later scored
        calls do not ask again."""

        def respond(body: dict[str, Any]) -> Reply:
            if body.get("logprobs"):
                error = {
                    "error": {
                        "message": "logprobs is not supported for models created "
                        "with logits_all=False"
                    }
                }
                return 500, {"content-type": "application/json"}, json.dumps(error).encode()
            return completion(PICK)

        with ScriptedServer(respond) as server:
            model = OpenAICompatibleModel(server.url, "m", max_attempts=1)
            first = await model.generate(scored())
            second = await model.generate(scored())
        assert first.text == second.text == PICK
        assert first.scores is second.scores is None
        assert [bool(body.get("logprobs")) for body in server.bodies] == [True, False, False]
        assert "top_logprobs" not in server.bodies[1]

    async def test_an_error_that_is_not_a_refusal_stays_an_error(self):
        """The same 500 without logprobs is the server's failure, not a refusal: the call fails
        with it, and the next scored call still asks for logprobs."""

        def respond(_body: dict[str, Any]) -> Reply:
            error = {"error": {"message": "out of memory"}}
            return 500, {"content-type": "application/json"}, json.dumps(error).encode()

        with ScriptedServer(respond) as server:
            model = OpenAICompatibleModel(server.url, "m", max_attempts=1)
            for _ in range(2):
                with pytest.raises(ModelError, match="out of memory"):
                    await model.generate(scored())
        assert [bool(body.get("logprobs")) for body in server.bodies] == [True, False] * 2

    def test_score_alternatives_is_bounded(self):
        with pytest.raises(ConfigError, match="score_alternatives"):
            OpenAICompatibleModel("http://127.0.0.1:1/v1", "m", score_alternatives=101)
        with pytest.raises(ConfigError, match="max_reply_bytes"):
            OpenAICompatibleModel("http://127.0.0.1:1/v1", "m", max_reply_bytes=10)


class TestRepliesThatFailTheirCall:
    """A reply too large or not valid Unicode fails its own call with a ModelError; the bridge
    (and the process) goes on serving the next one."""

    def respond(self, bad: Reply) -> Callable[[dict[str, Any]], Reply]:
        def respond(body: dict[str, Any]) -> Reply:
            if "bad" in body["messages"][1]["content"]:
                return bad
            if body["stream"]:
                return llama_stream(body, ["fine"])
            return completion("fine")

        return respond

    async def check(self, bad: Reply, match: str, *, streamed: bool, code: str | None = None):
        with ScriptedServer(self.respond(bad)) as server:
            model = OpenAICompatibleModel(server.url, "m", max_reply_bytes=64 * 1024)
            request = GenerateRequest(label="answer", system="Answer.", prompt="bad one")
            with pytest.raises(ModelError, match=match) as caught:
                if streamed:
                    await model.generate_stream(request, lambda _piece: None)
                else:
                    await model.generate(request)
            if code is not None:
                assert caught.value.code == code
            assert (await model.generate(prose())).text == "fine"
            assert (await model.generate_stream(prose(), lambda _piece: None)).text == "fine"

    async def test_a_reply_larger_than_max_reply_bytes(self):
        huge = completion(
            "x", logprobs=[token("x", -0.1, {f"t{i}": -1.0 for i in range(20)})] * 200
        )
        await self.check(huge, "max_reply_bytes", streamed=False, code="REPLY_TOO_LARGE")

    async def test_a_reply_without_a_length_that_goes_on_too_long(self):
        """No content-length: the bytes are counted as they come."""
        body = json.dumps(completion("y" * 100_000)).encode()
        await self.check(
            (200, {"content-type": "application/json"}, body),
            "max_reply_bytes",
            streamed=False,
            code="REPLY_TOO_LARGE",
        )

    async def test_a_stream_that_goes_on_too_long(self):
        many = [{"choices": [{"index": 0, "delta": {"content": "z" * 1000}}]}] * 100
        await self.check(many, "max_reply_bytes", streamed=True, code="REPLY_TOO_LARGE")

    async def test_one_endless_line_of_a_stream(self):
        """A stream that never ends its line is bounded as well."""
        endless = b"data: " + b"w" * 200_000
        await self.check(
            (200, {"content-type": "text/event-stream"}, endless),
            "max_reply_bytes",
            streamed=True,
            code="REPLY_TOO_LARGE",
        )

    @pytest.mark.parametrize("streamed", [False, True])
    async def test_a_lone_surrogate_is_not_valid_unicode(self, streamed: bool):
        """JSON's "\\ud800" decodes to a str no UTF-8 writer takes: the call fails here, before
        any sink (a stream's on_text, a journal, the wire) sees it."""
        if streamed:
            text = b'data: {"choices": [{"delta": {"content": "a\\ud800b"}}]}\n\ndata: [DONE]\n\n'
            bad: Reply = (200, {"content-type": "text/event-stream"}, text)
        else:
            text = b'{"choices": [{"message": {"content": "a\\ud800b"}, "finish_reason": "stop"}]}'
            bad = (200, {"content-type": "application/json", "content-length": "0"}, text)
        seen: list[str] = []
        with ScriptedServer(self.respond(bad)) as server:
            model = OpenAICompatibleModel(server.url, "m")
            request = GenerateRequest(label="answer", system="Answer.", prompt="bad one")
            with pytest.raises(ModelError, match="not valid Unicode") as caught:
                if streamed:
                    await model.generate_stream(request, seen.append)
                else:
                    await model.generate(request)
            assert caught.value.code == "INVALID_REPLY"
            assert (await model.generate(prose())).text == "fine"
        assert seen == []

    @pytest.mark.parametrize(
        "payload",
        [b"\xff\xfe not UTF-8 \xc3", b"[" * 100_000 + b"]" * 100_000, b'{"choices": []}'],
    )
    async def test_a_body_that_is_not_a_reply(self, payload: bytes):
        """Bytes that are not UTF-8, JSON nested past the recursion limit, or no choice."""
        bad: Raw = (200, {"content-type": "application/json"}, payload)
        with ScriptedServer(self.respond(bad)) as server:
            model = OpenAICompatibleModel(server.url, "m", max_reply_bytes=1 << 20)
            request = GenerateRequest(label="answer", system="Answer.", prompt="bad one")
            with pytest.raises(ModelError, match="not a Chat Completions response"):
                await model.generate(request)
            assert (await model.generate(prose())).text == "fine"

    async def test_a_stream_of_bytes_that_are_not_utf8(self):
        bad: Raw = (200, {"content-type": "text/event-stream"}, b"data: \xff\xfe\n\n")
        await self.check(bad, "not UTF-8", streamed=True)
