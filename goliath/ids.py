"""Conversation ids: the one rule, for ``Agent.run``, the runtime and the wire alike.

A conversation id is a non-blank string of printable characters, at most
:data:`MAX_CONVERSATION_ID` long; ``None`` is the default conversation. Ids are keys (of
actors, memory and store rows), never paths. An id that travels *inside a URL* — the daemon's
HTTP routes name conversations and turns in their paths — must also be URL-safe
(:data:`URL_SAFE_ID`): every URL-safe id follows the rule, so an id that works over HTTP works
everywhere.
"""

from __future__ import annotations

import re

from .errors import ConfigError

__all__ = ["MAX_CONVERSATION_ID", "URL_SAFE_ID", "URL_SAFE_RULE", "check_conversation_id"]

MAX_CONVERSATION_ID = 256
"""Characters a conversation id may have."""

URL_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$")
"""Conversation and turn ids in a URL path: no slashes, no dots-only tricks, at most 128 chars."""

URL_SAFE_RULE = "use 1-128 letters, digits and . _ : @ -, starting with a letter or digit"
""":data:`URL_SAFE_ID` in words, for error messages."""


def check_conversation_id(conversation_id: object) -> None:
    """Raise :class:`~goliath.errors.ConfigError` unless ``conversation_id`` follows the rule."""
    if conversation_id is None:
        return
    if not isinstance(conversation_id, str) or not conversation_id.strip():
        raise ConfigError(
            f"conversation_id must be a non-blank string (or None for the default conversation); "
            f"got {conversation_id!r}."
        )
    if len(conversation_id) > MAX_CONVERSATION_ID or not conversation_id.isprintable():
        raise ConfigError(
            f"conversation_id must be at most {MAX_CONVERSATION_ID} printable characters; "
            f"got {conversation_id[:40]!r}…"
        )
