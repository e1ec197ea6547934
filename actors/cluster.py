"""Scale-out: shard ownership on PostgreSQL, and where a conversation's requests go.

A fleet splits conversations over a fixed number of virtual shards
(``crc32(conversation_id) % shards``). A node owns a shard while its lock connection holds a
PostgreSQL session advisory lock on it; each claim bumps the shard's epoch, the fencing token
every memory and turn write must match. When a node dies its session ends and its locks vanish
with it: the others see the shards free at their next tick (``interval`` seconds — the
detection time), claim them with epoch + 1, and report the dead node's unfinished turns as
interrupted. Live nodes are the sessions holding a lock connection, so a fair share
``ceil(shards / nodes)`` is exact at every tick; a node over its share hands shards over by
draining them. LISTEN/NOTIFY only wakes nodes early; the tables are the truth.
"""

from __future__ import annotations

import functools
import logging
import math
import random
import time
from collections.abc import Callable
from typing import Any

import attrs
import trio

from .store import Fence
from .store_postgres import DEFAULT_SHARDS, PostgresStore, shard_of

__all__ = ["Cluster", "ClusterStatistics"]

logger = logging.getLogger("goliath.cluster")

LOCK_CLASS = 0x60A1
"""First key of the two-key advisory locks, so Goliath's locks never collide with an app's."""
CHANNEL = "goliath_cluster"
APP_PREFIX = "goliath-node:"


@attrs.frozen
class ClusterStatistics:
    node: str
    owned: int
    nodes: int
    target: int
    claims: int
    releases: int


class Cluster:
    """This node's membership in the fleet.

    Args:
        store: the fleet's :class:`PostgresStore` (shared tables, shard count).
        node_id: this node's unique name.
        url: where other nodes reach this node's HTTP API (requests are forwarded there).
        interval: seconds between ownership checks; how fast a dead node's shards move.
        drain_grace: seconds a shard being handed over may take to finish its running turns.
    """

    def __init__(
        self,
        store: PostgresStore,
        *,
        node_id: str,
        url: str,
        interval: float = 1.0,
        drain_grace: float = 10.0,
    ) -> None:
        self.store = store
        self.dsn = store.dsn
        self.shards = store.shards if store.shards else DEFAULT_SHARDS
        self.node_id = node_id
        self.url = url.rstrip("/")
        self.interval = interval
        self.drain_grace = drain_grace
        self.owned: dict[int, int] = {}  # shard -> epoch held
        self.releasing: set[int] = set()
        self.owners: dict[int, tuple[str | None, str | None]] = {}  # shard -> (node, url)
        self.nodes = 1
        self.claims = 0
        self.releases = 0
        self.ready = trio.Event()
        self._wake = trio.Event()
        self._lock_connection: Any = None
        self._listen_connection: Any = None
        self._lock_guard = trio.Lock()
        self.on_claim: Callable[[int, int], Any] | None = None  # async (shard, epoch) -> None
        self.on_release: Callable[[int], Any] | None = None  # async (shard) -> None

    # ---------------------------------------------------------------- routing

    def shard(self, conversation_id: str | None) -> int:
        return shard_of(conversation_id, self.shards)

    def fence(self, conversation_id: str | None) -> Fence:
        """The fence for a write of this conversation; a shard not owned gets a dead epoch."""
        shard = self.shard(conversation_id)
        epoch = self.owned.get(shard)
        return (shard, epoch if epoch is not None and shard not in self.releasing else -1)

    def is_local(self, conversation_id: str | None) -> bool:
        shard = self.shard(conversation_id)
        return shard in self.owned and shard not in self.releasing

    def owner_url(self, conversation_id: str | None) -> str | None:
        """Where to forward this conversation's requests (``None``: no owner right now)."""
        node, url = self.owners.get(self.shard(conversation_id), (None, None))
        if node is None or node == self.node_id:
            return None
        return url

    def statistics(self) -> ClusterStatistics:
        return ClusterStatistics(
            node=self.node_id,
            owned=len(self.owned),
            nodes=self.nodes,
            target=self.target(),
            claims=self.claims,
            releases=self.releases,
        )

    def target(self) -> int:
        return math.ceil(self.shards / max(1, self.nodes))

    # ---------------------------------------------------------------- database calls

    def _connect(self, role: str) -> Any:
        import psycopg

        return psycopg.connect(
            self.dsn, autocommit=True, application_name=f"{APP_PREFIX}{self.node_id}:{role}"
        )

    async def _locked(self, work: Callable[[Any], Any]) -> Any:
        """Run ``work`` on the lock connection (its session holds this node's shard locks)."""
        async with self._lock_guard:
            if self._lock_connection is None:
                self._lock_connection = await trio.to_thread.run_sync(self._connect, "locks")
            return await trio.to_thread.run_sync(work, self._lock_connection)

    # ---------------------------------------------------------------- the membership loop

    async def serve(
        self, *, task_status: trio.TaskStatus[Cluster] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Join the fleet, keep a fair share of shards, and leave cleanly when cancelled."""
        await self.store.open()
        self._lock_connection = await trio.to_thread.run_sync(self._connect, "locks")
        await trio.to_thread.run_sync(self._register)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._listen)
                await self._tick()
                self.ready.set()
                task_status.started(self)
                while True:
                    with trio.move_on_after(self.interval):
                        await self._wake.wait()
                    self._wake = trio.Event()
                    await self._tick()
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(self.drain_grace + 5):
                await self._leave()

    def _register(self) -> None:
        self._lock_connection.execute(
            "INSERT INTO goliath_nodes (node, url, seen_at) VALUES (%s, %s, %s) "
            "ON CONFLICT (node) DO UPDATE SET url = excluded.url, seen_at = excluded.seen_at",
            (self.node_id, self.url, time.time()),
        )
        self._lock_connection.execute(f"NOTIFY {CHANNEL}, 'join'")

    async def _listen(self) -> None:
        """Wake the loop on NOTIFY (an optimisation: missing one only delays a tick)."""
        connection = await trio.to_thread.run_sync(self._connect, "listen")
        self._listen_connection = connection
        try:
            await trio.to_thread.run_sync(connection.execute, f"LISTEN {CHANNEL}")
            socket = connection.pgconn.socket
            while True:
                await trio.lowlevel.wait_readable(socket)
                connection.pgconn.consume_input()
                woke = False
                while connection.pgconn.notifies() is not None:
                    woke = True
                if woke:
                    self._wake.set()
        finally:
            connection.close()

    async def _tick(self) -> None:
        """One ownership check; a database failure steps this node down instead of crashing."""
        try:
            await self._check()
        except Exception as exc:
            import psycopg

            if not isinstance(exc, psycopg.Error):
                raise
            logger.warning("node %s lost the database (%s); stepping down", self.node_id, exc)
            await self._step_down()

    async def _check(self) -> None:
        view = await self._locked(self._survey)
        if view is None:  # the lock connection died: every lock is gone, so step down
            await self._step_down()
            return
        live_nodes, held, owners = view
        self.nodes = max(1, len(live_nodes))
        self.owners = owners
        # shards we think we own but whose lock our session no longer holds: lost
        lost = [shard for shard in self.owned if shard not in held.get(self.node_id, set())]
        for shard in lost:
            self.owned.pop(shard, None)
        target = self.target()
        free = [s for s in range(self.shards) if not any(s in locks for locks in held.values())]
        random.shuffle(free)
        claimed = False
        for shard in free:
            if len(self.owned) >= target:
                break
            epoch = await self._locked(functools.partial(self._claim, shard=shard))
            if epoch is not None:
                try:  # recover the shard's interrupted turns before serving any new one
                    if self.on_claim is not None:
                        await self.on_claim(shard, epoch)
                finally:
                    self.owned[shard] = epoch
                    self.owners[shard] = (self.node_id, self.url)
                    self.claims += 1
                    claimed = True
        extra = len(self.owned) - target
        if extra > 0 and free == []:  # only give shards up when nobody is left without work
            for shard in sorted(self.owned, reverse=True)[:extra]:
                await self._release(shard)
        if claimed or extra > 0:
            await self._locked(lambda c: c.execute(f"NOTIFY {CHANNEL}, 'moved'"))

    def _survey(
        self, connection: Any
    ) -> tuple[set[str], dict[str, set[int]], dict[int, tuple[str | None, str | None]]] | None:
        try:
            sessions = connection.execute(
                "SELECT a.application_name, l.objid FROM pg_stat_activity a "
                "LEFT JOIN pg_locks l ON l.pid = a.pid AND l.locktype = 'advisory' "
                "AND l.classid = %s AND l.granted "
                "WHERE a.application_name LIKE %s",
                (LOCK_CLASS, APP_PREFIX + "%:locks"),
            ).fetchall()
            rows = connection.execute(
                "SELECT s.shard, s.owner, n.url FROM goliath_shards s "
                "LEFT JOIN goliath_nodes n ON n.node = s.owner"
            ).fetchall()
        except Exception:
            return None
        live: set[str] = set()
        held: dict[str, set[int]] = {}
        for application, objid in sessions:
            node = application[len(APP_PREFIX) : -len(":locks")]
            live.add(node)
            if objid is not None:
                held.setdefault(node, set()).add(int(objid))
        owners = {int(shard): (owner if owner in live else None, url) for shard, owner, url in rows}
        return live, held, owners

    def _claim(self, connection: Any, shard: int) -> int | None:
        """Take the shard's lock and bump its epoch; ``None`` when another node was faster."""
        got = connection.execute(
            "SELECT pg_try_advisory_lock(%s, %s)", (LOCK_CLASS, shard)
        ).fetchone()[0]
        if not got:
            return None
        row = connection.execute(
            "UPDATE goliath_shards SET owner = %s, url = %s, epoch = epoch + 1, claimed_at = %s "
            "WHERE shard = %s RETURNING epoch",
            (self.node_id, self.url, time.time(), shard),
        ).fetchone()
        return int(row[0])

    async def _release(self, shard: int) -> None:
        """Hand a shard over: stop taking its runs, let its turns finish, then let it go."""
        self.releasing.add(shard)
        try:
            if self.on_release is not None:
                with trio.move_on_after(self.drain_grace):
                    await self.on_release(shard)
            epoch = self.owned.get(shard)

            def unlock(connection: Any) -> None:
                connection.execute(
                    "UPDATE goliath_shards SET owner = NULL WHERE shard = %s AND owner = %s "
                    "AND epoch = %s",
                    (shard, self.node_id, epoch),
                )
                connection.execute("SELECT pg_advisory_unlock(%s, %s)", (LOCK_CLASS, shard))

            await self._locked(unlock)
            self.owned.pop(shard, None)
            self.releases += 1
        finally:
            self.releasing.discard(shard)

    async def _step_down(self) -> None:
        """Our session (and so every lock) is gone: own nothing, then reconnect to rejoin."""
        self.owned.clear()
        self.releasing.clear()
        connection, self._lock_connection = self._lock_connection, None
        if connection is not None:
            await trio.to_thread.run_sync(connection.close)
        try:
            self._lock_connection = await trio.to_thread.run_sync(self._connect, "locks")
        except Exception as exc:  # the database is down: try again next tick
            logger.warning("node %s cannot reconnect: %s", self.node_id, exc)

    async def _leave(self) -> None:
        for shard in sorted(self.owned):
            try:
                await self._release(shard)
            except Exception:
                break

        def forget(connection: Any) -> None:
            connection.execute("DELETE FROM goliath_nodes WHERE node = %s", (self.node_id,))
            connection.execute(f"NOTIFY {CHANNEL}, 'leave'")

        try:
            await self._locked(forget)
        except Exception:
            pass
        connection, self._lock_connection = self._lock_connection, None
        if connection is not None:
            await trio.to_thread.run_sync(connection.close)
