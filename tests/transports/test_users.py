"""Users: tokens bound to a conversation-id prefix, over frames (HTTP: tests/reliability).

One user cannot run in, read, confirm, cancel or forget another user's conversations or
turns; the daemon's own token still reaches everything.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import pytest
import trio

from goliath import ConfigError
from transports.client import Client, RemoteError
from transports.stream import serve_stream
from transports.users import User, Users, check_token, load_users

from .daemon_app import make_agent

ADMIN = "admin-token-000000"
ALICE = "alice-token-1111111"
BOB = "bob-token-22222222"
USERS = Users(
    [
        User(name="alice", token=ALICE, conversations="alice:"),
        User(name="bob", token=BOB, conversations="bob:"),
    ]
)


class TestUsersConfiguration:
    def test_a_user_file_in_toml_or_json_is_read(self, tmp_path: Path) -> None:
        """Tokens by value (a private file) or by SHA-256; each user found by their token."""
        import hashlib

        toml = tmp_path / "users.toml"
        digest = hashlib.sha256(BOB.encode()).hexdigest()
        toml.write_text(
            f'[[users]]\nname = "alice"\ntoken = "{ALICE}"\nconversations = "alice:"\n\n'
            f'[[users]]\nname = "bob"\ntoken_sha256 = "{digest}"\nconversations = "bob:"\n'
        )
        os.chmod(toml, 0o600)
        users = load_users(toml)
        assert [u.name for u in users.users] == ["alice", "bob"]
        alice, bob = users.authenticate(ALICE), users.authenticate(BOB)
        assert alice is not None and bob is not None
        assert (alice.name, bob.name) == ("alice", "bob")
        assert users.authenticate("nobody") is None
        assert alice.allows("alice:chat-1") and not alice.allows("bob:chat-1")
        assert not alice.allows(None)
        data = tmp_path / "users.json"
        data.write_text(
            json.dumps({"users": [{"name": "c", "token": ALICE, "conversations": "c-"}]})
        )
        os.chmod(data, 0o600)
        assert load_users(data).authenticate(ALICE) is not None

    def test_a_readable_file_with_plain_tokens_is_refused(self, tmp_path: Path) -> None:
        """Plain tokens in a file others may read: a ConfigError saying how to fix it."""
        path = tmp_path / "users.toml"
        path.write_text(f'[[users]]\nname = "a"\ntoken = "{ALICE}"\nconversations = "a:"\n')
        os.chmod(path, 0o644)
        with pytest.raises(ConfigError, match="chmod 600"):
            load_users(path)

    @pytest.mark.parametrize(
        ("users", "words"),
        [
            ([("a", ALICE, "a:"), ("a", BOB, "b:")], "same name"),
            ([("a", ALICE, "a:"), ("b", ALICE, "b:")], "same token"),
            ([("a", ALICE, "team"), ("b", BOB, "team:b")], "overlap"),
            ([("a", "   ", "a:")], "blank"),
            ([("a", "two words here", "a:")], "whitespace"),
            ([("a", ALICE, "../")], "prefix"),
        ],
    )
    def test_ambiguous_or_unsafe_users_are_refused(
        self, users: list[tuple[str, str, str]], words: str
    ) -> None:
        """Two users must never be able to reach one conversation, and no token is blank."""
        with pytest.raises(ConfigError, match=words):
            Users([User(name=n, token=t, conversations=c) for n, t, c in users])

    def test_a_users_file_is_checked_at_load_and_an_error_names_the_line(
        self, tmp_path: Path
    ) -> None:
        """A token equal to the daemon's (operator rights) and a token_sha256 no token could
        match are refused, naming the file and the user's line; a short token is accepted with
        a warning that names its line."""
        path = tmp_path / "users.toml"
        good = f'[[users]]\nname = "alice"\ntoken = "{ALICE}"\nconversations = "alice:"\n\n'
        path.write_text(
            good + f'[[users]]\nname = "op"\ntoken = "{ADMIN}"\nconversations = "op:"\n'
        )
        os.chmod(path, 0o600)
        with pytest.raises(ConfigError, match=r"users.toml, line 6: .*'op' has the daemon's own"):
            load_users(path, daemon_token=ADMIN)
        assert len(load_users(path)) == 2  # without a daemon token to compare, both load
        path.write_text(
            good + '\n[[users]]\nname = "b"\ntoken_sha256 = "not-hex"\nconversations = "b:"\n'
        )
        with pytest.raises(ConfigError, match=r"line 7: user 'b': token_sha256 must be the 64"):
            load_users(path)
        path.write_text(good + '[[users]]\nname = "s"\ntoken = "short"\nconversations = "s:"\n')
        warned: list[str] = []
        users = load_users(path, daemon_token=ADMIN, warn=warned.append)
        assert users.authenticate("short") is not None
        assert warned == [f"{path}, line 6: the token of user 's' is 5 characters; use at least 16"]
        data = tmp_path / "users.json"
        entries = [
            {"name": "a", "token": ALICE, "conversations": "a:"},
            {"name": "b", "token_sha256": "a" * 63, "conversations": "b:"},
        ]
        data.write_text(json.dumps({"users": entries}, indent=2))  # b's name is on line 9
        os.chmod(data, 0o600)
        with pytest.raises(ConfigError, match=r"users.json, line 9: user 'b'"):
            load_users(data)

    def test_goliath_serve_refuses_a_user_holding_its_own_token(self) -> None:
        """``--users MODULE:ATTR`` of the app's own is checked too: no user is the operator."""
        from transports.serve_command import _users

        with pytest.raises(ConfigError, match="daemon's own token"):
            _users("tests.transports.test_users:USERS", ALICE)
        assert _users("tests.transports.test_users:USERS", ADMIN) is USERS

    @pytest.mark.parametrize("token", ["", " ", "\t\n", "a b", "tok\x00en"])
    def test_a_blank_or_unsendable_daemon_token_is_refused(self, token: str) -> None:
        """GOLIATH_TOKEN="" must never mean 'no auth', nor whitespace 'nobody gets in'."""
        with pytest.raises(ConfigError):
            check_token(token, "GOLIATH_TOKEN")


@pytest.fixture
def socket_dir() -> object:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="gl", dir="/tmp") as directory:
        yield Path(directory)


async def test_over_tcp_frames_one_user_cannot_touch_anothers_conversations_or_turns() -> None:
    """Bob is refused Alice's conversation (forbidden), and her turn is unknown to him: he can
    neither see, cancel nor confirm it, nor read or forget her memory; Alice and the daemon's
    token can."""
    created: list[str] = []
    agent = make_agent(created)
    async with agent, trio.open_nursery() as nursery:
        host, port = await nursery.start(
            functools.partial(serve_stream, agent.runtime, port=0, token=ADMIN, users=USERS)
        )
        async with (
            Client.stream(host=host, port=port, token=ALICE) as alice,
            Client.stream(host=host, port=port, token=BOB) as bob,
            Client.stream(host=host, port=port, token=ADMIN) as admin,
        ):
            assert (await alice.run("hello", conversation_id="alice:1", turn_id="a-1")).text == (
                "answer to hello"
            )
            with pytest.raises(RemoteError) as caught:
                await bob.run("hello", conversation_id="alice:1")
            assert caught.value.code == "forbidden" and "bob" in caught.value.message
            with pytest.raises(RemoteError, match="default conversation"):
                await bob.run("hello")
            for attempt in (bob.turn("a-1"),):
                with pytest.raises(RemoteError) as caught:
                    await attempt
                assert caught.value.code == "not_found"
            for attempt in (bob.memory("alice:1"), bob.forget("alice:1")):
                with pytest.raises(RemoteError) as caught:
                    await attempt
                assert caught.value.code == "forbidden"

            asked = trio.Event()
            call: list[str] = []

            async def run_write() -> None:
                def confirm(request: object) -> bool:
                    call.append(request.call_id)  # type: ignore[attr-defined]
                    asked.set()
                    return False

                await alice.run(
                    "add jam", conversation_id="alice:2", turn_id="a-2", confirm=confirm
                )

            async with trio.open_nursery() as inner:
                inner.start_soon(run_write)
                await asked.wait()
            for attempt in (bob.cancel("a-2"), bob.confirm("a-2", call[0], True)):
                with pytest.raises(RemoteError) as caught:
                    await attempt
                assert caught.value.code in ("forbidden", "not_found")
            assert created == []
            assert [e.ask for e in (await alice.memory("alice:1")).recent] == ["hello"]
            assert (await admin.turn("alice:a-1")).status == "done"  # a user's ids are scoped
            assert [e.ask for e in (await admin.memory("alice:1")).recent] == ["hello"]
            assert (await bob.run("hi", conversation_id="bob:x")).text == "answer to hi"
            # Alice's turn id is not Bob's to refuse: his run with it is his own turn
            theirs = await bob.run("yo", conversation_id="bob:x", turn_id="a-1")
            assert (theirs.text, theirs.turn_id) == ("answer to yo", "a-1")
        nursery.cancel_scope.cancel()


async def test_a_wrong_token_opens_nothing_even_on_a_unix_socket(socket_dir: Path) -> None:
    """On the 0600 Unix socket a first Hello with a user's token narrows the connection to
    that user; an unknown token is refused rather than falling back to full access."""
    path = str(socket_dir / "frames.sock")
    agent = make_agent()
    async with agent, trio.open_nursery() as nursery:
        await nursery.start(functools.partial(serve_stream, agent.runtime, path=path, users=USERS))
        async with Client.stream(path=path, token=BOB) as bob:
            with pytest.raises(RemoteError) as caught:
                await bob.run("hello", conversation_id="alice:1")
            assert caught.value.code == "forbidden"
        async with Client.stream(path=path, token="not-a-known-token") as stranger:
            with pytest.raises(Exception, match="unauthorized"):
                await stranger.run("hello", conversation_id="alice:1")
        async with Client.stream(path=path) as local:
            assert (await local.run("hi", conversation_id="alice:1")).text == "answer to hi"
        nursery.cancel_scope.cancel()


class TestDaemonToken:
    def test_a_token_on_the_command_line_is_warned_about_and_never_printed(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """--token shows in `ps` to every user of the machine: the daemon says so, and prints
        nothing of the token itself; GOLIATH_TOKEN is taken without a warning."""
        import argparse
        import io

        from transports.serve_command import resolve_token

        said = io.StringIO()
        args = argparse.Namespace(token=ADMIN, token_file=None, socket=None)
        assert resolve_token(args, err=said) == ADMIN
        assert "visible" in said.getvalue() and ADMIN not in said.getvalue()
        quiet = io.StringIO()
        monkeypatch.setenv("GOLIATH_TOKEN", ALICE)
        args = argparse.Namespace(token=None, token_file=None, socket=None)
        assert resolve_token(args, err=quiet) == ALICE
        assert quiet.getvalue() == ""

    def test_a_token_file_is_made_private_once_and_a_readable_one_refused(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """--token-file PATH: made with a fresh token (0600) when missing, read as is after;
        a file others may read is a ConfigError saying `chmod 600`."""
        import argparse
        import io

        from transports.serve_command import resolve_token

        path = tmp_path / "secret" / "token"
        args = argparse.Namespace(token=None, token_file=str(path), socket=None)
        monkeypatch.delenv("GOLIATH_TOKEN", raising=False)
        first = resolve_token(args, err=io.StringIO())
        assert first is not None and os.stat(path).st_mode & 0o777 == 0o600
        assert resolve_token(args, err=io.StringIO()) == first
        os.chmod(path, 0o644)
        with pytest.raises(ConfigError, match="chmod 600"):
            resolve_token(args, err=io.StringIO())


async def test_the_daemons_frame_socket_takes_the_operator_a_user_or_no_hello(
    socket_dir: Path,
) -> None:
    """As `goliath serve --users` serves it (token given, Hello not required): no Hello and a
    Hello with the daemon's token reach everything, a user's Hello narrows the connection, an
    unknown token is refused. (The daemon's own token was refused on its frame socket.)"""
    path = str(socket_dir / "frames.sock")
    agent = make_agent()
    async with agent, trio.open_nursery() as nursery:
        await nursery.start(
            functools.partial(
                serve_stream,
                agent.runtime,
                path=path,
                token=ADMIN,
                users=USERS,
                require_hello=False,
            )
        )
        async with Client.stream(path=path, token=ADMIN) as admin:
            assert (await admin.run("hi", conversation_id="bob:1")).text == "answer to hi"
        async with Client.stream(path=path) as local:
            assert (await local.memory("bob:1")).recent[0].ask == "hi"
        async with Client.stream(path=path, token=ALICE) as alice:
            with pytest.raises(RemoteError) as caught:
                await alice.memory("bob:1")
            assert caught.value.code == "forbidden"
        async with Client.stream(path=path, token="not-a-known-token") as stranger:
            with pytest.raises(Exception, match="unauthorized"):
                await stranger.memory("bob:1")
        nursery.cancel_scope.cancel()
