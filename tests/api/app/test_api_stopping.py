"""Stopping a worker's loops at shutdown (darkroad.api.app.stopping), and a bot worker whose loop
absorbs a cancellation, as Python 3.11's ``asyncio.wait_for`` does inside redis-py's connect
(python/cpython#86296)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from darkroad.api.app.bot_worker import BotWorker
from darkroad.api.app.stopping import cancel_and_wait
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.base import BotJob
from darkroad.api.store.memory import MemoryStore
from darkroad.core import Engine

LONG = 3600.0
"""Longer than any test may wait: a loop that is not stopped shows as a timeout."""


async def absorbs_one_cancellation(started: asyncio.Event) -> None:
    """Goes on after its first cancellation, as a loop did whose ``wait_for`` lost it."""
    started.set()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.sleep(LONG)
    await asyncio.sleep(LONG)


async def test_a_task_that_runs_on_after_its_cancellation_is_cancelled_again() -> None:
    started = asyncio.Event()
    stubborn = asyncio.create_task(absorbs_one_cancellation(started))
    plain = asyncio.create_task(asyncio.sleep(LONG))
    await started.wait()
    await asyncio.wait_for(cancel_and_wait([stubborn, plain]), timeout=5)
    assert stubborn.cancelled() and plain.cancelled()


async def test_a_tasks_own_failure_is_read_and_not_raised() -> None:
    async def fails() -> None:
        raise RuntimeError("its own failure, logged by the loop itself")

    failing = asyncio.create_task(fails())
    await asyncio.sleep(0)
    await cancel_and_wait([failing])
    assert isinstance(failing.exception(), RuntimeError)


async def test_cancelling_the_caller_is_not_absorbed() -> None:
    started = asyncio.Event()
    stubborn = asyncio.create_task(absorbs_one_cancellation(started))
    await started.wait()
    stopping = asyncio.create_task(cancel_and_wait([stubborn]))
    await asyncio.sleep(0)
    stopping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stopping
    stubborn.cancel()
    await asyncio.gather(stubborn, return_exceptions=True)


class AbsorbingStore(MemoryStore):
    """A store whose first read of jobs absorbs the cancellation and then blocks for ``block``
    seconds, as a Redis read of jobs did when the cancellation landed in redis-py's connect."""

    absorbed = 0

    async def take_jobs(self, shard: str, consumer: str, count: int, block: float, claim_after: float) -> list[BotJob]:
        if self.absorbed == 0:
            try:
                await asyncio.sleep(LONG)
            except asyncio.CancelledError:
                self.absorbed += 1
            await asyncio.sleep(block)
            return []
        return await super().take_jobs(shard, consumer, count, block, claim_after)


async def test_a_bot_worker_stops_at_once_when_its_jobs_loop_absorbs_a_cancellation(engine: Engine) -> None:
    store = AbsorbingStore()
    worker = BotWorker(engine, store, Settings(), Metrics(), processes=False)
    worker.BLOCK = LONG  # a read of jobs that is not cancelled again holds the stop for an hour
    stop = asyncio.Event()
    running: asyncio.Task[Any] = asyncio.create_task(worker.run(stop))
    await asyncio.sleep(0.05)
    stop.set()
    await asyncio.wait_for(running, timeout=10)
    assert store.absorbed == 1
