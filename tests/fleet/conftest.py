"""A private PostgreSQL server for the fleet tests (one per session, a database per test)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.postgres import PostgresServer, find_binaries, postgres_server

if find_binaries() is None:  # pragma: no cover - the machine ships them
    pytest.skip("needs PostgreSQL server binaries (initdb, pg_ctl)", allow_module_level=True)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    with postgres_server() as server:
        yield server


@pytest.fixture
def pg_dsn(postgres: PostgresServer) -> str:
    """A fresh, empty database on the private server."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres.dsn, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    return postgres.dsn.rsplit("/", 1)[0] + f"/{name}"
