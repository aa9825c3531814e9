"""The service layer, below HTTP: races that requests alone hit only by chance."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import threading
import time
from collections.abc import Awaitable, Callable, Sequence

import pytest
from prometheus_client import generate_latest

from darkroad.api.app.bots import BotThread, BotTimeout
from darkroad.api.app.records import entries_of
from darkroad.api.app.service import GameService
from darkroad.api.app.values import Seating
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.base import Commit, IdempotencyRecord, StoredEvent, StoredGame
from darkroad.api.store.memory import MemoryStore
from darkroad.core import Action, Bot, Engine, Game, GameConfig, hookimpl


class FinishingStore(MemoryStore):
    """Commits ``pending`` just after an event stream has read a batch (and before it looks at the game)."""

    pending: Commit | None = None

    async def wait_events(self, game_id: str, after: int, limit: int, timeout: float) -> list[StoredEvent]:
        batch = await super().wait_events(game_id, after, limit, timeout)
        if self.pending is not None:
            await self.commit(self.pending)
            self.pending = None
        return batch


async def test_stream_delivers_the_events_that_finished_the_game(engine: Engine) -> None:
    # Regression: the stream found the game finished after reading its batch and ended
    # without the final events, committed in between.
    store = FinishingStore()
    service = GameService(engine, store, Settings(stream_heartbeat=0.05), Metrics())
    created = await service.seats.create(GameConfig(players=2, seed=3))
    caller = await service.reading.caller(created.id, None)
    last = (await store.events(created.id, -1, 1000))[-1].n
    final = [
        StoredEvent(last + 1, None, b'{"type":"last move"}'),
        StoredEvent(last + 2, None, b'{"type":"end"}'),
    ]
    store.pending = Commit(
        game_id=created.id,
        expected_version=created.version,
        expected_tag=caller.stored.tag,
        version=created.version + 1,
        tag="final",
        state=b"{}",
        finished=True,
        action=b"{}",
        events=final,
        ttl=60,
        idempotency=IdempotencyRecord("k", b"", 60),
    )
    delivered = [event async for event in service.following.follow(caller, last) if event is not None]
    assert delivered == final


async def test_a_write_lost_in_a_failover_does_not_poison_the_cache(engine: Engine) -> None:
    """A failover with asynchronous replication may lose an acknowledged version n; another
    action then makes a different version n. The process that cached the lost one must not
    take it for the new one (it would show it, and commit on top of it)."""
    store = MemoryStore()
    first, second = (GameService(engine, store, Settings(), Metrics()) for _ in range(2))
    created = await first.seats.create(GameConfig(players=2, seed=11))
    game = engine.loads((await store.load(created.id)).state)  # type: ignore[union-attr]
    seat = engine.awaiting(game)[0]
    token = created.tokens[seat]
    assert token is not None
    options = engine.legal_actions(game, seat)
    outcomes = {}
    for action in options:  # two actions leading to different states
        trial = engine.loads(engine.dumps(game))
        engine.apply(trial, action)
        outcomes.setdefault(engine.dumps(trial), action)
    lost, kept = list(outcomes.values())[:2]

    record = store._games[created.id]
    saved = dataclasses.replace(record, events=list(record.events), actions=list(record.actions))
    await first.acting.act(created.id, token, lost, None, None)
    store._games[created.id] = saved  # the failover: the write is gone
    await second.acting.act(created.id, token, kept, None, None)

    caller = await first.reading.caller(created.id, token)
    assert caller.stored.version == created.version + 1
    assert first.reading.view(caller) == second.reading.view(await second.reading.caller(created.id, token))
    # Acting on from the first process builds on the kept version: the action list replays to the state.
    view = json.loads(first.reading.view(caller))
    follow_seat = view["awaiting"][0]
    follow_token = created.tokens[follow_seat]
    assert follow_token is not None
    follow = first.reading.legal_actions(await first.reading.caller(created.id, follow_token))[0]
    await first.acting.act(created.id, follow_token, engine.action_from_json(follow), None, None)
    stored = await store.load(created.id)
    assert stored is not None
    actions = entries_of(await store.actions(created.id))  # without their commit times
    assert engine.dumps(engine.replay(engine.loads(stored.state).config, actions)) == stored.state


async def test_the_bot_thread_serves_the_earliest_request_first() -> None:
    """A request's next bot move goes ahead of moves of requests that began after it (a
    first-come queue would serve them in the order submitted), and each result says how
    long it waited for the thread."""
    bots = BotThread()
    release = threading.Event()
    served: list[str] = []
    try:
        busy = bots.submit(0.0, release.wait)
        later = [bots.submit(rank, functools.partial(served.append, name)) for rank, name in [(2.0, "b"), (1.0, "a")]]
        await asyncio.sleep(0.05)
        release.set()
        (_, first_wait), *waits = [await future for future in [busy, *later]]
        assert served == ["a", "b"]
        assert all(waited >= 0.05 for _, waited in waits) and first_wait < 0.05
    finally:
        bots.close()


def test_a_settle_finished_but_not_yet_forgotten_does_not_hang_the_loop(engine: Engine) -> None:
    """Regression (a hang seen under load): a request reading a bot game found its last
    settle task done, with the done-callback that forgets it still queued. Awaiting a done
    task does not yield, so ``_settle`` looped on it and the event loop, the whole process,
    never ran again. The request runs in a loop of its own thread here, so that a hang
    fails the test instead of hanging it."""
    outcome: list[object] = []

    async def scenario() -> None:
        service = GameService(engine, MemoryStore(), Settings(), Metrics())
        try:
            created = await service.seats.create(
                GameConfig(players=2, seed=5), Seating(seats=[("human", None, None), ("bot", None, "random")])
            )
            stored = (await service.reading.caller(created.id, None)).stored
            finished: asyncio.Future[object] = asyncio.get_running_loop().create_future()
            finished.set_result(stored)  # done; the callback that would forget it never ran
            service.bots._settling[created.id] = finished  # type: ignore[assignment]
            outcome.append(await service.bots.settle(stored, None))
            outcome.append(created.id not in service.bots._settling)
        finally:
            service.close()

    thread = threading.Thread(target=asyncio.run, args=(scenario(),), daemon=True)
    thread.start()
    thread.join(timeout=20)
    assert not thread.is_alive(), "the event loop spun on a finished settle"
    stored, forgotten = outcome
    assert forgotten and isinstance(stored, StoredGame) and stored.version >= 0


class SlowBot(Bot):
    """A bot that thinks far longer than a request's budget."""

    id = "slow"
    name = "Slow"
    text = "Thinks for a second, then answers the first legal action."
    pause = 1.0

    def choose(self, engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> Action:
        time.sleep(self.pause)
        return legal[0]


class SlowBots:
    @hookimpl
    def darkroad_bots(self) -> list[Bot]:
        return [SlowBot()]


async def test_a_bot_thinking_past_the_budget_does_not_hold_the_request() -> None:
    """A request waits for the bots at most three times its budget; the move of a bot still
    thinking then lands in the background, for the next read to find."""
    engine = Engine.load(extra=[("slow-bot", SlowBots())])
    budget = 0.1
    service = GameService(engine, MemoryStore(), Settings(bot_time_per_request=budget), Metrics())
    try:
        begun = time.perf_counter()
        created = await service.seats.create(GameConfig(players=2, seed=5), Seating(seats=[("bot", None, "slow")] * 2))
        waited = time.perf_counter() - begun
        assert waited < 3 * budget + 0.5 < SlowBot.pause, waited
        await asyncio.sleep(SlowBot.pause + 0.5)
        later = (await service.bots.advance(await service.reading.caller(created.id, None))).stored
        assert later.version > created.version  # the move made meanwhile was committed
    finally:
        service.close()


def test_a_hung_work_is_given_up_and_the_next_one_runs() -> None:
    """A work running past the timeout fails with ``BotTimeout`` naming the thread left to it,
    a new thread runs the next work meanwhile, and the hung work's late result is dropped
    (its thread then ends)."""
    release = threading.Event()

    async def scenario() -> None:
        bots = BotThread(timeout=0.3)
        try:
            hung = bots.submit(0.0, lambda: release.wait() and "late")
            nxt = bots.submit(1.0, lambda: "next")
            begun = time.perf_counter()
            with pytest.raises(BotTimeout) as given_up:
                await hung
            assert 0.3 <= time.perf_counter() - begun < 5
            assert (await nxt)[0] == "next"  # run by the thread that took over
            stuck = given_up.value.thread
            assert stuck.is_alive()
            release.set()
            stuck.join(timeout=5)
            assert not stuck.is_alive()  # returned, its result dropped, and it ended
            assert (await bots.submit(2.0, lambda: "after"))[0] == "after"
        finally:
            release.set()
            bots.close()

    asyncio.run(scenario())


class HungBot(Bot):
    """A fan's bot that never answers (until ``release`` is set, at the end of the test)."""

    id = "hung"
    name = "Hung"
    text = "Never answers."
    release = threading.Event()
    calls = 0

    def choose(self, engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> Action:
        HungBot.calls += 1
        self.release.wait()
        return legal[-1]


class HungBots:
    @hookimpl
    def darkroad_bots(self) -> list[Bot]:
        return [HungBot()]


async def until(condition: Callable[[], Awaitable[bool]], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not await condition():
        assert time.monotonic() < deadline, "not within the time allowed"
        await asyncio.sleep(0.1)


async def test_a_bot_that_never_answers_is_given_up() -> None:
    """``Settings.bot_move_timeout``: a bot hanging over a move is given up, the first legal
    action stands in, and its later moves are stood in at once while it still hangs (one
    thread left to it, not one per move); the other games' bots go on in a new thread. When
    the hung move finally returns, the bot plays again."""
    engine = Engine.load(extra=[("hung-bot", HungBots())])
    HungBot.release.clear()
    HungBot.calls = 0
    metrics = Metrics()
    service = GameService(engine, MemoryStore(), Settings(bot_time_per_request=0.2, bot_move_timeout=0.5), metrics)
    try:
        # Created together: the random bots' first move is queued behind the hung one.
        hung, others = await asyncio.gather(
            service.seats.create(GameConfig(players=2, seed=7), Seating(seats=[("bot", None, "hung")] * 2)),
            service.seats.create(GameConfig(players=2, seed=8), Seating(seats=[("bot", None, "random")] * 2)),
        )

        async def read(created: StoredGame) -> StoredGame:
            return (await service.bots.advance(await service.reading.caller(created.id, None))).stored

        async def moved() -> bool:
            return (await read(hung)).version >= hung.version + 20

        async def finished() -> bool:
            return (await read(others)).finished

        await until(moved)  # stood in: the game goes on
        await until(finished)  # the random bots played to the end, in the thread that took over
        assert HungBot.calls == 1  # asked once; then stood in at once while it hangs
        text = generate_latest(metrics.registry).decode()
        assert 'darkroad_bot_moves_total{bot="hung",outcome="timed_out"}' in text
        assert 'darkroad_bot_moves_total{bot="random",outcome="chosen"}' in text

        HungBot.release.set()  # the hung move returns (dropped), its thread ends: the bot plays again
        stuck = service.bots._stuck_bots["hung"]
        stuck.join(timeout=5)
        assert not stuck.is_alive()
        await service.seats.create(GameConfig(players=2, seed=9), Seating(seats=[("bot", None, "hung")] * 2))
        assert HungBot.calls > 1
        assert 'darkroad_bot_moves_total{bot="hung",outcome="chosen"}' in generate_latest(metrics.registry).decode()
    finally:
        HungBot.release.set()
        service.close()
