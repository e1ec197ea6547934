"""A private PostgreSQL server for tests and benchmarks: initdb + pg_ctl on a loopback port.

Never relies on a server already running. PostgreSQL refuses to run as root, so when the tests
run as root the server runs as ``nobody`` (its data folder handed over with chown).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["PostgresServer", "find_binaries", "postgres_server"]


def find_binaries() -> Path | None:
    """The folder holding initdb and pg_ctl (PATH first, then Debian's versioned folders)."""
    found = shutil.which("initdb")
    if found:
        return Path(os.path.realpath(found)).parent
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (candidate / "initdb").exists():
            return candidate
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    """A throwaway server: ``dsn`` to connect; ``stop()`` ends it (``immediate`` mode)."""

    def __init__(self, folder: Path, bin_dir: Path) -> None:
        self.folder = folder
        self.data = folder / "data"
        self.bin = bin_dir
        self.port = _free_port()
        self.dsn = f"postgresql://goliath@127.0.0.1:{self.port}/postgres"
        self._as_user = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []

    def _run(self, *args: str) -> None:
        subprocess.run([*self._as_user, *args], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        if self._as_user:
            os.chown(self.folder, _uid("nobody"), -1)
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-A",
            "trust",
            "-U",
            "goliath",
            "--no-sync",
            "-E",
            "UTF8",
        )
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.folder / "server.log"),
            "-w",
            "start",
        )

    def stop(self) -> None:
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            self._run(
                str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"
            )


def _uid(name: str) -> int:
    import pwd

    return pwd.getpwnam(name).pw_uid


@contextlib.contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    bin_dir = find_binaries()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    with tempfile.TemporaryDirectory(prefix="goliath-pg-") as folder:
        server = PostgresServer(Path(folder), bin_dir)
        server.start()
        try:
            yield server
        finally:
            server.stop()
