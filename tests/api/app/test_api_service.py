"""The service layer, below HTTP: races that requests alone hit only by chance."""

from __future__ import annotations

import dataclasses
import json

import pytest

from darkroad.api.app.records import entries_of
from darkroad.api.app.service import GameService
from darkroad.api.app.service_errors import ServiceError
from darkroad.api.app.values import Seating, SeatSpec
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.base import Commit, IdempotencyRecord, NewGame, StoredEvent
from darkroad.api.store.memory import MemoryStore
from darkroad.core import Action, Engine, GameConfig, errors
from darkroad.core.actionlog import answer_entry


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
        trial = engine.loads(engine.pack(game))
        engine.apply(trial, action)
        outcomes.setdefault(engine.pack(trial), action)
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
    assert engine.pack(engine.replay(engine.loads(stored.state).config, actions)) == stored.state


async def test_a_rejoin_retires_the_old_token_at_once(engine: Engine) -> None:
    """A seat's token is checked against the cached game's seats on every action: a wrong token
    is refused every time, and a rejoin's fresh token retires the old one at once, though the
    game is cached in this process."""
    service = GameService(engine, MemoryStore(), Settings(), Metrics())
    created = await service.seats.create(
        GameConfig(players=2, seed=5), Seating(seats=[SeatSpec("human", "ana"), SeatSpec("open")])
    )
    joined = await service.seats.join(created.id, 1, "bo", idempotency_key="k")
    old = joined.token

    async def act(token: str) -> None:
        """Seat 1 acts with ``token`` (seat 0 first, while only it is awaited)."""
        while True:
            game = engine.loads((await service.games.store.load(created.id)).state)  # type: ignore[union-attr]
            if 1 in engine.awaiting(game):
                await service.acting.act(created.id, token, engine.legal_actions(game, 1)[0], None, None)
                return
            first = created.tokens[0]
            assert first is not None
            await service.acting.act(created.id, first, engine.legal_actions(game, 0)[0], None, None)

    await act(old)
    await act(old)
    for _ in range(2):
        with pytest.raises(ServiceError) as wrong:
            await act("not-a-token")
        assert wrong.value.code == "invalid-token"

    rejoined = await service.seats.join(created.id, 1, "bo", idempotency_key="k")
    assert rejoined.token != old
    with pytest.raises(ServiceError) as retired:
        await act(old)
    assert retired.value.code == "invalid-token"
    await act(rejoined.token)


def test_an_action_is_recorded_without_its_label(engine: Engine) -> None:
    """The action list's entry of an action (``actionlog.answer_entry``, as ``changes.play`` records it): the engine's encoding of
    the action without the client's label (a label is the client's to choose, never stored)."""
    labelled = Action("move", 1, "district:bazaar", "Move to the Great Bazaar")
    plain = Action("move", 1, "district:bazaar")
    entry = answer_entry(labelled)
    assert entry == engine.encode(plain) and b"Great Bazaar" not in entry
    assert answer_entry(plain) == entry


@pytest.mark.parametrize(
    "seating",
    [
        Seating(seats=[SeatSpec("bot", None, "nobody"), SeatSpec("human")]),
        Seating(seats=[SeatSpec("bot", None, None), SeatSpec("human")]),
        Seating(turn_timeout=60, timeout_bot="nobody"),
    ],
    ids=["seat-bot", "seat-without-bot", "timeout-bot"],
)
async def test_the_app_refuses_a_bot_not_installed_whoever_calls_it(engine: Engine, seating: Seating) -> None:
    """``POST /v1/games`` asks core's setup checks before the app; the app asks core's bot
    check again for its other callers (a game naming a bot no worker has would wait forever),
    and stores nothing."""
    stored: list[object] = []

    class Recording(MemoryStore):
        async def create(self, game: NewGame) -> None:
            stored.append(game)
            await super().create(game)

    service = GameService(engine, Recording(), Settings(), Metrics())
    with pytest.raises(errors.UnknownBot, match="is installed here"):
        await service.seats.create(GameConfig(players=2, seed=1), seating)
    assert stored == []
    await service.seats.create(GameConfig(players=2, seed=1), Seating(seats=[SeatSpec("bot", None, "random")] * 2))
    assert len(stored) == 1  # an installed bot is taken
