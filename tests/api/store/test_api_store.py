"""The store contract, run against both stores (MemoryStore and a real Redis)."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import importlib.metadata
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from apiutil import RedisServer, free_port
from redis import exceptions as redis_errors

from darkroad.api.store.base import (
    Commit,
    GameExists,
    GameStore,
    IdempotencyRecord,
    NewGame,
    Outcome,
    StoredEvent,
    StoreUnavailable,
)
from darkroad.api.store.batcher import Batcher
from darkroad.api.store.cluster import ClusterNodes
from darkroad.api.store.redis_jobs import jobs_key
from darkroad.api.store.redis_store import RedisStore, game_key
from darkroad.api.store.topology import UNAVAILABLE, Node, PoolOptions, Standalone

SETUP_EVENTS = [
    StoredEvent(0, None, b'{"n":0,"type":"game_started"}'),
    StoredEvent(1, frozenset({1}), b'{"n":1,"type":"secret"}'),
]


def new_game(game_id: str = "g1", ttl: int = 60) -> NewGame:
    return NewGame(
        id=game_id,
        version=0,
        state=b"state-0",
        finished=False,
        token_hashes=("hash-0", "hash-1"),
        events=SETUP_EVENTS,
        ttl=ttl,
        tag="t0",
    )


def commit(
    expected: int,
    *,
    key: str = "k",
    finished: bool = False,
    events: list[StoredEvent] | None = None,
    record_ttl: int = 60,
    expected_tag: str | None = None,
) -> Commit:
    version = expected + 1
    return Commit(
        game_id="g1",
        expected_version=expected,
        expected_tag=expected_tag if expected_tag is not None else f"t{expected}",
        version=version,
        tag=f"t{version}",
        state=f"state-{version}".encode(),
        finished=finished,
        action=f'{{"action":{version}}}'.encode(),
        events=events if events is not None else [StoredEvent(expected + 2, None, b"{}")],
        ttl=60,
        idempotency=IdempotencyRecord(key, f"result-{version}".encode(), record_ttl),
    )


async def test_create_then_load(store: GameStore) -> None:
    await store.create(new_game())
    stored = await store.load("g1")
    assert stored is not None
    assert (stored.version, stored.state, stored.finished) == (0, b"state-0", False)
    assert stored.token_hashes == ("hash-0", "hash-1")
    assert stored.replay is None
    assert await store.events("g1", -1, 10) == SETUP_EVENTS
    assert await store.actions("g1") == []


async def test_unknown_game(store: GameStore) -> None:
    assert await store.load("nope") is None
    assert await store.events("nope", -1, 10) == []
    assert await store.actions("nope") == []
    assert (await store.commit(commit(0))).outcome is Outcome.MISSING


async def test_create_refuses_a_taken_id(store: GameStore) -> None:
    await store.create(new_game())
    with pytest.raises(GameExists):
        await store.create(dataclasses.replace(new_game(), tag="another", state=b"another"))
    assert (await store.load("g1")).state == b"state-0"  # type: ignore[union-attr]


async def test_the_same_create_again_is_its_own(store: GameStore) -> None:
    """A create sent again (its reply lost to a dropped connection: the batcher resends it) finds
    its own game, even moved on meanwhile (a bot's first move): no error, nothing changed."""
    await store.create(new_game())
    await store.create(new_game())
    assert (await store.commit(commit(0))).outcome is Outcome.COMMITTED
    await store.create(new_game())
    stored = await store.load("g1")
    assert stored is not None and (stored.version, stored.state) == (1, b"state-1")
    assert await store.actions("g1") == [b'{"action":1}']


async def test_commit_writes_everything(store: GameStore) -> None:
    await store.create(new_game())
    result = await store.commit(commit(0, finished=True, events=[StoredEvent(2, frozenset({0}), b"e2")]))
    assert result.outcome is Outcome.COMMITTED
    stored = await store.load("g1", "k")
    assert stored is not None
    assert (stored.version, stored.state, stored.finished, stored.replay) == (
        1,
        b"state-1",
        True,
        b"result-1",
    )
    assert await store.actions("g1") == [b'{"action":1}']
    assert (await store.events("g1", 1, 10)) == [StoredEvent(2, frozenset({0}), b"e2")]


async def test_stale_commit_writes_nothing(store: GameStore) -> None:
    await store.create(new_game())
    await store.commit(commit(0, key="first"))
    result = await store.commit(commit(0, key="second"))
    assert result.outcome is Outcome.STALE
    assert result.current is not None
    assert (result.current.version, result.current.state, result.current.finished) == (1, b"state-1", False)
    assert result.current.token_hashes == ("hash-0", "hash-1")
    assert await store.actions("g1") == [b'{"action":1}']
    assert (await store.load("g1", "second")).replay is None  # type: ignore[union-attr]


async def test_a_version_is_named_by_its_tag(store: GameStore) -> None:
    """After a failover that lost writes, one version number can name two states: a commit
    expecting the right version with another tag is stale."""
    await store.create(new_game())
    assert (await store.load("g1")).tag == "t0"  # type: ignore[union-attr]
    result = await store.commit(commit(0, expected_tag="lost"))
    assert result.outcome is Outcome.STALE
    assert result.current is not None and (result.current.version, result.current.tag) == (0, "t0")
    assert await store.actions("g1") == []
    assert (await store.commit(commit(0))).outcome is Outcome.COMMITTED
    assert (await store.load("g1")).tag == "t1"  # type: ignore[union-attr]


async def test_recorded_commit_is_replayed_not_written(store: GameStore) -> None:
    await store.create(new_game())
    await store.commit(commit(0, key="same"))
    # Same key at the current version: the record wins, nothing is written.
    result = await store.commit(commit(1, key="same"))
    assert result.outcome is Outcome.REPLAYED
    assert result.replay == b"result-1"
    assert (await store.load("g1")).version == 1  # type: ignore[union-attr]
    assert len(await store.actions("g1")) == 1


async def test_racing_commits_on_one_version_commit_once(store: GameStore) -> None:
    await store.create(new_game())
    results = await asyncio.gather(*(store.commit(commit(0, key=f"k{i}")) for i in range(20)))
    outcomes = [result.outcome for result in results]
    assert outcomes.count(Outcome.COMMITTED) == 1
    assert outcomes.count(Outcome.STALE) == 19
    assert len(await store.actions("g1")) == 1


async def test_events_page_after_a_position(store: GameStore) -> None:
    await store.create(new_game())
    for version in range(5):
        await store.commit(commit(version, key=f"k{version}"))
    page = await store.events("g1", 2, 3)
    assert [event.n for event in page] == [3, 4, 5]
    assert [event.n for event in await store.events("g1", 5, 10)] == [6]
    assert await store.events("g1", 6, 10) == []


async def test_event_audience_round_trips(store: GameStore) -> None:
    audiences = [None, frozenset({0}), frozenset({1, 3})]
    events = [StoredEvent(2 + i, audience, b"{}") for i, audience in enumerate(audiences)]
    await store.create(new_game())
    await store.commit(commit(0, events=events))
    assert [event.audience for event in await store.events("g1", 1, 10)] == audiences


def test_event_visibility() -> None:
    public, private = StoredEvent(0, None, b""), StoredEvent(1, frozenset({1}), b"")
    assert public.visible_to(None) and public.visible_to(0)
    assert private.visible_to(1)
    assert not private.visible_to(0) and not private.visible_to(None)


async def test_wait_events_returns_what_is_there(store: GameStore) -> None:
    await store.create(new_game())
    assert [event.n for event in await store.wait_events("g1", -1, 10, timeout=5)] == [0, 1]


async def test_wait_events_wakes_on_commit(store: GameStore) -> None:
    await store.create(new_game())
    waiter = asyncio.create_task(store.wait_events("g1", 1, 10, timeout=5))
    await asyncio.sleep(0.05)
    assert not waiter.done()
    await store.commit(commit(0))
    assert [event.n for event in await asyncio.wait_for(waiter, 2)] == [2]


async def test_wait_events_times_out_empty(store: GameStore) -> None:
    await store.create(new_game())
    assert await store.wait_events("g1", 1, 10, timeout=0.05) == []


async def test_games_expire(store: GameStore) -> None:
    await store.create(new_game(ttl=1))
    await asyncio.sleep(1.1)
    assert await store.load("g1") is None


async def test_commit_refreshes_expiry(store: GameStore) -> None:
    # Margins of whole seconds: a worker of a loaded CI machine may lose a few tenths between a
    # reply and its next request. Fails without the refresh: the last load is past the first TTL.
    await store.create(new_game(ttl=2))
    await asyncio.sleep(0.5)
    await store.commit(commit(0))  # ttl 60
    await asyncio.sleep(1.7)
    assert await store.load("g1") is not None


async def test_a_replayed_commit_refreshes_its_record(store: GameStore) -> None:
    await store.create(new_game())
    # As above: the replay comes well within the first TTL, the last load well past it.
    await store.commit(commit(0, key="short", record_ttl=2))
    await asyncio.sleep(0.5)
    assert (await store.commit(commit(1, key="short", record_ttl=60))).outcome is Outcome.REPLAYED
    await asyncio.sleep(1.7)
    assert (await store.load("g1", "short")).replay == b"result-1"  # type: ignore[union-attr]


async def test_confirm_keeps_the_record(store: GameStore) -> None:
    """Without replicas to wait for, confirming a record is harmless."""
    await store.create(new_game())
    await store.commit(commit(0, key="k"))
    await store.confirm("g1", "k", 60)
    assert (await store.load("g1", "k")).replay == b"result-1"  # type: ignore[union-attr]


async def test_idempotency_records_expire(store: GameStore) -> None:
    await store.create(new_game())
    await store.commit(commit(0, key="short", record_ttl=1))
    await asyncio.sleep(1.1)
    assert (await store.load("g1", "short")).replay is None  # type: ignore[union-attr]
    assert (await store.commit(commit(1, key="short"))).outcome is Outcome.COMMITTED


async def test_ping(store: GameStore) -> None:
    await store.ping()


# -- Redis specifics -------------------------------------------------------------------


async def test_redis_keys_share_the_game_hash_tag(redis_server: RedisServer, redis_url: str) -> None:
    async with RedisStore.from_url(redis_url) as store:
        await store.create(new_game())
        await store.commit(commit(0))
    keys = sorted(key.decode() for key in redis_server.client.keys("*"))
    assert game_key("g1") == "game:{g1}"
    assert keys[0] == "game:{g1}"
    assert len(keys) == 4  # hash, actions, events, idempotency record
    assert all(key.startswith("game:{g1}") for key in keys)
    assert all(redis_server.client.pttl(key) > 0 for key in keys)


async def test_redis_unreachable_at_start_is_store_unavailable() -> None:
    store = RedisStore.from_url(f"redis://127.0.0.1:{free_port()}/0")
    with pytest.raises(StoreUnavailable, match="cannot reach Redis at redis://127.0.0.1"):
        await store.open()
    await store.close()


async def test_redis_gone_after_start_is_store_unavailable(tmp_path: Path) -> None:
    """Commands are sent again for ``retry_window`` seconds (a failover, a restart), then 503."""
    server = RedisServer(tmp_path)
    async with RedisStore.from_url(server.url, retry_window=0.3) as store:
        await store.create(new_game())
        server.stop()
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await store.load("g1")
        assert 0.25 < time.monotonic() - started < 3
        with pytest.raises(StoreUnavailable):
            await store.ping()


async def test_redis_games_without_a_tag_still_play(redis_server: RedisServer, redis_url: str) -> None:
    """Games stored before versions had tags load with the tag "" and commit on it."""
    async with RedisStore.from_url(redis_url) as store:
        await store.create(new_game())
        redis_server.client.hdel(game_key("g1"), "tag")
        stored = await store.load("g1")
        assert stored is not None and stored.tag == ""
        assert (await store.commit(commit(0, expected_tag=""))).outcome is Outcome.COMMITTED
        assert (await store.load("g1")).tag == "t1"  # type: ignore[union-attr]


async def test_redis_commit_after_the_script_cache_is_flushed(redis_server: RedisServer, redis_url: str) -> None:
    """A Redis restarted without its script cache answers NOSCRIPT: the commit still lands, once."""
    async with RedisStore.from_url(redis_url) as store:
        await store.create(new_game())
        assert (await store.commit(commit(0, key="a"))).outcome is Outcome.COMMITTED
        redis_server.client.script_flush()
        assert (await store.commit(commit(1, key="b"))).outcome is Outcome.COMMITTED
        redis_server.client.script_flush()
        await store.create(new_game("g2"))
        stored = await store.load("g1")
        assert stored is not None and stored.version == 2
        assert await store.actions("g1") == [b'{"action":1}', b'{"action":2}']


async def test_redis_connections_are_made_without_reading_package_metadata(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store names redis-py and its version to every connection it makes (``CLIENT SETINFO``
    on Redis >= 7.2): without them redis-py 8 reads its version from the installed package's
    metadata for each new connection (about 0.37 ms each)."""
    looked_up: list[str] = []
    version = importlib.metadata.version

    def counted(name: str) -> str:
        looked_up.append(name)
        return version(name)

    monkeypatch.setattr(importlib.metadata, "version", counted)
    async with RedisStore.from_url(redis_url) as store:
        await store.create(new_game())
        await asyncio.gather(*(store.load("g1") for _ in range(3)))
        assert await store.events("g1", -1, 10)
    assert looked_up == []


async def test_redis_concurrent_requests_share_one_pipeline(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loads and commits issued in one event-loop turn travel together, each getting its own reply:
    all but the first, which an idle process sends at once (no batch is on its way to wait for),
    in one pipeline."""
    pipelines: list[int] = []
    send = Node.pipeline

    async def counting(self: Node, commands: list[tuple[object, ...]]) -> list[object]:
        pipelines.append(len(commands))
        return await send(self, commands)

    monkeypatch.setattr(Node, "pipeline", counting)
    async with RedisStore.from_url(redis_url) as store:
        for n in range(20):
            await store.create(dataclasses.replace(new_game(f"g{n}"), state=f"state-of-g{n}".encode()))
        pipelines.clear()
        loaded = await asyncio.gather(*(store.load(f"g{n}", "key") for n in range(20)))
        assert pipelines == [1, 39]  # a load with an idempotency key is two commands
        assert [game.state if game else None for game in loaded] == [f"state-of-g{n}".encode() for n in range(20)]
        pipelines.clear()
        commits = [dataclasses.replace(commit(0, key=f"k{n}"), game_id=f"g{n}") for n in range(20)]
        results = await asyncio.gather(*(store.commit(c) for c in commits), store.load("missing"))
        assert pipelines == [1, 20]
        assert [r.outcome for r in results[:20]] == [Outcome.COMMITTED] * 20  # type: ignore[union-attr]
        assert results[20] is None
        assert [(await store.load(f"g{n}")).version for n in range(20)] == [1] * 20  # type: ignore[union-attr]


@asynccontextmanager
async def standalone_batcher(url: str, scripts: dict[str, str] | None = None, **options: Any) -> AsyncIterator[Batcher]:
    topology = Standalone(url, PoolOptions({}))
    try:
        yield Batcher(topology, scripts or {}, **options)
    finally:
        await topology.close()


async def test_redis_batcher_keeps_each_callers_error_to_itself(redis_url: str) -> None:
    """One failing command of a pipeline fails its caller only."""
    async with standalone_batcher(redis_url) as batcher:
        await batcher.call("text", "SET", "text", "x")
        good, bad, also_good = await asyncio.gather(
            batcher.call("text", "GET", "text"),
            batcher.call("text", "HGET", "text", "field"),  # WRONGTYPE
            batcher.call("counter", "INCR", "counter"),
            return_exceptions=True,
        )
        assert good == b"x"
        assert isinstance(bad, redis_errors.ResponseError) and "WRONGTYPE" in str(bad)
        assert also_good == 1


async def test_redis_batcher_leader_takes_its_reply_with_its_followers(redis_url: str) -> None:
    """A batch's leader goes on only on the turn its followers do, after them: answered a turn
    ahead, its next command would lead a batch of its own (docs/performance.md, session 18)."""
    async with standalone_batcher(redis_url) as batcher:
        answered: list[str] = []

        async def caller(name: str) -> None:
            await batcher.call(name, "INCR", name)
            answered.append(name)

        # The first goes alone (no batch on its way); the second leads a batch the third joins.
        await asyncio.gather(caller("alone"), caller("leader"), caller("follower"))
        assert answered.index("follower") < answered.index("leader")


async def test_redis_batcher_fails_every_caller_when_redis_is_gone() -> None:
    async with standalone_batcher(f"redis://127.0.0.1:{free_port()}/0", retry_window=0.1) as batcher:
        results = await asyncio.gather(batcher.call("a", "GET", "a"), batcher.call("b", "GET", "b"), return_exceptions=True)
        assert all(isinstance(r, redis_errors.ConnectionError) for r in results)


async def test_redis_batcher_resends_once_on_a_dropped_connection(redis_server: RedisServer, redis_url: str) -> None:
    """A pooled connection Redis closed (restart, idle timeout) costs a resend, not an error."""
    async with standalone_batcher(redis_url) as batcher:
        assert await batcher.call("n", "INCR", "n") == 1
        redis_server.client.client_kill_filter(_type="normal", skipme=True)  # drops the pooled connection
        assert await batcher.call("n", "INCR", "n") == 2


async def test_redis_create_whose_reply_was_lost_is_created(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis killed after a create ran but before its reply arrived: the batcher sends it again,
    and the game there is this create's own, not a taken id (a 500 under load, issue 39)."""
    send = Node.pipeline
    lost: list[bool] = []

    async def losing_the_first_reply(self: Node, commands: list[tuple[object, ...]]) -> list[object]:
        replies = await send(self, commands)
        if commands[0][0] == "EVALSHA" and not lost:
            lost.append(True)
            raise redis_errors.ConnectionError("Connection closed by server.")
        return replies

    async with RedisStore.from_url(redis_url) as store:
        monkeypatch.setattr(Node, "pipeline", losing_the_first_reply)
        await store.create(new_game())
        assert lost
        stored = await store.load("g1")
        assert stored is not None and stored.version == 0
        assert await store.events("g1", -1, 10) == SETUP_EVENTS  # written once


async def test_redis_batcher_lands_a_script_reloaded_at_the_end_of_its_window(
    redis_server: RedisServer, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failover outlasting the retry window, then a new primary without the script: the
    script is loaded there and the command lands, rather than failing with NOSCRIPT (a 500)."""
    script = "return redis.call('INCR', KEYS[1])"
    sha = hashlib.sha1(script.encode()).hexdigest()
    send = Node.pipeline
    calls: list[str] = []

    async def failing_over(self: Node, commands: list[tuple[object, ...]]) -> list[object]:
        calls.append(str(commands[0][0]))
        if len(calls) == 1:  # the old primary is gone
            await asyncio.sleep(0.1)
            raise redis_errors.ConnectionError("gone")
        if len(calls) == 2:  # the new one, reached past the window, never saw the script
            await asyncio.sleep(0.1)
            redis_server.client.script_flush()
        return await send(self, commands)

    monkeypatch.setattr(Node, "pipeline", failing_over)
    async with standalone_batcher(redis_url, {sha: script}, retry_window=0.05) as batcher:
        assert await batcher.call("n", "EVALSHA", sha, 1, "n") == 1
    assert calls == ["EVALSHA"] * 3


async def test_redis_batcher_gives_up_on_a_script_that_never_stays_as_unavailable(
    redis_server: RedisServer, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NOSCRIPT to the end is the store not ready (a 503 the client retries), not a bug."""
    script = "return 1"
    sha = hashlib.sha1(script.encode()).hexdigest()
    send = Node.pipeline

    async def forgetting(self: Node, commands: list[tuple[object, ...]]) -> list[object]:
        await asyncio.sleep(0.03)
        redis_server.client.script_flush()
        return await send(self, commands)

    monkeypatch.setattr(Node, "pipeline", forgetting)
    async with standalone_batcher(redis_url, {sha: script}, retry_window=0.05) as batcher:
        with pytest.raises(UNAVAILABLE):
            await batcher.call("n", "EVALSHA", sha, 0)


async def test_cluster_redirections_name_the_node_to_go_to() -> None:
    """``MOVED slot host:port`` maps the slot to that node; an empty host is the sender's own
    (Redis's shorthand), ``?`` an address the cluster does not know (learn the map again)."""
    topology = ClusterNodes("redis://10.0.0.1:7000", PoolOptions({}))
    try:
        sender = topology._node("10.0.0.5", 7001)
        moved = topology.moved(redis_errors.MovedError("3999 10.0.0.7:7002"), sender)
        assert moved.name == "10.0.0.7:7002" and topology._slots[3999] is moved
        assert topology.moved(redis_errors.MovedError("4000 :7003"), sender).name == "10.0.0.5:7003"
        asked = topology.moved(redis_errors.AskError("4001 10.0.0.8:7004"), sender)
        assert asked.name == "10.0.0.8:7004" and topology._slots[4001] is None  # ASK: once, not the map
        with pytest.raises(redis_errors.ClusterDownError):
            topology.moved(redis_errors.MovedError("4002 ?:7005"), sender)
    finally:
        await topology.close()


# -- bot jobs and turn clocks ----------------------------------------------------------------


async def _all_jobs(store: GameStore, consumer: str, claim_after: float = 60.0) -> list[Any]:
    jobs = []
    for shard in store.job_shards():
        jobs += await store.take_jobs(shard, consumer, 10, 0.05, claim_after)
    return jobs


async def test_a_commit_enqueues_its_bot_job_with_the_write(store: GameStore) -> None:
    game_id = store.new_game_id()
    await store.create(dataclasses.replace(new_game(game_id), bot_job="greedy"))
    await store.commit(dataclasses.replace(commit(0), game_id=game_id, bot_job="random"))
    stale = dataclasses.replace(commit(0, key="other"), game_id=game_id, bot_job="random")
    assert (await store.commit(stale)).outcome is Outcome.STALE  # nothing written: no job either
    waiting = [job for shard in store.job_shards() for job in await store.waiting_jobs(shard, 10)]
    assert [(job.game_id, job.version, job.bot) for job in waiting] == [(game_id, 0, "greedy"), (game_id, 1, "random")]
    assert all(abs(job.enqueued - time.time()) < 5 for job in waiting)
    jobs = await _all_jobs(store, "w1")
    assert [(job.version, job.deliveries) for job in jobs] == [(0, 1), (1, 1)]
    assert not [job for shard in store.job_shards() for job in await store.waiting_jobs(shard, 10)]
    assert await _all_jobs(store, "w2") == []  # handed out once


async def test_a_job_not_acknowledged_goes_to_another_worker(store: GameStore) -> None:
    game_id = store.new_game_id()
    await store.create(dataclasses.replace(new_game(game_id), bot_job="greedy"))
    (taken,) = await _all_jobs(store, "dies")
    assert await _all_jobs(store, "other", claim_after=60.0) == []
    await asyncio.sleep(0.15)
    (claimed,) = await _all_jobs(store, "other", claim_after=0.1)
    assert (claimed.ref, claimed.version, claimed.deliveries) == (taken.ref, 0, 2)
    await asyncio.sleep(0.15)
    (again,) = await _all_jobs(store, "slow too", claim_after=0.1)  # both stores: 2, not a count
    assert (again.ref, again.deliveries, again.consumer) == (taken.ref, 2, "slow too")
    await store.ack_job(again)
    await asyncio.sleep(0.15)
    assert await _all_jobs(store, "third", claim_after=0.1) == []  # acknowledged: never again


async def test_a_lost_stream_of_jobs_and_its_group_are_made_again(redis_url: str) -> None:
    """A Redis restarted empty has lost the jobs' stream and its consumer group: a take that
    reads, and one that claims, meet NOGROUP, make them again and answer nothing; the next
    job is taken as before."""
    async with RedisStore.from_url(redis_url) as store:
        (shard,) = store.job_shards()
        key = jobs_key(shard)
        assert await store.take_jobs(shard, "w", 10, 0.05, 60.0) == []  # the group made; a claim, then a read
        await store.command(key, "DEL", key, write=True)
        assert await store.take_jobs(shard, "w", 10, 0.05, 60.0) == []  # a read (claimed just now): NOGROUP
        await store.command(key, "DEL", key, write=True)
        assert await store.take_jobs(shard, "w", 10, 0.05, 0.0) == []  # a claim: NOGROUP
        game_id = store.new_game_id()
        await store.create(dataclasses.replace(new_game(game_id), bot_job="greedy"))
        assert [(job.game_id, job.deliveries) for job in await store.take_jobs(shard, "w", 10, 0.05, 60.0)] == [
            (game_id, 1)
        ]


async def test_commits_set_and_stop_the_turn_clock(store: GameStore) -> None:
    game_id = store.new_game_id()
    now = time.time()
    await store.create(dataclasses.replace(new_game(game_id), deadline=now - 1))
    (shard,) = {s for s in store.job_shards() if await store.due_clocks(s, now, 10)}
    assert await store.due_clocks(shard, now, 10) == [(game_id, now - 1)]
    await store.commit(dataclasses.replace(commit(0), game_id=game_id, deadline=now + 100))
    assert await store.due_clocks(shard, now, 10) == []
    assert await store.due_clocks(shard, now + 100, 10) == [(game_id, now + 100)]
    await store.stop_clock(shard, game_id, now)  # not its deadline any more: kept
    assert await store.due_clocks(shard, now + 100, 10) == [(game_id, now + 100)]
    await store.commit(dataclasses.replace(commit(1, key="k2"), game_id=game_id))  # no seat on a clock
    assert await store.due_clocks(shard, now + 1000, 10) == []


@pytest.mark.parametrize("url", ["redis://127.0.0.1:6379/0?protocol=3", "redis://a:1,b:2/0?protocol=3"])
def test_a_url_asking_for_resp3_is_refused_at_start(url: str) -> None:
    """The store speaks RESP2 on every connection (``redis_adapter.RESP2``): a URL asking for
    another protocol is refused by name, not half obeyed."""
    from darkroad.api.store.base import StoreConfigError
    from darkroad.api.store.topology import PoolOptions, Standalone, split_url

    with pytest.raises(StoreConfigError, match="the store speaks RESP2; leave out protocol=3"):
        Standalone(url, PoolOptions({})) if "," not in url else split_url(url)
    assert Standalone(url.replace("protocol=3", "protocol=2").split(",")[0], PoolOptions({})) is not None


@pytest.mark.parametrize(
    ("query", "refused"),
    [("legacy_responses=false", "leave out legacy_responses"), ("decode_responses=true", "leave out decode_responses"),
     ("decode_responses=false", "leave out decode_responses")],
)
def test_a_url_asking_for_other_reply_shapes_is_refused_at_start(query: str, refused: str) -> None:
    """redis-py 8's ``legacy_responses=false`` reshapes XREAD's reply even on RESP2 (a dict of
    streams), and ``decode_responses`` (any value: redis-py passes the URL's string on, and
    ``"false"`` is true) makes every reply a str; the store reads neither: refused by name, like
    another protocol, not half obeyed."""
    from darkroad.api.store.base import StoreConfigError
    from darkroad.api.store.topology import PoolOptions, Standalone, split_url

    with pytest.raises(StoreConfigError, match=refused):
        Standalone(f"redis://127.0.0.1:6379/0?{query}", PoolOptions({}))
    with pytest.raises(StoreConfigError, match=refused):
        split_url(f"redis://a:1,b:2/0?{query}")
