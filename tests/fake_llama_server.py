"""A scripted stand-in for llama.cpp's ``llama-server``: the endpoints and flags Goliath uses.

Run as ``python tests/fake_llama_server.py --model F --host 127.0.0.1 --port P --parallel N
...`` (the arguments ``goliath.models.managed`` passes; the rest are accepted and ignored). It
answers ``/health`` (503 "Loading model" for ``FAKE_LLAMA_LOAD_SECONDS``, then 200),
``/v1/models`` and ``/v1/chat/completions`` (Bearer ``$LLAMA_API_KEY`` required), replying as
``tests.transports.daemon_app.scripted_reply`` would; a prompt containing ``slow`` takes 30 s.
``FAKE_LLAMA_EXIT=N`` exits with status N at once (a server that cannot start).
``--version`` prints a version line. ``FAKE_LLAMA_RECORD=DIR`` writes ``DIR/<pid>.json`` with its arguments when it is ready.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
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
    if isinstance(schema, dict):
        properties = schema.get("properties", {})
        return "conductor" if "call" in properties or "kind" in properties else "worker"
    return "answer"


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
    recorded = False

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
            self.send(
                200,
                {
                    "choices": [
                        {
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {
                        "prompt_tokens": len(user.split()),
                        "completion_tokens": 5,
                        "prompt_tokens_details": {"cached_tokens": 2},
                    },
                    "id_slot_seen": body.get("id_slot"),
                },
            )

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    print(f"fake llama-server listening on {args.host}:{args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
