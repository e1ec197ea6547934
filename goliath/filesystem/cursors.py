"""Paging cursors: opaque JSON text a model copies from one result to the next.

A cursor is ``{"query", "after", "position", "revision"}``: ``query`` binds it to the query
that produced it (a short digest of ``["read", path]`` or ``[kind, root, pattern,
ignore_case]``, so a cursor pasted into another query is refused), ``after`` is the last path
completed, ``position`` a character offset inside the file being read or searched, and
``revision`` that file's revision, so a cursor into a file that changed meanwhile is refused
rather than silently skipping or repeating text. Decoding is strict: unknown fields, wrong
types and negative positions are errors.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any

import msgspec

from .errors import InvalidCursorError

__all__ = ["MAX_CURSOR_CHARS", "Cursor", "decode_cursor", "encode_cursor", "query_key"]

MAX_CURSOR_CHARS = 4096
"""Longest cursor accepted, in characters."""


class Cursor(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """Where a paged query stopped."""

    query: str
    after: str = ""
    position: Annotated[int, msgspec.Meta(ge=0)] = 0
    revision: str = ""


_decoder = msgspec.json.Decoder(Cursor)


def query_key(*parts: Any) -> str:
    """A short digest naming one query; cursors carry it instead of the whole query text."""
    text = json.dumps(list(parts), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def encode_cursor(cursor: Cursor) -> str:
    """The cursor as compact JSON text."""
    return msgspec.json.encode(cursor).decode("utf-8")


def decode_cursor(value: str | None, query: str) -> Cursor:
    """The cursor in ``value`` for ``query``; a fresh one when ``value`` is empty.

    Raises:
        InvalidCursorError: ``value`` is too long, not a cursor, or from another query.
    """
    if not value:
        return Cursor(query=query)
    if len(value) > MAX_CURSOR_CHARS:
        raise InvalidCursorError(
            f"The cursor is {len(value)} characters long (limit {MAX_CURSOR_CHARS}); copy "
            "next_cursor exactly, or omit cursor to start over"
        )
    try:
        cursor = _decoder.decode(value)
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise InvalidCursorError(
            "The cursor is not valid; copy next_cursor exactly from the previous result, or omit "
            "cursor to start over"
        ) from None
    if cursor.query != query:
        raise InvalidCursorError(
            "The cursor belongs to a different query; repeat the same arguments with it, or omit "
            "cursor to start over"
        )
    return cursor
