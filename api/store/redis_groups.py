"""Streams read by a Redis consumer group, one stream per shard: the bot jobs
(:mod:`.redis_jobs`) and the webhook messages (:mod:`.redis_hooks`) are taken from theirs alike.

A process makes sure of a shard's group once (and again when the stream was lost: a Redis
restarted empty answers NOGROUP). A take first claims the entries that dead consumers left
pending past the claim timeout, a few times per claim timeout (not a round trip before every
read), then waits for new ones on the node's stream connections, each wait within
``max_block`` (the stream connections' read timeout).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from redis import exceptions as redis_errors

from darkroad.api.store.topology import UNAVAILABLE, Topology

Entry = tuple[bytes, dict[bytes, bytes]]
"""A stream entry: its id and its fields."""


def live_entries(entries: Sequence[Any]) -> list[Entry]:
    """The entries of a stream reply that still hold fields (one deleted meanwhile is ``None``,
    or has none: XAUTOCLAIM of a Redis before 7 names such entries), as :data:`Entry`.
    redis-py parses XREADGROUP's fields into a dict; XAUTOCLAIM's and XRANGE's come raw
    through the batcher (a flat list)."""
    found = []
    for entry in entries:
        if entry is None or not entry[1]:
            continue
        flat = entry[1]
        fields = dict(flat.items()) if isinstance(flat, dict) else dict(zip(flat[::2], flat[1::2], strict=True))
        found.append((entry[0], fields))
    return found


@dataclass(eq=False)
class ConsumerGroup:
    """The consumer group ``group`` of the streams ``key(shard)``, over the store's batched
    ``command`` and ``topology``'s stream connections; ``unavailable`` makes the store's error
    of a failed read, and ``max_block`` bounds each wait."""

    topology: Topology
    command: Callable[..., Awaitable[Any]]
    unavailable: Callable[[BaseException], Exception]
    max_block: float
    group: str
    key: Callable[[str], str]
    _made: set[str] = field(default_factory=set, init=False)
    """Shards whose group this process made sure of."""
    _claimed: dict[str, float] = field(default_factory=dict, init=False)
    """When this process last claimed a shard's entries of dead consumers (monotonic seconds)."""

    async def ensure(self, shard: str, *, again: bool = False) -> None:
        """Make the shard's group (and stream) unless this process did already."""
        if shard in self._made and not again:
            return
        key = self.key(shard)
        try:
            await self.command(key, "XGROUP", "CREATE", key, self.group, "0", "MKSTREAM", write=True)
        except redis_errors.ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        self._made.add(shard)

    async def take(
        self, shard: str, consumer: str, count: int, block: float, claim_after: float
    ) -> tuple[list[Entry], bool]:
        """Up to ``count`` entries for ``consumer``, and whether they were claimed from dead
        consumers (pending over ``claim_after`` seconds); else new ones, waiting up to ``block``
        seconds; none when the stream was lost (its group is made again)."""
        await self.ensure(shard)
        key = self.key(shard)
        now = time.monotonic()
        if now >= self._claimed.get(shard, 0.0) + claim_after / 4:  # a few looks per claim timeout
            self._claimed[shard] = now
            try:
                claimed = await self.command(
                    key, "XAUTOCLAIM", key, self.group, consumer, max(1, int(claim_after * 1000)), "0-0",
                    "COUNT", count, write=True,
                )  # fmt: skip
            except redis_errors.ResponseError as exc:
                if "NOGROUP" not in str(exc):
                    raise
                await self.ensure(shard, again=True)  # the stream was lost (a Redis restarted empty)
                return [], False
            if found := live_entries(claimed[1]):
                return found, True
        node = self.topology.node_for(key)
        try:
            reply = await node.streams.xreadgroup(
                self.group, consumer, {key: ">"}, count=count,
                block=max(1, int(min(block, self.max_block) * 1000)),
            )  # fmt: skip
        except redis_errors.ResponseError as exc:
            if "NOGROUP" not in str(exc):
                await self.topology.refresh()  # MOVED, READONLY: the slot's primary changed
                raise self.unavailable(exc) from exc
            await self.ensure(shard, again=True)
            return [], False
        except UNAVAILABLE as exc:
            await self.topology.refresh()
            raise self.unavailable(exc) from exc
        if not reply:
            return [], False
        streams: Any = reply  # [[name, entries]], as redis-py parses it on RESP2: one stream asked for
        return live_entries(streams[0][1]), False


Groups = Callable[[str, Callable[[str], str]], ConsumerGroup]
"""How the store makes a kind of stream's :class:`ConsumerGroup`: from its group's name and its
streams' key by shard (the topology, commands and timeouts are the store's)."""
