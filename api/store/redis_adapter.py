"""The one place the store drives redis-py connections itself (issue 39's adapter lever).

A batch of the store's commands (:mod:`.batcher`) goes to a node as one write on one pooled
connection, its replies read one by one. redis-py's ``Pipeline`` does the same through several
layers per pipeline and per command: the blocking pool's checkout and release (a condition and
a timeout each), its retry wrapper, a timer per reply read, its observability hooks and the
response callbacks. Here one ``asyncio.timeout`` bounds the whole pipeline, hiredis packs it in
C, and a connection that served a pipeline well is kept for the next one. docs/performance.md
says what it saves (issue 39 allows such a lever only for at least 10% of the server's CPU per
action); tests/api/store/test_api_redis_floor.py runs it on the oldest redis-py the project
supports, the rest of the suite on the newest.

It also gives the store's connections a ``pack_command`` of hiredis (:func:`packing`, their
pools' ``connection_class``): the commands redis-py's client sends itself (event streams, bot
jobs, script loads) are packed in C too.

What it uses of a redis-py connection: ``send_packed_command``, ``read_response``,
``disconnect``, ``is_connected`` and, where it exists (redis-py >= 6), ``should_reconnect``; of a
pool: ``get_connection`` and ``release``. The pool's connections are made without a read timeout
or health checks, their handshake bounded (:func:`pipeline_options`): the deadline is the
pipeline's, and a connection that died while kept fails its next pipeline, which the batcher
sends again at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import hiredis
import redis
from redis import exceptions as redis_errors
from redis.asyncio import ConnectionPool
from redis.asyncio.connection import AbstractConnection

try:  # redis-py with ``DriverInfo``, where ``lib_name``/``lib_version`` are deprecated
    from redis import DriverInfo
except ImportError:  # older redis-py (5.3 is the floor): the two arguments
    IDENTITY: dict[str, Any] = {"lib_name": "redis-py", "lib_version": redis.__version__}
else:
    IDENTITY = {"driver_info": DriverInfo(lib_version=redis.__version__)}
"""What every connection of the store says it is (``CLIENT SETINFO``), as redis-py documents it:
its own name and version. Given explicitly, since without it redis-py 8 reads its own version
from the installed package's metadata for every new connection (about 0.37 ms each)."""

KEPT_CONNECTIONS = 8
"""Most connections kept between pipelines: the batcher has a few pipelines in flight at a time."""


def pipeline_options(options: dict[str, Any], timeout: float | None) -> dict[str, Any]:
    """The connection options of a pool for :class:`Pipelines` made from the node's ``options``:
    no read timeout (the pipeline has one deadline) and no health check before each command
    (a dead connection fails its pipeline, which the batcher sends again). A new connection's
    handshake (``AUTH``, ``SELECT``, the client's name) would then wait for ever on a hung
    server: it has ``timeout`` seconds (``redis_connect_func``, in place of redis-py's own call
    of ``on_connect``), and past them redis-py's ``TimeoutError``, after which redis-py drops
    the connection."""

    async def handshake(connection: AbstractConnection) -> None:
        try:
            async with asyncio.timeout(timeout):
                await connection.on_connect()
        except TimeoutError as exc:  # asyncio's: redis-py drops a connection only for its own errors
            raise redis_errors.TimeoutError(f"no answer to the handshake within {timeout} s") from exc

    return {**options, "socket_timeout": None, "health_check_interval": 0, "redis_connect_func": handshake}


def _reusable(connection: AbstractConnection) -> bool:
    """Whether a connection that served a pipeline may serve the next one: still connected, and
    not marked for a reconnect (redis-py >= 6 marks connections so after a maintenance event;
    5.3 has no such mark)."""
    should_reconnect = getattr(connection, "should_reconnect", None)
    return bool(connection.is_connected) and not (should_reconnect is not None and should_reconnect())


class Pipelines:
    """Pipelines of raw commands to one node, on connections of ``pool`` (made with
    :func:`pipeline_options`), each bounded by ``timeout`` seconds."""

    def __init__(self, name: str, pool: ConnectionPool, timeout: float | None) -> None:
        self.name = name
        self.pool = pool
        self.timeout = timeout
        self._idle: list[AbstractConnection] = []
        self._keep = min(KEPT_CONNECTIONS, max(1, pool.max_connections // 2))

    async def send(self, commands: Sequence[tuple[Any, ...]]) -> list[Any]:
        """Send ``commands`` (each a one-word command name and its arguments) in one write and
        read their replies, in order, as Redis sent them.

        A reply that is an error is returned in its place (a ``ResponseError``). A failing
        connection raises redis-py's ``ConnectionError`` (or ``TimeoutError`` past the
        deadline) and is dropped: its replies may be left unread; a connection that failed drops
        the kept ones too.
        """
        packed = b"".join([hiredis.pack_command(args) for args in commands])
        idle = self._idle
        connection = idle.pop() if idle else await self.pool.get_connection()
        replies: list[Any] = []
        try:
            async with asyncio.timeout(self.timeout):
                await connection.send_packed_command(packed, check_health=False)
                for _ in commands:
                    try:
                        replies.append(await connection.read_response())
                    except redis_errors.ResponseError as exc:
                        replies.append(exc)
        except BaseException as exc:
            await self._drop(connection)
            if isinstance(exc, (redis_errors.ConnectionError, OSError, RuntimeError)):
                # The server closed it (restarted, failed over, or killed our clients): the
                # connections kept idle went the same way, and each would fail a pipeline.
                idle, self._idle = self._idle, []
                for kept in idle:
                    await self._drop(kept)
            if isinstance(exc, TimeoutError):  # the deadline's (redis-py's TimeoutError is not the builtin)
                raise redis_errors.TimeoutError(f"{self.name}: no reply within {self.timeout} s") from exc
            if isinstance(exc, RuntimeError):  # uvloop: the transport closed under us
                raise redis_errors.ConnectionError(f"{self.name}: {exc}") from exc
            raise
        if len(idle) < self._keep and _reusable(connection):
            idle.append(connection)
        else:
            await self.pool.release(connection)
        return replies

    async def _drop(self, connection: AbstractConnection) -> None:
        await connection.disconnect()
        await self.pool.release(connection)

    async def close(self) -> None:
        """Give the kept connections back and close every connection of the pool."""
        idle, self._idle = self._idle, []
        for connection in idle:
            await self.pool.release(connection)
        await self.pool.disconnect()


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
