"""Where the Redis primaries are: one server (``standalone``), the primary the Sentinels name
(``sentinel``, followed through failovers), or a Redis Cluster (``cluster``: the primary owning
each key's slot, :mod:`.cluster`). Each :class:`Node` is a connection pool to one
server; the store's commands reach them through the batcher (:mod:`.batcher`).

Also the errors every part of the Redis store shares: which mean "cannot serve now", which are
worth sending again, and refused logins.
"""

from __future__ import annotations

import abc
import asyncio
import logging
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast
from urllib.parse import SplitResult, urlsplit, urlunsplit

from redis import exceptions as redis_errors
from redis.asyncio import BlockingConnectionPool, ConnectionPool, Redis
from redis.asyncio.connection import Connection, SSLConnection, parse_url
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import (
    Sentinel,
    SentinelConnectionPool,
    SentinelManagedConnection,
    SentinelManagedSSLConnection,
)
from redis.backoff import NoBackoff

from darkroad.api.store.base import (
    StoreConfigError,
    StoreUnavailable,
)
from darkroad.api.store.redis_adapter import (
    IDENTITY,
    RESP2,
    BlockingSentinelPool,
    Pipelines,
    packing,
    pipeline_options,
)

logger = logging.getLogger("darkroad.api.redis")


class WritesRefused(redis_errors.ResponseError):
    """Redis refuses writes for a while: ``MISCONF`` (its last snapshot failed, a full disk).
    redis-py has no class of its own for it."""


def refusal(error: Exception) -> Exception:
    """``error``, as :class:`WritesRefused` when it is Redis refusing writes for a while."""
    if type(error) is redis_errors.ResponseError and str(error).startswith("MISCONF"):
        return WritesRefused(str(error))
    return error


UNAVAILABLE = (
    WritesRefused,
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.OutOfMemoryError,
    redis_errors.ReadOnlyError,
    redis_errors.ClusterDownError,
    redis_errors.TryAgainError,
    redis_errors.AskError,  # MovedError too: redirections that did not settle in time
    # A script still missing on a node (a replica just promoted has an empty script cache)
    # after the batcher's window: the failover has not settled, the request is sound.
    redis_errors.NoScriptError,
    OSError,
    # uvloop's answer to an operation on a connection whose transport is closed (a node that
    # died under it): "unable to perform operation on <TCPTransport closed=True>".
    RuntimeError,
    # NOPERM: the deployment's ACL denies the service's user a command it sends (a user
    # not updated with the store): a refusal of the deployment, as MISCONF, not of the request.
    redis_errors.NoPermissionError,
)
"""Errors that mean "Redis cannot serve this right now", not "this code is wrong"."""

RETRY = (
    redis_errors.ConnectionError,  # BusyLoadingError (a restarted node loading its data) too
    redis_errors.TimeoutError,
    redis_errors.ClusterDownError,  # MasterDownError too
    redis_errors.TryAgainError,
    redis_errors.ReadOnlyError,  # a primary demoted under a standalone client
    OSError,
)
"""Errors worth sending the command again for, after a pause (failover, restart, slot migration)."""

REFRESH = (redis_errors.ConnectionError, redis_errors.TimeoutError, redis_errors.ClusterDownError, OSError)
"""Errors after which the topology is learnt again (a node failed, the cluster is failing over)."""

"""The sorted set of listed waiting games (see the module docstring)."""
CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a TCP connection to a Redis node or Sentinel."""
POOL_TIMEOUT = 5.0
"""Seconds a request waits for a free pooled connection before answering 503."""
PROBE_TIMEOUT = 2.0
"""Seconds a topology or health probe waits for one node."""
NO_RETRY = Retry(NoBackoff(), 0)
"""redis-py's own resends (``Retry``; by default 3 in redis-py >= 6) left out: the batcher sends a
failed command again itself, within its retry window, after a topology refresh if need be."""


class Node:
    """One Redis server the store sends commands to.

    The :class:`Batcher`'s pipelines go through ``pipelines`` (:mod:`.redis_adapter`, on a pool
    of their own), single commands through ``client`` (a blocking connection pool); event
    streams have their own ``streams`` client, whose blocking reads hold a connection while
    they wait, so that followers can never starve the players.
    """

    def __init__(
        self,
        name: str,
        requests: ConnectionPool,
        streams: ConnectionPool,
        host: str | None = None,
        *,
        pipelines: ConnectionPool,
        timeout: float | None,
    ) -> None:
        self.name = name
        self.host = host
        """The host it is reached at (``None``: a socket path, or wherever Sentinels say)."""
        self.client = Redis.from_pool(requests)
        self.streams = Redis.from_pool(streams)
        self._pipelines = Pipelines(name, pipelines, timeout)

    def __repr__(self) -> str:
        return f"<Node {self.name}>"

    def pipeline(self, commands: Sequence[tuple[Any, ...]]) -> Awaitable[list[Any]]:
        """Send ``commands`` in one pipeline (not a transaction) and read their replies, in order
        (:meth:`Pipelines.send`: an error reply in its place, a failing connection raises)."""
        return self._pipelines.send(commands)

    async def close(self) -> None:
        await self._pipelines.close()
        await self.client.aclose()
        await self.streams.aclose()


@dataclass(frozen=True, slots=True)
class PoolOptions:
    """How the store connects to each Redis node."""

    connection: dict[str, Any]
    """Keyword arguments of every connection (credentials, TLS, ``db``), without host and port."""
    max_connections: int = 64
    """Request connections per node (a request waits up to ``timeout`` for a free one, then 503)."""
    max_streams: int = 1024
    """Event-stream connections per node."""
    timeout: float = POOL_TIMEOUT
    """Seconds a request waits for a free connection, a new connection or a reply."""
    max_block: float = 15.0
    """Longest ``XREAD BLOCK`` of an event stream, in seconds: the stream connections' read
    timeout is this plus ``timeout`` (redis-py's default, 5 s, would cut every longer block)."""

    def node(self, name: str, **address: Any) -> Node:
        """A :class:`Node` at ``address`` (``host``/``port``, or a ``path``)."""
        options = {
            "socket_connect_timeout": self.timeout,
            "socket_timeout": self.timeout,
            "health_check_interval": 30,
            "retry": NO_RETRY,
            **IDENTITY,
            **RESP2,
            **self.connection,
        }
        options["connection_class"] = packing(options.get("connection_class", Connection))
        requests = BlockingConnectionPool(
            max_connections=self.max_connections, timeout=self.timeout, **options, **address
        )
        pipelines = ConnectionPool(max_connections=self.max_connections, **pipeline_options(options, self.timeout), **address)
        options["socket_timeout"] = self.stream_timeout
        streams = ConnectionPool(max_connections=self.max_streams, **options, **address)
        return Node(name, requests, streams, address.get("host"), pipelines=pipelines, timeout=self.timeout)

    @property
    def stream_timeout(self) -> float:
        """The read timeout of event-stream connections."""
        return self.max_block + self.timeout


def _resp2(url: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` of ``url``, refused when they ask for a protocol other than RESP2, the one the
    store speaks (:data:`~.redis_adapter.RESP2`), or for redis-py 8's unified reply shapes
    (``legacy_responses=false``): the store reads XREAD's and XREADGROUP's replies as redis-py
    parses them on RESP2, ``[[stream, entries]]``; or for decoded replies (``decode_responses``,
    which redis-py's URL parser passes on as a string, so even ``=false`` turns decoding on): the
    store reads bytes."""
    if str(options.get("protocol", 2)) != "2":
        raise StoreConfigError(f"{redact(url)}: the store speaks RESP2; leave out protocol={options['protocol']}")
    if options.get("legacy_responses", True) is False:
        raise StoreConfigError(f"{redact(url)}: the store reads RESP2's reply shapes; leave out legacy_responses")
    if "decode_responses" in options:
        raise StoreConfigError(f"{redact(url)}: the store reads replies as bytes; leave out decode_responses")
    return options


def split_url(url: str, default_port: int = 6379) -> tuple[list[tuple[str, int]], dict[str, Any]]:
    """The ``(host, port)`` list and the connection options of a Redis URL.

    Cluster seeds and Sentinels may be listed in one URL, separated by commas:
    ``redis://[user:password@]host1:port1,host2:port2[/db][?option=value]``.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss"):
        raise StoreConfigError(f"{redact(url)}: this mode needs a redis:// or rediss:// URL")
    userinfo, at, hosts = parts.netloc.rpartition("@")
    addresses: list[tuple[str, int]] = []
    options: dict[str, Any] = {}
    for host in hosts.split(","):
        if not host:
            raise StoreConfigError(f"{redact(url)}: empty host in the URL")
        try:
            options = _resp2(url, dict(parse_url(_with_netloc(parts, f"{userinfo}{at}{host}"))))
        except ValueError as exc:
            raise StoreConfigError(f"{redact(url)}: {exc}") from None
        addresses.append((str(options.pop("host", "localhost")), int(options.pop("port", default_port))))
    return addresses, options


def redact(url: str) -> str:
    """``url`` without its password (for messages)."""
    parts = urlsplit(url)
    userinfo, at, hosts = parts.netloc.rpartition("@")
    if not at or ":" not in userinfo:
        return url
    return _with_netloc(parts, f"{userinfo.partition(':')[0]}:***@{hosts}")


def _with_netloc(parts: SplitResult, netloc: str) -> str:
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def address(host: str, port: int) -> str:
    """``host:port`` (``[host]:port`` for an IPv6 address), for messages."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class Topology(abc.ABC):
    """Which Redis node serves which key, kept current through failovers and resharding."""

    description: str
    """Where the store is, for messages (no password)."""
    single: Node | None = None
    """The one node every key lives on (``None`` for a cluster)."""

    @abc.abstractmethod
    async def start(self) -> None:
        """Connect and check that the deployment is the one this mode expects
        (:class:`StoreConfigError` if not, :class:`StoreUnavailable` if unreachable)."""

    @abc.abstractmethod
    def node_for(self, key: str) -> Node:
        """The primary serving ``key``."""

    @abc.abstractmethod
    def primaries(self) -> list[Node]:
        """Every primary (one, unless this is a cluster)."""

    async def refresh(self) -> None:  # noqa: B027 - only a cluster has a map to refresh
        """Learn the deployment again after an error that may mean it changed."""

    def moved(self, error: redis_errors.AskError, sender: Node) -> Node:
        """Note a ``MOVED``/``ASK`` redirection ``sender`` answered; the node to send the command
        to (``ClusterDownError`` when the redirection names no address to go to)."""
        raise error  # only a cluster redirects

    @abc.abstractmethod
    async def close(self) -> None:
        """Close every connection."""


async def _info(node: Node, what: str) -> dict[str, Any]:
    try:
        return cast("dict[str, Any]", await asyncio.wait_for(node.client.info(), PROBE_TIMEOUT))
    except LOGIN_REFUSED as exc:
        raise refused_login(what, exc) from None
    except (*UNAVAILABLE, TimeoutError) as exc:
        raise StoreUnavailable(f"cannot reach {what}: {reason(exc)}") from exc


def reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0]


CREDENTIALS = "DARKROAD_REDIS_USERNAME and DARKROAD_REDIS_PASSWORD (or the URL's user:password)"
SENTINEL_CREDENTIALS = "DARKROAD_REDIS_SENTINEL_USERNAME and DARKROAD_REDIS_SENTINEL_PASSWORD"


def refused_login(
    what: str, exc: BaseException, credentials: str = CREDENTIALS, acl: str = "deploy/redis-users.acl"
) -> StoreConfigError:
    """The start-up error of a server that refuses the service's credentials (``WRONGPASS``,
    ``NOAUTH``) or their user's rights (``NOPERM``): the deployment's settings are wrong."""
    if isinstance(exc, redis_errors.NoPermissionError):
        return StoreConfigError(
            f"{what} refuses the service's user a command of the store ({reason(exc)}): "
            f"give that user every command {acl} gives darkroad"
        )
    return StoreConfigError(f"cannot log in to {what} ({reason(exc)}): check {credentials}")


LOGIN_REFUSED = (redis_errors.AuthenticationError, redis_errors.NoPermissionError)


class _OneNode(Topology):
    """A deployment whose every key lives on one node (the primary, wherever it is now)."""

    _node: Node

    def node_for(self, key: str) -> Node:
        return self._node

    def primaries(self) -> list[Node]:
        return [self._node]

    async def close(self) -> None:
        await self._node.close()


class Standalone(_OneNode):
    """One Redis server (or a proxy / managed endpoint that looks like one)."""

    def __init__(self, url: str, options: PoolOptions) -> None:
        self.description = f"Redis at {redact(url)}"
        self._node = self.single = self._make_node(url, options)

    @staticmethod
    def _make_node(url: str, options: PoolOptions) -> Node:
        try:
            connection = _resp2(url, {**parse_url(url), **options.connection})
        except ValueError as exc:
            raise StoreConfigError(f"{redact(url)}: {exc}") from None
        return replace(options, connection=connection).node(redact(url))

    async def start(self) -> None:
        info = await _info(self._node, self.description)
        if info.get("redis_mode") == "sentinel":
            raise StoreConfigError(
                f"{self.description} is a Sentinel: start with --redis-mode sentinel --redis-service NAME"
            )
        if info.get("redis_mode") == "cluster" or info.get("cluster_enabled") in (1, "1"):
            raise StoreConfigError(f"{self.description} is a Redis Cluster node: start with --redis-mode cluster")
        if info.get("role") == "slave":
            primary = address(str(info.get("master_host")), int(info.get("master_port", 0)))
            raise StoreConfigError(
                f"{self.description} is a read-only replica of {primary}: point --redis-url at the primary"
            )


class SentinelPrimary(_OneNode):
    """The primary of service ``service``, as the Sentinels in ``url`` report it.

    Every new connection asks the Sentinels where the primary is, so after a failover the
    connections to the old primary fail (refused, or ``READONLY`` once it is a replica),
    the :class:`Batcher` sends again, and the new connections reach the new primary.
    """

    def __init__(
        self, url: str, service: str | None, options: PoolOptions, sentinel_connection: dict[str, Any] | None = None
    ) -> None:
        if not service:
            raise StoreConfigError("--redis-mode sentinel needs --redis-service NAME (the master's name)")
        addresses, connection = split_url(url, default_port=26379)
        connection = {**connection, **options.connection}
        self.service = service
        self._sentinel_addresses = [address(host, port) for host, port in addresses]
        self._sentinels_text = ", ".join(self._sentinel_addresses)
        self.description = f"Redis primary {service!r} of the Sentinels at {self._sentinels_text}"
        ssl = connection.pop("connection_class", None) is SSLConnection
        # The URL's credentials and database are the primary's; the Sentinels' are their own
        # (``sentinel_connection``: none unless they require a login).
        # No resends of redis-py's own (by default 3, a second or more apart, refused logins
        # too): a Sentinel that does not answer is passed over for the next one.
        probe: dict[str, Any] = {
            "socket_connect_timeout": CONNECT_TIMEOUT,
            "socket_timeout": PROBE_TIMEOUT,
            "retry": Retry(NoBackoff(), 0),
            **IDENTITY,
            **RESP2,
            **(sentinel_connection or {}),
        }
        self._sentinel = Sentinel(  # type: ignore[no-untyped-call]
            addresses, sentinel_kwargs={**probe, "ssl": ssl} if ssl else probe
        )
        common: dict[str, Any] = {
            "socket_connect_timeout": options.timeout,
            "socket_timeout": options.timeout,
            "health_check_interval": 30,
            "retry": NO_RETRY,
            **IDENTITY,
            **RESP2,
            "connection_class": packing(SentinelManagedSSLConnection if ssl else SentinelManagedConnection),
            **connection,
        }
        requests = BlockingSentinelPool(  # type: ignore[no-untyped-call]
            service, self._sentinel, max_connections=options.max_connections, timeout=options.timeout, **common
        )
        pipelines = SentinelConnectionPool(  # type: ignore[no-untyped-call]
            service, self._sentinel, max_connections=options.max_connections, **pipeline_options(common, options.timeout)
        )
        streams = SentinelConnectionPool(  # type: ignore[no-untyped-call]
            service, self._sentinel, **{"max_connections": options.max_streams, **common,
                                        "socket_timeout": options.stream_timeout}
        )
        self._node = self.single = Node(f"sentinel:{service}", requests, streams, pipelines=pipelines,
                                        timeout=options.timeout)

    async def start(self) -> None:
        reachable, errors = [], []
        # Sentinel makes one client per address, in the order given.
        for where, sentinel in zip(self._sentinel_addresses, self._sentinel.sentinels, strict=True):
            try:
                masters = await asyncio.wait_for(sentinel.sentinel_masters(), PROBE_TIMEOUT)
            except LOGIN_REFUSED as exc:
                raise refused_login(
                    f"the Sentinel at {where}", exc, SENTINEL_CREDENTIALS, "deploy/sentinel-users.acl"
                ) from None
            except redis_errors.ResponseError as exc:
                raise StoreConfigError(
                    f"{where} is not a Sentinel ({reason(exc)}): use --redis-mode standalone or cluster"
                ) from None
            except (*UNAVAILABLE, TimeoutError) as exc:
                errors.append(f"{where}: {reason(exc)}")
                continue
            reachable.append(where)
            if self.service not in masters:
                known = ", ".join(sorted(cast("dict[str, Any]", masters))) or "none"
                raise StoreConfigError(
                    f"the Sentinel at {where} monitors no master named {self.service!r} (it monitors: {known})"
                )
        if not reachable:
            raise StoreUnavailable(f"cannot reach any Sentinel at {self._sentinels_text}: {'; '.join(errors)}")
        try:
            await asyncio.wait_for(self._node.client.ping(), CONNECT_TIMEOUT + PROBE_TIMEOUT)
        except LOGIN_REFUSED as exc:
            raise refused_login(f"the {self.description}", exc) from None
        except (*UNAVAILABLE, TimeoutError) as exc:
            raise StoreUnavailable(f"cannot reach the {self.description}: {reason(exc)}") from exc

    async def close(self) -> None:
        await super().close()
        await self._sentinel.aclose()
