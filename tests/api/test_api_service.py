"""The service layer, below HTTP: races that requests alone hit only by chance."""

from __future__ import annotations

from darkroad.api.metrics import Metrics
from darkroad.api.service import GameService
from darkroad.api.settings import Settings
from darkroad.api.store import Commit, IdempotencyRecord, MemoryStore, StoredEvent
from darkroad.core import Engine, GameConfig


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
    created = await service.create(GameConfig(players=2, seed=3))
    caller = await service.caller(created.id, None)
    last = (await store.events(created.id, -1, 1000))[-1].n
    final = [
        StoredEvent(last + 1, None, b'{"type":"last move"}'),
        StoredEvent(last + 2, None, b'{"type":"end"}'),
    ]
    store.pending = Commit(
        game_id=created.id,
        expected_version=created.version,
        version=created.version + 1,
        state=b"{}",
        finished=True,
        action=b"{}",
        events=final,
        ttl=60,
        idempotency=IdempotencyRecord("k", b"", 60),
    )
    delivered = [event async for event in service.follow(caller, last) if event is not None]
    assert delivered == final
