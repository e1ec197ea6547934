"""llama.cpp plumbing for :mod:`goliath.models.llamacpp`: snapshots, tokenizer, grammars.

Not public API. Everything here runs in the model's worker thread (or, for the vocabulary, in
the caller's) and talks to ``llama_cpp``'s low-level bindings.
"""

from __future__ import annotations

import ctypes
import json
import logging
import re
from pathlib import Path
from typing import Any

import attrs
import trio

from ..errors import ConfigError, ModelUnavailableError

PREFIX_MIN_GAIN = 16
"""Tokens a stage snapshot must save over the live KV cache before it is worth restoring."""


@attrs.frozen
class Snapshot:
    """A copy of the KV cache of sequence 0 and the tokens it holds."""

    tokens: tuple[int, ...]
    state: Any  # a ctypes byte array


def save_snapshot(llama_cpp: Any, llm: Any, snapshots: dict[str, Snapshot], label: str) -> None:
    """Keep the live KV cache as ``label``'s snapshot (a copy of only the used cells)."""
    count = int(llm.n_tokens)
    size = llama_cpp.llama_state_seq_get_size(llm.ctx, 0)
    if count == 0 or size == 0:
        return
    state = (ctypes.c_uint8 * size)()
    if llama_cpp.llama_state_seq_get_data(llm.ctx, state, size, 0) == 0:
        return
    snapshots[label] = Snapshot(tuple(int(t) for t in llm.input_ids[:count]), state)


def restore_snapshot(
    llama_cpp: Any, llm: Any, snapshots: dict[str, Snapshot], tokens: list[int]
) -> bool:
    """Load the snapshot sharing the longest prefix with ``tokens`` if it beats the live cache.

    Returns whether one was restored. ``llm.generate`` then trims the cache to the common
    prefix and evaluates only the rest of the prompt.
    """
    live = common_prefix(llm.input_ids[: llm.n_tokens], tokens)
    best: Snapshot | None = None
    best_prefix = live + PREFIX_MIN_GAIN
    for snapshot in snapshots.values():
        prefix = common_prefix(snapshot.tokens, tokens)
        if prefix > best_prefix:
            best, best_prefix = snapshot, prefix
    if best is None:
        return False
    memory = llama_cpp.llama_get_memory(llm.ctx)
    llama_cpp.llama_memory_seq_rm(memory, 0, -1, -1)
    if llama_cpp.llama_state_seq_set_data(llm.ctx, best.state, len(best.state), 0) == 0:
        llm.reset()  # could not restore: start from an empty cache
        return False
    llm.input_ids[: len(best.tokens)] = best.tokens
    llm.n_tokens = len(best.tokens)
    llm._requires_eval = True  # the logits are not those of the restored state
    return True


def build_grammar(llama_cpp: Any, vocab: Any, schema_json: str, label: str) -> Any:
    """A ``LlamaGrammar`` for ``schema_json``, checked by llama.cpp's own grammar parser.

    Raises:
        ConfigError: the converter or llama.cpp cannot handle the schema (never "any JSON").
    """
    from llama_cpp.llama_grammar import LlamaGrammar, json_schema_to_gbnf

    try:
        gbnf = json_schema_to_gbnf(schema_json)
    except Exception as exc:  # the converter asserts on what it does not support
        raise ConfigError(
            f"The JSON Schema for the {label} reply cannot be turned into a llama.cpp "
            f"grammar ({exc}). Patterns must be anchored (^...$); 'not' and remote $refs "
            f"are unsupported. Schema: {schema_json[:300]}"
        ) from exc
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode("utf-8"), b"root")
    if not sampler:
        raise ConfigError(
            f"llama.cpp rejected the grammar built from the {label} schema; simplify the "
            f"schema. Schema: {schema_json[:300]}"
        )
    llama_cpp.llama_sampler_free(sampler)
    return LlamaGrammar.from_string(gbnf, verbose=False)


class Vocabulary:
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


def parses(text: str) -> bool:
    try:
        json.loads(text, strict=False)
    except json.JSONDecodeError:
        return False
    return True


def common_prefix(left: Any, right: Any) -> int:
    count = 0
    for a, b in zip(left, right, strict=False):
        if a != b:
            break
        count += 1
    return count


def control_pattern(llama_cpp: Any, vocab: Any) -> re.Pattern[str] | None:
    texts = set()
    for token in range(llama_cpp.llama_vocab_n_tokens(vocab)):
        if llama_cpp.llama_vocab_get_attr(vocab, token) & llama_cpp.LLAMA_TOKEN_ATTR_CONTROL:
            text = bytes(llama_cpp.llama_vocab_get_text(vocab, token)).decode("utf-8", "replace")
            if len(text) >= 3 and not text.isspace():
                texts.add(text)
    if not texts:
        return None
    return re.compile("|".join(re.escape(text) for text in sorted(texts, key=len, reverse=True)))


def abort_if_cancelled(_data: Any) -> bool:
    """llama.cpp's abort callback: stop a decode once the calling Trio task is cancelled.

    ggml calls it between compute steps from the thread that called ``llama_decode`` (our
    worker thread). The Cancelled is not swallowed: the decode fails, and ``LlamaCppModel._generate`` calls
    ``check_cancelled()`` again, which raises it for real.
    """
    try:
        trio.from_thread.check_cancelled()
    except RuntimeError:  # a thread Trio did not start: cannot tell, keep going
        return False
    except BaseException:  # trio.Cancelled (or KeyboardInterrupt): abort the decode
        return True
    return False
