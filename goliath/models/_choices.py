"""Log-probabilities of an enum field's options, read off the logits of one generated token.

A constrained small model's pick among names is decided by the first token of the value:
greedy decoding takes the grammar's best allowed token, and the rest of the name follows. The
same logits say how close the runner-up was. A bridge that sees its logits (llama.cpp
in-process) reads them at the token where the value of ``field`` begins and reports, for each
option, the log-probability of the tokens there that start that option (options sharing a first
token share its mass). The harness uses them to weigh a choice the model makes poorly by
generation alone (the hand-off; docs/design.md, "The hand-off decision").

Pure functions of text and a token lookup, so they are tested without a model.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

__all__ = ["ChoiceScorer", "enum_of"]


def enum_of(schema: Mapping[str, Any] | None, field: str) -> list[str]:
    """The string options of ``schema``'s top-level property ``field`` (empty when none)."""
    if not isinstance(schema, Mapping):
        return []
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return []
    spec = properties.get(field)
    if not isinstance(spec, Mapping):
        return []
    options = spec.get("enum")
    if not isinstance(options, list):
        return []
    return [option for option in options if isinstance(option, str) and option]


class ChoiceScorer:
    """Finds the token where ``field``'s value starts and scores every option there.

    Feed it each generated token's text with :meth:`observe`, passing a function that returns
    that position's log-probabilities for given token ids; after the value's first token,
    :attr:`scores` maps every option to a log-probability (``-inf`` where no token there starts
    it).

    ``token_ids(text)`` returns the ids of the tokens whose text is exactly ``text`` (a BPE
    vocabulary holds at most one or two); it is asked only about prefixes of the options.
    """

    def __init__(
        self,
        field: str,
        options: Sequence[str],
        token_ids: Callable[[str], Iterable[int]],
    ) -> None:
        self.field = field
        self.options = list(options)
        self.token_ids = token_ids
        self.scores: dict[str, float] | None = None
        self._head = re.compile(r'\s*\{\s*"' + re.escape(field) + r'"\s*:\s*"')
        self._text = ""

    @property
    def pending(self) -> bool:
        return self.scores is None and bool(self.options)

    def observe(self, piece: str, logprobs: Callable[[Sequence[int]], Sequence[float]]) -> None:
        """The next generated token's text; scores the options if the value starts in it."""
        if not self.pending:
            return
        before = self._text
        self._text = before + piece
        match = self._head.match(self._text)
        if match is None:
            if not _could_still_match(self._text, self.field):
                self.options = []  # the value is not the reply's first field: nothing to score
            return
        start = match.end()  # where the value begins in the text so far
        if start >= len(self._text):
            return  # this token ended at the opening quote; the value starts in the next one
        if start < len(before):  # pragma: no cover - the head matched earlier, scores were set
            return
        lead = self._text[len(before) : start]  # what this token writes before the value
        candidates: dict[int, set[str]] = {}
        for option in self.options:
            target = lead + option + '"'
            for end in range(len(lead) + 1, len(target) + 1):
                for token in self.token_ids(target[:end]):
                    candidates.setdefault(token, set()).add(option)
        ids = sorted(candidates)
        values = list(logprobs(ids)) if ids else []
        totals: dict[str, float] = {option: -math.inf for option in self.options}
        for token, value in zip(ids, values, strict=True):
            for option in candidates[token]:
                totals[option] = _logaddexp(totals[option], float(value))
        self.scores = totals


def _could_still_match(text: str, field: str) -> bool:
    """Whether ``text`` may still grow into ``{"field": "`` (the head is not settled yet)."""
    compact = re.sub(r"\s+", "", text)
    head = '{"' + field + '":"'
    return head.startswith(compact) or compact.startswith(head)


def _logaddexp(left: float, right: float) -> float:
    if left == -math.inf:
        return right
    if right == -math.inf:
        return left
    high = max(left, right)
    return high + math.log(math.exp(left - high) + math.exp(right - high))
