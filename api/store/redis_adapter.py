"""The one place the store drives redis-py connections itself (issue 39's adapter lever).

A batch of the store's commands (:mod:`.batcher`) goes to a node as one write on a connection
of the node's pool, its replies read one by one, the connection given back. redis-py's
``Pipeline`` does the same through several layers per pipeline and per command: its retry
wrapper, a timer per reply read, its observability hooks and the response callbacks (and its
blocking pool's condition and timer). Here one ``asyncio.timeout`` bounds the whole pipeline and
hiredis packs it in C. docs/performance.md ("The store") says what it saves, one action at a
time and under load (issue 39 allows such a lever only for at least 10% of the server's CPU per
action); tests/api/store/test_api_redis_floor.py runs it on the oldest redis-py the project
supports and on the newest it is tested with, the rest of the suite on the installed one.

It also gives the store's connections a ``pack_command`` of hiredis (:func:`packing`, their
pools' ``connection_class``): the commands redis-py's client sends itself (event streams, bot
jobs, script loads) are packed in C too; and it composes redis-py's Sentinel and blocking pools
(:class:`BlockingSentinelPool`), which redis-py does not offer as one class.

What it uses of redis-py, all public methods and constructor options: of a connection
``send_packed_command``, ``read_response`` and ``disconnect``; of a pool ``get_connection``,
``release`` and ``disconnect``; the pool options ``connection_class``, ``redis_connect_func``,
``socket_timeout``, ``health_check_interval`` and ``protocol``.
The pool owns every connection and checks each as it hands it out; a connection that fails
fails its pipeline, which the batcher sends again at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import hiredis
import redis
from redis import DriverInfo
from redis import exceptions as redis_errors
from redis.asyncio import BlockingConnectionPool, ConnectionPool
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.sentinel import SentinelConnectionPool

IDENTITY: dict[str, Any] = {"driver_info": DriverInfo(lib_version=redis.__version__)}
"""What every connection of the store says it is (``CLIENT SETINFO``), as redis-py documents it:
its own name and version. Given explicitly, since without it redis-py 8 reads its own version
from the installed package's metadata for every new connection (about 0.37 ms each)."""

RESP2: dict[str, Any] = {"protocol": 2}
"""The protocol of every connection of the store: RESP2, redis-py's default before 8, which
speaks RESP3 by default. The store reads its replies as RESP2 gives them on every redis-py it
supports, and on RESP2 redis-py's pools check a connection as they hand it out (a connection
Redis closed, or one with unread data, is connected again: ``ensure_connection``); on RESP3
redis-py 8 turns on maintenance notifications, and with them on its pools skip that check. A
store URL asking for another protocol is refused at start (``topology._resp2``)."""


def pipeline_options(options: dict[str, Any], timeout: float | None) -> dict[str, Any]:
    """The connection options of a pool for :class:`Pipelines` made from the node's ``options``:
    no read timeout (the pipeline has one deadline) and no health check before each command
    (the pool checks a connection as it hands it out, and a connection that fails fails its
    pipeline, which the batcher sends again). A new connection's handshake (``AUTH``,
    ``SELECT``, the client's name) would then wait for ever on a hung server: it has
    ``timeout`` seconds (``redis_connect_func``, in place of redis-py's own call of
    ``on_connect``), and past them redis-py's ``TimeoutError``, after which redis-py drops the
    connection."""

    async def handshake(connection: AbstractConnection) -> None:
        try:
            async with asyncio.timeout(timeout):
                await connection.on_connect()
        except TimeoutError as exc:  # asyncio's: redis-py drops a connection only for its own errors
            raise redis_errors.TimeoutError(f"no answer to the handshake within {timeout} s") from exc

    return {**options, "socket_timeout": None, "health_check_interval": 0, "redis_connect_func": handshake}


class Pipelines:
    """Pipelines of raw commands to one node, on connections of ``pool`` (a redis-py
    ``ConnectionPool`` made with :func:`pipeline_options`), each bounded by ``timeout`` seconds.

    Every pipeline takes its connection from the pool and gives it back: the pool owns every
    connection, checks it as it hands it out and closes them all. The pool is redis-py's plain
    ``ConnectionPool``, not its ``BlockingConnectionPool``; instead, at most ``max_connections``
    pipelines are on their way at once (a semaphore, whose wait the pipeline's deadline bounds),
    so the pool never runs out. Why not the blocking pool: its checkout and release (a condition
    and a timer each) are the dearer part of a pipeline's cost (docs/performance.md, "The
    store")."""

    def __init__(self, name: str, pool: ConnectionPool, timeout: float | None) -> None:
        self.name = name
        self.pool = pool
        self.timeout = timeout
        self._slots = asyncio.Semaphore(pool.max_connections)

    async def send(self, commands: Sequence[tuple[Any, ...]]) -> list[Any]:
        """Send ``commands`` (each a one-word command name and its arguments) in one write and
        read their replies, in order, as Redis sent them.

        A reply that is an error is returned in its place (a ``ResponseError``). A failing
        connection raises redis-py's ``ConnectionError`` (or ``TimeoutError`` past the
        deadline) and is disconnected before it goes back to the pool: its replies may be left
        unread.
        """
        # (One command, as each commit one at a time is: packed without a list and a join.)
        packed = hiredis.pack_command(commands[0]) if len(commands) == 1 else \
            b"".join([hiredis.pack_command(args) for args in commands])
        replies: list[Any] = []
        slots = self._slots
        try:
            async with asyncio.timeout(self.timeout):
                # The slot taken and given back by the semaphore's own methods: its ``async with``
                # adds two coroutines a pipeline (5,600 instructions of a round trip's 211,800).
                await slots.acquire()
                try:
                    connection = await self.pool.get_connection()
                    try:
                        await connection.send_packed_command(packed, check_health=False)
                        for _ in commands:
                            try:
                                replies.append(await connection.read_response())
                            except redis_errors.ResponseError as exc:
                                replies.append(exc)
                    except BaseException as exc:
                        await connection.disconnect()
                        if isinstance(exc, RuntimeError):  # uvloop: the transport closed under us
                            raise redis_errors.ConnectionError(f"{self.name}: {exc}") from exc
                        raise
                    finally:
                        await self.pool.release(connection)
                finally:
                    slots.release()
        except TimeoutError as exc:  # the deadline's (redis-py's TimeoutError is not the builtin)
            raise redis_errors.TimeoutError(f"{self.name}: no connection or reply within {self.timeout} s") from exc
        return replies

    async def close(self) -> None:
        """Close every connection of the pool."""
        await self.pool.disconnect()


class BlockingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """Connections to the primary Sentinels name, handed out as ``BlockingConnectionPool`` does:
    a request waits up to the pool's ``timeout`` for a free connection instead of failing at
    once. redis-py has no blocking Sentinel pool; this one composes its two public classes (the
    Sentinel pool's ``get_master_address`` and connection class, the blocking pool's checkout),
    which the floor test builds on the oldest and newest redis-py (``floor_smoke.py``)."""


class _HiredisPacking(AbstractConnection):
    """A connection that packs its commands with hiredis, in C. redis-py's synchronous connections
    do so when hiredis is installed; its asyncio ones pack in Python, argument by argument."""

    def pack_command(self, *args: Any) -> list[bytes]:
        first = args[0]
        # "SCRIPT LOAD", as redis-py's typed methods send it: Redis takes the words apart.
        if (isinstance(first, str) and " " in first) or (isinstance(first, bytes) and b" " in first):
            args = (*first.split(), *args[1:])
        return [hiredis.pack_command(args)]


_PACKING: dict[type[AbstractConnection], type[AbstractConnection]] = {}


def packing(kind: type[AbstractConnection]) -> type[AbstractConnection]:
    """``kind`` of connection (TCP, TLS, a socket path, one a Sentinel finds) packing with hiredis:
    the ``connection_class`` of the store's pools."""
    if kind not in _PACKING:
        _PACKING[kind] = type(f"Hiredis{kind.__name__}", (_HiredisPacking, kind), {})
    return _PACKING[kind]
