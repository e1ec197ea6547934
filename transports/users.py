"""Users of a daemon: tokens bound to a name and a conversation-id prefix.

One bearer token for everything is fine for one person; a front-end serving several people
gives each a token of their own, bound to the conversations whose ids start with their prefix.
With a user's token a request can run, read, confirm, cancel and forget only that user's
conversations and turns: another user's conversation is refused (403), another user's turn is
unknown (404), so nothing of it leaks. The daemon's own token (``--token``) stays the
operator's and may touch everything. ``docs/security.md`` gives the threat model.

Users come from a file (``goliath serve --users users.toml``; TOML or JSON)::

    [[users]]
    name = "alice"
    token_sha256 = "9f86d08..."   # or token = "..." (then keep the file 0600)
    conversations = "alice:"

or from the app: ``serve_agent(..., users=Users([User(name=..., token=..., conversations=...)]))``
— or any object with ``authenticate(token) -> Access | None`` (a function of the app's own).
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import os
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

import attrs

from actors.runtime import Access
from goliath.errors import ConfigError
from goliath.ids import URL_SAFE_ID

__all__ = ["MIN_TOKEN_CHARS", "Authenticator", "User", "Users", "check_token", "load_users"]

MIN_TOKEN_CHARS = 16
"""Tokens shorter than this are accepted with a warning; a blank one is refused."""


class Authenticator(Protocol):
    """Who a bearer token belongs to (``None``: nobody)."""

    def authenticate(self, token: str) -> Access | None: ...


def check_token(token: str, where: str) -> str:
    """A token as given, or a :class:`ConfigError` saying why it cannot be one."""
    if not token.strip():
        raise ConfigError(
            f"{where} is set but blank: a blank token would let anyone in (or no one). "
            f"Set a token of at least {MIN_TOKEN_CHARS} characters, or leave it unset to have "
            "one generated."
        )
    if any(character.isspace() or not character.isprintable() for character in token):
        raise ConfigError(
            f"{where} contains whitespace or control characters; a bearer token is one word "
            "of printable characters (no client could send it)."
        )
    return token


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@attrs.frozen(kw_only=True)
class User:
    """A token's owner: ``name`` (for messages and logs) and the ``conversations`` prefix.

    Give ``token`` (kept only as its SHA-256) or ``token_sha256``.
    """

    name: str
    conversations: str
    token_sha256: str = ""
    token: str = attrs.field(default="", repr=False)

    def __attrs_post_init__(self) -> None:
        if not self.name.strip():
            raise ConfigError("a user needs a name")
        if not self.conversations or not URL_SAFE_ID.match(self.conversations + "x"):
            raise ConfigError(
                f"user {self.name!r}: conversations must be a prefix of URL-safe ids, such as "
                f"'{self.name}:' (letters, digits and . _ : @ -); got {self.conversations!r}"
            )
        if self.token:
            check_token(self.token, f"the token of user {self.name!r}")
            object.__setattr__(self, "token_sha256", _digest(self.token))
            object.__setattr__(self, "token", "")
        if len(self.token_sha256) != 64:
            raise ConfigError(f"user {self.name!r} needs a token (or its 64-digit token_sha256)")

    def allows(self, conversation_id: str | None) -> bool:
        """Only the user's own conversations (never the default one)."""
        return conversation_id is not None and conversation_id.startswith(self.conversations)


class Users:
    """The users a daemon knows, found by token in constant time per user."""

    def __init__(self, users: Iterable[User]) -> None:
        self.users = tuple(users)
        names = [user.name for user in self.users]
        if len(set(names)) != len(names):
            raise ConfigError("two users have the same name")
        digests = [user.token_sha256 for user in self.users]
        if len(set(digests)) != len(digests):
            raise ConfigError("two users have the same token")
        prefixes = sorted(user.conversations for user in self.users)
        for shorter, longer in itertools.pairwise(prefixes):
            if longer.startswith(shorter):
                raise ConfigError(
                    f"the conversation prefixes {shorter!r} and {longer!r} overlap: one user "
                    "could reach the other's conversations"
                )

    def authenticate(self, token: str) -> User | None:
        digest = _digest(token)
        found = None
        for user in self.users:  # compare with every user: the time says nothing of who
            if hmac.compare_digest(digest, user.token_sha256):
                found = user
        return found

    def __len__(self) -> int:
        return len(self.users)


def load_users(path: str | os.PathLike[str]) -> Users:
    """Users from a TOML or JSON file: ``{"users": [{"name", "conversations", "token" |
    "token_sha256"}]}``. A file holding plain tokens must not be readable by others."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the users file {file}: {exc}") from exc
    try:
        data: Any = json.loads(text) if file.suffix == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"the users file {file} is not valid: {exc}") from exc
    entries = data.get("users") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ConfigError(f"the users file {file} needs a list of users (`[[users]]`)")
    users = []
    for entry in entries:
        if not isinstance(entry, dict) or not set(entry) <= {
            "name",
            "conversations",
            "token",
            "token_sha256",
        }:
            raise ConfigError(
                f"{file}: each user has name, conversations and token (or token_sha256); "
                f"got {entry!r}"
            )
        users.append(User(**{key: str(value) for key, value in entry.items()}))
    if any("token" in entry for entry in entries) and os.stat(file).st_mode & 0o077:
        raise ConfigError(
            f"{file} holds plain tokens and others may read it: `chmod 600 {file}`, or give "
            "token_sha256 instead"
        )
    return Users(users)
