"""Following a game: its events a page at a time, the long poll, and the live stream.

A waiting read holds a store connection, so it takes one of the process's event stream slots
(:class:`StreamSlots`). The bots' moves arrive like anyone's: bot workers commit them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from darkroad.api.app.repository import GameRepository
from darkroad.api.app.service_errors import ServiceError
from darkroad.api.app.values import Caller, LogPage
from darkroad.api.store.base import StoredEvent

STREAM_BATCH = 500
"""Most events an event stream reads from the store at once."""


def _page(events: list[StoredEvent], after: int, limit: int, seat: int | None, finished: bool) -> LogPage:
    """The page of ``events`` (read after ``after``, at most ``limit``) that ``seat`` may see."""
    return LogPage(
        events=[event for event in events if event.visible_to(seat)],
        next=events[-1].n if events else after,
        more=len(events) == limit,
        finished=finished,
    )


class StreamSlots:
    """The event streams open in this process: at most ``limit``, ``per_client`` per client address.

    :meth:`take` reserves a slot before a stream starts (``too-many-streams``, with seconds to
    wait before retrying, when none is free) and returns the function that frees it, which may
    be called any number of times.
    """

    RETRY_AFTER = 10

    def __init__(self, limit: int, per_client: int) -> None:
        self.limit = limit
        self.per_client = per_client
        self.open = 0
        self.by_client: dict[str, int] = {}

    def take(self, client: str) -> Callable[[], None]:
        """Reserve a slot for a stream of ``client``; call the returned function to free it."""
        mine = self.by_client.get(client, 0)
        if self.open >= self.limit or mine >= self.per_client:
            if self.open >= self.limit:
                raise ServiceError("too-many-streams", "Every event stream slot of this server process is taken; retry "
                                   "later, or read `GET .../log` without `wait`.", retry_after=self.RETRY_AFTER)
            raise ServiceError("too-many-streams", "Every event stream slot of your address is taken; retry later, or "
                               "read `GET .../log` without `wait`.", retry_after=self.RETRY_AFTER)
        self.open += 1
        self.by_client[client] = mine + 1
        taken = True

        def release() -> None:
            nonlocal taken
            if taken:
                taken = False
                self.open -= 1
                left = self.by_client[client] - 1
                if left:
                    self.by_client[client] = left
                else:
                    del self.by_client[client]

        return release


class Following:
    """The event log of games, page by page, long-polled or streamed."""

    def __init__(self, games: GameRepository) -> None:
        self.games = games
        settings = games.settings
        self.streams = StreamSlots(settings.max_event_streams, settings.max_event_streams_per_client)

    async def log(
        self, caller: Caller, after: int, limit: int, wait: float = 0.0, client: str = "unknown"
    ) -> LogPage:
        """Up to ``limit`` events after event ``after``, keeping those the caller may see.

        With ``wait`` > 0 and nothing to show yet, wait up to ``wait`` seconds for the next
        events the caller may see (a long poll), in one of ``client``'s event stream slots
        (a waiting read holds a store connection as a stream does); a finished game answers
        at once.
        """
        game_id, seat = caller.stored.id, caller.seat
        finished = caller.stored.finished
        events = await self.games.store.events(game_id, after, limit)
        page = _page(events, after, limit, seat, finished)
        if page.events or finished or wait <= 0:
            return page
        release = self.streams.take(client)
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + min(wait, self.games.settings.log_max_wait)
            while (remaining := deadline - loop.time()) > 0:
                events = await self.games.store.wait_events(game_id, page.next, limit, remaining)
                if not events:  # the wait timed out
                    break
                page = _page(events, page.next, limit, seat, finished)
                if page.events:
                    break
                # Only events the caller may not see (a bot's private ones, say): wait on.
        finally:
            release()
        return page

    async def stream_over(self, caller: Caller, after: int) -> bool:
        """True when a stream from ``after`` has nothing to send, ever: the game is finished
        and the caller has every event."""
        return caller.stored.finished and not await self.games.store.events(caller.stored.id, after, 1)

    async def follow(self, caller: Caller, after: int) -> AsyncIterator[StoredEvent | None]:
        """The caller's events after ``after`` as they are committed; ``None`` for a heartbeat.

        A heartbeat follows every ``Settings.stream_heartbeat`` seconds without an event the
        caller may see (events private to other seats do not keep the stream alive).
        Ends once the caller has every event of a finished (or expired) game, or after
        ``Settings.stream_max_duration`` (the client resumes from the last event it got).
        """
        loop = asyncio.get_running_loop()
        heartbeat = self.games.settings.stream_heartbeat
        deadline = loop.time() + self.games.settings.stream_max_duration
        game_id = caller.stored.id
        finished = False
        sent = loop.time()  # when the caller last got something
        while (remaining := deadline - loop.time()) > 0:
            if finished:  # nothing more will be committed: read what is left, without waiting
                batch = await self.games.store.events(game_id, after, STREAM_BATCH)
            else:
                quiet = loop.time() - sent
                timeout = min(max(heartbeat - quiet, 0.001), remaining)
                batch = await self.games.store.wait_events(game_id, after, STREAM_BATCH, timeout)
            for event in batch:
                after = event.n
                if event.visible_to(caller.seat):
                    sent = loop.time()
                    yield event
            if len(batch) == STREAM_BATCH:
                continue
            if finished:
                return
            stored = await self.games.store.load(game_id)
            if stored is None:
                return
            # The game may have finished after the batch was read: its last events follow.
            finished = stored.finished
            if not finished and loop.time() - sent >= heartbeat:
                sent = loop.time()
                yield None
