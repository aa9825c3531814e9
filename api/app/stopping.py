"""Stopping a worker's loops (the bot worker's, the webhook deliverer's) at shutdown."""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from typing import Any

AGAIN_AFTER = 0.05
"""Seconds between cancellations of a task that runs on after being cancelled."""


async def cancel_and_wait(tasks: Collection[asyncio.Task[Any]]) -> None:
    """Cancel ``tasks`` and wait until each has ended, cancelling again any that runs on.

    Cancelling once is not enough on Python 3.11: ``asyncio.wait_for``, which redis-py awaits
    while it opens a connection, absorbs a cancellation that lands in the same turn of the loop
    as its inner future's completion (python/cpython#86296; 3.12 rewrote ``wait_for`` on
    ``asyncio.timeout``). A loop reading jobs then went on into its next blocking ``XREADGROUP``,
    and the worker's stop waited for that read's whole block. ``asyncio.wait`` neither raises a
    task's exception nor absorbs a cancellation of its caller. The tasks' exceptions are read
    (and dropped: each loop logs its own failures), as ``gather(..., return_exceptions=True)``
    did before."""
    pending = set(tasks)
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=AGAIN_AFTER)
    await asyncio.gather(*tasks, return_exceptions=True)
