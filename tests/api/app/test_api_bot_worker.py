"""Bot workers (``darkroad.api.app.bot_worker``) over the memory store and a real Redis: jobs
enqueued by commits, played apart from requests, stale and duplicate jobs dropped, bots that
hang given up, turn clocks that run with nobody reading the game."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import signal
import time
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import pytest
from prometheus_client import generate_latest

from darkroad.api.app import lobby as lobbies
from darkroad.api.app.bot_worker import BotWorker
from darkroad.api.app.service import GameService
from darkroad.api.app.values import Seating, SeatSpec
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.base import BotJob, CommitResult, GameStore, Outcome, ReplicationTimeout, StoredGame
from darkroad.api.store.memory import MemoryStore
from darkroad.core import Action, Bot, Engine, Game, GameConfig, hookimpl

pytestmark = pytest.mark.xdist_group("store-cluster")
"""Under ``--dist loadgroup`` (CI) the module runs on the worker holding the Redis Cluster, the run's lane
of tests that mostly wait (tests/api/conftest.py's :data:`STORES`): its tests mostly wait too (think
times, a hung bot, turn clocks), and spread over every worker they made all four wait at once."""


async def until(condition: Callable[[], Awaitable[bool]], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not await condition():
        assert time.monotonic() < deadline, "not within the time allowed"
        await asyncio.sleep(0.05)


@asynccontextmanager
async def running(worker: BotWorker) -> AsyncIterator[BotWorker]:
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    try:
        yield worker
    finally:
        stop.set()
        await task


async def replays(engine: Engine, store: GameStore, game_id: str) -> bool:
    """The stored action list replays to the stored state."""
    stored = await store.load(game_id)
    assert stored is not None
    records = [json.loads(raw) for raw in await store.actions(game_id)]
    config = engine.loads(stored.state).config
    return engine.pack(lobbies.replay(engine, config, records)) == stored.state


async def test_an_action_answers_at_once_and_the_bots_move_after(engine: Engine, store: GameStore) -> None:
    """The answer to an action is the state after that action; the bots' moves come after it,
    committed by a worker, and a long poll sees them."""
    settings = Settings()
    service = GameService(engine, store, settings, Metrics())
    created = await service.seats.create(
        GameConfig(players=3, seed=4),
        Seating(seats=[("human", None, None), ("bot", None, "greedy"), ("bot", None, "random")]),
    )
    token = created.tokens[0]
    assert token is not None
    handed_to_bots = 0
    async with running(BotWorker(engine, store, settings, Metrics(), processes=False)):
        while handed_to_bots < 3:

            async def mine() -> bool:
                return bool(service.reading.legal_actions(await service.reading.caller(created.id, token)))

            await until(mine)
            caller = await service.reading.caller(created.id, token)
            action = engine.action_from_json(service.reading.legal_actions(caller)[0])
            result = await service.acting.act(created.id, token, action, None, None)
            # The answer is the state right after this action (a bot awaited at once with the
            # human, in a simultaneous decision, may have committed just before it).
            records = await store.actions(created.id)
            assert json.loads(records[result.version - created.version - 1])["seat"] == 0
            view = json.loads(result.view)
            if view["status"] == "finished" or 0 in view["awaiting"]:
                continue
            handed_to_bots += 1  # a bot is awaited: the long poll sees its move, committed by the worker
            last = (await store.events(created.id, -1, 10_000))[-1].n
            page = await service.following.log(caller, result_last := last, 100, wait=10)
            assert page.events, f"no bot move after event {result_last}"
    assert await replays(engine, store, created.id)


async def test_a_game_of_bots_is_played_to_its_end_by_the_worker(engine: Engine, store: GameStore) -> None:
    settings = Settings()
    service = GameService(engine, store, settings, Metrics())
    metrics = Metrics()
    created = await service.seats.create(GameConfig(players=2, seed=8), Seating(seats=[("bot", None, "random")] * 2))
    async with running(BotWorker(engine, store, settings, metrics, processes=False)):

        async def finished() -> bool:
            return (await service.reading.caller(created.id, None)).stored.finished

        await until(finished, timeout=120)
    assert await replays(engine, store, created.id)
    text = generate_latest(metrics.registry).decode()
    assert 'darkroad_bot_jobs_total{bot="random",outcome="played"}' in text
    assert 'darkroad_bot_job_age_seconds_count{bot="random"}' in text
    assert 'darkroad_bot_think_seconds_count{bot="random"}' in text


@pytest.mark.parametrize("processes", [False, True], ids=["threads", "processes"])
async def test_a_bot_seat_thinks_for_its_think_time(engine: Engine, store: GameStore, processes: bool) -> None:
    """A bot seat created with a ``think_time`` (the search bot then thinks to that clock) is played with
    it, in the worker's threads and in its thinking processes alike."""
    settings = Settings()
    service = GameService(engine, store, settings, Metrics())
    metrics = Metrics()
    created = await service.seats.create(
        GameConfig(players=2, seed=3), Seating(seats=[SeatSpec("bot", None, "search", 0.02), ("bot", None, "random")])
    )
    async with running(BotWorker(engine, store, settings, metrics, processes=processes)):

        async def searched() -> bool:
            text = generate_latest(metrics.registry).decode()
            found = re.search(r'darkroad_bot_think_seconds_count\{bot="search"\} (\d+)', text)
            return found is not None and int(found.group(1)) >= 8

        await until(searched, timeout=60)
    text = generate_latest(metrics.registry).decode()
    count = float(re.search(r'darkroad_bot_think_seconds_count\{bot="search"\} ([\d.]+)', text).group(1))  # type: ignore[union-attr]
    total = float(re.search(r'darkroad_bot_think_seconds_sum\{bot="search"\} ([\d.]+)', text).group(1))  # type: ignore[union-attr]
    # 20 ms a decision (a decision with one answer is not thought about), below the default 0.1 s.
    assert total / count < 0.3, (total, count)
    assert await replays(engine, store, created.id)


async def test_two_workers_racing_for_one_job_commit_once(engine: Engine, store: GameStore) -> None:
    """A job handed out twice (a worker thought dead, but only slow) is played once: the
    second commit finds the version moved and drops the job as stale."""
    settings = Settings()
    service = GameService(engine, store, settings, Metrics())
    created = await service.seats.create(
        GameConfig(players=2, seed=5), Seating(seats=[("bot", None, "random"), ("human", None, None)])
    )
    (shard,) = [s for s in store.job_shards() if await store.waiting_jobs(s, 10)]
    (job,) = await store.take_jobs(shard, "slow", 1, 0.1, 60.0)
    await asyncio.sleep(0.15)
    (again,) = await store.take_jobs(shard, "other", 1, 0.1, 0.1)
    assert again.ref == job.ref
    # One move per job (chain=1): the winner's move is the only commit.
    first, second = (BotWorker(engine, store, settings, Metrics(), processes=False, chain=1) for _ in range(2))
    played = await asyncio.gather(first.play(job), second.play(again))
    assert sorted(p.outcome for p in played) == ["played", "stale"]
    assert len(await store.actions(created.id)) == 1
    stored = await store.load(created.id)
    assert stored is not None and stored.version == created.version + 1
    assert await replays(engine, store, created.id)


async def no_job_left(store: GameStore) -> bool:
    """No job waits, and none was handed out and left unacknowledged (claimable at once)."""
    for shard in store.job_shards():
        if await store.waiting_jobs(shard, 10) or await store.take_jobs(shard, "checker", 10, 0.05, 0.0):
            return False
    return True


async def bot_then_human(engine: Engine, store: GameStore, settings: Settings) -> tuple[GameService, str, int]:
    """A game whose bot (seat 0) has several decisions in a row before the human's (seat 1)."""
    service = GameService(engine, store, settings, Metrics())
    created = await service.seats.create(
        GameConfig(players=2, seed=5), Seating(seats=[("bot", None, "random"), ("human", None, None)])
    )
    return service, created.id, created.version


async def test_a_job_plays_the_bots_moves_in_a_row_each_its_own_version(engine: Engine, store: GameStore) -> None:
    """When a bot is awaited again after its move, the worker plays on under the same job: no
    job per move through the queue, yet every move is its own commit (contiguous versions in
    the log and the stream), and the job is acknowledged with the last one."""
    settings = Settings()
    service, game_id, version = await bot_then_human(engine, store, settings)
    (shard,) = [s for s in store.job_shards() if await store.waiting_jobs(s, 10)]
    (job,) = await store.take_jobs(shard, "w", 1, 0.1, 60.0)
    played = await BotWorker(engine, store, settings, Metrics(), processes=False).play(job)
    assert played.outcome == "played" and played.moves > 1 and played.acked
    stored = await store.load(game_id)
    assert stored is not None and stored.version == version + played.moves and stored.job is None
    records = [json.loads(raw) for raw in await store.actions(game_id)]
    assert [record["seat"] for record in records] == [0] * played.moves
    events = await store.events(game_id, -1, 10_000)
    assert [event.n for event in events] == list(range(len(events)))
    assert 1 in engine.awaiting(engine.loads(stored.state))  # the human's turn: nothing left to the bots
    assert await no_job_left(store)
    assert await replays(engine, store, game_id)
    assert (await service.reading.caller(game_id, None)).stored.version == stored.version


async def test_a_worker_dying_in_a_run_of_moves_leaves_the_job_to_another(engine: Engine, store: GameStore) -> None:
    """A worker killed between two moves of a run: its job, kept by the commit of the first
    (the game names it), is claimed by another worker, found current, and played on; no move
    lost or doubled."""
    settings = Settings()
    _, game_id, version = await bot_then_human(engine, store, settings)
    (shard,) = [s for s in store.job_shards() if await store.waiting_jobs(s, 10)]
    (job,) = await store.take_jobs(shard, "dies", 1, 0.1, 60.0)
    await asyncio.sleep(0.5)  # taken a while ago: the kept job's claim timeout restarts with the move
    dying = BotWorker(engine, store, settings, Metrics(), processes=False)
    real = dying.pool.choose
    calls = 0

    async def choose_then_die(*args: object) -> tuple[Action, str]:
        nonlocal calls
        calls += 1
        if calls > 1:
            raise SystemExit("killed")
        return await real(*args)  # type: ignore[arg-type]

    dying.pool.choose = choose_then_die  # type: ignore[method-assign]
    with pytest.raises(SystemExit):
        await dying.play(job)
    stored = await store.load(game_id)
    assert stored is not None and stored.version == version + 1 and stored.job == job.ref
    assert not await store.waiting_jobs(shard, 10)  # kept, not enqueued again
    assert await store.take_jobs(shard, "other", 1, 0.0, 0.4) == []  # handed to the dying worker again
    await asyncio.sleep(0.5)
    (claimed,) = await store.take_jobs(shard, "other", 1, 0.1, 0.4)
    assert claimed.ref == job.ref
    played = await BotWorker(engine, store, settings, Metrics(), processes=False).play(claimed)
    assert played.outcome == "played" and played.moves >= 1
    stored = await store.load(game_id)
    assert stored is not None and stored.version == version + 1 + played.moves and stored.job is None
    assert len(await store.actions(game_id)) == stored.version - version
    assert await no_job_left(store)
    assert await replays(engine, store, game_id)


@pytest.mark.stores("memory")
async def test_a_run_of_moves_whose_commit_a_failover_lost_is_played_again(engine: Engine, store: GameStore) -> None:
    """A failover with asynchronous replication loses the worker's last commit of a run of
    moves: its next commit is stale, and the game, as the new primary has it, is back at the
    job's version, still awaiting the bot under this very job. The worker plays the move
    again from there and on; it must not take the stale commit for the end of its job and
    acknowledge it, which left the game with no job, played by nobody (the worker then stayed
    silent: the flake of tests/api/app/test_api_bot_processes.py's Sentinel failover)."""
    assert isinstance(store, MemoryStore)
    settings = Settings()
    _, game_id, version = await bot_then_human(engine, store, settings)
    (shard,) = [s for s in store.job_shards() if await store.waiting_jobs(s, 10)]
    (job,) = await store.take_jobs(shard, "w", 1, 0.1, 60.0)
    worker = BotWorker(engine, store, settings, Metrics(), processes=False)
    commit = worker.games.commit
    lost = 0

    async def commit_lost_once(game_id: str, *args: Any, **kwargs: Any) -> Any:
        nonlocal lost
        record = store._games[game_id]
        saved = dataclasses.replace(record, events=list(record.events), actions=list(record.actions))
        result = await commit(game_id, *args, **kwargs)
        if not lost:  # acknowledged to the worker, then gone with the old primary
            lost += 1
            store._games[game_id] = saved
        return result

    worker.games.commit = commit_lost_once  # type: ignore[method-assign]
    played = await worker.play(job)
    assert lost == 1
    assert played.outcome == "played" and played.acked
    stored = await store.load(game_id)
    assert stored is not None and stored.job is None
    assert 1 in engine.awaiting(engine.loads(stored.state))  # the human's turn: the bot's moves all played
    assert len(await store.actions(game_id)) == stored.version - version
    assert await no_job_left(store)
    assert await replays(engine, store, game_id)


async def test_a_job_the_game_still_awaits_after_every_attempt_is_left_for_a_reclaim(
    engine: Engine, store: GameStore
) -> None:
    """Commits that are stale every time while the game still awaits the bot under the job
    (as a failover that keeps losing them would make): the worker stops after its attempts
    and leaves the job unacknowledged, for a claim once the worker is gone; it does not
    acknowledge a job the game still needs."""
    settings = Settings()
    _, game_id, version = await bot_then_human(engine, store, settings)
    (shard,) = [s for s in store.job_shards() if await store.waiting_jobs(s, 10)]
    (job,) = await store.take_jobs(shard, "w", 1, 0.1, 60.0)
    worker = BotWorker(engine, store, settings, Metrics(), processes=False, chain=2)
    attempts = 0

    async def always_stale(game_id: str, *args: Any, **kwargs: Any) -> tuple[CommitResult, StoredGame]:
        nonlocal attempts
        attempts += 1
        current = await store.load(game_id)
        assert current is not None
        return CommitResult(Outcome.STALE, current), current

    worker.games.commit = always_stale  # type: ignore[method-assign]
    played = await worker.play(job)
    assert played.outcome == "left" and not played.acked and played.moves == 0
    assert attempts == 4  # 2 x chain
    stored = await store.load(game_id)
    assert stored is not None and stored.version == version
    await asyncio.sleep(0.2)
    (claimed,) = await store.take_jobs(shard, "other", 1, 0.1, 0.1)  # still there, for another worker
    assert claimed.ref == job.ref


async def test_a_job_is_acknowledged_by_the_commit_of_its_move(engine: Engine, store: GameStore) -> None:
    """The job is acknowledged in the same atomic step as the move it plays: no separate
    acknowledgement (a crash right after the commit cannot hand the job out again)."""
    settings = Settings()
    _, game_id, version = await bot_then_human(engine, store, settings)
    (shard,) = [s for s in store.job_shards() if await store.waiting_jobs(s, 10)]
    (job,) = await store.take_jobs(shard, "w", 1, 0.1, 60.0)
    acks = []

    async def ack(job: BotJob) -> None:
        acks.append(job)

    store.ack_job = ack  # type: ignore[method-assign]
    played = await BotWorker(engine, store, settings, Metrics(), processes=False, chain=1).play(job)
    assert played.outcome == "played" and played.moves == 1 and played.acked
    assert acks == []
    stored = await store.load(game_id)
    assert stored is not None and stored.version == version + 1
    await asyncio.sleep(0.1)
    (next_job,) = await store.take_jobs(shard, "w", 10, 0.1, 0.05)  # the next move's, not this one again
    assert next_job.ref != job.ref and next_job.version == version + 1


class HungBot(Bot):
    """A fan's bot that never answers."""

    id = "hung"
    name = "Hung"
    text = "Never answers."

    def choose(self, engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> Action:
        time.sleep(3600)
        return legal[-1]


class HungBots:
    @hookimpl
    def darkroad_bots(self) -> list[Bot]:
        return [HungBot()]


@pytest.mark.stores("memory")
async def test_a_bot_that_never_answers_is_given_up(store: GameStore) -> None:
    """``DARKROAD_BOT_MOVE_TIMEOUT``: the first legal action stands in, the stuck process is
    killed (a new pool takes over), and the other games' bots go on."""
    engine = Engine.load(extra=[("hung-bot", HungBots())])
    settings = Settings(bot_move_timeout=0.5)
    metrics = Metrics()
    service = GameService(engine, store, settings, Metrics())
    hung = await service.seats.create(GameConfig(players=2, seed=7), Seating(seats=[("bot", None, "hung")] * 2))
    others = await service.seats.create(GameConfig(players=2, seed=8), Seating(seats=[("bot", None, "random")] * 2))
    async with running(BotWorker(engine, store, settings, metrics, concurrency=2)):

        async def moved() -> bool:
            return (await service.reading.caller(hung.id, None)).stored.version >= hung.version + 3

        async def finished() -> bool:
            return (await service.reading.caller(others.id, None)).stored.finished

        await until(moved, timeout=60)
        await until(finished, timeout=120)
    text = generate_latest(metrics.registry).decode()
    assert 'darkroad_bot_jobs_total{bot="hung",outcome="stood_in"}' in text
    assert 'darkroad_bot_moves_total{bot="hung",outcome="timed_out"}' in text
    assert 'darkroad_bot_jobs_total{bot="random",outcome="played"}' in text
    assert await replays(engine, store, hung.id)


async def test_a_seat_past_its_deadline_is_handed_over_with_nobody_reading(engine: Engine, store: GameStore) -> None:
    """The turn clock runs by itself: nobody reads the game, the worker hands the overdue
    seat to the timeout bot, which then plays it."""
    now = [time.time()]

    def clock() -> float:
        return now[0]

    settings = Settings()
    service = GameService(engine, store, settings, Metrics(), clock=clock)
    created = await service.seats.create(
        GameConfig(players=2, seed=3), Seating(turn_timeout=60, timeout_bot="random")
    )
    worker = BotWorker(engine, store, settings, Metrics(), processes=False, clock=clock)
    assert await worker.tick() == []  # not due yet
    now[0] += 61
    assert await worker.tick() == [created.id]
    events = [json.loads(event.payload) for event in await store.events(created.id, -1, 1000)]
    replaced = [event for event in events if event["type"] == "seat_replaced"]
    assert replaced and replaced[0]["data"] == {"bot": "random"}
    async with running(worker):  # the bot now plays the replaced seat

        async def moved() -> bool:
            return len(await store.actions(created.id)) >= 3

        await until(moved)
    # Reclaim works as before: the player takes the seat back.
    seat = replaced[0]["seat"]
    token = created.tokens[seat]
    assert token is not None
    caller = await service.seats.reclaim(created.id, seat, token)
    lobby = lobbies.decode(caller.stored.lobby)
    assert lobby is not None and lobby.bot_of(seat) is None


@pytest.mark.stores("memory")
async def test_a_thinking_process_killed_from_outside_is_replaced(engine: Engine, store: GameStore) -> None:
    """A process of the pool killed between two moves (an operator, the OOM killer): the next
    move finds it gone and asks a new one; the bot's choice still stands (not stood in)."""
    settings = Settings()
    service = GameService(engine, store, settings, Metrics())
    created = await service.seats.create(GameConfig(players=2, seed=8), Seating(seats=[("bot", None, "greedy")] * 2))
    worker = BotWorker(engine, store, settings, Metrics(), concurrency=1, chain=1)
    (shard,) = store.job_shards()
    killed = None
    try:
        for _ in range(60):
            (job,) = await store.take_jobs(shard, "w", 1, 1.0, 60.0)
            before = list(worker.pool._idle)
            played = await worker.play(job)
            assert played.outcome == "played"  # never stood in: the killed process was replaced
            if killed is None and worker.pool._idle:
                (thinker,) = worker.pool._idle
                killed = thinker.process.pid
                os.kill(killed, signal.SIGKILL)
                thinker.process.join(5)
            elif killed is not None and before and worker.pool._idle and worker.pool._idle[0] is not before[0]:
                assert worker.pool._idle[0].process.pid != killed
                break
        else:
            raise AssertionError("no move asked the pool after the kill")
    finally:
        worker.close()
    assert await replays(engine, store, created.id)


def test_the_old_budget_variables_are_accepted_with_a_warning() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        settings = Settings.from_env({"DARKROAD_BOT_TIME_PER_REQUEST": "2", "DARKROAD_BOT_MOVES_PER_REQUEST": "9"})
    assert settings.bot_move_timeout == Settings().bot_move_timeout
    assert sum(issubclass(w.category, DeprecationWarning) for w in caught) == 2


async def test_the_oldest_job_is_measured_and_warned_about(
    engine: Engine, store: GameStore, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(bot_backlog_warning=0.1)
    service = GameService(engine, store, settings, Metrics())
    await service.seats.create(GameConfig(players=2, seed=5), Seating(seats=[("bot", None, "random")] * 2))
    await asyncio.sleep(0.3)
    metrics = Metrics()
    oldest = await BotWorker(engine, store, settings, metrics, processes=False).watch_backlog()
    assert oldest >= 0.2
    text = generate_latest(metrics.registry).decode()
    assert 'darkroad_bot_jobs_waiting{bot="random"} 1.0' in text
    assert "darkroad_bot_oldest_job_age_seconds" in text
    assert "the oldest bot job has waited" in caplog.text


@pytest.mark.stores("memory")
async def test_a_replication_timeout_while_taking_jobs_is_a_warning_and_the_worker_goes_on(
    engine: Engine, store: GameStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Taking jobs is a write (a claim): with ``DARKROAD_REDIS_WAIT_REPLICAS`` a failover can
    leave it unconfirmed. That is a store's passing state, as an unreachable store is: a
    warning, no traceback, and the worker reads again."""
    calls = 0
    take = store.take_jobs

    async def unconfirmed_once(*args: object, **kwargs: object) -> list[BotJob]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise ReplicationTimeout("fewer replicas than DARKROAD_REDIS_WAIT_REPLICAS confirmed the write in time")
        return await take(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "take_jobs", unconfirmed_once)
    with caplog.at_level("WARNING", logger="darkroad.api.bots"):
        async with running(BotWorker(engine, store, Settings(), Metrics(), processes=False)):
            async def read_again() -> bool:
                return calls >= 2

            await until(read_again)
    warned = [r for r in caplog.records if "cannot take jobs" in r.getMessage()]
    assert warned and all(r.levelname == "WARNING" and r.exc_info is None for r in warned)
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


@pytest.mark.stores("memory")
async def test_a_stopping_worker_ends_a_run_of_moves_with_the_move_in_flight(store: GameStore) -> None:
    """Stopping waits for the move each running job is making, not for the rest of its run: a
    game of hung bots (each move given up after ``bot_move_timeout``) would otherwise hold the
    stop for up to ``BotWorker.CHAIN`` moves. The last move's commit releases the job and queues
    the game's next one, so the game goes on under another worker: no move lost or doubled."""
    engine = Engine.load(extra=[("hung-bot", HungBots())])
    settings = Settings(bot_move_timeout=0.5)
    service = GameService(engine, store, settings, Metrics())
    hung = await service.seats.create(GameConfig(players=2, seed=7), Seating(seats=[("bot", None, "hung")] * 2))
    worker = BotWorker(engine, store, settings, Metrics(), concurrency=1)
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))

    async def moved() -> bool:
        return (await service.reading.caller(hung.id, None)).stored.version >= hung.version + 1

    await until(moved, timeout=60)
    at_stop = (await service.reading.caller(hung.id, None)).stored.version
    stop.set()
    await task
    stored = await store.load(hung.id)
    # The move in flight, and one more if the stop came just after a commit that kept the job.
    assert stored is not None and stored.version - at_stop <= 2
    assert not stored.finished and stored.job is None
    assert [s for s in store.job_shards() if await store.waiting_jobs(s, 10)]  # the next move, queued
    assert await replays(engine, store, hung.id)
