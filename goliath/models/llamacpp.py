"""In-process llama.cpp through ``llama-cpp-python``: the embedded default model.

Every call renders the model's own chat template, counts the prompt exactly, constrains the
reply with a grammar built once per schema, and generates token by token in a worker thread
that stops within a token when the calling Trio task is cancelled (a llama.cpp abort callback
also interrupts a long prompt evaluation). One generation runs at a time per model.

Speed: the KV cache reuses the longest common token prefix of consecutive prompts. The
harness alternates stages (conductor, worker, answer) whose system prompts differ, so each
stage would evict the other's prefix; with ``prefix_cache=True`` the bridge keeps one snapshot
of the KV cache per stage and restores the one that shares the longest prefix with the next
prompt (see ``docs/models.md`` for the measurements).
"""

from __future__ import annotations

import ctypes
import importlib.util
import logging
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import trio

from ..errors import ConfigError, ContextWindowError, ModelError, ModelUnavailableError
from . import GenerateRequest, Generation
from ._json import compact_json, limit_strings, parse_reply, resolve_max_length, with_schema_note
from .packaged import SMOLLM2_135M, PackagedModel

__all__ = ["LlamaCppModel"]

DEFAULT_THREADS = 2
GRAMMAR_CACHE_SIZE = 64
"""Distinct schemas whose grammars are kept (one per tool, plus plans and answers)."""
PREFIX_MIN_GAIN = 16
"""Tokens a stage snapshot must save over the live KV cache before it is worth restoring."""
_INSTALL_HINT = "pip install 'goliath[local]'"


@attrs.frozen
class _Snapshot:
    tokens: tuple[int, ...]
    state: Any  # a ctypes byte array holding the sequence's KV cache


class LlamaCppModel:
    """A GGUF model run in-process by llama.cpp, with grammar-constrained JSON.

    Args:
        path: a GGUF file, a :class:`~goliath.models.packaged.PackagedModel`, or ``None`` for
            SmolLM2-135M-Instruct from the ``local`` extra.
        n_ctx: the context window in tokens (prompt and reply together).
        n_threads: CPU threads for generation and prompt evaluation.
        n_batch: prompt tokens evaluated per llama.cpp batch.
        max_string_length: ``maxLength`` given to schema strings that have no bound: one int
            for every stage, or a mapping from stage label to int (defaults: conductor 200,
            worker 300, answer 1000, scribe 600 characters).
        schema_in_prompt: append the reply's JSON Schema to the system prompt (the harness's
            prompts refer to "the schema"; a grammar alone does not say what fields mean).
        prefix_cache: keep a KV-cache snapshot per stage so stages do not evict each other.
        chat_template: a Jinja chat template to use instead of the one inside the GGUF.
        verbose: let llama.cpp log to stderr.

    Raises:
        ModelUnavailableError: llama-cpp-python or the packaged model is not installed.
        ConfigError: a bad option, or ``path`` is not a file.

    Resource handling: the weights load lazily, in a worker thread, on the first
    :meth:`generate` (or an explicit ``await model.load()``); :meth:`close` frees them.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | PackagedModel | None = None,
        n_ctx: int = 4096,
        *,
        n_threads: int = DEFAULT_THREADS,
        n_batch: int = 512,
        max_string_length: int | Mapping[str, int] | None = None,
        schema_in_prompt: bool = True,
        prefix_cache: bool = True,
        chat_template: str | None = None,
        verbose: bool = False,
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
            path = SMOLLM2_135M
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
        self._max_string_length = max_string_length
        self._schema_in_prompt = schema_in_prompt
        self._prefix_cache = prefix_cache
        self._chat_template = chat_template
        self._verbose = verbose
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
        self._snapshots: dict[str, _Snapshot] = {}

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

    def check_schema(self, schema: Mapping[str, Any], label: str = "worker") -> None:
        """Build (and cache) the grammar for ``schema``; a ConfigError says why it cannot be."""
        self._grammar(dict(schema), label)

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
                self._tokenizer = _Vocabulary(self._import(), self._file(), self._verbose)
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
                self._defuse_pattern = _control_pattern(llama_cpp, vocab)
                abort = llama_cpp.ggml_abort_callback(_abort_if_cancelled)
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

    def _generate(self, request: GenerateRequest) -> Generation:
        llama_cpp = self._import()
        llm = self._llm
        tokens = self._prompt_tokens(request)
        window = int(llm.n_ctx())
        if len(tokens) >= window:
            raise ContextWindowError(
                f"The {request.label} prompt takes {len(tokens)} tokens but {self.name}'s "
                f"context window is {window}; shorten the prompt or raise n_ctx."
            )
        room = window - len(tokens)
        cap = min(request.max_output_tokens, room)
        grammar = None if request.schema is None else self._grammar(request.schema, request.label)
        if self._prefix_cache:
            self._restore_snapshot(llama_cpp, tokens)
        generated: list[int] = []
        finished = False
        try:
            for token in llm.generate(tokens, temp=0.0, repeat_penalty=1.0, grammar=grammar):
                trio.from_thread.check_cancelled()
                if llama_cpp.llama_vocab_is_eog(self.vocab, token):
                    finished = True
                    break
                generated.append(token)
                if len(generated) >= cap:
                    break
        except RuntimeError as exc:  # llama_decode failed, or the abort callback stopped it
            trio.from_thread.check_cancelled()
            raise ModelError(f"llama.cpp failed while generating: {exc}") from exc
        trio.from_thread.check_cancelled()
        if self._prefix_cache:
            self._save_snapshot(llama_cpp, request.label)
        text = llm.detokenize(generated, prev_tokens=tokens).decode("utf-8", errors="replace")
        if not finished and cap < request.max_output_tokens:
            raise ContextWindowError(
                f"The {request.label} reply ran out of {self.name}'s context window "
                f"({window} tokens) after {len(generated)} tokens."
            )
        if request.schema is not None:
            complete = finished or text.rstrip().endswith(("}", "]", '"'))
            parse_reply(text, finished=complete, max_output_tokens=request.max_output_tokens)
            text = text.strip()
        return Generation(text=text, input_tokens=len(tokens), output_tokens=len(generated))

    def _prompt_tokens(self, request: GenerateRequest) -> list[int]:
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

    def _grammar(self, schema: Mapping[str, Any], label: str) -> Any:
        limited = limit_strings(schema, resolve_max_length(self._max_string_length, label))
        key = compact_json(limited)  # key order kept: property order is generation order
        grammar = self._grammars.get(key)
        if grammar is not None:
            self._grammars.move_to_end(key)
            return grammar
        llama_cpp = self._import()
        from llama_cpp.llama_grammar import LlamaGrammar, json_schema_to_gbnf

        try:
            gbnf = json_schema_to_gbnf(key)
        except Exception as exc:  # the converter asserts on what it does not support
            raise ConfigError(
                f"The JSON Schema for the {label} reply cannot be turned into a llama.cpp "
                f"grammar ({exc}). Patterns must be anchored (^...$); 'not' and remote $refs "
                f"are unsupported. Schema: {key[:300]}"
            ) from exc
        vocab = self.vocab if self._llm is not None else self._vocabulary().vocab
        sampler = llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode("utf-8"), b"root")
        if not sampler:
            raise ConfigError(
                f"llama.cpp rejected the grammar built from the {label} schema; simplify the "
                f"schema. Schema: {key[:300]}"
            )
        llama_cpp.llama_sampler_free(sampler)
        grammar = LlamaGrammar.from_string(gbnf, verbose=False)
        self._grammars[key] = grammar
        while len(self._grammars) > GRAMMAR_CACHE_SIZE:
            self._grammars.popitem(last=False)
        return grammar

    # ------------------------------------------------------------------ prefix snapshots

    def _save_snapshot(self, llama_cpp: Any, label: str) -> None:
        llm = self._llm
        count = int(llm.n_tokens)
        size = llama_cpp.llama_state_seq_get_size(llm.ctx, 0)
        if count == 0 or size == 0:
            return
        state = (ctypes.c_uint8 * size)()
        if llama_cpp.llama_state_seq_get_data(llm.ctx, state, size, 0) == 0:
            return
        self._snapshots[label] = _Snapshot(tuple(int(t) for t in llm.input_ids[:count]), state)

    def _restore_snapshot(self, llama_cpp: Any, tokens: list[int]) -> None:
        llm = self._llm
        live = _common_prefix(llm.input_ids[: llm.n_tokens], tokens)
        best: _Snapshot | None = None
        best_prefix = live + PREFIX_MIN_GAIN
        for snapshot in self._snapshots.values():
            prefix = _common_prefix(snapshot.tokens, tokens)
            if prefix > best_prefix:
                best, best_prefix = snapshot, prefix
        if best is None:
            return
        memory = llama_cpp.llama_get_memory(llm.ctx)
        llama_cpp.llama_memory_seq_rm(memory, 0, -1, -1)
        if llama_cpp.llama_state_seq_set_data(llm.ctx, best.state, len(best.state), 0) == 0:
            llm.reset()  # could not restore: start from an empty cache
            return
        llm.input_ids[: len(best.tokens)] = best.tokens
        llm.n_tokens = len(best.tokens)
        llm._requires_eval = True  # the logits are not those of the restored state


class _Vocabulary:
    """A model's tokenizer without its weights or a context: counts tokens before the load."""

    def __init__(self, llama_cpp: Any, file: Path, verbose: bool) -> None:
        if not verbose:
            logging.getLogger("llama-cpp-python").setLevel(logging.ERROR)
        params = llama_cpp.llama_model_default_params()
        params.vocab_only = True
        self._llama_cpp = llama_cpp
        self._model = llama_cpp.llama_model_load_from_file(str(file).encode(), params)
        if not self._model:
            raise ModelUnavailableError(f"llama.cpp could not read the vocabulary of {file}.")
        self.vocab = llama_cpp.llama_model_get_vocab(self._model)

    def tokenize(self, data: bytes, add_bos: bool = False) -> list[int]:
        capacity = len(data) + 8
        while True:
            buffer = (self._llama_cpp.llama_token * capacity)()
            count = self._llama_cpp.llama_tokenize(
                self.vocab, data, len(data), buffer, capacity, add_bos, False
            )
            if count >= 0:
                return list(buffer[:count])
            capacity = -count

    def close(self) -> None:
        if self._model:
            self._llama_cpp.llama_model_free(self._model)
            self._model = None


def _common_prefix(left: Any, right: Any) -> int:
    count = 0
    for a, b in zip(left, right, strict=False):
        if a != b:
            break
        count += 1
    return count


def _control_pattern(llama_cpp: Any, vocab: Any) -> re.Pattern[str] | None:
    texts = set()
    for token in range(llama_cpp.llama_vocab_n_tokens(vocab)):
        if llama_cpp.llama_vocab_get_attr(vocab, token) & llama_cpp.LLAMA_TOKEN_ATTR_CONTROL:
            text = bytes(llama_cpp.llama_vocab_get_text(vocab, token)).decode("utf-8", "replace")
            if len(text) >= 3 and not text.isspace():
                texts.add(text)
    if not texts:
        return None
    return re.compile("|".join(re.escape(text) for text in sorted(texts, key=len, reverse=True)))


def _abort_if_cancelled(_data: Any) -> bool:
    """llama.cpp's abort callback: stop a decode once the calling Trio task is cancelled.

    ggml calls it between compute steps from the thread that called ``llama_decode`` (our
    worker thread). The Cancelled is not swallowed: the decode fails, and ``_generate`` calls
    ``check_cancelled()`` again, which raises it for real.
    """
    try:
        trio.from_thread.check_cancelled()
    except RuntimeError:  # a thread Trio did not start: cannot tell, keep going
        return False
    except BaseException:  # trio.Cancelled (or KeyboardInterrupt): abort the decode
        return True
    return False
