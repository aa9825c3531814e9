"""A stream read by one consumer group, kept in this process: the memory store's bot jobs and
webhook messages, as :mod:`.redis_groups` takes them from Redis (each method atomic on the
event loop, as a Redis command is)."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

T = TypeVar("T")


class MemoryGroup(Generic[T]):
    """Entries not handed out yet (by ref, in order) and those handed out and not acknowledged
    (ref -> entry, consumer, when handed out: wall-clock seconds, as the claim timeout counts).
    ``handed(entry, consumer, claimed)`` is the entry as handed to ``consumer``; ``claimed``:
    again, from a consumer that did not acknowledge it within the claim timeout."""

    def __init__(self, handed: Callable[[T, str, bool], T]) -> None:
        self._handed = handed
        self._stream: OrderedDict[str, T] = OrderedDict()
        self._pending: dict[str, tuple[T, str, float]] = {}
        self._refs = itertools.count(1)
        self._added = asyncio.Event()

    def clear(self) -> None:
        self._stream.clear()
        self._pending.clear()

    def add(self, make: Callable[[str], T]) -> None:
        """Append the entry ``make(ref)`` makes with its new ref, and wake the takers."""
        ref = str(next(self._refs))
        self._stream[ref] = make(ref)
        self._added.set()
        self._added = asyncio.Event()

    async def take(self, consumer: str, count: int, block: float, claim_after: float) -> list[T]:
        """Up to ``count`` entries for ``consumer``: first those pending over ``claim_after``
        seconds, then new ones, waiting up to ``block`` seconds for one when there is none."""
        now = time.time()
        taken: list[T] = []
        for ref, (entry, _, handed) in list(self._pending.items()):
            if len(taken) < count and now - handed >= claim_after:
                entry = self._handed(entry, consumer, True)
                self._pending[ref] = (entry, consumer, now)
                taken.append(entry)
        if not taken and not self._stream and block > 0:
            try:
                await asyncio.wait_for(self._added.wait(), block)
            except TimeoutError:
                return []
        while self._stream and len(taken) < count:
            ref, entry = self._stream.popitem(last=False)
            entry = self._handed(entry, consumer, False)
            self._pending[ref] = (entry, consumer, time.time())
            taken.append(entry)
        return taken

    def keep(self, refs: Iterable[str], consumer: str) -> None:
        """Restart the claim timeout of the pending entries ``refs``, now ``consumer``'s (as
        ``XCLAIM`` with no minimum idle time)."""
        now = time.time()
        for ref in refs:
            if (found := self._pending.get(ref)) is not None:
                self._pending[ref] = (found[0], consumer, now)

    def ack(self, ref: str) -> None:
        self._pending.pop(ref, None)
        self._stream.pop(ref, None)

    def waiting(self, limit: int) -> list[T]:
        """The first ``limit`` entries not handed out yet."""
        return list(itertools.islice(self._stream.values(), limit))
