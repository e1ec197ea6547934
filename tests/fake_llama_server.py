"""A scripted stand-in for llama.cpp's ``llama-server``: the endpoints and flags Goliath uses.

Run as ``python tests/fake_llama_server.py --model F --host 127.0.0.1 --port P --parallel N
...`` (the arguments ``goliath.models.managed`` passes; the rest are accepted and ignored). It
answers ``/health`` (503 "Loading model" for ``FAKE_LLAMA_LOAD_SECONDS``, then 200),
``/v1/models`` and ``/v1/chat/completions`` (Bearer ``$LLAMA_API_KEY`` required), replying as
``tests.transports.daemon_app.scripted_reply`` would; a prompt containing ``slow`` takes 30 s.

Like llama-server it keeps each slot's last prompt (words stand in for tokens): with
``cache_prompt`` (its default) a call reuses the prefix it shares with its ``id_slot``'s last
prompt, and says so in ``timings.cache_n``. ``"stream": true`` is answered with Server-Sent
Events, whose last chunk (``choices: []``, ``usage``, ``timings``) comes only when
``stream_options.include_usage`` asks for it. ``logprobs`` gets each word's log-probability
(-0.05) with ``top_logprobs`` alternatives; where a value of an ``enum`` property of the
``json_schema`` begins, the alternatives are the other options' first words (-3, -4, ...).

``FAKE_LLAMA_EXIT=N`` exits with status N at once (a server that cannot start).
``--version`` prints a version line. ``FAKE_LLAMA_RECORD=DIR`` writes ``DIR/<pid>.json`` with
its arguments when it is ready; ``FAKE_LLAMA_BODIES=FILE`` appends one JSON line per chat call
with the parameters the bridge sent beyond the messages, and the slot and cache it used.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from goliath.models import GenerateRequest
from tests.transports.daemon_app import scripted_reply


def label_of(body: dict[str, Any]) -> str:
    """The harness stage a body comes from, guessed from its schema (llama-server gets none)."""
    schema = body.get("json_schema")
    format_ = body.get("response_format")
    if schema is None and isinstance(format_, dict):  # the OpenAI forms, for other styles
        schema = format_.get("schema") or (format_.get("json_schema") or {}).get("schema")
    if isinstance(schema, dict):
        properties = schema.get("properties", {})
        return "conductor" if "call" in properties or "kind" in properties else "arguments"
    return "answer"


def words_of(text: str) -> list[str]:
    """The fake's tokens: words, runs of punctuation, each with the space before it."""
    return re.findall(r"\s*\w+|\s*[^\w\s]+|\s+", text)


def common_prefix(left: list[str], right: list[str]) -> int:
    count = 0
    for a, b in zip(left, right, strict=False):
        if a != b:
            break
        count += 1
    return count


def token_logprobs(pieces: list[str], schema: Any, top: int) -> list[dict[str, Any]]:
    """OpenAI's ``logprobs.content`` for ``pieces``: -0.05 each; where an enum value starts,
    the other options' first words as the alternatives."""
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    content = []
    text = ""
    for piece in pieces:
        alternatives = [{"token": piece, "logprob": -0.05}]
        field = re.search(r'"(\w+)":\s*"$', text)
        options = properties.get(field.group(1), {}).get("enum", []) if field else []
        for option in options:
            first = words_of(option)[0] if option else ""
            if first and all(first != alt["token"] for alt in alternatives):
                alternatives.append({"token": first, "logprob": -1.0 - len(alternatives)})
        content.append({"token": piece, "logprob": -0.05, "top_logprobs": alternatives[:top]})
        text += piece
    return content


def main() -> None:
    if "--version" in sys.argv:
        print("version: 0 (fake llama-server)")
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--parallel", type=int, default=1)
    parser.add_argument("--ctx-size", type=int, default=4096)
    args, _rest = parser.parse_known_args()
    if os.environ.get("FAKE_LLAMA_EXIT"):
        print("fake llama-server: told to fail", flush=True)
        sys.exit(int(os.environ["FAKE_LLAMA_EXIT"]))
    key = os.environ.get("LLAMA_API_KEY", "")
    ready_at = time.monotonic() + float(os.environ.get("FAKE_LLAMA_LOAD_SECONDS", "0"))
    record = os.environ.get("FAKE_LLAMA_RECORD")
    bodies = os.environ.get("FAKE_LLAMA_BODIES")
    recorded = False
    last_prompt: dict[int, list[str]] = {}  # slot -> its last prompt's words
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def send(self, status: int, value: Any) -> None:
            payload = json.dumps(value).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            nonlocal recorded
            if self.path in ("/health", "/v1/health"):
                if time.monotonic() < ready_at:
                    self.send(503, {"error": {"code": 503, "message": "Loading model"}})
                    return
                if record and not recorded:
                    recorded = True
                    facts = {"argv": sys.argv[1:], "parallel": args.parallel, "key": bool(key)}
                    Path(record, f"{os.getpid()}.json").write_text(json.dumps(facts))
                self.send(200, {"status": "ok"})
            elif self.path == "/v1/models":
                self.send(200, {"data": [{"id": Path(args.model).name}]})
            else:
                self.send(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
            if self.headers.get("authorization") != f"Bearer {key}":
                self.send(401, {"error": {"code": 401, "message": "Invalid API Key"}})
                return
            if time.monotonic() < ready_at:
                self.send(503, {"error": {"code": 503, "message": "Loading model"}})
                return
            system, user = (message["content"] for message in body["messages"])
            if "slow" in user:
                time.sleep(30)
            request = GenerateRequest(label=label_of(body), system=system, prompt=user)  # type: ignore[arg-type]
            reply = scripted_reply(request)
            content = json.dumps(reply["json"]) if "json" in reply else reply["text"]
            prompt = words_of(f"{system}\n{user}")
            slot = body.get("id_slot")
            slot = slot if isinstance(slot, int) and 0 <= slot < args.parallel else 0
            with lock:
                previous = last_prompt.get(slot, []) if body.get("cache_prompt", True) else []
                cache_n = min(common_prefix(previous, prompt), len(prompt) - 1)
                last_prompt[slot] = prompt
                if bodies:
                    sent = {key: value for key, value in body.items() if key != "messages"}
                    line = {**sent, "user": user, "slot_used": slot, "cache_n": cache_n}
                    with open(bodies, "a", encoding="utf-8") as file:
                        file.write(json.dumps(line) + "\n")
            pieces = words_of(content)
            usage = {
                "prompt_tokens": len(prompt),
                "completion_tokens": len(pieces),
                "total_tokens": len(prompt) + len(pieces),
            }
            timings = {"cache_n": cache_n, "prompt_n": len(prompt) - cache_n}
            timings["predicted_n"] = len(pieces)
            logprobs = None
            if body.get("logprobs"):
                top = int(body.get("top_logprobs") or 20)
                logprobs = token_logprobs(pieces, body.get("json_schema"), top)
            if body.get("stream"):
                include_usage = (body.get("stream_options") or {}).get("include_usage")
                self.stream(pieces, logprobs, {"usage": usage, "timings": timings}, include_usage)
                return
            choice: dict[str, Any] = {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
            if logprobs is not None:
                choice["logprobs"] = {"content": logprobs}
            self.send(
                200,
                {
                    "choices": [choice],
                    "usage": usage,
                    "timings": timings,
                    "id_slot_seen": body.get("id_slot"),
                },
            )

        def stream(
            self,
            pieces: list[str],
            logprobs: list[dict[str, Any]] | None,
            last: dict[str, Any],
            include_usage: bool,
        ) -> None:
            """The reply as llama-server streams it: a chunk per token, the finish, and the
            usage chunk only when asked."""
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            chunks: list[dict[str, Any]] = []
            for index, piece in enumerate(pieces):
                choice: dict[str, Any] = {"index": 0, "delta": {"content": piece}}
                if logprobs is not None:
                    choice["logprobs"] = {"content": [logprobs[index]]}
                chunks.append({"choices": [choice], "object": "chat.completion.chunk"})
            chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            if include_usage:
                chunks.append({"choices": [], "object": "chat.completion.chunk", **last})
            for chunk in chunks:
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    print(f"fake llama-server listening on {args.host}:{args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
