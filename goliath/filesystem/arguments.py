"""Parameter models of the filesystem tools: the JSON Schemas the arguments stage fills.

Descriptions are short and concrete because a small model reads them on every arguments call.
Bounds live in the schema (so guided generation respects them) and in validators whose
messages say the allowed range, because those messages are what a model sees when it errs.
"""

from __future__ import annotations

from typing import Annotated, Any

import pydantic
from pydantic import AfterValidator, Field

from .errors import InvalidArgumentError

__all__ = [
    "DeleteFileArgs",
    "EditFileArgs",
    "GlobArgs",
    "GrepArgs",
    "WriteFileArgs",
    "parse_arguments",
    "read_args_model",
]

_CURSOR_TEXT = "Copy next_cursor from the previous result to continue. Omit on the first call."
Cursor = Annotated[str | None, Field(None, max_length=4096, description=_CURSOR_TEXT)]


def parse_arguments(model: type[pydantic.BaseModel], args: dict[str, Any]) -> Any:
    """Validate arguments (again, for direct calls) with errors short enough for a step."""
    try:
        return model.model_validate(args)
    except pydantic.ValidationError as error:
        parts = []
        for item in error.errors(include_url=False):
            where = ".".join(str(part) for part in item.get("loc", ())) or "arguments"
            message = str(item.get("msg", "invalid")).removeprefix("Value error, ")
            parts.append(message if message.startswith(where) else f"{where}: {message}")
        raise InvalidArgumentError("; ".join(parts)) from None


class GlobArgs(pydantic.BaseModel):
    pattern: str = Field(
        description="Absolute pattern such as /notes/*.md or /**/*.md; * matches within a name, "
        "** across folders."
    )
    cursor: Cursor = None


class GrepArgs(pydantic.BaseModel):
    pattern: str = Field(
        min_length=1,
        max_length=256,
        description="Literal text to find, such as greenhouse. Not a file path or regex.",
    )
    path: str | None = Field(
        None, description="File or folder to search, such as /notes. Omit to search all files."
    )
    ignore_case: bool | None = Field(None, description="Ignore case (default true).")
    cursor: Cursor = None


def read_args_model(max_lines: int, default_lines: int) -> type[pydantic.BaseModel]:
    """``read_file`` parameters; ``limit`` is bounded by this filesystem's ``max_lines``."""

    def check_limit(value: int | None) -> int | None:
        if value is not None and not 1 <= value <= max_lines:
            raise ValueError(
                f"limit must be between 1 and {max_lines} lines, got {value}; read further "
                "with next_cursor"
            )
        return value

    def check_offset(value: int | None) -> int | None:
        if value is not None and value < 0:
            raise ValueError(f"offset counts lines from 0 and cannot be negative, got {value}")
        return value

    limit_text = f"Lines to read, 1 to {max_lines} (default {default_lines})."
    return pydantic.create_model(
        "ReadFileArgs",
        path=(str, Field(description="Absolute file path, such as /notes/today.md.")),
        offset=(
            Annotated[int | None, AfterValidator(check_offset)],
            Field(
                None,
                description="Zero-based line to start at. Omit to start at the beginning.",
                json_schema_extra={"minimum": 0},
            ),
        ),
        limit=(
            Annotated[int | None, AfterValidator(check_limit)],
            Field(
                None,
                description=limit_text,
                json_schema_extra={"minimum": 1, "maximum": max_lines},
            ),
        ),
        cursor=(Cursor, None),
    )


class WriteFileArgs(pydantic.BaseModel):
    path: str = Field(description="Absolute file path, such as /notes/idea.md.")
    content: str = Field(description="The complete new content of the file.")
    revision: str | None = Field(
        None,
        description="Current revision from read_file, to replace an existing file. Omit to "
        "create a new file.",
    )


class EditFileArgs(pydantic.BaseModel):
    path: str = Field(description="Absolute file path, such as /notes/idea.md.")
    revision: str = Field(min_length=1, description="Current revision of the file from read_file.")
    old_text: str = Field(min_length=1, description="Exact text to replace; must occur once.")
    new_text: str = Field(description="The replacement text.")


class DeleteFileArgs(pydantic.BaseModel):
    path: str = Field(description="Absolute path of the file to delete.")
    revision: str = Field(min_length=1, description="Current revision of the file from read_file.")
