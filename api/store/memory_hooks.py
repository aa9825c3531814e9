"""The memory store's webhooks (:class:`~darkroad.api.store.webhook_queue.HookStore`): the same
contract as Redis's, kept in this process (a stream with one consumer group, a set of
retries by due time), each method atomic on the event loop as a Redis script is."""

from __future__ import annotations

import dataclasses
import heapq
import itertools
from collections.abc import Callable, Sequence

from darkroad.api.store.memory_groups import MemoryGroup
from darkroad.api.store.webhook_queue import Delivery, HookNotice, HookStore, message_id

SHARD = "memory"


class MemoryHooks(HookStore):
    """Subscriptions and the queue of messages; ``live(game_id)`` tells whether a game exists."""

    def __init__(self, live: Callable[[str], bool]) -> None:
        self._game_exists = live
        self._subscriptions: dict[tuple[str, int], tuple[bytes, str, bytes | None]] = {}
        self._awaited: dict[str, tuple[int, ...]] = {}
        """Per game with a subscription: the seats its last commit left awaited."""
        self._hook_group: MemoryGroup[Delivery] = MemoryGroup(lambda delivery, consumer, claimed: delivery)
        self._retries: list[tuple[float, int, Delivery]] = []
        self._refs = itertools.count(1)
        """The retries' order among those due at once."""

    def clear_hooks(self) -> None:
        """Forget every subscription and message."""
        self._subscriptions.clear()
        self._awaited.clear()
        self._hook_group.clear()
        self._retries.clear()

    def _subscribed(self, game_id: str) -> list[int]:
        if not self._game_exists(game_id):
            for key in [key for key in self._subscriptions if key[0] == game_id]:
                del self._subscriptions[key]
            self._awaited.pop(game_id, None)
            return []
        return sorted(seat for gid, seat in self._subscriptions if gid == game_id)

    def hooked(self, game_id: str) -> bool:
        """Whether the game has seats subscribed."""
        return game_id in self._awaited

    def notify(self, game_id: str, version: int, finished: bool, notice: HookNotice | None) -> None:
        """A commit's messages (called in the commit's step): ``turn`` for each subscribed seat
        newly awaited, ``finished`` for every subscribed seat when the game ends."""
        if notice is None or game_id not in self._awaited:  # no subscription
            return
        seats = self._subscribed(game_id)
        before = self._awaited.get(game_id, ())
        self._awaited[game_id] = notice.awaited
        for seat, remaining in notice.clock:
            if seat in seats:
                self._add(Delivery(message_id(game_id, version, seat, "clock"), game_id, seat, version, "clock",
                                   notice.created, b'{"remaining":%s}' % repr(remaining).encode()))
        for seat in seats:
            if finished:
                self._add(Delivery(message_id(game_id, version, seat, "finished"), game_id, seat, version, "finished",
                                   notice.created, b"null"))
            elif seat in notice.awaited and seat not in before:
                self._add(Delivery(message_id(game_id, version, seat, "turn"), game_id, seat, version, "turn",
                                   notice.created, notice.decision))

    def _add(self, delivery: Delivery) -> None:
        self._hook_group.add(lambda ref: dataclasses.replace(delivery, shard=SHARD, ref=ref))

    async def put_webhook(self, game_id: str, seat: int, record: bytes, sub_id: str, awaited: str) -> bool | None:
        if not self._game_exists(game_id):
            return None
        created = (game_id, seat) not in self._subscriptions
        self._subscriptions[(game_id, seat)] = (record, sub_id, None)
        self._awaited[game_id] = tuple(int(s) for s in awaited.split(",") if s)
        return created

    async def webhook(self, game_id: str, seat: int) -> tuple[bytes, str, bytes | None] | None:
        return self._subscriptions.get((game_id, seat)) if seat in self._subscribed(game_id) else None

    async def delete_webhook(self, game_id: str, seat: int, sub_id: str | None = None) -> bool:
        found = self._subscriptions.get((game_id, seat))
        if found is None or (sub_id is not None and found[1] != sub_id):
            return False
        del self._subscriptions[(game_id, seat)]
        if not self._subscribed(game_id):
            self._awaited.pop(game_id, None)
        return True

    async def note_delivery(self, game_id: str, seat: int, sub_id: str, state: bytes) -> None:
        found = self._subscriptions.get((game_id, seat))
        if found is not None and found[1] == sub_id:
            self._subscriptions[(game_id, seat)] = (found[0], sub_id, state)

    async def take_deliveries(
        self, shard: str, consumer: str, count: int, block: float, claim_after: float
    ) -> list[Delivery]:
        return await self._hook_group.take(consumer, count, block, claim_after)

    async def keep_deliveries(self, shard: str, consumer: str, refs: Sequence[str]) -> None:
        self._hook_group.keep(refs, consumer)

    async def ack_delivery(self, delivery: Delivery) -> None:
        self._hook_group.ack(delivery.ref)

    async def retry_delivery(self, delivery: Delivery, due: float) -> None:
        await self.ack_delivery(delivery)
        again = dataclasses.replace(delivery, attempt=delivery.attempt + 1, ref="")
        heapq.heappush(self._retries, (due, next(self._refs), again))

    async def release_deliveries(self, shard: str, now: float, limit: int) -> int:
        moved = 0
        while self._retries and self._retries[0][0] <= now and moved < limit:
            self._add(heapq.heappop(self._retries)[2])
            moved += 1
        return moved
