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
import re
import tomllib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

import attrs

from actors.runtime import Access
from goliath.errors import ConfigError
from goliath.ids import URL_SAFE_ID

__all__ = [
    "MIN_TOKEN_CHARS",
    "Authenticator",
    "UnknownToken",
    "User",
    "Users",
    "check_token",
    "holder_of",
    "load_users",
]

MIN_TOKEN_CHARS = 16
"""Tokens shorter than this are accepted with a warning; a blank one is refused."""
SHA256_HEX = re.compile(r"[0-9a-fA-F]{64}")
_ENTRY_LINE = re.compile(r"^[ \t]*\[\[\s*users\s*\]\]|[\"']?\bname[\"']?\s*[:=]", re.MULTILINE)


class Authenticator(Protocol):
    """Who a bearer token belongs to (``None``: nobody)."""

    def authenticate(self, token: str) -> Access | None: ...


class UnknownToken(Exception):
    """A token that is neither the daemon's own nor a user's (each edge says how to send one)."""


def holder_of(presented: str, token: str | None, users: Authenticator | None) -> Access | None:
    """Who a token an edge was given belongs to: ``None`` for the daemon's own ``token`` (the
    operator, who reaches everything), else the user ``users`` knows it as.

    The one token check of every edge (an HTTP bearer token, a frame socket's ``Hello``); the
    daemon's token is compared in constant time. Raises :class:`UnknownToken`.
    """
    if token is not None and hmac.compare_digest(presented.encode(), token.encode()):
        return None
    user = users.authenticate(presented) if users is not None else None
    if user is None:
        raise UnknownToken
    return user


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
        if not self.token_sha256:
            raise ConfigError(f"user {self.name!r} needs a token (or its 64-digit token_sha256)")
        if not SHA256_HEX.fullmatch(self.token_sha256):
            raise ConfigError(
                f"user {self.name!r}: token_sha256 must be the 64 hexadecimal digits of the "
                f"token's SHA-256 (`printf %s TOKEN | sha256sum`); got "
                f"{len(self.token_sha256)} characters {self.token_sha256[:12]!r}… — no token "
                "could ever match it"
            )
        object.__setattr__(self, "token_sha256", self.token_sha256.lower())

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


def load_users(
    path: str | os.PathLike[str],
    *,
    daemon_token: str | None = None,
    warn: Callable[[str], None] | None = None,
) -> Users:
    """Users from a TOML or JSON file: ``{"users": [{"name", "conversations", "token" |
    "token_sha256"}]}``. A file holding plain tokens must not be readable by others.

    Every user is checked as the file is read, and an error names the file and the line of
    that user: a malformed entry or ``token_sha256`` (which no token could match), and a token
    equal to ``daemon_token`` (that user would get the operator's rights). A plain token
    shorter than :data:`MIN_TOKEN_CHARS` is accepted, with a ``warn`` naming its line.
    """
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
    lines = _entry_lines(text, len(entries))
    daemon_digest = _digest(daemon_token) if daemon_token else None
    users = []
    for number, (entry, line) in enumerate(zip(entries, lines, strict=True), start=1):
        where = f"{file}, line {line}" if line else f"{file}, user {number}"
        if not isinstance(entry, dict) or not set(entry) <= {
            "name",
            "conversations",
            "token",
            "token_sha256",
        }:
            raise ConfigError(
                f"{where}: each user has name, conversations and token (or token_sha256); "
                f"got {entry!r}"
            )
        try:
            user = User(**{key: str(value) for key, value in entry.items()})
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        if daemon_digest is not None and hmac.compare_digest(user.token_sha256, daemon_digest):
            raise ConfigError(
                f"{where}: user {user.name!r} has the daemon's own token, which reaches every "
                "conversation; give each user a token of their own"
            )
        token = entry.get("token")
        if warn is not None and token is not None and len(str(token)) < MIN_TOKEN_CHARS:
            warn(
                f"{where}: the token of user {user.name!r} is {len(str(token))} characters; "
                f"use at least {MIN_TOKEN_CHARS}"
            )
        users.append(user)
    if any("token" in entry for entry in entries) and os.stat(file).st_mode & 0o077:
        raise ConfigError(
            f"{file} holds plain tokens and others may read it: `chmod 600 {file}`, or give "
            "token_sha256 instead"
        )
    try:
        return Users(users)
    except ConfigError as exc:
        raise ConfigError(f"{file}: {exc}") from None


def _entry_lines(text: str, count: int) -> list[int]:
    """The line where each of ``count`` users starts (its ``[[users]]`` header, else its
    ``name``); ``0`` where it cannot be told (the error then counts users instead)."""
    headers = [m for m in _ENTRY_LINE.finditer(text) if m.group(0).lstrip().startswith("[[")]
    found = headers if len(headers) == count else list(_ENTRY_LINE.finditer(text))
    if len(found) != count:
        return [0] * count
    return [text.count("\n", 0, match.start()) + 1 for match in found]
