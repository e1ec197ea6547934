"""Test doubles that are real models: scripted replies, recorded requests.

``FakeModel`` goes through exactly the code paths a real bridge does (the model worker, budgets,
parsing, classification); only the replies are fixed. Use it to make the harness's behaviour
exact in tests, and ``goliath run --model fake:SCRIPT.json`` to replay a script from the shell.
"""

from __future__ import annotations

import inspect
import json
import math
import re
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

import trio

from .errors import ConfigError, ModelError
from .models import GenerateRequest, Generation, TextSink

__all__ = ["FakeModel", "ScriptEntry"]

ScriptEntry = dict[str, Any]
ScriptFunction = Callable[[GenerateRequest], "ScriptEntry | Awaitable[ScriptEntry]"]


class FakeModel:
    """A scripted model.

    Args:
        script: a list of replies consumed one per call — ``{"text": str}``, ``{"json": value}``
            (its JSON text), ``{"error": exc}`` (raised after the call is recorded), with an
            optional ``"scores"`` (option -> log-probability, reported for a request that asks
            to ``score`` a field, as llama.cpp does) — or a
            function of the :class:`GenerateRequest` returning such a reply (sync or async).
            A list entry may itself be such a function.
        delay: seconds each call takes (use with Trio's autojump clock; never a real sleep).
        token_delay: seconds between the pieces of a streamed reply (``generate_stream``: a
            text reply is handed over word by word, with a checkpoint between words).

    ``calls`` records every request in order; ``remaining()`` counts unconsumed replies; running
    out raises ``ModelError("script exhausted after N call(s)")``, which a run treats like any
    model failure.
    """

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        script: Iterable[ScriptEntry | ScriptFunction] | ScriptFunction = (),
        *,
        delay: float = 0.0,
        token_delay: float = 0.0,
    ) -> None:
        self._function: ScriptFunction | None = None
        self._script: list[ScriptEntry | ScriptFunction] = []
        if callable(script) and not isinstance(script, (list, tuple)):
            self._function = script
        else:
            self._script = list(script)
            for entry in self._script:
                _check_entry(entry)
        self._served = 0
        self.delay = delay
        self.token_delay = token_delay
        self.calls: list[GenerateRequest] = []

    @classmethod
    def from_file(cls, path: str | Path) -> FakeModel:
        """Load a JSON script; an ``{"error": "message"}`` entry raises ``ModelError(message)``."""
        try:
            raw = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"Cannot read the fake model script {path}: {exc}") from exc
        if isinstance(raw, dict) and "script" in raw:
            raw = raw["script"]
        if not isinstance(raw, list):
            raise ConfigError(f"{path}: a fake model script is a JSON list of replies.")
        entries: list[ScriptEntry | ScriptFunction] = []
        for index, entry in enumerate(raw):
            if isinstance(entry, dict) and isinstance(entry.get("error"), str):
                entry = {"error": ModelError(entry["error"], code=entry.get("code"))}
            try:
                _check_entry(entry)
            except ConfigError as exc:
                raise ConfigError(f"{path}: entry {index}: {exc}") from None
            entries.append(entry)
        return cls(entries)

    def remaining(self) -> int:
        """How many scripted replies are left (0 for a function script)."""
        return len(self._script) - self._served if self._function is None else 0

    async def generate(self, request: GenerateRequest) -> Generation:
        self.calls.append(request)
        if self.delay:
            await trio.sleep(self.delay)
        entry: Any
        if self._function is not None:
            entry = self._function(request)
        elif self._served < len(self._script):
            entry = self._script[self._served]
            self._served += 1
        else:
            raise ModelError(f"script exhausted after {self._served} call(s)")
        if callable(entry):
            entry = entry(request)
        if inspect.isawaitable(entry):
            entry = await entry
        _check_entry(entry)
        if "error" in entry:
            raise entry["error"]
        text = entry["text"] if "text" in entry else json.dumps(entry["json"])
        scores = entry.get("scores") if request.score is not None else None
        return Generation(
            text=text,
            input_tokens=math.ceil(len(json.dumps([request.system, request.prompt])) / 4),
            output_tokens=math.ceil(len(text) / 4),
            scores={str(k): float(v) for k, v in scores.items()} if scores else None,
        )

    async def generate_stream(self, request: GenerateRequest, on_text: TextSink) -> Generation:
        """Like :meth:`generate`, handing the reply's text to ``on_text`` word by word."""
        generation = await self.generate(request)
        for piece in re.findall(r"\S+\s*|\s+", generation.text):
            on_text(piece)
            await trio.sleep(self.token_delay)
        return generation


def _check_entry(entry: Any) -> None:
    if callable(entry):
        return
    if not isinstance(entry, dict) or not ({"text", "json", "error"} & entry.keys()):
        raise ConfigError(
            f"A script entry must be {{'text': str}}, {{'json': value}} or {{'error': exception}}; "
            f"got {entry!r}."
        )
    if "text" in entry and not isinstance(entry["text"], str):
        raise ConfigError(f"A 'text' reply must be a string, got {entry['text']!r}.")
    if "error" in entry and not isinstance(entry["error"], BaseException):
        raise ConfigError(
            f"An 'error' reply must be an exception instance, got {entry['error']!r}."
        )
