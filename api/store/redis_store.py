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
``game:{<id>}:hooks``
    hash: the seats' webhook subscriptions (``darkroad.api.store.redis_hooks``)

The bot jobs and turn clocks, per shard ``<tag>``:

``darkroad:bots:{<tag>}``
    stream of :class:`BotJob` entries (fields ``g`` game id, ``v`` version, ``b`` bot), with
    the consumer group ``workers``; workers acknowledge and delete the entries they are done with
``darkroad:clocks:{<tag>}``
    sorted set: game id scored by its earliest turn deadline (Unix seconds)
``darkroad:hooks:{<tag>}``, ``darkroad:hooks:retry:{<tag>}``
    the webhook messages to deliver (stream, consumer group ``deliverers``) and those to try
    again (sorted set by due time): ``darkroad.api.store.redis_hooks``

A commit writes them in its script (atomic with the version), so they must live in the game's
slot. One Redis has one shard (tag ``bots``). A Cluster has ``job_shards`` shards, tags
``bots-0``, ``bots-1``, ... each in a slot of its own; a new game's id is drawn so that its
``{id}`` falls in one of those slots (:meth:`RedisStore.new_game_id`), which makes the
game's shard the one sharing its slot, and spreads the jobs over as many streams (and, as
the slots lie on different primaries, shards of the Cluster). The price: a Cluster's games
live in ``job_shards`` slots only, so resharding moves them in that many lumps (raise
``DARKROAD_BOT_SHARDS`` for finer ones). A game created before (any slot) gets its job
and clock written right after its commit instead, non-atomically, on the shard its id hashes to.

One key outside the games: ``lobby:{waiting}``, a sorted set (every score 0, ordered by
member) of entries ``<created ms>:<id>``, the listed waiting games. It has a hash tag of
its own, so it lives in one slot apart from the games it names: it is changed after a
game's own atomic step, with idempotent commands, and checked against the games when
read (see ``darkroad.api.app.lobby``).

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

import asyncio
import contextlib
import functools
import hashlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from importlib import resources
from typing import Any, cast

import msgspec
from redis import exceptions as redis_errors

from darkroad.api.settings import REDIS_MODES
from darkroad.api.store.base import (
    BotJob,
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
from darkroad.api.store.batcher import Batcher, Unreplicated
from darkroad.api.store.cluster import ClusterNodes
from darkroad.api.store.redis_events import (
    decode_entries,
    decode_raw_entries,
    event_texts,
    stream_id,
)
from darkroad.api.store.redis_groups import ConsumerGroup
from darkroad.api.store.redis_hooks import HOOK_SCRIPTS, HookArgs, RedisHooks, hook_args, hooks_key
from darkroad.api.store.redis_jobs import JOB_GROUP, JobQueue, clocks_key, jobs_key
from darkroad.api.store.topology import (
    CREDENTIALS,
    LOGIN_REFUSED,
    POOL_TIMEOUT,
    PROBE_TIMEOUT,
    UNAVAILABLE,
    Node,
    PoolOptions,
    SentinelPrimary,
    Standalone,
    Topology,
    reason,
    refused_login,
)

_FIELDS = ["version", "state", "finished", "tokens", "tag", "lobby", "job"]
WAITING_KEY = "lobby:{waiting}"
def game_key(game_id: str) -> str:
    """The hash of game ``game_id``; the other keys of the game extend this name."""
    return f"game:{{{game_id}}}"


_OUTCOMES = {outcome.value.encode(): outcome for outcome in Outcome}
"""The outcome of each reply of ``commit.lua``."""


def _stored_game(
    game_id: str, fields: Sequence[bytes | None], replay: bytes | None = None
) -> StoredGame | None:
    """A game from its hash fields (in the order of ``_FIELDS``); ``None`` if it has none."""
    version, state, finished, tokens, tag, lobby, job = fields
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
        job=job.decode() if job else None,
    )


def _script(name: str) -> str:
    return resources.files("darkroad.api.store").joinpath(name).read_text(encoding="utf-8")


def _sha(script: str) -> str:
    return hashlib.sha1(script.encode(), usedforsecurity=False).hexdigest()


# -- where commands go -----------------------------------------------------------------


logger = logging.getLogger("darkroad.api.redis")



def _unavailable(exc: BaseException) -> StoreUnavailable:
    if isinstance(exc, redis_errors.AuthenticationError):  # the password changed under the service
        return StoreUnavailable(f"Redis refuses the service's login ({reason(exc)}): check {CREDENTIALS}")
    if isinstance(exc, redis_errors.NoPermissionError):
        return StoreUnavailable(
            f"Redis refuses the service's user a command ({reason(exc)}): the user needs every command of "
            "the store (deploy/redis-users.acl)"
        )
    return StoreUnavailable(f"Redis: {reason(exc)}")


@contextlib.asynccontextmanager
async def _reachable() -> AsyncIterator[None]:
    """Turn Redis's "cannot serve now" errors into :class:`StoreUnavailable`."""
    try:
        yield
    except UNAVAILABLE as exc:
        raise _unavailable(exc) from exc


_REPLICATION_TIMEOUT = "fewer replicas than DARKROAD_REDIS_WAIT_REPLICAS confirmed the write in time"


class RedisStore(RedisHooks, GameStore):
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
        job_shards: int = 16,
    ) -> None:
        self.topology = topology
        self._probe_keys: dict[str, str] = {}
        self.wait_replicas = wait_replicas
        self._max_block = max_block
        self._create_script = _script("create.lua")
        self._commit_script = _script("commit.lua")
        self._create_sha = _sha(self._create_script)
        self._commit_sha = _sha(self._commit_script)
        self._scripts = {self._create_sha: self._create_script, self._commit_sha: self._commit_script, **HOOK_SCRIPTS}
        self._batch = Batcher(
            topology,
            self._scripts,
            retry_window=retry_window,
            wait_replicas=wait_replicas,
            wait_timeout=wait_timeout,
            on_resend=on_resend,
        )
        groups = functools.partial(ConsumerGroup, topology, self.command, _unavailable, max_block)
        self.jobs = JobQueue(self.command, groups, job_shards if isinstance(topology, ClusterNodes) else 0)
        self._shard_keys = {shard: (jobs_key(shard), clocks_key(shard), hooks_key(shard)) for shard in self.jobs.shard_names()}
        """Each shard's keys a commit's script writes (its bot jobs, turn clocks and webhook
        messages), named once: formatting the three names for every commit cost 2.3 K of
        :meth:`commit`'s 35.1 K instructions (cachegrind, 1,200 less 200 commits, docs/performance.md)."""
        RedisHooks.__init__(self, self.command, self.jobs, groups)

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
        timeout: float = POOL_TIMEOUT,
        max_block: float = 15.0,
        on_resend: Callable[[str], None] | None = None,
        job_shards: int = 16,
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
            job_shards=job_shards,
        )

    async def open(self) -> None:
        """Connect, check the deployment is what the mode expects, load the scripts on every primary."""
        await self.topology.start()
        for node in self.topology.primaries():
            for script in self._scripts.values():
                try:
                    await node.client.script_load(script)
                except LOGIN_REFUSED as exc:
                    raise refused_login(node.name, exc) from None
                except UNAVAILABLE as exc:
                    raise StoreUnavailable(f"cannot load the scripts on {node.name}: {reason(exc)}") from exc
                except redis_errors.ResponseError as exc:
                    raise StoreConfigError(f"{node.name} refuses the store's scripts: {reason(exc)}") from None

    async def close(self) -> None:
        await self.topology.close()

    async def ping(self) -> None:
        """Every primary answers and accepts a write (a short-lived probe key): a Redis out of
        memory (``OOM``), unable to persist (``MISCONF``) or read-only (``READONLY``, a demoted
        primary) is not ready, though it answers ``PING``."""
        nodes = self.topology.primaries()
        try:
            await asyncio.wait_for(asyncio.gather(*(self._probe(node) for node in nodes)), PROBE_TIMEOUT * 2)
        except (*UNAVAILABLE, TimeoutError) as exc:
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
        except UNAVAILABLE as exc:
            raise _unavailable(exc) from exc

    async def create(self, game: NewGame) -> None:
        key = game_key(game.id)
        # create.lua's short texts, in the order it names them (its ARGV[1], as commit.lua's)
        texts = [
            str(game.version),
            "1" if game.finished else "0",
            ",".join(game.token_hashes),
            str(game.ttl * 1000),
            game.tag,
            game.bot_job or "",
            "" if game.deadline is None else repr(game.deadline),
            game.id,
            str(len(game.actions)),  # an imported game's action list
            *event_texts(game.events),
        ]
        keys = [key, f"{key}:events", f"{key}:actions"]
        shard = self.jobs.own_shard(game.id)
        if shard is not None:
            keys += [jobs_key(shard), clocks_key(shard)]
        packed = msgspec.msgpack.encode(texts)
        try:
            created = await self._batch.call(
                key, "EVALSHA", self._create_sha, len(keys), *keys, packed, game.state, game.lobby or b"",
                *game.actions, *[event.payload for event in game.events], write=True,
            )  # fmt: skip
        except Unreplicated as exc:
            if exc.reply:
                raise ReplicationTimeout(_REPLICATION_TIMEOUT) from exc
            created = exc.reply
        except UNAVAILABLE as exc:
            raise _unavailable(exc) from exc
        if not created:
            raise GameExists(game.id)
        if shard is None:
            await self.jobs.after_write(game.id, game.version, game.bot_job, game.deadline, clear=False)

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
        except UNAVAILABLE as exc:
            raise _unavailable(exc) from exc
        return _stored_game(game_id, cast("list[bytes | None]", fields), cast("bytes | None", replay))

    async def commit(self, commit: Commit) -> CommitResult:
        key = game_key(commit.game_id)
        record = commit.idempotency
        keys = [key, f"{key}:events", f"{key}:actions", f"{key}:idem:{record.key}", f"{key}:hooks"]
        job = commit.job
        shard = self.jobs.own_shard(commit.game_id)
        # The job played is acknowledged (or kept) by the script when its stream is one the
        # script writes; a job elsewhere (a Cluster game created before its id was drawn for a
        # shard's slot) is acknowledged after, never kept.
        here = job is not None and shard is not None and job.shard == shard
        keep = here and commit.keep_job and commit.bot_job is not None and bool(job and job.consumer)
        if shard is not None:
            keys += self._shard_keys[shard]
        # commit.lua's short texts, in the order it names them (its ARGV[1])
        texts = [
            str(commit.expected_version),
            str(commit.version),
            "1" if commit.finished else "0",
            str(commit.ttl * 1000),
            str(record.ttl * 1000),
            commit.expected_tag,
            commit.tag,
            "" if commit.token_hashes is None else ",".join(commit.token_hashes),
            commit.bot_job or "",
            "" if commit.deadline is None else repr(commit.deadline),
            commit.game_id,
            "" if job is None else job.ref,
            "1" if keep else "",
            JOB_GROUP,
            "" if job is None else job.consumer,
        ]
        hooks = hook_args(commit.hooks, commit.notice is not None)
        reply = await self._commit(keys, texts, hooks, commit)
        if reply[0] == b"notice":  # seats subscribed: the script wrote nothing, and wants the notice
            hooks = hook_args(commit.notice() if commit.notice else None)
            reply = await self._commit(keys, texts, hooks, commit)
        outcome = _OUTCOMES[reply[0]]
        if outcome is Outcome.STALE:
            return CommitResult(outcome, current=_stored_game(commit.game_id, reply[1:]))
        if outcome is Outcome.REPLAYED:
            return CommitResult(outcome, replay=reply[1])
        if shard is None:
            bot_job = None if keep else commit.bot_job
            await self.jobs.after_write(commit.game_id, commit.version, bot_job, commit.deadline, clear=True)
        if job is not None and not here:
            await self.jobs.ack(job)
        if len(reply) > 2:  # webhook messages of a game whose slot has no shard: enqueued now
            await self.enqueue_after(commit.game_id, commit.version, hooks.time, reply[2:])
        return CommitResult(outcome, kept=keep, hooked=len(reply) > 1 and reply[1] == b"1")

    async def _commit(self, keys: list[str], texts: list[str], hooks: HookArgs, commit: Commit) -> Any:
        """``commit.lua``'s reply: its short ``texts`` and the webhooks' short texts (``hooks``)
        packed as its first argument, one MessagePack array with the events' stream ids and audiences,
        then the binary values (the webhooks' decision among them) and the events' payloads."""
        events = commit.events
        packed = msgspec.msgpack.encode([*texts, hooks.awaited, hooks.time, hooks.low, *event_texts(events)])
        record = commit.idempotency
        try:
            return await self._batch.call(
                keys[0], "EVALSHA", self._commit_sha, len(keys), *keys,
                packed, commit.state, commit.action, record.result, commit.lobby or b"", hooks.decision,
                *[event.payload for event in events], write=True,
            )  # fmt: skip
        except Unreplicated as exc:
            if exc.reply[0] in (b"committed", b"replayed"):
                raise ReplicationTimeout(_REPLICATION_TIMEOUT) from exc
            return exc.reply
        except UNAVAILABLE as exc:
            raise _unavailable(exc) from exc

    # -- bot jobs and turn clocks (darkroad.api.store.redis_jobs) ----------------------------

    def new_game_id(self) -> str:
        return self.jobs.new_game_id()

    def job_shards(self) -> list[str]:
        return self.jobs.shard_names()

    async def take_jobs(
        self, shard: str, consumer: str, count: int, block: float, claim_after: float
    ) -> list[BotJob]:
        return await self.jobs.take(shard, consumer, count, block, claim_after)

    async def ack_job(self, job: BotJob) -> None:
        await self.jobs.ack(job)

    async def waiting_jobs(self, shard: str, limit: int) -> list[BotJob]:
        return await self.jobs.waiting(shard, limit)

    async def due_clocks(self, shard: str, now: float, limit: int) -> list[tuple[str, float]]:
        return await self.jobs.due_clocks(shard, now, limit)

    async def stop_clock(self, shard: str, game_id: str, deadline: float) -> None:
        await self.jobs.stop_clock(shard, game_id, deadline)

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
            entries = await self._batch.call(key, "XRANGE", key, f"({stream_id(after)}", "+", "COUNT", limit)
        return decode_raw_entries(entries)

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
                reply = await node.streams.xread({stream: stream_id(after)}, count=limit, block=block)
            except redis_errors.AskError as exc:  # the slot moved since the events were read
                redirections += 1
                try:
                    node = self.topology.moved(exc, node)
                except redis_errors.ClusterDownError:
                    redirections = 3
                if redirections == 3:
                    await self.topology.refresh()
                    raise _unavailable(exc) from exc
            except UNAVAILABLE as exc:
                await self.topology.refresh()
                raise _unavailable(exc) from exc
        if not reply:
            return []
        # One stream asked for: [[name, entries]], as redis-py parses XREAD on RESP2.
        return decode_entries(reply[0][1])

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

