"""The answer stage: the closing reply, prose or structured, and the best-effort reply.

Prose gets one re-ask when it comes back empty (the nudge); a structured answer gets one retry
with the validation error when its JSON does not match the schema. Neither is retried after a
provider failure: a failing small model is not asked the same thing twice.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

import pydantic

from .._origin import origin_of
from ..classify import is_invalid_output
from ..errors import InvalidOutputError
from ..schema import compact_schema
from .generation import ModelCaller
from .prompts import EMPTY_ANSWER_NUDGE, structured_correction

__all__ = ["AnswerInvalid", "compose_answer"]

PromptBuilder = Callable[[tuple[str, ...], bool], str]


class AnswerInvalid(Exception):
    """Internal: the structured answer failed validation twice."""


def _parse(output_schema: type[pydantic.BaseModel], text: str) -> Any:
    try:
        return output_schema.model_validate_json(text, strict=False)
    except pydantic.ValidationError as error:
        raise InvalidOutputError(
            f"answer does not match {output_schema.__name__}: {error}"
        ) from error
    except ValueError as error:
        raise InvalidOutputError(f"answer is not JSON: {error}") from error


async def compose_answer(
    caller: ModelCaller,
    *,
    system: str,
    prompt: PromptBuilder,
    output_schema: type[pydantic.BaseModel] | None,
    nudge_when_empty: bool,
) -> tuple[str, Any]:
    """Generate the answer; returns ``(text, output)`` (output only with a schema).

    Raises :class:`AnswerInvalid` after two invalid structured replies; provider failures other
    than malformed structured output propagate (tagged ``model``).
    """
    if output_schema is None:
        generation = await caller.call("answer", system, lambda c: prompt((), c), compactable=True)
        text = generation.text.strip()
        if not text and nudge_when_empty:
            generation = await caller.call(
                "answer", system, lambda c: prompt((EMPTY_ANSWER_NUDGE,), c), compactable=True
            )
            text = generation.text.strip()
        return text, None

    schema = compact_schema(output_schema)
    notes: tuple[str, ...] = ()
    for _attempt in range(2):
        try:
            generation = await caller.call(
                "answer", system, functools.partial(prompt, notes), schema, compactable=True
            )
            text = generation.text.strip()
            if not text:
                return "", None
            return text, _parse(output_schema, text)
        except Exception as exc:
            if not (isinstance(exc, InvalidOutputError) or origin_of(exc) == "model"):
                raise
            if not is_invalid_output(exc):
                raise
            notes = (structured_correction(str(exc).splitlines()[0]),)
    raise AnswerInvalid()


def schema_text(output_schema: type[pydantic.BaseModel]) -> str:
    return json.dumps(compact_schema(output_schema))
