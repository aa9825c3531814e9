"""The shared store: games in Redis, written by one Lua script per action.

Keys of one game (all carry the ``{<id>}`` hash tag, so they live in one Redis Cluster slot
and one script may touch them all):

``game:{<id>}``
    hash: ``version``, ``tag`` (names the commit that wrote this version), ``state`` (the
    engine's blob), ``finished`` (``0``/``1``), ``tokens`` (sha256 of each seat's token, comma
    separated), ``lobby`` (the seats' kinds, names and bots, JSON; only for games created
    with ``seats`` or ``turn_timeout``)
``game:{<id>}:events``
    stream: one entry per event, id ``0-<n+1>``, fields ``a`` (audience: ``*`` or seats)
    and ``e`` (the event JSON); readers resume with ``XRANGE``/``XREAD`` after any id
``game:{<id>}:actions``
    list: every applied action's JSON, in order (replaying them reproduces the state)
``game:{<id>}:idem:<key>``
    string: the first result of an idempotent request, with its own expiry

One key outside the games: ``lobby:{waiting}``, a sorted set (every score 0, ordered by
member) of entries ``<created ms>:<id>``, the listed waiting games. It has a hash tag of
its own, so it lives in one slot apart from the games it names: it is changed after a
game's own atomic step, with idempotent commands, and checked against the games when
read (see ``darkroad.api.lobby``).

``commit.lua`` checks the version and tag, writes, appends, records and refreshes the expiry
atomically in one round trip; retries of a commit whose reply was lost are safe because
the script sees its own idempotency record and answers ``replayed``.

Three deployments (:class:`Topology`): one Redis (``standalone``), a primary found through
Sentinels (``sentinel``, following failovers), or a Redis Cluster (``cluster``: commands go
to the primary owning their key's slot; ``MOVED``, ``ASK`` and ``TRYAGAIN`` are followed).

The commands of every request go through a :class:`Batcher`: the commands that the event
loop's requests issue in one turn travel together, one pipeline per Redis node. A busy
process then pays one socket write, one read and one connection checkout per node and
turn instead of per request; an idle one sends each command alone, one loop turn later.
"""

from __future__ import annotations

import abc
import asyncio
import collections
import contextlib
import hashlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

import hiredis
from redis import exceptions as redis_errors
from redis.asyncio import BlockingConnectionPool, ConnectionPool, Redis
from redis.asyncio.connection import AbstractConnection, SSLConnection, parse_url
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.backoff import NoBackoff
from redis.crc import key_slot

from darkroad.api.settings import REDIS_MODES
from darkroad.api.store import (
    Commit,
    CommitResult,
    GameExists,
    GameStore,
    NewGame,
    Outcome,
    ReplicationTimeout,
    StoreConfigError,
    StoredEvent,
    StoredGame,
    StoreUnavailable,
)

logger = logging.getLogger("darkroad.api.redis")


class WritesRefused(redis_errors.ResponseError):
    """Redis refuses writes for a while: ``MISCONF`` (its last snapshot failed, a full disk).
    redis-py has no class of its own for it."""


def _refusal(error: Exception) -> Exception:
    """``error``, as :class:`WritesRefused` when it is Redis refusing writes for a while."""
    if type(error) is redis_errors.ResponseError and str(error).startswith("MISCONF"):
        return WritesRefused(str(error))
    return error


_UNAVAILABLE = (
    WritesRefused,
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.OutOfMemoryError,
    redis_errors.ReadOnlyError,
    redis_errors.ClusterDownError,
    redis_errors.TryAgainError,
    redis_errors.AskError,  # MovedError too: redirections that did not settle in time
    OSError,
    # uvloop's answer to an operation on a connection whose transport is closed (a node that
    # died under it): "unable to perform operation on <TCPTransport closed=True>".
    RuntimeError,
    # NOPERM: the deployment's ACL denies the service's user a command it sends (a user
    # not updated with the store): a refusal of the deployment, as MISCONF, not of the request.
    redis_errors.NoPermissionError,
)
"""Errors that mean "Redis cannot serve this right now", not "this code is wrong"."""

_RETRY = (
    redis_errors.ConnectionError,  # BusyLoadingError (a restarted node loading its data) too
    redis_errors.TimeoutError,
    redis_errors.ClusterDownError,  # MasterDownError too
    redis_errors.TryAgainError,
    redis_errors.ReadOnlyError,  # a primary demoted under a standalone client
    OSError,
)
"""Errors worth sending the command again for, after a pause (failover, restart, slot migration)."""

_REFRESH = (redis_errors.ConnectionError, redis_errors.TimeoutError, redis_errors.ClusterDownError, OSError)
"""Errors after which the topology is learnt again (a node failed, the cluster is failing over)."""

_EVERYONE = b"*"
_FIELDS = ["version", "state", "finished", "tokens", "tag", "lobby"]
WAITING_KEY = "lobby:{waiting}"
"""The sorted set of listed waiting games (see the module docstring)."""
_CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a TCP connection to a Redis node or Sentinel."""
_POOL_TIMEOUT = 5.0
"""Seconds a request waits for a free pooled connection before answering 503."""
_PROBE_TIMEOUT = 2.0
"""Seconds a topology or health probe waits for one node."""
_KEPT_CONNECTIONS = 8
"""Most connections a node keeps between pipelines (:meth:`Node.pipeline`): the batcher has
a few pipelines in flight at a time."""


def game_key(game_id: str) -> str:
    """The hash of game ``game_id``; the other keys of the game extend this name."""
    return f"game:{{{game_id}}}"


def _stream_id(n: int) -> str:
    # Stream ids must be greater than 0-0, so event n is stored under 0-(n+1).
    return f"0-{n + 1}"


def _event_n(stream_id: bytes) -> int:
    return int(stream_id.partition(b"-")[2]) - 1


def _encode_audience(audience: frozenset[int] | None) -> bytes:
    if audience is None:
        return _EVERYONE
    return ",".join(str(seat) for seat in sorted(audience)).encode()


def _decode_audience(raw: bytes) -> frozenset[int] | None:
    if raw == _EVERYONE:
        return None
    return frozenset(int(seat) for seat in raw.split(b",") if seat)


def _event_args(events: Sequence[StoredEvent]) -> list[str | bytes]:
    args: list[str | bytes] = []
    for event in events:
        args += [_stream_id(event.n), _encode_audience(event.audience), event.payload]
    return args


def _decode_entries(entries: Sequence[tuple[bytes, dict[bytes, bytes]]]) -> list[StoredEvent]:
    return [
        StoredEvent(n=_event_n(entry_id), audience=_decode_audience(fields[b"a"]), payload=fields[b"e"])
        for entry_id, fields in entries
    ]


def _decode_raw_entries(entries: Sequence[Sequence[Any]]) -> list[StoredEvent]:
    """Stream entries as Redis sends them (``[id, [field, value, ...]]``)."""
    decoded = []
    for entry_id, flat in entries:
        fields = dict(zip(flat[::2], flat[1::2], strict=True))
        decoded.append(StoredEvent(_event_n(entry_id), _decode_audience(fields[b"a"]), fields[b"e"]))
    return decoded


def _stored_game(
    game_id: str, fields: Sequence[bytes | None], replay: bytes | None = None
) -> StoredGame | None:
    """A game from its hash fields (in the order of ``_FIELDS``); ``None`` if it has none."""
    version, state, finished, tokens, tag, lobby = fields
    if version is None or state is None or finished is None or tokens is None:
        return None
    return StoredGame(
        id=game_id,
        version=int(version),
        state=state,
        finished=finished == b"1",
        token_hashes=tuple(tokens.decode().split(",")),
        tag="" if tag is None else tag.decode(),  # games written before tags existed have none
        replay=replay,
        lobby=lobby or None,
    )


def _script(name: str) -> str:
    return resources.files("darkroad.api").joinpath(name).read_text(encoding="utf-8")


def _sha(script: str) -> str:
    return hashlib.sha1(script.encode(), usedforsecurity=False).hexdigest()


# -- where commands go -----------------------------------------------------------------


class Node:
    """One Redis server the store sends commands to.

    ``pool`` serves requests (the :class:`Batcher`'s pipelines and single commands, through
    ``client``); event streams have their own ``streams`` client, whose blocking reads hold
    a connection while they wait, so that followers can never starve the players.
    """

    def __init__(
        self, name: str, requests: ConnectionPool, streams: ConnectionPool, host: str | None = None
    ) -> None:
        self.name = name
        self.host = host
        """The host it is reached at (``None``: a socket path, or wherever Sentinels say)."""
        self.pool = requests
        self.client = Redis.from_pool(requests)
        self.streams = Redis.from_pool(streams)
        self._idle: list[AbstractConnection] = []
        """Connections of ``pool`` that :meth:`pipeline` keeps between pipelines (see there)."""
        self._keep = min(_KEPT_CONNECTIONS, requests.max_connections // 2)

    def __repr__(self) -> str:
        return f"<Node {self.name}>"

    async def pipeline(self, commands: Sequence[tuple[Any, ...]]) -> list[Any]:
        """Send ``commands`` on one pooled connection and read their replies, in order.

        A reply that is an error is returned in its place (a ``ResponseError``); a failing
        connection raises, and is dropped. redis-py's ``Pipeline`` would do the same through
        several layers per command, and its Python packer; here hiredis packs (in C), one
        write sends everything and the parser reads each reply.

        A connection that served a pipeline well is kept for the next one (up to ``_keep``
        of them, the rest go back to the pool): redis-py's blocking pool hands a connection
        out and takes it back through a condition, a timeout, a deprecation check and its
        observability hooks, about a tenth of the server's CPU time per action. A kept
        connection still counts against the pool's ``max_connections`` (half of which at
        most are kept, so the pool's other users are never starved), and one that fails is
        dropped and released as before; one closed while kept fails its next pipeline, which
        the :class:`Batcher` sends again at once on a new connection.
        """
        packed = b"".join([hiredis.pack_command(args) for args in commands])
        idle = self._idle
        connection = idle.pop() if idle else await self.pool.get_connection()
        try:
            await connection.send_packed_command(packed, check_health=False)
            replies: list[Any] = []
            for _ in commands:
                try:
                    replies.append(await connection.read_response())
                except redis_errors.ResponseError as exc:
                    replies.append(exc)
        except RuntimeError as exc:  # uvloop: the transport closed under us (see _UNAVAILABLE)
            await connection.disconnect()
            await self.pool.release(connection)
            raise redis_errors.ConnectionError(f"{self.name}: {exc}") from exc
        except BaseException:
            await connection.disconnect()  # replies may be left unread: the connection is unusable
            await self.pool.release(connection)
            raise
        if len(idle) < self._keep and not connection.should_reconnect():
            idle.append(connection)
        else:
            await self.pool.release(connection)
        return replies

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for connection in idle:
            await self.pool.release(connection)
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
    timeout: float = _POOL_TIMEOUT
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
            **self.connection,
        }
        requests = BlockingConnectionPool(
            max_connections=self.max_connections, timeout=self.timeout, **options, **address
        )
        options["socket_timeout"] = self.stream_timeout
        streams = ConnectionPool(max_connections=self.max_streams, **options, **address)
        return Node(name, requests, streams, address.get("host"))

    @property
    def stream_timeout(self) -> float:
        """The read timeout of event-stream connections."""
        return self.max_block + self.timeout


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
            options = dict(parse_url(urlunsplit(parts._replace(netloc=f"{userinfo}{at}{host}"))))
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
    return urlunsplit(parts._replace(netloc=f"{userinfo.partition(':')[0]}:***@{hosts}"))


def _address(host: str, port: int) -> str:
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
        return cast("dict[str, Any]", await asyncio.wait_for(node.client.info(), _PROBE_TIMEOUT))
    except _LOGIN_REFUSED as exc:
        raise _refused_login(what, exc) from None
    except (*_UNAVAILABLE, TimeoutError) as exc:
        raise StoreUnavailable(f"cannot reach {what}: {_reason(exc)}") from exc


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0]


_CREDENTIALS = "DARKROAD_REDIS_USERNAME and DARKROAD_REDIS_PASSWORD (or the URL's user:password)"
_SENTINEL_CREDENTIALS = "DARKROAD_REDIS_SENTINEL_USERNAME and DARKROAD_REDIS_SENTINEL_PASSWORD"


def _refused_login(
    what: str, exc: BaseException, credentials: str = _CREDENTIALS, acl: str = "deploy/redis-users.acl"
) -> StoreConfigError:
    """The start-up error of a server that refuses the service's credentials (``WRONGPASS``,
    ``NOAUTH``) or their user's rights (``NOPERM``): the deployment's settings are wrong."""
    if isinstance(exc, redis_errors.NoPermissionError):
        return StoreConfigError(
            f"{what} refuses the service's user a command of the store ({_reason(exc)}): "
            f"give that user every command {acl} gives darkroad"
        )
    return StoreConfigError(f"cannot log in to {what} ({_reason(exc)}): check {credentials}")


_LOGIN_REFUSED = (redis_errors.AuthenticationError, redis_errors.NoPermissionError)


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
            connection = {**parse_url(url), **options.connection}
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
            primary = _address(str(info.get("master_host")), int(info.get("master_port", 0)))
            raise StoreConfigError(
                f"{self.description} is a read-only replica of {primary}: point --redis-url at the primary"
            )


class _BlockingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """Connections to the primary Sentinels name, handed out as :class:`BlockingConnectionPool` does
    (a request waits for a free connection instead of failing)."""


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
        self._sentinels_text = ", ".join(_address(host, port) for host, port in addresses)
        self.description = f"Redis primary {service!r} of the Sentinels at {self._sentinels_text}"
        ssl = connection.pop("connection_class", None) is SSLConnection
        # The URL's credentials and database are the primary's; the Sentinels' are their own
        # (``sentinel_connection``: none unless they require a login).
        # No resends of redis-py's own (by default 3, a second or more apart, refused logins
        # too): a Sentinel that does not answer is passed over for the next one.
        probe: dict[str, Any] = {
            "socket_connect_timeout": _CONNECT_TIMEOUT,
            "socket_timeout": _PROBE_TIMEOUT,
            "retry": Retry(NoBackoff(), 0),
            **(sentinel_connection or {}),
        }
        self._sentinel = Sentinel(  # type: ignore[no-untyped-call]
            addresses, sentinel_kwargs={**probe, "ssl": ssl} if ssl else probe
        )
        common: dict[str, Any] = {
            "socket_connect_timeout": options.timeout,
            "socket_timeout": options.timeout,
            "health_check_interval": 30,
            "ssl": ssl,
            **connection,
        }
        requests = self._sentinel.master_for(
            service,
            connection_pool_class=_BlockingSentinelPool,
            **{"max_connections": options.max_connections, "timeout": options.timeout, **common},
        )
        streams = self._sentinel.master_for(
            service,
            **{"max_connections": options.max_streams, **common, "socket_timeout": options.stream_timeout},
        )
        self._node = self.single = Node(f"sentinel:{service}", requests.connection_pool, streams.connection_pool)

    async def start(self) -> None:
        reachable, errors = [], []
        for sentinel in self._sentinel.sentinels:
            kwargs = sentinel.connection_pool.connection_kwargs
            where = _address(kwargs["host"], kwargs["port"])
            try:
                masters = await asyncio.wait_for(sentinel.sentinel_masters(), _PROBE_TIMEOUT)
            except _LOGIN_REFUSED as exc:
                raise _refused_login(
                    f"the Sentinel at {where}", exc, _SENTINEL_CREDENTIALS, "deploy/sentinel-users.acl"
                ) from None
            except redis_errors.ResponseError as exc:
                raise StoreConfigError(
                    f"{where} is not a Sentinel ({_reason(exc)}): use --redis-mode standalone or cluster"
                ) from None
            except (*_UNAVAILABLE, TimeoutError) as exc:
                errors.append(f"{where}: {_reason(exc)}")
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
            await asyncio.wait_for(self._node.client.ping(), _CONNECT_TIMEOUT + _PROBE_TIMEOUT)
        except _LOGIN_REFUSED as exc:
            raise _refused_login(f"the {self.description}", exc) from None
        except (*_UNAVAILABLE, TimeoutError) as exc:
            raise StoreUnavailable(f"cannot reach the {self.description}: {_reason(exc)}") from exc

    async def close(self) -> None:
        await super().close()
        await self._sentinel.aclose()


SLOTS = 16384
_SlotMap = tuple[tuple[int, int, str, int], ...]


class ClusterNodes(Topology):
    """A Redis Cluster: the primary of each of its 16384 hash slots, learnt from ``CLUSTER SLOTS``.

    redis-py's ``RedisCluster`` routes one command at a time and its cluster pipeline does
    a lot of Python work per command; here the :class:`Batcher` groups a loop turn's commands
    by node and sends one hiredis-packed pipeline per node, so the map is kept here. It is
    learnt at start-up from the seed nodes, corrected by each ``MOVED`` redirection, and
    learnt again (the map most nodes give) when a node fails or the cluster reports itself
    down: a failover shows as the replica taking over its primary's slots.
    """

    def __init__(self, url: str, options: PoolOptions) -> None:
        self._seeds, connection = split_url(url)
        if connection.get("db", 0) not in (0, None):
            raise StoreConfigError(
                f"{redact(url)}: a Redis Cluster has only database 0; drop /{connection['db']} from the URL"
            )
        connection.pop("db", None)
        self._options = replace(options, connection={**connection, **options.connection})
        self.description = "Redis Cluster at " + ", ".join(_address(*seed) for seed in self._seeds)
        self._nodes: dict[tuple[str, int], Node] = {}
        self._slots: list[Node | None] = [None] * SLOTS
        self._primaries: list[Node] = []
        self._refreshing: asyncio.Task[None] | None = None
        self._last_refresh = 0.0

    def _node(self, host: str, port: int) -> Node:
        node = self._nodes.get((host, port))
        if node is None:
            node = self._nodes[(host, port)] = self._options.node(_address(host, port), host=host, port=port)
        return node

    async def start(self) -> None:
        errors = []
        for host, port in self._seeds:
            node = self._node(host, port)
            try:
                await self._learn_from(node, host)
            except _LOGIN_REFUSED as exc:
                raise _refused_login(f"the cluster node {_address(host, port)}", exc) from None
            except redis_errors.ResponseError as exc:
                if "cluster support disabled" in str(exc):
                    raise StoreConfigError(
                        f"{_address(host, port)} is not a Redis Cluster node (cluster support is disabled): "
                        "use --redis-mode standalone"
                    ) from None
                raise StoreConfigError(
                    f"{_address(host, port)} is not a Redis Cluster node ({_reason(exc)}): use the right --redis-mode"
                ) from None
            except (*_UNAVAILABLE, TimeoutError) as exc:
                errors.append(f"{_address(host, port)}: {_reason(exc)}")
                continue
            break
        else:
            raise StoreUnavailable(f"cannot reach any node of the {self.description}: {'; '.join(errors)}")
        uncovered = self._slots.count(None)
        if uncovered:
            raise StoreUnavailable(f"the {self.description} is down: {uncovered} of {SLOTS} slots have no primary")
        for node in self._primaries:
            try:
                await asyncio.wait_for(node.client.ping(), _CONNECT_TIMEOUT + _PROBE_TIMEOUT)
            except _LOGIN_REFUSED as exc:
                raise _refused_login(f"the cluster primary {node.name}", exc) from None
            except (*_UNAVAILABLE, TimeoutError) as exc:
                raise StoreUnavailable(f"cannot reach the cluster primary {node.name}: {_reason(exc)}") from exc

    async def _learn_from(self, node: Node, host: str) -> None:
        """Read the slot map from ``node`` (which ``host`` reaches) and make it current."""
        self._apply(await self._read_map(node, host))

    async def _read_map(self, node: Node, host: str) -> _SlotMap:
        """``node``'s view of the slot map: ``(first slot, last slot, host, port)`` of each
        range with a known primary (``host`` stands for the node asked where it says "")."""
        command = node.client.execute_command("CLUSTER", "SLOTS")  # type: ignore[no-untyped-call]
        try:
            reply = await asyncio.wait_for(command, _PROBE_TIMEOUT)
        except TimeoutError:
            raise redis_errors.TimeoutError(f"{node.name} did not answer CLUSTER SLOTS") from None
        ranges = []
        for start, end, primary, *_replicas in reply:
            # redis-py parses CLUSTER SLOTS into {(start, end): {"primary": (host, port), ...}}
            # only on its cluster client; the plain client returns Redis's own nested lists.
            where = primary[0].decode() if isinstance(primary[0], bytes) else str(primary[0])
            if where == "?":
                continue  # a primary whose address is unknown: its slots stay unmapped
            ranges.append((int(start), int(end), where or host, int(primary[1])))
        return tuple(sorted(ranges))

    def _apply(self, ranges: _SlotMap) -> None:
        slots: list[Node | None] = [None] * SLOTS
        primaries: dict[str, Node] = {}
        for start, end, host, port in ranges:
            owner = self._node(host, port)
            primaries[owner.name] = owner
            slots[start : end + 1] = [owner] * (end - start + 1)
        self._slots = slots
        self._primaries = list(primaries.values())

    async def refresh(self) -> None:
        # One refresh at a time, and none right after another: every command failing at
        # once must not make every one of them ask the cluster.
        loop = asyncio.get_running_loop()
        if self._refreshing is None:
            if loop.time() - self._last_refresh < 0.05:
                return
            self._refreshing = loop.create_task(self._refresh())
        task = self._refreshing
        try:
            await asyncio.shield(task)
        finally:
            if task.done() and self._refreshing is task:
                self._refreshing = None
                self._last_refresh = loop.time()

    async def _refresh(self) -> None:
        """Ask every known node for the map and take the one most of them give.

        Not just the first answer: a primary that failed and was started again believes,
        for a moment, that it still owns its slots; one node's word would send writes to it.
        The map is taken as soon as more than half of the known nodes agree on it (dead
        nodes need not time out), else the most common answer within the probe timeout.
        """
        asked = {
            asyncio.ensure_future(self._read_map(node, host)): node for (host, _), node in self._nodes.items()
        }
        votes: collections.Counter[_SlotMap] = collections.Counter()
        try:
            for answer in asyncio.as_completed(asked, timeout=_PROBE_TIMEOUT):
                try:
                    ranges = await answer
                except TimeoutError:
                    break  # as_completed's own: settle with the answers there are
                except Exception as exc:  # whatever went wrong, that node gave no answer
                    logger.debug("no cluster map from a node: %s", exc)
                    continue
                votes[ranges] += 1
                if votes[ranges] * 2 > len(asked):
                    break
        finally:
            for task in asked:
                task.cancel()
            await asyncio.gather(*asked, return_exceptions=True)
        if not votes:
            logger.warning("no node of the %s answered CLUSTER SLOTS", self.description)
            return
        self._apply(votes.most_common(1)[0][0])

    def node_for(self, key: str) -> Node:
        node = self._slots[key_slot(key.encode())]
        if node is None:
            raise redis_errors.ClusterDownError(f"slot {key_slot(key.encode())} has no known primary")
        return node

    def primaries(self) -> list[Node]:
        return list(self._primaries)

    def moved(self, error: redis_errors.AskError, sender: Node) -> Node:
        host = str(error.host)
        if host == "?":  # a node whose preferred endpoint is unknown: learn the map again
            raise redis_errors.ClusterDownError(f"redirected to a node of unknown address: {error}")
        node = self._node(host or sender.host or "127.0.0.1", int(error.port))  # "": the sender's host
        if isinstance(error, redis_errors.MovedError):
            self._slots[error.slot_id] = node
            if node not in self._primaries:
                self._primaries.append(node)
        return node

    async def close(self) -> None:
        if self._refreshing is not None:
            self._refreshing.cancel()
            with contextlib.suppress(BaseException):
                await self._refreshing
        for node in self._nodes.values():
            await node.close()


# -- batching --------------------------------------------------------------------------

_Failure = tuple["_Command", BaseException]


def _resend_reason(error: BaseException) -> str:
    for kind, reason in (
        (redis_errors.MovedError, "moved"),
        (redis_errors.AskError, "ask"),
        (redis_errors.TryAgainError, "tryagain"),
        (redis_errors.ClusterDownError, "clusterdown"),
        (redis_errors.NoScriptError, "noscript"),
        (redis_errors.ReadOnlyError, "readonly"),
    ):
        if isinstance(error, kind):
            return reason
    return "connection"


class Unreplicated(Exception):
    """A write that ran on the primary, but fewer replicas than asked for confirmed it in time."""

    def __init__(self, reply: Any, acknowledged: int, wanted: int) -> None:
        super().__init__(f"{acknowledged} of {wanted} replicas confirmed the write in time")
        self.reply = reply


@dataclass(slots=True, eq=False)
class _Command:
    route: str
    """The key whose slot decides the node."""
    args: tuple[Any, ...]
    write: bool
    future: asyncio.Future[Any]
    ask: Node | None = field(default=None)
    """The node an ``ASK`` redirection named, for the next attempt only."""


class Batcher:
    """Sends the commands issued during one event-loop turn together, one pipeline per node.

    :meth:`call` queues a command and returns its reply's future; the first command of a
    turn schedules a task that, on the next turn, sends everything queued by then in one
    non-transactional pipeline per Redis node and hands each caller its own reply or error.
    Pipelines of successive turns overlap on separate pooled connections, so a slow reply
    never holds up later commands. Commands of one caller keep their order (a caller awaits
    each reply before its next command); commands of different callers were concurrent
    anyway, and each is atomic on its own (a script, or a single read).

    A redirection means the command did not run; after a dropped connection it may have:
    sending again is safe for the store's commands all the same (reads, and scripts whose
    idempotency record makes a second delivery answer ``replayed``; a rate-limit count
    may count twice). So the batcher follows what a deployment in motion answers: ``MOVED`` (the slot has a new owner: the
    map is corrected and the command sent there), ``ASK`` (the slot is migrating: the
    command goes to the target once, after ``ASKING``), ``NOSCRIPT`` (a node without the
    script: it is loaded there), and, after a pause growing from 10 ms, ``TRYAGAIN``
    (keys of a migrating slot split between two nodes), ``CLUSTERDOWN`` and dropped or
    refused connections (a failover: the topology is refreshed). A dropped connection is
    resent at once the first time. Past ``retry_window`` seconds the caller gets the error.

    ``on_resend`` is told why each command is sent again (``moved``, ``ask``, ``tryagain``,
    ``clusterdown``, ``noscript``, ``readonly``, ``connection``).

    ``wait_replicas`` > 0 ends each pipeline carrying writes with ``WAIT wait_replicas
    timeout``; when fewer replicas confirm, each write's caller gets :class:`Unreplicated`
    (with its reply). Reads then travel in pipelines of their own, so that they never
    wait for replication.
    """

    def __init__(
        self,
        topology: Topology,
        scripts: dict[str, str],
        *,
        retry_window: float = 2.0,
        wait_replicas: int = 0,
        wait_timeout: float = 1.0,
        on_resend: Callable[[str], None] | None = None,
    ) -> None:
        self._topology = topology
        self._on_resend = on_resend
        self._scripts = scripts
        self._retry_window = retry_window
        self._wait_replicas = wait_replicas
        self._wait = ("WAIT", wait_replicas, max(1, round(wait_timeout * 1000))) if wait_replicas else None
        self._pending: list[_Command] = []
        self._tasks: set[asyncio.Task[None]] = set()

    def call(self, route: str, *args: Any, write: bool = False) -> asyncio.Future[Any]:
        """Queue one command (``"HMGET", key, field, ...``) for the node of key ``route``;
        await the result for its reply. ``write``: the command may write (see ``wait_replicas``)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if not self._pending:
            task = loop.create_task(self._send())
            self._tasks.add(task)  # the loop keeps only weak references to tasks
            task.add_done_callback(self._tasks.discard)
        self._pending.append(_Command(route, args, write, future))
        return future

    async def _send(self) -> None:
        batch, self._pending = self._pending, []
        try:
            await self._deliver(batch)
        except BaseException as exc:  # a bug, or this task cancelled at shutdown
            for command in batch:
                if command.future.done():
                    continue
                if isinstance(exc, asyncio.CancelledError):
                    command.future.cancel()
                else:
                    command.future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise

    def _route(self, commands: list[_Command]) -> tuple[list[tuple[Node, bool, list[_Command]]], list[_Failure]]:
        """``commands`` grouped by the node to send them to (and whether their pipeline ends
        with ``WAIT``), and those that have no node now."""
        single = self._topology.single
        if single is not None and self._wait is None:  # one node (never redirects), no WAIT: one group
            return [(single, False, commands)], []
        groups: dict[tuple[Node, bool], list[_Command]] = {}
        unrouted: list[_Failure] = []
        waits = self._wait is not None
        for command in commands:
            try:
                node = command.ask or self._topology.node_for(command.route)
            except redis_errors.ClusterDownError as exc:  # a slot without a known primary
                unrouted.append((command, exc))
                continue
            groups.setdefault((node, waits and command.write), []).append(command)
        return [(node, wait, group) for (node, wait), group in groups.items()], unrouted

    async def _deliver(self, commands: list[_Command]) -> None:
        loop = asyncio.get_running_loop()
        deadline: float | None = None
        pause = 0.0
        while True:
            groups, failed = self._route(commands)  # failed: sent again after a pause
            redirected: list[_Failure] = []  # sent again at once
            if len(groups) == 1:  # the usual case: no gather
                node, wait, group = groups[0]
                results = [await self._send_group(node, group, wait)]
            else:
                results = await asyncio.gather(*(self._send_group(node, group, wait) for node, wait, group in groups))
            for (node, _, group), result in zip(groups, results, strict=True):
                if isinstance(result, BaseException):  # the connection failed: every command again
                    for command in group:
                        command.ask = None
                        failed.append((command, result))
                    continue
                replies, short = result
                for command, reply in zip(group, replies, strict=True):
                    future = command.future
                    if not isinstance(reply, Exception):
                        if future.done():  # the caller gave up (cancelled); its command still ran
                            pass
                        elif short is not None and command.write:
                            future.set_exception(Unreplicated(reply, short, self._wait_replicas))
                        else:
                            future.set_result(reply)
                        continue
                    command.ask = None
                    if isinstance(reply, redis_errors.AskError):  # MOVED (a subclass) or ASK
                        try:
                            target = self._topology.moved(reply, node)
                        except redis_errors.ClusterDownError as exc:
                            failed.append((command, exc))
                            continue
                        except redis_errors.AskError as exc:  # not a cluster: no redirection to follow
                            self._fail(command, exc)
                            continue
                        if not isinstance(reply, redis_errors.MovedError):
                            command.ask = target
                        redirected.append((command, reply))
                    elif isinstance(reply, redis_errors.NoScriptError) and command.args[0] == "EVALSHA":
                        trouble = await self._load_script(node, command.args[1])
                        if trouble is None:
                            redirected.append((command, reply))
                        else:  # loading failed (a failover under way): again after a pause, for that reason
                            failed.append((command, trouble))
                    elif isinstance(reply, _RETRY):
                        failed.append((command, reply))
                    else:
                        self._fail(command, _refusal(reply))
            if not failed and not redirected:
                return
            now = loop.time()
            first = deadline is None
            if deadline is None:
                deadline = now + self._retry_window
            elif now >= deadline:
                for command, error in failed + redirected:
                    self._fail(command, error)
                return
            if any(isinstance(error, _REFRESH) for _, error in failed):
                await self._topology.refresh()
            # A dropped pooled connection (Redis restarted, an idle timeout) is resent at once.
            if failed and not (first and all(isinstance(e, redis_errors.ConnectionError) for _, e in failed)):
                pause = min(max(pause * 2, 0.01), 0.25)
                await asyncio.sleep(max(0.0, min(pause, deadline - loop.time())))
            again = [(command, error) for command, error in redirected + failed if not command.future.done()]
            if self._on_resend is not None:
                for _, error in again:
                    self._on_resend(_resend_reason(error))
            commands = [command for command, _ in again]
            if not commands:
                return

    @staticmethod
    def _fail(command: _Command, error: BaseException) -> None:
        if not command.future.done():
            command.future.set_exception(error)

    async def _send_group(
        self, node: Node, group: list[_Command], wait: bool
    ) -> tuple[list[Any], int | None] | BaseException:
        """The replies to ``group`` sent to ``node`` and, when fewer replicas than asked for
        confirmed its writes, how many did (else ``None``); or the exception that failed
        the connection."""
        asking = any(command.ask is not None for command in group)
        if asking:
            commands: list[tuple[Any, ...]] = []
            for command in group:
                if command.ask is not None:
                    commands.append(("ASKING",))
                commands.append(command.args)
        else:
            commands = [command.args for command in group]
        if wait:
            assert self._wait is not None
            commands.append(self._wait)
        try:
            replies = await node.pipeline(commands)
        except Exception as exc:
            return exc
        short: int | None = None
        if wait:
            acknowledged = replies.pop()
            if isinstance(acknowledged, Exception):
                # The node is no primary (any more): none of its writes can be confirmed.
                logger.warning("WAIT on %s failed: %s", node.name, _reason(acknowledged))
                await self._topology.refresh()
                acknowledged = 0
            if int(acknowledged) < self._wait_replicas:
                short = int(acknowledged)
        if asking:  # drop the replies to ASKING
            kept, i = [], 0
            for command in group:
                i += command.ask is not None
                kept.append(replies[i])
                i += 1
            replies = kept
        return replies, short

    async def _load_script(self, node: Node, sha: str) -> Exception | None:
        """Load a script on ``node``; the error if that failed."""
        try:
            await node.client.script_load(self._scripts[sha])
        except (*_UNAVAILABLE, redis_errors.ResponseError) as exc:
            logger.warning("loading a script on %s failed: %s", node.name, exc)
            return exc
        return None


# -- the store -------------------------------------------------------------------------


def _unavailable(exc: BaseException) -> StoreUnavailable:
    if isinstance(exc, redis_errors.AuthenticationError):  # the password changed under the service
        return StoreUnavailable(f"Redis refuses the service's login ({_reason(exc)}): check {_CREDENTIALS}")
    if isinstance(exc, redis_errors.NoPermissionError):
        return StoreUnavailable(
            f"Redis refuses the service's user a command ({_reason(exc)}): the user needs every command of "
            "the store (deploy/redis-users.acl)"
        )
    return StoreUnavailable(f"Redis: {_reason(exc)}")


@contextlib.asynccontextmanager
async def _reachable() -> AsyncIterator[None]:
    """Turn Redis's "cannot serve now" errors into :class:`StoreUnavailable`."""
    try:
        yield
    except _UNAVAILABLE as exc:
        raise _unavailable(exc) from exc


_REPLICATION_TIMEOUT = "fewer replicas than DARKROAD_REDIS_WAIT_REPLICAS confirmed the write in time"


class RedisStore(GameStore):
    """Games in Redis; any number of API processes may share one deployment.

    Takes a :class:`Topology` (where the primaries are); :meth:`from_url` builds one for a
    mode. :meth:`open` connects and checks the deployment; closing the store closes every
    connection.
    """

    def __init__(
        self,
        topology: Topology,
        *,
        wait_replicas: int = 0,
        wait_timeout: float = 1.0,
        retry_window: float = 2.0,
        max_block: float = 15.0,
        on_resend: Callable[[str], None] | None = None,
    ) -> None:
        self.topology = topology
        self._probe_keys: dict[str, str] = {}
        self.wait_replicas = wait_replicas
        self._max_block = max_block
        self._create_script = _script("create.lua")
        self._commit_script = _script("commit.lua")
        self._create_sha = _sha(self._create_script)
        self._commit_sha = _sha(self._commit_script)
        self._scripts = {self._create_sha: self._create_script, self._commit_sha: self._commit_script}
        self._batch = Batcher(
            topology,
            self._scripts,
            retry_window=retry_window,
            wait_replicas=wait_replicas,
            wait_timeout=wait_timeout,
            on_resend=on_resend,
        )

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        mode: str = "standalone",
        service: str | None = None,
        max_connections: int = 64,
        max_streams: int = 1024,
        connection: dict[str, Any] | None = None,
        sentinel_connection: dict[str, Any] | None = None,
        wait_replicas: int = 0,
        wait_timeout: float = 1.0,
        retry_window: float = 2.0,
        timeout: float = _POOL_TIMEOUT,
        max_block: float = 15.0,
        on_resend: Callable[[str], None] | None = None,
    ) -> RedisStore:
        """A store on the Redis deployment at ``url``.

        ``mode``: ``standalone`` (``redis://``, ``rediss://`` or ``unix://`` URL of one
        server), ``cluster`` (the URL names one or more seed nodes, comma separated) or
        ``sentinel`` (the URL lists the Sentinels; ``service`` names the master). Requests
        share ``max_connections`` connections per node; a request waits up to ``timeout``
        seconds for a free one, for a connection to open and for each reply, then answers
        503 (after retrying for ``retry_window``). Event streams and long polls have their
        own ``max_streams``, so that followers can never starve the players; they block in
        ``XREAD`` for up to ``max_block`` seconds at a time, on connections whose read
        timeout is ``max_block + timeout``. ``connection``: options for every connection on
        top of the URL's (to the Redis servers); ``sentinel_connection``: options of the
        connections to the Sentinels (their user and password). ``on_resend``: see :class:`Batcher`.
        """
        options = PoolOptions(dict(connection or {}), max_connections, max_streams, timeout, max_block)
        topology: Topology
        if mode == "standalone":
            topology = Standalone(url, options)
        elif mode == "cluster":
            topology = ClusterNodes(url, options)
        elif mode == "sentinel":
            topology = SentinelPrimary(url, service, options, sentinel_connection)
        else:
            raise StoreConfigError(f"unknown Redis mode {mode!r} (one of: {', '.join(REDIS_MODES)})")
        return cls(
            topology,
            wait_replicas=wait_replicas,
            wait_timeout=wait_timeout,
            retry_window=retry_window,
            max_block=max_block,
            on_resend=on_resend,
        )

    async def open(self) -> None:
        """Connect, check the deployment is what the mode expects, load the scripts on every primary."""
        await self.topology.start()
        for node in self.topology.primaries():
            for script in self._scripts.values():
                try:
                    await node.client.script_load(script)
                except _LOGIN_REFUSED as exc:
                    raise _refused_login(node.name, exc) from None
                except _UNAVAILABLE as exc:
                    raise StoreUnavailable(f"cannot load the scripts on {node.name}: {_reason(exc)}") from exc
                except redis_errors.ResponseError as exc:
                    raise StoreConfigError(f"{node.name} refuses the store's scripts: {_reason(exc)}") from None

    async def close(self) -> None:
        await self.topology.close()

    async def ping(self) -> None:
        """Every primary answers and accepts a write (a short-lived probe key): a Redis out of
        memory (``OOM``), unable to persist (``MISCONF``) or read-only (``READONLY``, a demoted
        primary) is not ready, though it answers ``PING``."""
        nodes = self.topology.primaries()
        try:
            await asyncio.wait_for(asyncio.gather(*(self._probe(node) for node in nodes)), _PROBE_TIMEOUT * 2)
        except (*_UNAVAILABLE, TimeoutError) as exc:
            await self.topology.refresh()
            raise _unavailable(exc) from exc
        except redis_errors.ResponseError as exc:  # a refusal of another kind
            raise _unavailable(exc) from exc

    async def _probe(self, node: Node) -> None:
        await node.client.ping()
        key = self._probe_key(node)
        if key is not None:
            await node.client.set(key, b"1", px=10_000)

    def _probe_key(self, node: Node) -> str | None:
        """A key of ``node``'s slots (in a cluster, each primary holds its own); ``None``
        for a node without slots."""
        key = self._probe_keys.get(node.name)
        for n in range(1 << 16) if key is None else ():
            candidate = f"darkroad:ready:{{{n}}}"
            if self.topology.node_for(candidate) is node:
                key = self._probe_keys[node.name] = candidate
                break
        return key

    async def command(self, route: str, *args: Any, write: bool = False) -> Any:
        """Run one Redis command on the primary of key ``route``, batched and retried like the
        store's own (failover, redirections); the raw reply. For keys outside the games'
        (rate limits, probes): give them a hash tag of their own."""
        try:
            return await self._batch.call(route, *args, write=write)
        except Unreplicated as exc:
            raise ReplicationTimeout(_REPLICATION_TIMEOUT) from exc
        except _UNAVAILABLE as exc:
            raise _unavailable(exc) from exc

    async def create(self, game: NewGame) -> None:
        key = game_key(game.id)
        args: list[Any] = [
            game.version,
            game.state,
            int(game.finished),
            ",".join(game.token_hashes),
            game.ttl * 1000,
            game.tag,
            game.lobby or b"",
        ]
        try:
            created = await self._batch.call(
                key, "EVALSHA", self._create_sha, 2, key, f"{key}:events", *args, *_event_args(game.events),
                write=True,
            )  # fmt: skip
        except Unreplicated as exc:
            if exc.reply:
                raise ReplicationTimeout(_REPLICATION_TIMEOUT) from exc
            created = exc.reply
        except _UNAVAILABLE as exc:
            raise _unavailable(exc) from exc
        if not created:
            raise GameExists(game.id)

    async def load(self, game_id: str, idempotency_key: str | None = None) -> StoredGame | None:
        key = game_key(game_id)
        try:  # not ``_reachable()``: a plain try is free on the two commands of every request
            if idempotency_key is None:
                fields, replay = await self._batch.call(key, "HMGET", key, *_FIELDS), None
            else:
                fields, replay = await asyncio.gather(
                    self._batch.call(key, "HMGET", key, *_FIELDS),
                    self._batch.call(key, "GET", f"{key}:idem:{idempotency_key}"),
                )
        except _UNAVAILABLE as exc:
            raise _unavailable(exc) from exc
        return _stored_game(game_id, cast("list[bytes | None]", fields), cast("bytes | None", replay))

    async def commit(self, commit: Commit) -> CommitResult:
        key = game_key(commit.game_id)
        record = commit.idempotency
        keys = [key, f"{key}:events", f"{key}:actions", f"{key}:idem:{record.key}"]
        args: list[Any] = [
            commit.expected_version,
            commit.version,
            commit.state,
            int(commit.finished),
            commit.action,
            commit.ttl * 1000,
            record.result,
            record.ttl * 1000,
            commit.expected_tag,
            commit.tag,
            "" if commit.token_hashes is None else ",".join(commit.token_hashes),
            commit.lobby or b"",
        ]
        try:
            reply = await self._batch.call(
                key, "EVALSHA", self._commit_sha, len(keys), *keys, *args, *_event_args(commit.events), write=True
            )
        except Unreplicated as exc:
            reply = exc.reply
            if reply[0] in (b"committed", b"replayed"):
                raise ReplicationTimeout(_REPLICATION_TIMEOUT) from exc
        except _UNAVAILABLE as exc:
            raise _unavailable(exc) from exc
        outcome = Outcome(reply[0].decode())
        if outcome is Outcome.STALE:
            return CommitResult(outcome, current=_stored_game(commit.game_id, reply[1:]))
        if outcome is Outcome.REPLAYED:
            return CommitResult(outcome, replay=reply[1])
        return CommitResult(outcome)

    async def confirm(self, game_id: str, idempotency_key: str, ttl: int) -> None:
        if not self.wait_replicas:
            return
        # Any write of ours that replicas confirm comes after the recorded commit in the
        # replication stream: refreshing the record's expiry is one, and a harmless one.
        record = f"{game_key(game_id)}:idem:{idempotency_key}"
        await self.command(game_key(game_id), "PEXPIRE", record, ttl * 1000, write=True)

    async def events(self, game_id: str, after: int, limit: int) -> list[StoredEvent]:
        key = f"{game_key(game_id)}:events"
        async with _reachable():
            entries = await self._batch.call(key, "XRANGE", key, f"({_stream_id(after)}", "+", "COUNT", limit)
        return _decode_raw_entries(entries)

    async def wait_events(self, game_id: str, after: int, limit: int, timeout: float) -> list[StoredEvent]:
        found = await self.events(game_id, after, limit)
        if found:
            return found
        stream = f"{game_key(game_id)}:events"
        node = self.topology.node_for(stream)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        reply: Any = None
        redirections = 0
        # A wait longer than ``max_block`` (a long poll) is several reads: each fits the
        # stream connections' read timeout.
        while not reply and (remaining := deadline - loop.time()) > 0:
            try:
                block = max(1, int(min(remaining, self._max_block) * 1000))
                reply = await node.streams.xread({stream: _stream_id(after)}, count=limit, block=block)
            except redis_errors.AskError as exc:  # the slot moved since the events were read
                redirections += 1
                try:
                    node = self.topology.moved(exc, node)
                except redis_errors.ClusterDownError:
                    redirections = 3
                if redirections == 3:
                    await self.topology.refresh()
                    raise _unavailable(exc) from exc
            except _UNAVAILABLE as exc:
                await self.topology.refresh()
                raise _unavailable(exc) from exc
        if not reply:
            return []
        # One stream asked for: [[name, entries]] in RESP2, {name: [entries]} in RESP3.
        streams: Any = reply
        entries = next(iter(streams.values()))[0] if isinstance(streams, dict) else streams[0][1]
        return _decode_entries(entries)

    async def count(self, key: str, amount: int, ttl: float) -> int:
        # Not ``write=True``: a counter need not wait for replicas (``WAIT``).
        async with _reachable():
            if not amount:
                return int(await self.command(key, "GET", key) or 0)
            total, _ = await asyncio.gather(
                self.command(key, "INCRBY", key, amount), self.command(key, "PEXPIRE", key, max(1, round(ttl * 1000)))
            )
        return int(total)

    async def actions(self, game_id: str) -> list[bytes]:
        key = f"{game_key(game_id)}:actions"
        async with _reachable():
            actions = await self._batch.call(key, "LRANGE", key, 0, -1)
        return cast("list[bytes]", actions)

    async def list_waiting(self, entry: str) -> None:
        await self.command(WAITING_KEY, "ZADD", WAITING_KEY, 0, entry, write=True)

    async def unlist_waiting(self, *entries: str) -> None:
        # Not ``write=True``: a removal lost in a failover leaves an entry that readers check
        # against its game and remove again; a read of the listing must not wait for replicas.
        if entries:
            await self.command(WAITING_KEY, "ZREM", WAITING_KEY, *entries)

    async def waiting_page(self, before: str | None, count: int, expired_before: str) -> list[str]:
        # Every score is 0, so the set is ordered by entry (creation time first): a range by
        # lexical order, newest first, after the cursor.
        key = WAITING_KEY
        start = "+" if before is None else f"({before}"
        # The trim is not ``write=True`` (as :meth:`unlist_waiting`): the listing, a read,
        # neither waits for replicas nor answers replication-timeout.
        _, page = await asyncio.gather(
            self.command(key, "ZREMRANGEBYLEX", key, "-", f"({expired_before}"),
            self.command(key, "ZRANGE", key, start, "-", "BYLEX", "REV", "LIMIT", 0, count),
        )
        return [entry.decode() for entry in page]

    async def lobbies(self, game_ids: Sequence[str]) -> list[bytes | None]:
        keys = [game_key(game_id) for game_id in game_ids]
        async with _reachable():
            found = await asyncio.gather(*(self._batch.call(key, "HGET", key, "lobby") for key in keys))
        return [value or None for value in found]

