"""Run by ``test_api_redis_floor.py`` in a process whose ``redis`` and ``hiredis`` are the
floor versions of ``pyproject.toml`` (or the newest the project is tested with): the store's
every kind of command against a real Redis (``sys.argv[1]``), and the paths of the one module
that drives redis-py's connections itself (``darkroad.api.store.redis_adapter``): a connection
Redis dropped, a pipeline past its deadline, one cancelled, more pipelines than connections,
and its blocking Sentinel pool. Prints the versions it ran with."""

from __future__ import annotations

import asyncio
import dataclasses
import sys

import hiredis
import redis
from redis.asyncio import BlockingConnectionPool
from redis.asyncio.sentinel import Sentinel, SentinelManagedConnection

from darkroad.api.store.base import Commit, IdempotencyRecord, NewGame, Outcome, StoredEvent
from darkroad.api.store.redis_adapter import BlockingSentinelPool
from darkroad.api.store.redis_store import RedisStore
from darkroad.api.store.topology import PoolOptions, Standalone


def commit(expected: int, key: str) -> Commit:
    return Commit(
        game_id="g1", expected_version=expected, expected_tag=f"t{expected}", version=expected + 1,
        tag=f"t{expected + 1}", state=b"state", finished=False, action=b"{}",
        events=[StoredEvent(expected + 1, None, b"{}")], ttl=60, idempotency=IdempotencyRecord(key, b"r", 60),
    )  # fmt: skip


async def main(url: str) -> None:
    async with RedisStore.from_url(url) as store:
        await store.ping()
        game = NewGame(
            id="g1", version=0, state=b"state", finished=False, token_hashes=("a", "b"), tag="t0",
            events=[StoredEvent(0, None, b"{}")], ttl=60,
        )  # fmt: skip
        await store.create(game)
        loads = await asyncio.gather(*(store.load("g1") for _ in range(8)))  # one pipeline
        assert all(loaded is not None and loaded.version == 0 for loaded in loads)
        assert (await store.commit(commit(0, "a"))).outcome is Outcome.COMMITTED
        await store.topology.primaries()[0].client.script_flush()  # the commit script is gone: NOSCRIPT
        assert (await store.commit(commit(1, "b"))).outcome is Outcome.COMMITTED
        assert (await store.commit(commit(1, "b"))).outcome is Outcome.REPLAYED
        assert [event.n for event in await store.events("g1", -1, 10)] == [0, 1, 2]
        waiting = asyncio.create_task(store.wait_events("g1", 2, 10, 5.0))
        await asyncio.sleep(0.2)
        await store.commit(commit(2, "c"))
        assert [event.n for event in await waiting] == [3]
        assert await store.count("ratelimit:{floor}:1", 2, 10) == 2
        await jobs(store, game)
        assert len(await store.actions("g1")) == 3
    await adapter(url)
    print(f"redis {redis.__version__}, hiredis {hiredis.__version__}: ok")


async def jobs(store: RedisStore, game: NewGame) -> None:
    """A bot job through the stream's consumer group: XINFO and XRANGE (raw, through the
    batcher), XREADGROUP (parsed by this redis-py's RESP2 callback), then XAUTOCLAIM."""
    await store.create(dataclasses.replace(game, id="g2", bot_job="greedy"))
    (shard,) = store.job_shards()
    assert [job.game_id for job in await store.waiting_jobs(shard, 10)] == ["g2"]
    (job,) = await store.take_jobs(shard, "w1", 10, 0.05, 60.0)
    assert (job.game_id, job.version, job.bot, job.deliveries) == ("g2", 0, "greedy", 1)
    await asyncio.sleep(0.05)
    (claimed,) = await store.take_jobs(shard, "w2", 10, 0.05, 0.01)  # not acknowledged in time
    assert (claimed.ref, claimed.deliveries) == (job.ref, 2)
    await store.ack_job(claimed)


async def adapter(url: str) -> None:
    """The adapter's pipelines (``Node.pipeline``) on this redis-py: replies as Redis sent them,
    errors in their place, and every way a pipeline fails leaving the next one sound."""
    topology = Standalone(url, PoolOptions({}, timeout=0.5))
    try:
        node = topology.single
        assert node is not None
        await node.pipeline([("DEL", "n", "z")])
        assert sorted(await asyncio.gather(*(node.pipeline([("INCR", "n")]) for _ in range(3)))) == [[1], [2], [3]]
        replies = await node.pipeline([("SET", "s", "v"), ("ZADD", "z", 1, "m"), ("INCR", "z"), ("GET", "n")])
        assert replies[:2] == [b"OK", 1] and isinstance(replies[2], redis.ResponseError) and replies[3] == b"3"
        await node.client.client_kill_filter(_type="normal", skipme=True)  # Redis drops the pooled connections
        # The pool checks the connection it hands out: a dropped one is connected again.
        assert await node.pipeline([("GET", "s")]) == [b"v"]
        try:
            await node.pipeline([("BLPOP", "nothing", 2)])  # blocks past the deadline
        except redis.TimeoutError:
            pass
        else:
            raise AssertionError("a pipeline outlived its deadline")
        assert await node.pipeline([("GET", "s")]) == [b"v"]
        task = asyncio.create_task(node.pipeline([("BLPOP", "nothing", 2)]))
        await asyncio.sleep(0.1)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        else:
            raise AssertionError("a cancelled pipeline answered")
        assert await node.pipeline([("SET", "k", "v"), ("GET", "k")]) == [b"OK", b"v"]
    finally:
        await topology.close()
    await few_connections(url)
    sentinel_pool()


async def few_connections(url: str) -> None:
    """More pipelines at once than the pool has connections: they wait for one, none fails."""
    topology = Standalone(url, PoolOptions({}, max_connections=2, timeout=5.0))
    try:
        node = topology.single
        assert node is not None
        await node.pipeline([("DEL", "few")])
        replies = await asyncio.gather(*(node.pipeline([("INCR", "few")]) for _ in range(20)))
        assert sorted(reply for (reply,) in replies) == list(range(1, 21))
    finally:
        await topology.close()
    # One connection: a pipeline cancelled while it waits for it gives up its place, and one
    # past its deadline gives the connection back; the next pipeline has it.
    topology = Standalone(url, PoolOptions({}, max_connections=1, timeout=0.5))
    try:
        node = topology.single
        assert node is not None
        blocked = asyncio.create_task(node.pipeline([("BLPOP", "nothing", 2)]))
        await asyncio.sleep(0.05)
        waiting = asyncio.create_task(node.pipeline([("GET", "few")]))
        await asyncio.sleep(0.05)
        waiting.cancel()
        try:
            await waiting
        except asyncio.CancelledError:
            pass
        else:
            raise AssertionError("a cancelled pipeline answered")
        try:
            await blocked
        except redis.TimeoutError:
            pass
        else:
            raise AssertionError("a pipeline outlived its deadline")
        assert await node.pipeline([("GET", "few")]) == [b"20"]
    finally:
        await topology.close()


def sentinel_pool() -> None:
    """``BlockingSentinelPool`` composes this redis-py's two pools: the blocking checkout, the
    Sentinel's connections and its primary's address."""
    pool = BlockingSentinelPool("primary", Sentinel([("127.0.0.1", 1)]), max_connections=3, timeout=0.5)
    assert pool.max_connections == 3 and pool.timeout == 0.5
    assert type(pool).get_connection is BlockingConnectionPool.get_connection
    assert issubclass(pool.connection_class, SentinelManagedConnection)
    assert callable(pool.get_master_address)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
