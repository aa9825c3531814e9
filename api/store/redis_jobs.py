"""The bot jobs and turn clocks of :class:`~darkroad.api.store.redis_store.RedisStore`.

Per shard ``<tag>``: ``darkroad:bots:{<tag>}``, a stream of jobs (fields ``g`` game id, ``v``
version, ``b`` bot) read by the consumer group ``workers``, and ``darkroad:clocks:{<tag>}``,
a sorted set of game ids scored by their earliest turn deadline. ``commit.lua`` and
``create.lua`` write them with the game (see ``redis_store``'s docstring for the shards of a
Cluster); this module reads them for the bot workers.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import zlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from redis.crc import key_slot

from darkroad.api.store.base import BotJob
from darkroad.api.store.redis_groups import Entry, Groups, live_entries

JOB_GROUP = "workers"
STANDALONE_SHARD = "bots"


def jobs_key(shard: str) -> str:
    """The stream of bot jobs of ``shard``."""
    return f"darkroad:bots:{{{shard}}}"


def clocks_key(shard: str) -> str:
    """The turn clocks of ``shard``."""
    return f"darkroad:clocks:{{{shard}}}"


class JobQueue:
    """The shards of jobs and clocks of one store: ``cluster_shards`` in a Cluster (0: one)."""

    def __init__(self, command: Callable[..., Awaitable[Any]], groups: Groups, cluster_shards: int) -> None:
        self._command = command
        shards: dict[int, str] = {}
        for n in itertools.count():  # distinct slots (two names may hash alike)
            if len(shards) == cluster_shards:
                break
            shards.setdefault(key_slot(f"bots-{n}".encode()), f"bots-{n}")
        self._shards = shards
        self._shard_names = list(shards.values()) or [STANDALONE_SHARD]
        self._group = groups(JOB_GROUP, jobs_key)

    def own_shard(self, game_id: str) -> str | None:
        """The shard sharing the game's slot, whose keys its scripts write (``None``: a game of
        a Cluster whose slot has none, created before its id was drawn for one)."""
        if not self._shards:
            return STANDALONE_SHARD
        return self._shards.get(key_slot(game_id.encode()))

    def any_shard(self, game_id: str) -> str:
        """The game's own shard, or (a Cluster game whose slot has none) the one its writes after
        each commit go to (jobs, clocks, webhook messages)."""
        return self.own_shard(game_id) or self._shard_names[zlib.crc32(game_id.encode()) % len(self._shard_names)]

    async def after_write(
        self, game_id: str, version: int, bot: str | None, deadline: float | None, *, clear: bool
    ) -> None:
        """The job and clock of a game whose slot has no shard, written after its commit."""
        shard = self.any_shard(game_id)
        if bot is not None:
            await self._command(jobs_key(shard), "XADD", jobs_key(shard), "*", "g", game_id, "v", version, "b", bot,
                               write=True)
        if deadline is not None:
            await self._command(clocks_key(shard), "ZADD", clocks_key(shard), repr(deadline), game_id, write=True)
        elif clear:
            await self._command(clocks_key(shard), "ZREM", clocks_key(shard), game_id, write=True)

    def new_game_id(self) -> str:
        """A random game id; in a Cluster, one whose ``{id}`` hashes to a shard's slot."""
        if not self._shards:
            return secrets.token_urlsafe(16)
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        while True:  # 4096 endings: a shard's slot among them all but always (1 - 16/16384) ** 4096
            stem = secrets.token_urlsafe(15)[:20]
            for first in alphabet:
                for second in alphabet:
                    candidate = f"{stem}{first}{second}"
                    if key_slot(candidate.encode()) in self._shards:
                        return candidate

    def shard_names(self) -> list[str]:
        return list(self._shard_names)

    @staticmethod
    def _jobs(shard: str, consumer: str, entries: Sequence[Entry], deliveries: int = 1) -> list[BotJob]:
        jobs = []
        for entry_id, fields in entries:
            ref = entry_id.decode()
            jobs.append(
                BotJob(
                    game_id=fields[b"g"].decode(),
                    version=int(fields[b"v"]),
                    bot=fields[b"b"].decode(),
                    enqueued=int(ref.partition("-")[0]) / 1000,
                    shard=shard,
                    ref=ref,
                    deliveries=deliveries,
                    consumer=consumer,
                )
            )
        return jobs

    async def take(
        self, shard: str, consumer: str, count: int, block: float, claim_after: float
    ) -> list[BotJob]:
        entries, claimed = await self._group.take(shard, consumer, count, block, claim_after)
        return self._jobs(shard, consumer, entries, deliveries=2 if claimed else 1)

    async def ack(self, job: BotJob) -> None:
        key = jobs_key(job.shard)
        await asyncio.gather(
            self._command(key, "XACK", key, JOB_GROUP, job.ref, write=True),
            self._command(key, "XDEL", key, job.ref, write=True),
        )

    async def waiting(self, shard: str, limit: int) -> list[BotJob]:
        await self._group.ensure(shard)
        key = jobs_key(shard)
        groups = await self._command(key, "XINFO", "GROUPS", key)
        last = "0-0"
        for group in groups:  # Redis's own reply: a flat [name, value, ...] list of each group
            info = dict(zip(group[::2], group[1::2], strict=True))
            if info.get(b"name") == JOB_GROUP.encode():
                last = info[b"last-delivered-id"].decode()
        entries = await self._command(key, "XRANGE", key, f"({last}", "+", "COUNT", limit)
        return self._jobs(shard, "", live_entries(entries))

    async def due_clocks(self, shard: str, now: float, limit: int) -> list[tuple[str, float]]:
        key = clocks_key(shard)
        found = await self._command(key, "ZRANGE", key, "-inf", repr(now), "BYSCORE", "LIMIT", 0, limit, "WITHSCORES")
        # Redis's own reply: member, score, member, score...
        return [(member.decode(), float(score)) for member, score in zip(found[::2], found[1::2], strict=True)]

    async def stop_clock(self, shard: str, game_id: str, deadline: float) -> None:
        key = clocks_key(shard)
        current = await self._command(key, "ZSCORE", key, game_id)
        if current is not None and float(current) == deadline:
            await self._command(key, "ZREM", key, game_id, write=True)

