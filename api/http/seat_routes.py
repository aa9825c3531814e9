"""``/v1/games/{game_id}/seats/{seat}``: join an open seat, leave it, hand an overdue seat to
a bot, take it back."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, post
from litestar.di import NamedDependency
from litestar.status_codes import HTTP_201_CREATED, HTTP_204_NO_CONTENT

from darkroad.api.app.seating import JOIN_IDEMPOTENCY_TTL
from darkroad.api.app.service import GameService
from darkroad.api.http.bodies import parse_model, read_body, require_json
from darkroad.api.http.guards import DEPENDENCIES
from darkroad.api.http.guards import idempotency_key as checked_key
from darkroad.api.http.params import (
    ACT,
    CACHE_CONTROL,
    COMMITS,
    CREATES,
    ETAG,
    GAMES,
    SEAT_HOLDER,
    SECRET,
    GameId,
    SeatNumber,
    encoded,
    idempotency_key_header,
    location,
)
from darkroad.api.http.problems import problem_responses
from darkroad.api.http.setup_schemas import JoinedSeat, JoinSeat
from darkroad.api.http.view_schemas import GameView


class SeatsController(Controller):
    """The seats of a game: join, leave, timeout, reclaim."""

    path = GAMES
    tags = ["games"]
    dependencies = DEPENDENCIES

    @post(
        "/{game_id:str}/seats/{seat:int}/join",
        operation_id="joinSeat",
        summary="Join an open seat",
        status_code=HTTP_201_CREATED,
        opt={**CREATES, **SECRET},
        response_headers=[
            location("The game's URL."),
            CACHE_CONTROL,
        ],
        responses=problem_responses(
            "bad-request",
            "request-timeout",
            "unknown-game",
            "unknown-seat",
            "seat-taken",
            "game-finished",
            "stale-version",
            "idempotency-key-reused",
            "body-too-large",
            "unsupported-media-type",
            *COMMITS,
        ),
    )
    async def join_seat(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        seat: SeatNumber,
        service: NamedDependency[GameService],
        idempotency_key: Annotated[
            str | None,
            idempotency_key_header(
                "A unique key per intended join: a retry with the same key and the same name "
                f"within {JOIN_IDEMPOTENCY_TTL // 60} minutes gets the seat again, with a fresh token (the "
                "first answer's plays nothing any more): the key is a credential that long, keep it secret. "
                "The same key with another name is `422 idempotency-key-reused`."
            ),
        ] = None,
    ) -> Response[JoinedSeat]:
        """Take an open seat of a game under a name: the answer carries the seat's token, shown
        only here. Of two players joining one seat at once, one gets it, the other `409 seat-taken`.

        An answer lost (a dropped connection, a `503`) is recovered by sending the join again with
        the same `Idempotency-Key` and name: the seat, with a new token (an event `seat_rejoined`).

        Once every seat is taken the game starts (`seats_filled`); the bots then play what they
        are awaited for in bot workers, after this answers (follow the log or the stream).
        """
        idempotency_key = checked_key(idempotency_key)
        require_json(request.headers.get("content-type"))
        raw = await read_body(
            request.receive, request.headers.get("content-length"), service.settings.request_max_body_size
        )
        data = parse_model(raw, JoinSeat)
        joined = await service.seats.join(game_id, seat, data.name, idempotency_key)
        body = JoinedSeat(seat=joined.seat, token=joined.token, version=joined.version)
        headers = {"Location": f"{self.path}/{game_id}"}
        return Response(body, status_code=HTTP_201_CREATED, headers=headers)

    @post(
        "/{game_id:str}/seats/{seat:int}/leave",
        operation_id="leaveSeat",
        summary="Leave a seat before the game starts",
        status_code=HTTP_204_NO_CONTENT,
        security=ACT,
        responses=problem_responses(
            *SEAT_HOLDER,
            "game-started",
            "game-finished",
            "stale-version",
            "store-unavailable",
            "replication-timeout",
        ),
    )
    async def leave_seat(
        self,
        game_id: GameId,
        seat: SeatNumber,
        service: NamedDependency[GameService],
        seat_token: NamedDependency[str],
    ) -> Response[None]:
        """With the seat's token, while the game waits for players: the seat is open again (and
        the token no longer valid)."""
        await service.seats.leave(game_id, seat, seat_token)
        return Response(None, status_code=HTTP_204_NO_CONTENT)

    @post(
        "/{game_id:str}/seats/{seat:int}/timeout",
        operation_id="timeoutSeat",
        summary="Hand an overdue seat to a bot",
        status_code=200,
        security=ACT,
        response_headers=[ETAG, CACHE_CONTROL],
        responses=problem_responses(
            *SEAT_HOLDER,
            "game-not-started",
            "not-overdue",
            "game-finished",
            "stale-version",
            *COMMITS,
        ),
    )
    async def timeout_seat(
        self,
        game_id: GameId,
        seat: SeatNumber,
        service: NamedDependency[GameService],
        seat_token: NamedDependency[str],
    ) -> Response[GameView]:
        """With the token of another seat: hand a player's seat the game has awaited for longer
        than its `turn_timeout` to the game's timeout bot (`seat_replaced`), which plays it from
        now on (in a bot worker); answers the caller's view after the hand-over.

        The bot workers do the same by themselves when `timeout_at` passes; this is for a client
        that wants to move on at once.
        """
        caller = await service.seats.timeout(game_id, seat, seat_token)
        return encoded(service.reading.view(caller), version=caller.stored.version)

    @post(
        "/{game_id:str}/seats/{seat:int}/reclaim",
        operation_id="reclaimSeat",
        summary="Take a seat back from a bot",
        status_code=200,
        security=ACT,
        response_headers=[ETAG, CACHE_CONTROL],
        responses=problem_responses(
            *SEAT_HOLDER,
            "game-finished",
            "bank-empty",
            "stale-version",
            *COMMITS,
        ),
    )
    async def reclaim_seat(
        self,
        game_id: GameId,
        seat: SeatNumber,
        service: NamedDependency[GameService],
        seat_token: NamedDependency[str],
    ) -> Response[GameView]:
        """With the seat's own token: take the seat back from the bot that played it since it
        timed out (`seat_reclaimed`); the player decides again from the next decision. A seat
        no bot plays is left as it is. Answers the caller's view. A seat whose time bank ran out
        in a game whose clock adds nothing for a decision cannot be reclaimed (`bank-empty`)."""
        caller = await service.seats.reclaim(game_id, seat, seat_token)
        return encoded(service.reading.view(caller), version=caller.stored.version)

