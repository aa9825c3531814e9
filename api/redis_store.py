"""The shared store: games in Redis, written by one Lua script per action.

Keys of one game (all carry the ``{<id>}`` hash tag, so they live in one Redis Cluster slot
and one script may touch them all):

``game:{<id>}``
    hash: ``version``, ``state`` (the engine's blob), ``finished`` (``0``/``1``),
    ``tokens`` (sha256 of each seat's token, comma separated)
``game:{<id>}:events``
    stream: one entry per event, id ``0-<n+1>``, fields ``a`` (audience: ``*`` or seats)
    and ``e`` (the event JSON); readers resume with ``XRANGE``/``XREAD`` after any id
``game:{<id>}:actions``
    list: every applied action's JSON, in order (replaying them reproduces the state)
``game:{<id>}:idem:<key>``
    string: the first result of an idempotent request, with its own expiry

``commit.lua`` checks the version, writes, appends, records and refreshes the expiry
atomically in one round trip; retries of a commit whose reply was lost are safe because
the script sees its own idempotency record and answers ``replayed``.

The two commands of every request, loading a game and committing an action, go through
a :class:`Batcher`: the commands that the event loop's requests issue in one turn travel
together in one pipeline. A busy process then pays one socket write, one read and one
connection checkout per turn instead of per request; an idle one sends each command
alone, one loop turn later.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import AsyncIterator, Sequence
from importlib import resources
from typing import Any, cast

import hiredis
from redis import exceptions as redis_errors
from redis.asyncio import BlockingConnectionPool, ConnectionPool, Redis

from darkroad.api.store import (
    Commit,
    CommitResult,
    GameExists,
    GameStore,
    NewGame,
    Outcome,
    StoredEvent,
    StoredGame,
    StoreUnavailable,
)

_UNAVAILABLE = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.OutOfMemoryError,
    redis_errors.ReadOnlyError,
    redis_errors.ClusterDownError,
    redis_errors.TryAgainError,
)
"""Errors that mean "Redis cannot serve this right now", not "this code is wrong"."""

_EVERYONE = b"*"
_FIELDS = ["version", "state", "finished", "tokens"]


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


def _stored_game(
    game_id: str, fields: Sequence[bytes | None], replay: bytes | None = None
) -> StoredGame | None:
    """A game from its hash fields (in the order of ``_FIELDS``); ``None`` if it has none."""
    version, state, finished, tokens = fields
    if version is None or state is None or finished is None or tokens is None:
        return None
    return StoredGame(
        id=game_id,
        version=int(version),
        state=state,
        finished=finished == b"1",
        token_hashes=tuple(tokens.decode().split(",")),
        replay=replay,
    )


def _script(name: str) -> str:
    return resources.files("darkroad.api").joinpath(name).read_text(encoding="utf-8")


class Batcher:
    """Sends the commands issued during one event-loop turn together, in one pipeline.

    :meth:`call` queues a command and returns its reply's future; the first command of a
    turn schedules a task that, on the next turn, sends everything queued by then in one
    non-transactional pipeline and hands each caller its own reply or error. Pipelines
    of successive turns overlap on separate pooled connections, so a slow reply never
    holds up later commands. Commands of one caller keep their order (a caller awaits
    each reply before its next command); commands of different callers were concurrent
    anyway, and each is atomic on its own (a script, or a single read).

    ``scripts`` maps the SHA1 of each Lua script sent with ``EVALSHA`` to its source: a
    command answered ``NOSCRIPT`` (Redis restarted, or ``SCRIPT FLUSH``) did not run, so
    the script is loaded and the command sent again.

    A dropped connection costs one resend of the whole pipeline on a fresh connection
    (safe: every command sent here is a read, or a commit whose idempotency record makes
    a second delivery answer ``replayed``); when that fails too, every caller gets the
    error.
    """

    def __init__(self, client: Redis, scripts: dict[str, str]) -> None:
        self._client = client
        self._scripts = scripts
        self._pending: list[tuple[tuple[Any, ...], asyncio.Future[Any]]] = []
        self._tasks: set[asyncio.Task[None]] = set()

    def call(self, *args: Any) -> asyncio.Future[Any]:
        """Queue one command (``"HMGET", key, field, ...``); await the result for its reply."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if not self._pending:
            task = loop.create_task(self._send())
            self._tasks.add(task)  # the loop keeps only weak references to tasks
            task.add_done_callback(self._tasks.discard)
        self._pending.append((args, future))
        return future

    async def _send(self) -> None:
        batch, self._pending = self._pending, []
        try:
            replies = await self._execute([args for args, _ in batch])
        except BaseException as exc:  # a connection error, or this task cancelled at shutdown
            for _, future in batch:
                if future.done():
                    continue
                if isinstance(exc, asyncio.CancelledError):
                    future.cancel()
                else:
                    future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        for (_, future), reply in zip(batch, replies, strict=True):
            if future.done():  # the caller gave up (cancelled); its command still ran
                continue
            if isinstance(reply, Exception):
                future.set_exception(reply)
            else:
                future.set_result(reply)

    async def _execute(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        replies = await self._pipeline(commands)
        unknown = [i for i, reply in enumerate(replies) if isinstance(reply, redis_errors.NoScriptError)]
        if unknown:
            for sha in {commands[i][1] for i in unknown}:
                await self._client.script_load(self._scripts[sha])
            for i, reply in zip(unknown, await self._pipeline([commands[i] for i in unknown]), strict=True):
                replies[i] = reply
        return replies

    async def _pipeline(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """Send ``commands`` on one pooled connection and read their replies, in order.

        redis-py's ``Pipeline`` would do the same through several layers per command, and
        its Python packer; here hiredis packs (in C), one write sends everything and the
        parser reads each reply. A connection that fails is dropped and the whole pipeline sent
        once more on a fresh one.
        """
        pool = self._client.connection_pool
        packed = b"".join([hiredis.pack_command(args) for args in commands])
        for attempt in (1, 2):
            connection = await pool.get_connection()
            try:
                await connection.send_packed_command(packed, check_health=False)
                replies: list[Any] = []
                for _ in commands:
                    try:
                        replies.append(await connection.read_response())
                    except redis_errors.ResponseError as exc:
                        replies.append(exc)
                return replies
            except (redis_errors.ConnectionError, redis_errors.TimeoutError, OSError):
                await connection.disconnect()
                if attempt == 2:
                    raise
            except BaseException:
                await connection.disconnect()  # replies may be left unread: the connection is unusable
                raise
            finally:
                await pool.release(connection)
        raise AssertionError("unreachable")


@contextlib.asynccontextmanager
async def _reachable() -> AsyncIterator[None]:
    """Turn Redis's "cannot serve now" errors into :class:`StoreUnavailable`."""
    try:
        yield
    except _UNAVAILABLE as exc:
        raise _unavailable(exc) from exc


def _unavailable(exc: Exception) -> StoreUnavailable:
    return StoreUnavailable(f"Redis: {exc}")


class RedisStore(GameStore):
    """Games in Redis; any number of API processes may share one.

    Takes ready ``redis.asyncio.Redis`` clients (``decode_responses=False``): one for
    requests and, optionally, one for event streams (whose blocking reads hold a
    connection while they wait); use :meth:`from_url` to build them. Closing the store
    closes the clients.
    """

    def __init__(self, client: Redis, streams: Redis | None = None) -> None:
        self._redis = client
        self._streams = streams or client
        self._create = client.register_script(_script("create.lua"))
        commit = _script("commit.lua")
        self._commit_sha = hashlib.sha1(commit.encode(), usedforsecurity=False).hexdigest()
        self._batch = Batcher(client, {self._commit_sha: commit})

    @classmethod
    def from_url(cls, url: str, *, max_connections: int = 64, max_streams: int = 1024) -> RedisStore:
        """A store on the Redis at ``url`` (``redis://``, ``rediss://`` or ``unix://``).

        Requests share ``max_connections`` connections (a request waits up to 5 s for a
        free one, then answers 503); event streams have their own ``max_streams``, so
        that followers can never starve the players.
        """
        options: dict[str, Any] = {"socket_connect_timeout": 5, "health_check_interval": 30}
        requests = BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=5, **options)
        streams = ConnectionPool.from_url(url, max_connections=max_streams, **options)
        return cls(Redis.from_pool(requests), Redis.from_pool(streams))

    async def close(self) -> None:
        await self._redis.aclose()
        if self._streams is not self._redis:
            await self._streams.aclose()

    async def ping(self) -> None:
        async with _reachable():
            await self._redis.ping()

    async def create(self, game: NewGame) -> None:
        key = game_key(game.id)
        args: list[Any] = [
            game.version,
            game.state,
            int(game.finished),
            ",".join(game.token_hashes),
            game.ttl * 1000,
        ]
        async with _reachable():
            created = await self._create(keys=[key, f"{key}:events"], args=args + _event_args(game.events))
        if not created:
            raise GameExists(game.id)

    async def load(self, game_id: str, idempotency_key: str | None = None) -> StoredGame | None:
        key = game_key(game_id)
        try:  # not ``_reachable()``: a plain try is free on the two commands of every request
            if idempotency_key is None:
                fields, replay = await self._batch.call("HMGET", key, *_FIELDS), None
            else:
                fields, replay = await asyncio.gather(
                    self._batch.call("HMGET", key, *_FIELDS),
                    self._batch.call("GET", f"{key}:idem:{idempotency_key}"),
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
        ]
        try:
            reply = await self._batch.call(
                "EVALSHA", self._commit_sha, len(keys), *keys, *args, *_event_args(commit.events)
            )
        except _UNAVAILABLE as exc:
            raise _unavailable(exc) from exc
        outcome = Outcome(reply[0].decode())
        if outcome is Outcome.STALE:
            return CommitResult(outcome, current=_stored_game(commit.game_id, reply[1:]))
        if outcome is Outcome.REPLAYED:
            return CommitResult(outcome, replay=reply[1])
        return CommitResult(outcome)

    async def events(self, game_id: str, after: int, limit: int) -> list[StoredEvent]:
        async with _reachable():
            entries = await self._redis.xrange(
                f"{game_key(game_id)}:events", min=f"({_stream_id(after)}", max="+", count=limit
            )
        return _decode_entries(cast("list[tuple[bytes, dict[bytes, bytes]]]", entries))

    async def wait_events(self, game_id: str, after: int, limit: int, timeout: float) -> list[StoredEvent]:
        found = await self.events(game_id, after, limit)
        if found:
            return found
        stream = f"{game_key(game_id)}:events"
        async with _reachable():
            reply = await self._streams.xread(
                {stream: _stream_id(after)}, count=limit, block=max(1, int(timeout * 1000))
            )
        if not reply:
            return []
        # One stream asked for: [[name, entries]] in RESP2, {name: [entries]} in RESP3.
        streams: Any = reply
        entries = next(iter(streams.values()))[0] if isinstance(streams, dict) else streams[0][1]
        return _decode_entries(entries)

    async def actions(self, game_id: str) -> list[bytes]:
        async with _reachable():
            actions = await self._redis.lrange(f"{game_key(game_id)}:actions", 0, -1)
        return cast("list[bytes]", actions)
