"""Bot workers as real processes on real Redis deployments: ``darkroad serve --bots 0`` beside
``darkroad bots``, a worker killed with ``kill -9`` mid-game, a Redis restart, a Sentinel
failover, and a Redis Cluster with jobs on several shards.

What every test checks in the end: the stored action list replays to the stored state, and
the versions are contiguous (one record per version: no move lost or doubled).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import httpx
import pytest
from apiutil import ApiServer, BotProcess, RedisServer, bearer, need_redis, played_out, serve
from litestar import Litestar
from redis import Redis
from redisnodes import ClusterNodes, SentinelGroup, Users

from darkroad.api.app import lobby as lobbies
from darkroad.api.app.bot_worker import BotWorker
from darkroad.api.app.service import GameService
from darkroad.api.app.values import Seating
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.redis_store import RedisStore, game_key
from darkroad.core import Engine, GameConfig

pytestmark = pytest.mark.slow

BOTS_ONLY = [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
NO_LIMITS = {"DARKROAD_RATE_LIMIT_REQUESTS": "0", "DARKROAD_RATE_LIMIT_CREATES": "0"}


def check_stored(engine: Engine, client: Redis, game_id: str) -> int:
    """The game's action list replays to its state, one record per version: its version."""
    key = game_key(game_id)
    state = client.hget(key, "state")
    assert isinstance(state, bytes)
    records = [json.loads(raw) for raw in client.lrange(f"{key}:actions", 0, -1)]
    game = engine.loads(state)
    replayed = lobbies.replay(engine, game.config, records)
    assert engine.pack(replayed) == state
    first = engine.replay(game.config, []).version
    assert game.version - first == len(records), "versions not contiguous"
    return game.version


async def version_of(client: httpx.AsyncClient, game_id: str) -> int:
    return int((await client.get(f"/v1/games/{game_id}")).json()["version"])


Progress = Callable[[str], Awaitable[tuple[bool, int]]]
"""Whether a game is finished, and its version, however a test reads them."""


def viewed(client: httpx.AsyncClient) -> Progress:
    """:data:`Progress` read over HTTP: the game's view, as a client follows it."""

    async def progress(game: str) -> tuple[bool, int]:
        view = (await client.get(f"/v1/games/{game}")).json()
        return view["status"] == "finished", int(view["version"])

    return progress


async def played_on(progress: Progress, games: list[str], past: list[int], moves: int, timeout: float = 120.0) -> None:
    """Until each game is ``moves`` versions past its version in ``past`` (or finished): the
    worker playing them has taken each on, and played on from where it found it. (Playing the
    games out after that asks nothing more of the worker: each move is the same job again.)"""
    deadline = time.monotonic() + timeout
    for game, version in zip(games, past, strict=True):
        while True:
            finished, now = await progress(game)
            if finished or now >= version + moves:
                break
            assert time.monotonic() < deadline, f"game {game} stayed at version {now}"
            await asyncio.sleep(0.05)


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RedisServer, ApiServer]]:
    """A Redis and ``darkroad serve --bots 0`` on it, for the tests whose bot workers (started
    and stopped by each) play beside an API that only answers (one xdist group): each test's
    games are its own (the killed-worker test leaves its games' jobs pending when it has seen 20
    moves after the kill)."""
    need_redis()
    redis = RedisServer(tmp_path_factory.mktemp("bots-api"))
    try:
        server = ApiServer(redis.url, args=["--bots", "0"], env=NO_LIMITS).start()
        yield redis, server
        assert "Traceback" not in server.stop()
    finally:
        redis.stop()


@pytest.mark.xdist_group("bot-processes-api")
async def test_two_bots_and_a_human_with_a_separate_worker(api: tuple[RedisServer, ApiServer], engine: Engine) -> None:
    """The API answers only (``--bots 0``); ``darkroad bots`` plays both bot seats. The human
    follows the game (long poll) and plays to the end; each answer is the state right after
    the human's action."""
    redis, server = api
    worker = BotProcess(redis.url, args=["--concurrency", "2"]).start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
            created = (await client.post("/v1/games", json={
                "players": 3, "seed": 21,
                "seats": [{"kind": "bot", "bot": "greedy"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}],
            })).json()  # fmt: skip
            game_id, token = created["id"], created["seats"][1]["token"]
            url = f"/v1/games/{game_id}"
            rnd, after, answered = random.Random(4), -1, 0
            # The worker's first move comes once it has started (imports, its pool: seconds on a
            # loaded machine, where a long poll of 10 s once saw none); each later one in 30 s.
            quiet_until = time.monotonic() + 60
            while True:
                listed = (await client.get(f"{url}/actions", headers=bearer(token))).json()
                if listed["status"] == "finished":
                    break
                if not listed["actions"]:  # the bots' turn: follow the log for their moves
                    page = (await client.get(f"{url}/log", params={"after": after, "wait": 10})).json()
                    if page["events"]:  # the window only grows: the first page holds the human's own events
                        quiet_until = max(quiet_until, time.monotonic() + 30)
                    assert page["events"] or page["finished"] or time.monotonic() < quiet_until, f"no move:\n{worker.log()}"
                    after = page["next"]
                    continue
                # With If-Match: in a decision all seats take at once (the final deliveries), the
                # bots may move between the listing and the action (then 409: list again).
                headers = {**bearer(token), "If-Match": f'"{listed["version"]}"'}
                answer = await client.post(f"{url}/actions", json=rnd.choice(listed["actions"]), headers=headers)
                if answer.status_code == 409 and answer.json()["type"] == "stale-version":
                    continue
                assert answer.status_code == 200, answer.text
                assert answer.json()["version"] == listed["version"] + 1  # the state right after it
                answered += 1
        assert answered > 20
        seats = {json.loads(raw).get("seat") for raw in redis.client.lrange(f"{game_key(game_id)}:actions", 0, -1)}
        assert seats == {0, 1, 2}
        check_stored(engine, redis.client, game_id)
    finally:
        assert "Traceback" not in worker.stop()


@pytest.mark.xdist_group("bot-processes-api")
async def test_a_worker_killed_mid_game_is_taken_over(api: tuple[RedisServer, ApiServer], engine: Engine) -> None:
    """``kill -9`` of a worker (and its pool) mid-game: another worker takes the games on within
    the claim timeout (a job the dead one held is claimed once it has been pending that long)
    and plays each on (:func:`played_on`), and no move is lost or doubled."""
    claim = 3.0
    env = {"DARKROAD_BOT_CLAIM_TIMEOUT": str(claim)}
    redis, server = api
    first = BotProcess(redis.url, env=env, args=["--concurrency", "1"]).start()
    second = BotProcess(redis.url, env=env, args=["--concurrency", "1"])
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
            games = [
                (await client.post("/v1/games", json={"players": 2, "seed": seed, "seats": BOTS_ONLY})).json()["id"]
                for seed in (31, 32, 33)
            ]
            deadline = time.monotonic() + 60
            while await version_of(client, games[0]) < 30:
                assert time.monotonic() < deadline, first.log()
                await asyncio.sleep(0.05)
            first.kill()
            killed = time.monotonic()
            versions = [await version_of(client, game) for game in games]
            second.start()
            while [await version_of(client, game) for game in games] == versions:
                assert time.monotonic() - killed < claim + 20, second.log()
                await asyncio.sleep(0.05)
            resumed = time.monotonic() - killed
            await played_on(viewed(client), games, versions, moves=20, timeout=180)
        second.stop()  # the games stand still: their stored actions and states are read apart
        for game in games:
            check_stored(engine, redis.client, game)
        print(f"FIGURE bot worker kill -9: another worker moved the games {resumed:.2f}s later "
              f"(claim timeout {claim} s, its start-up included)")
        assert resumed < claim + 20
    finally:
        first.stop()  # (killed above, unless the test failed before)
        second.stop()


async def test_a_worker_goes_on_after_a_redis_restart(
    tmp_path: Path, engine: Engine, make_app: Callable[[Settings], Litestar]
) -> None:
    """Redis restarts (empty: persistence is off here) under a running worker: its reads fail
    for a while, then it recreates its consumer group and plays the next game's bots. The API
    that creates the games is served in-process (``bots`` 0, as ``serve --bots 0``): the
    worker is the process under test."""
    need_redis()
    (tmp_path / "a").mkdir()
    redis = RedisServer(tmp_path / "a")
    port = redis.port
    app = make_app(Settings(redis_url=redis.url, bots=0, rate_limit_requests=0, rate_limit_creates=0))
    worker = BotProcess(redis.url).start()
    try:
        async with serve(app) as client:
            first = (await client.post("/v1/games", json={"players": 2, "seed": 41, "seats": BOTS_ONLY})).json()
            await played_on(viewed(client), [first["id"]], [first["version"]], moves=20)  # the worker reads the jobs
            redis.stop()
            await asyncio.sleep(2.0)
            (tmp_path / "b").mkdir()
            redis = RedisServer(tmp_path / "b", port=port)
            deadline = time.monotonic() + 60
            while True:  # the API's own retries may answer 503 for a moment
                answer = await client.post("/v1/games", json={"players": 2, "seed": 42, "seats": BOTS_ONLY})
                if answer.status_code == 201:
                    break
                assert time.monotonic() < deadline, answer.text
                await asyncio.sleep(0.2)
            await played_on(viewed(client), [answer.json()["id"]], [answer.json()["version"]], moves=20)
        worker.stop()  # the game stands still: its stored actions and state are read apart
        check_stored(engine, redis.client, answer.json()["id"])
    finally:
        log = worker.stop()  # its whole log, stopped here or above
        redis.stop()
    assert "Traceback" not in log, log


@pytest.fixture(scope="module")
def sentinel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SentinelGroup]:
    need_redis()
    group = SentinelGroup(tmp_path_factory.mktemp("bots-sentinel"), Users.random())
    yield group
    group.stop()


async def test_a_worker_follows_a_sentinel_failover(sentinel: SentinelGroup, engine: Engine) -> None:
    """The primary is killed while a worker plays games of bots: the worker follows the
    Sentinels to the new primary and the games finish; each replays to its state (a move
    lost with the old primary's unreplicated writes is simply played again: its job was
    enqueued by the commit before it, which the replica has)."""
    assert sentinel.users is not None
    env = {**NO_LIMITS, **sentinel.users.service_env(sentinels=True)}
    args = ["--redis-mode", "sentinel", "--redis-service", sentinel.service]
    server = ApiServer(sentinel.url, args=[*args, "--bots", "0"], env=env).start()
    worker = BotProcess(sentinel.url, args=args, env={**env, "DARKROAD_BOT_CLAIM_TIMEOUT": "3"}).start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
            games = [
                (await client.post("/v1/games", json={"players": 2, "seed": seed, "seats": BOTS_ONLY})).json()["id"]
                for seed in (51, 52)
            ]
            deadline = time.monotonic() + 60
            while await version_of(client, games[0]) < 20:
                assert time.monotonic() < deadline, worker.log()
                await asyncio.sleep(0.05)
            old = sentinel.primary()
            old.kill()
            # Bounded: a worker that never follows the failover fails the test with its log
            # rather than holding the run (each played_out call has its own 120 s).
            deadline = time.monotonic() + 240
            for game in games:
                while True:
                    with contextlib.suppress(httpx.HTTPError, AssertionError, KeyError):
                        await played_out(client, game, timeout=120)
                        break
                    assert time.monotonic() < deadline, f"game {game} not played out:\n{worker.log()}\n{server.log()}"
                    await asyncio.sleep(0.5)
        with contextlib.closing(sentinel.primary().client()) as primary:
            for game in games:
                check_stored(engine, primary, game)
    finally:
        worker.stop()
        server.stop()


@pytest.mark.xdist_group("store-cluster")  # on the worker holding the Cluster (tests/api/conftest.py)
async def test_cluster_jobs_spread_over_shards(redis_cluster: ClusterNodes, engine: Engine) -> None:
    """In a Redis Cluster, games' ids fall in the slots of the job shards: their jobs go to
    several streams (on several primaries), one worker reads them all and plays every game on
    (:func:`played_on`'s 20 moves: the rest of a game is the same job again)."""
    redis_cluster.flush()
    settings = Settings(redis_url=redis_cluster.url, redis_mode="cluster")
    store = RedisStore.from_url(redis_cluster.url, mode="cluster")
    async with store:
        service = GameService(engine, store, settings, Metrics())
        seating = Seating(seats=[("bot", None, "random")] * 2)
        created = [await service.seats.create(GameConfig(players=2, seed=60 + n), seating) for n in range(10)]
        shards = {store.jobs.own_shard(game.id) for game in created}
        assert None not in shards and len(shards) >= 3, shards
        nodes = {store.topology.node_for(game_key(game.id)).name for game in created}
        assert len(nodes) >= 2, nodes  # the jobs are not all on one primary
        stop = asyncio.Event()
        running = asyncio.create_task(BotWorker(engine, store, settings, Metrics(), concurrency=2).run(stop))
        async def progress(game_id: str) -> tuple[bool, int]:
            stored = (await service.reading.caller(game_id, None)).stored
            return stored.finished, stored.version

        try:
            await played_on(progress, [game.id for game in created], [game.version for game in created], 20, 180)
        finally:
            stop.set()
            await running
        for game in created:
            records = [json.loads(raw) for raw in await store.actions(game.id)]
            stored = await store.load(game.id)
            assert stored is not None
            config = engine.loads(stored.state).config
            assert engine.pack(lobbies.replay(engine, config, records)) == stored.state

