"""Following a game: ``GET .../log`` (pages, and the long poll) and ``GET .../stream``
(server-sent events)."""

from __future__ import annotations

import logging
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import HeaderParameter, QueryParameter
from litestar.response import ServerSentEvent, ServerSentEventMessage
from litestar.status_codes import HTTP_204_NO_CONTENT

from darkroad.api.app.service import GameService
from darkroad.api.http.guards import DEPENDENCIES
from darkroad.api.http.params import (
    CACHE_CONTROL,
    GAMES,
    MAX_EVENT,
    MAX_LOG_PAGE,
    MAX_LOG_WAIT,
    READ,
    After,
    GameId,
    encoded,
)
from darkroad.api.http.problems import problem_responses
from darkroad.api.http.ratelimit import client_key
from darkroad.api.http.schemas import LAST_EVENT_ID_PATTERN, EventPage
from darkroad.api.store.base import StoredEvent, StoreUnavailable

logger = logging.getLogger("darkroad.api")


class FollowingController(Controller):
    """A game's events: the log and the stream."""

    path = GAMES
    tags = ["games"]
    dependencies = DEPENDENCIES

    @get(
        "/{game_id:str}/log",
        operation_id="getLog",
        summary="Read the event log",
        security=READ,
        response_headers=[CACHE_CONTROL],
        responses=problem_responses(
            "bad-request", "invalid-token", "unknown-game", "too-many-streams", "store-unavailable"
        ),
    )
    async def get_log(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        service: NamedDependency[GameService],
        token: NamedDependency[str | None],
        after: After = -1,
        limit: Annotated[
            int, QueryParameter(description="Most events to examine for this page.", ge=1, le=MAX_LOG_PAGE)
        ] = MAX_LOG_PAGE,
        wait: Annotated[
            float,
            QueryParameter(
                description="Long poll: when there is no event to show yet, wait up to this many seconds for "
                "one (0: answer at once; a server may be set to wait less).",
                ge=0,
                le=MAX_LOG_WAIT,
            ),
        ] = 0,
    ) -> Response[EventPage]:
        """The events the caller may see, oldest first, a page at a time.

        Follow `next` while `more` is true. Events private to other seats are skipped.
        With `wait`, an empty page waits for the next events: a plain-JSON way to follow a
        game (`after=<next>&wait=25` in a loop, until `finished`) for clients without
        server-sent events. A waiting read holds one of the event stream slots while it waits.
        Bots' moves arrive like anyone's (bot workers commit them).
        """
        caller = await service.reading.caller(game_id, token)
        page = await service.following.log(caller, after, limit, wait, client_key(request.scope))
        body = msgspec.json.encode(
            {
                "events": [msgspec.Raw(event.payload) for event in page.events],
                "next": page.next,
                "more": page.more,
                "finished": page.finished,
            }
        )
        return encoded(body)

    @get(
        "/{game_id:str}/stream",
        operation_id="streamEvents",
        summary="Follow the events (server-sent events)",
        security=READ,
        response_headers=[CACHE_CONTROL],
        media_type="text/event-stream",
        responses={
            HTTP_204_NO_CONTENT: ResponseSpec(
                data_container=None,
                description="The game is finished and every event was sent: stop reconnecting.",
            ),
            **problem_responses(
                "bad-request", "invalid-token", "unknown-game", "too-many-streams", "store-unavailable"
            ),
        },
    )
    async def stream_events(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        service: NamedDependency[GameService],
        token: NamedDependency[str | None],
        after: After = -1,
        last_event_id: Annotated[
            str | None,
            HeaderParameter(
                name="Last-Event-ID",
                description="Resume after this event (sent by `EventSource` on reconnect); overrides `after`. "
                "The `id` of the last message received: an event's `n` (`-1`: from the first event).",
                pattern=LAST_EVENT_ID_PATTERN,
            ),
        ] = None,
    ) -> Response[Any]:
        """The events the caller may see as `text/event-stream`, live, one JSON event per message.

        Each message's `id` is the event's `n`. The server closes the stream now and then
        (and when the game is over); reconnect with `Last-Event-ID` to resume. Bots play in
        bot workers: their moves stream like anyone's, and following the stream is enough to
        see a game of bots only to its end.
        """
        following = service.following
        release = following.streams.take(client_key(request.scope))
        try:
            caller = await service.reading.caller(game_id, token)
            # Any number of up to 16 digits is a valid id; past the last possible event, none follows.
            cursor = after if last_event_id is None else min(int(last_event_id), MAX_EVENT)
            over = await following.stream_over(caller, cursor)
        except BaseException:
            release()
            raise
        if over:
            release()
            return Response(None, status_code=HTTP_204_NO_CONTENT)
        messages = _messages(following.follow(caller, cursor), release)
        # A stream whose response never starts (the client left at once) is never iterated,
        # so its ``finally`` never runs: the slot is freed when the generator is dropped.
        weakref.finalize(messages, release)
        return ServerSentEvent(messages)



async def _messages(
    events: AsyncIterator[StoredEvent | None], release: Callable[[], None]
) -> AsyncIterator[ServerSentEventMessage]:
    """The server-sent events of a stream; frees its slot when it ends, however it ends.

    Once the response has started, an error can no longer be answered: a store that
    fails mid-stream ends the stream with one log line (the client resumes with
    ``Last-Event-ID``, as ``EventSource`` does by itself), and a client that leaves
    cancels it quietly.
    """
    try:
        async for event in events:
            if event is None:
                yield ServerSentEventMessage(data=None, comment="keep-alive")
            else:
                yield ServerSentEventMessage(data=event.payload.decode(), id=event.n)
    except StoreUnavailable as exc:
        logger.warning("event stream ended: %s", exc)
    finally:
        release()
