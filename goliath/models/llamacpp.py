"""In-process llama.cpp through ``llama-cpp-python``: the embedded default model.

Every call renders the model's own chat template, counts the prompt exactly, constrains the
reply with a grammar built once per schema, and generates token by token in a worker thread
that stops within a token when the calling Trio task is cancelled (a llama.cpp abort callback
also interrupts a long prompt evaluation). One generation runs at a time per model.

Speed: the KV cache reuses the longest common token prefix of consecutive prompts. The
harness alternates stages (conductor, arguments, answer) whose system prompts differ, so
each stage would evict the other's prefix; with ``prefix_cache=True`` the bridge keeps a
snapshot of the KV cache per stage and system prompt (the last ``SNAPSHOTS`` of them) and
restores the one that shares the longest prefix with the next prompt (see ``docs/models.md``
for the measurements).
"""

from __future__ import annotations

import codecs
import importlib.util
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs
import trio

from .._util import compact_json
from ..errors import ConfigError, ContextWindowError, ModelError, ModelUnavailableError
from . import GenerateRequest, Generation, TextSink
from ._choices import ChoiceScorer, enum_of
from ._json import (
    check_max_length,
    limit_strings,
    max_length_for,
    parse_reply,
    with_schema_note,
)
from ._llama_internals import (
    Snapshot,
    Vocabulary,
    abort_if_cancelled,
    build_grammar,
    common_prefix,
    control_pattern,
    parses,
    restore_snapshot,
    save_snapshot,
)
from .packaged import DEFAULT_MODEL, PackagedModel

__all__ = ["LlamaCppModel", "LlamaCppStatistics"]

DEFAULT_THREADS = 2
GRAMMAR_CACHE_SIZE = 64
SNAPSHOTS = 8
"""KV-cache snapshots kept, one per stage and system prompt, least recently used dropped first
(a turn alternates conductor, arguments and answer prompts; an eval, several toolsets)."""
"""Distinct schemas whose grammars are kept (one per tool, plus plans and answers)."""
_INSTALL_HINT = "./install.sh local (from a checkout of Goliath)"


@attrs.frozen
class LlamaCppStatistics:
    """What the model did so far: calls, prompt tokens read, and how many came from cache.

    ``reused_tokens`` counts prompt tokens whose KV entries were already in the cache (the
    live one or a restored stage snapshot) and were not evaluated again.
    """

    calls: int
    prompt_tokens: int
    reused_tokens: int
    output_tokens: int
    snapshot_restores: int


class LlamaCppModel:
    """A GGUF model run in-process by llama.cpp, with grammar-constrained JSON.

    Args:
        path: a GGUF file, a :class:`~goliath.models.packaged.PackagedModel`, or ``None`` for
            SmolLM2-135M-Instruct from the ``local`` extra.
        n_ctx: the context window in tokens (prompt and reply together).
        n_threads: CPU threads for generation and prompt evaluation.
        n_batch: prompt tokens evaluated per llama.cpp batch.
        max_string_length: ``maxLength`` given to schema strings that have no bound, for every
            call (``0``: none); by default each request's own
            (``GenerateRequest.max_string_length``: the turn's stage caps).
        schema_in_prompt: append the reply's JSON Schema to the system prompt (the harness's
            prompts refer to "the schema"; a grammar alone does not say what fields mean).
        prefix_cache: keep KV-cache snapshots per stage and system prompt, so stages do not
            evict each other.
        chat_template: a Jinja chat template to use instead of the one inside the GGUF.
        verbose: let llama.cpp log to stderr.
        on_token: called from the worker thread with the number of tokens generated so far,
            after each token (progress displays; tests that cancel mid-generation). Also
            settable later as the ``on_token`` attribute. It must be quick and not raise.

    Raises:
        ModelUnavailableError: llama-cpp-python or the packaged model is not installed.
        ConfigError: a bad option, or ``path`` is not a file.

    Resource handling: the weights load lazily, in a worker thread, on the first
    :meth:`generate` (or an explicit ``await model.load()``); :meth:`close` frees them.
    """

    scores_options = True
    """Reports the log-probabilities of a request's ``score`` options (the turn's checks that
    are tuned on them, such as the hand-off check, are on by default for such a model)."""

    def __init__(
        self,
        path: str | os.PathLike[str] | PackagedModel | None = None,
        n_ctx: int = 4096,
        *,
        n_threads: int = DEFAULT_THREADS,
        n_batch: int = 512,
        max_string_length: int | None = None,
        schema_in_prompt: bool = True,
        prefix_cache: bool = True,
        chat_template: str | None = None,
        verbose: bool = False,
        on_token: Callable[[int], None] | None = None,
    ) -> None:
        for name, value in (("n_ctx", n_ctx), ("n_threads", n_threads), ("n_batch", n_batch)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ConfigError(
                    f"LlamaCppModel({name}=...) must be a positive int, got {value!r}."
                )
        if importlib.util.find_spec("llama_cpp") is None:
            raise ModelUnavailableError(
                f"llama-cpp-python is not installed, so LlamaCppModel cannot run. Install it "
                f"with: {_INSTALL_HINT}"
            )
        if path is None:
            path = DEFAULT_MODEL
        self._packaged: PackagedModel | None = None
        self._path: Path | None = None
        if isinstance(path, PackagedModel):
            if not path.installed():
                path.path()  # raises ModelUnavailableError naming the extra to install
            self._packaged = path
            self.name = path.name
        else:
            self._path = Path(path).expanduser()
            if not self._path.is_file():
                raise ConfigError(
                    f"LlamaCppModel: no GGUF file at {self._path}. Pass the path of a .gguf "
                    "model file, or path=None for the packaged default."
                )
            self.name = self._path.name
        self._n_ctx = n_ctx
        self._n_threads = n_threads
        self._n_batch = n_batch
        self._max_string_length = check_max_length(max_string_length, "LlamaCppModel")
        self._schema_in_prompt = schema_in_prompt
        self._prefix_cache = prefix_cache
        self._chat_template = chat_template
        self._verbose = verbose
        self.on_token = on_token
        self._llm: Any = None
        self.vocab: Any = None  # the loaded model's llama_vocab pointer
        self._tokenizer: Any = None  # the vocabulary alone, for counting before the load
        self._formatter: Any = None
        self._defuse_pattern: re.Pattern[str] | None = None
        self._abort_callback: Any = None
        self._load_lock = threading.Lock()
        self._vocab_lock = threading.Lock()
        self._generate_lock = trio.Lock()
        self._grammars: OrderedDict[str, Any] = OrderedDict()
        self._single_tokens: dict[str, list[int]] = {}
        """Text -> the one token whose text it is (or none), for scoring enum options."""
        self._snapshots: OrderedDict[str, Snapshot] = OrderedDict()
        self._stats = {"calls": 0, "prompt": 0, "reused": 0, "output": 0, "restores": 0}

    def __repr__(self) -> str:
        return f"LlamaCppModel({self.name!r}, n_ctx={self._n_ctx})"

    # ------------------------------------------------------------------ public surface

    def window(self) -> int:
        """The context window in tokens (the model's own once loaded)."""
        return int(self._llm.n_ctx()) if self._llm is not None else self._n_ctx

    def count_tokens(self, text: str) -> int:
        """Tokens ``text`` takes with the model's tokenizer (no BOS, no template tokens).

        Before the model is loaded this loads its vocabulary alone (a fraction of a second).
        """
        return len(self._vocabulary().tokenize(text.encode("utf-8"), add_bos=False))

    @property
    def llama(self) -> Any:
        """The loaded ``llama_cpp.Llama`` (for inspection; do not generate with it directly)."""
        if self._llm is None:
            raise ModelError("The model is not loaded yet; await model.load() first.")
        return self._llm

    @property
    def loaded(self) -> bool:
        return self._llm is not None

    def statistics(self) -> LlamaCppStatistics:
        """Totals since construction (see :class:`LlamaCppStatistics`)."""
        stats = self._stats
        return LlamaCppStatistics(
            calls=stats["calls"],
            prompt_tokens=stats["prompt"],
            reused_tokens=stats["reused"],
            output_tokens=stats["output"],
            snapshot_restores=stats["restores"],
        )

    async def load(self) -> None:
        """Load the weights in a worker thread (assembling a packaged model on first use).

        Cancellation: loading is not interruptible; a cancelled caller waits for it to finish.
        """
        if self._llm is None:
            await trio.to_thread.run_sync(self._load)

    def close(self) -> None:
        """Free the weights and caches; the next call loads them again."""
        with self._load_lock, self._vocab_lock:
            for llm in (self._llm, self._tokenizer):
                if llm is not None:
                    llm.close()
            self._llm = self._tokenizer = self.vocab = None
            self._snapshots.clear()
            self._grammars.clear()

    def check_schema(
        self, schema: Mapping[str, Any], label: str = "checked", max_string_length: int = 300
    ) -> None:
        """Build (and cache) the grammar for ``schema``; a ConfigError says why it cannot be."""
        self._grammar(dict(schema), label, max_string_length)

    async def generate(self, request: GenerateRequest) -> Generation:
        """Answer one request; see the class docstring.

        Raises:
            ContextWindowError: the prompt, or prompt plus reply, overflows the window.
            InvalidOutputError: a schema reply hit its output cap or is not valid JSON.
            ConfigError: the schema cannot be turned into a grammar.
            ModelError: llama.cpp failed.

        Cancellation: stops within a token (or a compute step of the prompt evaluation).
        """
        async with self._generate_lock:
            await self.load()
            return await trio.to_thread.run_sync(self._generate, request)

    async def generate_stream(self, request: GenerateRequest, on_text: TextSink) -> Generation:
        """Like :meth:`generate`, handing each new piece of the reply's text to ``on_text``
        (called in the Trio thread) as llama.cpp produces the tokens."""

        def emit(piece: str) -> None:
            trio.from_thread.run_sync(on_text, piece)

        async with self._generate_lock:
            await self.load()
            return await trio.to_thread.run_sync(self._generate, request, emit)

    # ------------------------------------------------------------------ loading (threads)

    def _import(self) -> Any:
        try:
            import llama_cpp
        except ImportError as exc:  # pragma: no cover - checked in __init__
            raise ModelUnavailableError(
                f"llama-cpp-python is not installed: {_INSTALL_HINT}"
            ) from exc
        return llama_cpp

    def _file(self) -> Path:
        if self._path is None:
            assert self._packaged is not None
            self._path = self._packaged.path()
        return self._path

    def _vocabulary(self) -> Any:
        """The loaded model, or else its vocabulary alone (read once, in a fraction of a second).

        The vocabulary has its own lock so counting never waits for a weights load, and it is
        kept until :meth:`close` so a count running in another thread never loses it.
        """
        llm = self._llm
        if llm is not None:
            return llm
        with self._vocab_lock:
            if self._tokenizer is None:
                self._tokenizer = Vocabulary(self._import(), self._file(), self._verbose)
            return self._tokenizer

    def _open(self, **options: Any) -> Any:
        llama_cpp = self._import()
        file = self._file()
        try:
            return llama_cpp.Llama(
                model_path=str(file),
                n_ctx=self._n_ctx,
                n_threads=self._n_threads,
                n_threads_batch=self._n_threads,
                n_batch=self._n_batch,
                verbose=self._verbose,
                **options,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelUnavailableError(
                f"llama.cpp could not load {file}: {exc}. Is it a GGUF model file this "
                "llama-cpp-python version supports?"
            ) from exc

    def _load(self) -> None:
        with self._load_lock:
            if self._llm is not None:
                return
            llama_cpp = self._import()
            llm = self._open()
            try:
                self._formatter = self._make_formatter(llama_cpp, llm)
                vocab = llama_cpp.llama_model_get_vocab(llm.model)
                self._defuse_pattern = control_pattern(llama_cpp, vocab)
                abort = llama_cpp.ggml_abort_callback(abort_if_cancelled)
                llama_cpp.llama_set_abort_callback(llm.ctx, abort, None)
            except BaseException:
                llm.close()
                raise
            self._abort_callback = abort  # keep the C callback alive as long as the context
            self.vocab = vocab
            self._llm = llm

    def _make_formatter(self, llama_cpp: Any, llm: Any) -> Any:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        template = self._chat_template or llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise ConfigError(
                f"{self.name} has no chat template in its GGUF metadata; pass "
                "LlamaCppModel(chat_template=...) with the model's Jinja template."
            )
        vocab = llama_cpp.llama_model_get_vocab(llm.model)

        def text_of(token: int) -> str:
            if token < 0:
                return ""
            return bytes(llama_cpp.llama_vocab_get_text(vocab, token)).decode("utf-8", "replace")

        return Jinja2ChatFormatter(
            template=template,
            eos_token=text_of(llm.token_eos()),
            bos_token=text_of(llm.token_bos()),
        )

    # ------------------------------------------------------------------ generation (thread)

    def _generate(
        self, request: GenerateRequest, emit: Callable[[str], None] | None = None
    ) -> Generation:
        if request.max_output_tokens < 1:
            raise ConfigError(
                f"max_output_tokens must be at least 1, got {request.max_output_tokens}."
            )
        llama_cpp = self._import()
        llm = self._llm
        tokens = self.prompt_tokens(request)
        window = int(llm.n_ctx())
        if len(tokens) >= window:
            raise ContextWindowError(
                f"The {request.label} prompt takes {len(tokens)} tokens but {self.name}'s "
                f"context window is {window}; shorten the prompt or raise n_ctx."
            )
        room = window - len(tokens)
        cap = min(request.max_output_tokens, room)
        grammar = (
            None
            if request.schema is None
            else self._grammar(request.schema, request.label, request.max_string_length)
        )
        if self._prefix_cache and restore_snapshot(llama_cpp, llm, self._snapshots, tokens):
            self._stats["restores"] += 1
        reused = min(common_prefix(llm.input_ids[: llm.n_tokens], tokens), len(tokens) - 1)
        generated: list[int] = []
        finished = False
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        scorer = self._scorer(request)
        try:
            for token in llm.generate(tokens, temp=0.0, repeat_penalty=1.0, grammar=grammar):
                trio.from_thread.check_cancelled()
                if scorer is not None and scorer.pending:
                    piece = llm.detokenize([token], prev_tokens=tokens + generated)
                    scorer.observe(
                        piece.decode("utf-8", errors="replace"), self._logprobs(llama_cpp, llm)
                    )
                if llama_cpp.llama_vocab_is_eog(self.vocab, token):
                    finished = True
                    break
                if emit is not None:
                    piece = llm.detokenize([token], prev_tokens=tokens + generated)
                    if text := decoder.decode(piece):
                        emit(text)
                generated.append(token)
                if self.on_token is not None:
                    self.on_token(len(generated))
                if len(generated) >= cap:
                    break
            if emit is not None and (rest := decoder.decode(b"", final=True)):
                emit(rest)
        except RuntimeError as exc:  # llama_decode failed, or the abort callback stopped it
            trio.from_thread.check_cancelled()
            raise ModelError(f"llama.cpp failed while generating: {exc}") from exc
        trio.from_thread.check_cancelled()
        for key, value in (("calls", 1), ("prompt", len(tokens)), ("reused", reused)):
            self._stats[key] += value
        self._stats["output"] += len(generated)
        if self._prefix_cache:
            key = f"{request.label}:{hash(request.system)}"
            save_snapshot(llama_cpp, llm, self._snapshots, key)
            if key in self._snapshots:
                self._snapshots.move_to_end(key)
            while len(self._snapshots) > SNAPSHOTS:
                self._snapshots.popitem(last=False)
        text = llm.detokenize(generated, prev_tokens=tokens).decode("utf-8", errors="replace")
        if not finished and cap < request.max_output_tokens:
            raise ContextWindowError(
                f"The {request.label} reply ran out of {self.name}'s context window "
                f"({window} tokens) after {len(generated)} tokens."
            )
        if request.schema is not None:
            complete = finished or (text.rstrip().endswith(("}", "]")) and parses(text))
            parse_reply(text, finished=complete, max_output_tokens=request.max_output_tokens)
            text = text.strip()
        return Generation(
            text=text,
            input_tokens=len(tokens),
            output_tokens=len(generated),
            cached_tokens=reused,
            scores=scorer.scores if scorer is not None else None,
        )

    def _scorer(self, request: GenerateRequest) -> ChoiceScorer | None:
        """A scorer for the request's ``score`` field, when its schema has that enum."""
        if request.score is None:
            return None
        options = enum_of(request.schema, request.score)
        if not options:
            return None
        llm = self._llm

        def token_ids(text: str) -> list[int]:
            found = self._single_tokens.get(text)
            if found is None:
                ids = llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
                found = self._single_tokens[text] = ids if len(ids) == 1 else []
            return found

        return ChoiceScorer(request.score, options, token_ids)

    @staticmethod
    def _logprobs(llama_cpp: Any, llm: Any) -> Callable[[Any], list[float]]:
        """Log-softmax of the logits that produced the token just generated, for some ids.

        The sampler has just read them (no decode has run since), so they are the raw,
        unconstrained distribution at that position.
        """

        def read(ids: Any) -> list[float]:
            import numpy as np

            n_vocab = int(
                llama_cpp.llama_vocab_n_tokens(llama_cpp.llama_model_get_vocab(llm.model))
            )
            pointer = llama_cpp.llama_get_logits_ith(llm.ctx, -1)
            logits = np.ctypeslib.as_array(pointer, shape=(n_vocab,)).astype(np.float64)
            high = float(logits.max())
            total = high + float(np.log(np.exp(logits - high).sum()))
            return [float(logits[i]) - total for i in ids]

        return read

    def prompt_tokens(self, request: GenerateRequest) -> list[int]:
        """The exact tokens the model reads for ``request`` (chat template applied).

        Control-token text inside the system or user prompt (``<|im_end|>``) is broken up
        first, so a tool result cannot forge a turn boundary. Needs the model loaded.
        """
        if self._llm is None:
            raise ModelError("The model is not loaded yet; await model.load() first.")
        system = request.system
        if self._schema_in_prompt:
            system = with_schema_note(system, request.schema)
        messages = [
            {"role": "system", "content": self._defuse(system)},
            {"role": "user", "content": self._defuse(request.prompt)},
        ]
        try:
            rendered = self._formatter(messages=messages)
        except Exception:  # templates without a system role raise; fold it into the user turn
            merged = f"{messages[0]['content']}\n\n{messages[1]['content']}"
            try:
                rendered = self._formatter(messages=[{"role": "user", "content": merged}])
            except Exception as exc:
                raise ConfigError(f"{self.name}'s chat template failed to render: {exc}") from exc
        tokens: list[int] = self._llm.tokenize(
            rendered.prompt.encode("utf-8"), add_bos=not rendered.added_special, special=True
        )
        return tokens

    def _defuse(self, text: str) -> str:
        """Break up control-token text (``<|im_end|>``) so prompts cannot forge turns."""
        if self._defuse_pattern is None:
            return text
        return self._defuse_pattern.sub(lambda match: "\u200b".join(match.group(0)), text)

    def _grammar(self, schema: Mapping[str, Any], label: str, max_string_length: int) -> Any:
        limited = limit_strings(schema, max_length_for(self._max_string_length, max_string_length))
        key = compact_json(limited)  # key order kept: property order is generation order
        grammar = self._grammars.get(key)
        if grammar is not None:
            self._grammars.move_to_end(key)
            return grammar
        vocab = self.vocab if self._llm is not None else self._vocabulary().vocab
        grammar = build_grammar(self._import(), vocab, key, label)
        self._grammars[key] = grammar
        while len(self._grammars) > GRAMMAR_CACHE_SIZE:
            self._grammars.popitem(last=False)
        return grammar
