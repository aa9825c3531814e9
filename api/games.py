"""``/v1/games``: create games, read them, act on them, follow their events."""

from __future__ import annotations

import logging
import re
import secrets
import weakref
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, HttpMethod, Request, Response, get, post, route
from litestar.datastructures import ResponseHeader
from litestar.di import NamedDependency
from litestar.enums import ParamType
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import OpenAPIType, Operation, Parameter, Schema
from litestar.params import HeaderParameter, PathParameter, QueryParameter
from litestar.response import ServerSentEvent, ServerSentEventMessage
from litestar.status_codes import HTTP_201_CREATED, HTTP_204_NO_CONTENT, HTTP_304_NOT_MODIFIED
from litestar.types import ASGIApp, HTTPResponseBodyEvent, HTTPResponseStartEvent, Receive, Scope, Send

from darkroad.api.bodies import parse_model, raw_headers, read_body, require_json
from darkroad.api.lobby import ENTRY_PATTERN, clean_name
from darkroad.api.problems import Problem, problem_responses
from darkroad.api.ratelimit import client_key
from darkroad.api.schemas import (
    MAX_SEED,
    UNSET,
    ActionList,
    BotSeat,
    CreatedGame,
    EventPage,
    FinalScore,
    GameView,
    HumanSeat,
    JoinedSeat,
    JoinSeat,
    NewGame,
    SeatToken,
    WaitingGames,
)
from darkroad.api.service import (
    GAME_ID_LENGTH,
    GAME_ID_PATTERN,
    JOIN_IDEMPOTENCY_TTL,
    ActResult,
    GameService,
    Seating,
    entity_tag,
    if_none_match,
)
from darkroad.api.store import StoredEvent, StoreUnavailable

logger = logging.getLogger("darkroad.api")

MAX_EVENT = 2**53 - 1
"""Largest accepted event position (JSON-safe integer)."""
MAX_LOG_PAGE = 500
"""Largest page of ``GET /log``."""
MAX_LOG_WAIT = 30.0
"""Longest long poll of ``GET /log`` (seconds): well within the idle timeouts of usual proxies."""
READ: list[dict[str, list[str]]] = [{}, {"seatToken": []}]
"""Security of reads: a seat token shows that seat's private parts; without one, the spectator view
(the document states it once, as its default: see ``darkroad.api.openapi``)."""
ACT: list[dict[str, list[str]]] = [{"seatToken": []}]
"""Security of acting: the token of the acting seat."""

MAX_IDEMPOTENCY_KEY = 255
_GAME_ID_DESCRIPTION = "The game's id, from `POST /v1/games`."
_GAME_ID = re.compile(GAME_ID_PATTERN)
GameId = Annotated[
    str,
    PathParameter(description=_GAME_ID_DESCRIPTION, pattern=GAME_ID_PATTERN, max_length=GAME_ID_LENGTH),
]
SeatNumber = Annotated[int, PathParameter(description="The seat's number, from 0.", ge=0, le=3)]
MAX_LISTING_PAGE = 100
"""Largest page of ``GET /v1/games``."""
After = Annotated[
    int,
    QueryParameter(
        description="Return the events after event `n = after` (-1: from the first event).",
        ge=-1,
        le=MAX_EVENT,
    ),
]

# ``value`` of a documentation-only header only gives its OpenAPI schema (a string).
_ETAG = ResponseHeader(
    name="ETag",
    value='"0"',
    documentation_only=True,
    required=True,
    description='The game\'s version as an entity tag, e.g. `"12"`.',
)
_VARY = {"Vary": "Authorization"}
_PRIVATE = {"Cache-Control": "private, no-store"}
"""On every answer that shows a seat's secrets (a view, its actions, its events, its tokens):
no cache may keep it, and none may hand it to another client."""
_CACHE_CONTROL = ResponseHeader(
    name="Cache-Control",
    value="private, no-store",
    documentation_only=True,
    required=False,
    description="`private, no-store` when the answer shows a seat's secrets (the request had its seat "
    "token): no cache may keep it.",
)
# The problems the routes of one family share (the order within a status is the documented order).
_SEAT_HOLDER = ("bad-request", "missing-token", "invalid-token", "wrong-seat", "unknown-game", "unknown-seat")
"""A seat's own route (leave, timeout, reclaim): the caller's token and the seat's number."""
_COMMITS = ("plugin-error", "missing-plugin", "store-unavailable", "replication-timeout")
"""A route that plays the game on (an action, or the bots' moves after a change of seats) and commits."""


def _parameter(where: ParamType, name: str, description: str, schema: Schema) -> Parameter:
    schema.description = description
    return Parameter(
        name=name, param_in=where, required=where is ParamType.PATH, description=description, schema=schema
    )


@dataclass
class _SubmitActionOperation(Operation):
    """``submitAction``'s parameters, which its handler reads itself (see ``submit_action``)."""

    def __post_init__(self) -> None:
        self.parameters = [
            _parameter(
                ParamType.PATH,
                "game_id",
                _GAME_ID_DESCRIPTION,
                Schema(type=OpenAPIType.STRING, pattern=GAME_ID_PATTERN, max_length=GAME_ID_LENGTH),
            ),
            _parameter(
                ParamType.HEADER,
                "If-Match",
                "Act only if the game is still at this version (`ETag`); otherwise 409 `stale-version`.",
                Schema(type=OpenAPIType.STRING),
            ),
            _parameter(
                ParamType.HEADER,
                "Idempotency-Key",
                "A unique key per intended action: a retry with the same key returns the first answer and "
                "does not act twice (remembered for a day).",
                Schema(type=OpenAPIType.STRING, min_length=1, max_length=MAX_IDEMPOTENCY_KEY),
            ),
        ]


def _bad_parameter(source: str, key: str, message: str) -> Problem:
    return Problem(
        "bad-request",
        f"Invalid {source} parameter {key!r}: {message}.",
        extra={"errors": [{"message": message, "key": key, "source": source}]},
    )


def _idempotency_key(value: str | None) -> str | None:
    """The ``Idempotency-Key`` of an action or a join, checked (a ``bad-request`` problem)."""
    if value is not None and not 1 <= len(value) <= MAX_IDEMPOTENCY_KEY:
        raise _bad_parameter("header", "Idempotency-Key", f"must be 1 to {MAX_IDEMPOTENCY_KEY} characters")
    return value


async def _submit(service: GameService, scope: Scope, receive: Receive) -> ActResult:
    """``POST /v1/games/{game_id}/actions``: read the request and act.

    The route reads its path, headers and body itself, checking the parameters as
    ``_SubmitActionOperation`` documents them: Litestar's parameter parsing and dependency
    injection would cost more than a whole health check.
    """
    game_id = scope["path_params"]["game_id"]
    if len(game_id) != GAME_ID_LENGTH or not _GAME_ID.fullmatch(game_id):
        raise _bad_parameter("path", "game_id", f"must match {GAME_ID_PATTERN}")
    headers = raw_headers(scope)
    idempotency_key = _idempotency_key(headers.get("idempotency-key"))
    require_json(headers.get("content-type"))
    body = await read_body(receive, headers.get("content-length"), service.settings.request_max_body_size)
    return await service.act(game_id, headers.get("authorization"), body, headers.get("if-match"), idempotency_key)


def _game_headers(version: int | None, private: bool = False) -> dict[str, str]:
    """``Vary``, the game's ``ETag`` when ``version`` is given and ``Cache-Control`` when the
    answer is ``private`` (a seat's): the headers of every game read."""
    headers = dict(_VARY) if version is None else {"ETag": entity_tag(version), **_VARY}
    if private:
        headers.update(_PRIVATE)
    return headers


def _act_headers(result: ActResult) -> dict[str, str]:
    headers = _game_headers(result.version, private=True)
    if result.replayed:
        headers["Idempotent-Replayed"] = "true"
    return headers


def _handler_answer(result: ActResult) -> Response[Any]:
    return Response(result.view, media_type="application/json", headers=_act_headers(result))


_ACT_RAW_HEADERS = [(name.lower().encode(), value.encode()) for name, value in {**_VARY, **_PRIVATE}.items()]
_REPLAYED_RAW_HEADER = (b"idempotent-replayed", b"true")


def action_endpoint(app: ASGIApp) -> ASGIApp:
    """The middleware of ``POST .../actions`` that answers it without going through Litestar's
    handler pipeline (``app``).

    Acting is the request clients make most, and for it Litestar's per-request machinery
    (the ``Request``, the handler's keyword arguments, the ``Response`` and its headers)
    cost about a third of the server's time (``benchmarks/api.py``). This endpoint runs
    the same ``_submit`` and sends its JSON itself. It runs after routing, inside the
    app's exception handling and metrics, so errors become the same problem details and
    the request is counted as any other; ``Settings.action_endpoint = False`` hands the
    request to the handler instead.
    """

    async def endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        service: GameService = scope["litestar_app"].state.service
        if not service.settings.action_endpoint:
            await app(scope, receive, send)
            return
        result = await _submit(service, scope, receive)
        # _act_headers(result), encoded: the same headers in the same order.
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", b"%d" % len(result.view)),
            (b"etag", entity_tag(result.version).encode()),
            *_ACT_RAW_HEADERS,
        ]
        if result.replayed:
            headers.append(_REPLAYED_RAW_HEADER)
        start: HTTPResponseStartEvent = {"type": "http.response.start", "status": 200, "headers": headers}
        body: HTTPResponseBodyEvent = {"type": "http.response.body", "body": result.view, "more_body": False}
        await send(start)
        await send(body)

    return endpoint


def encoded(
    content: bytes | None, *, version: int | None = None, status_code: int = 200, private: bool = False
) -> Response[Any]:
    """A response of already encoded JSON (``None``: no body), with the game's ``ETag`` if
    ``version`` and ``Cache-Control: private, no-store`` if ``private``.

    Handlers declare the model their JSON follows (``Response[GameView]``) for the
    OpenAPI document; the body is encoded once, without converting to the model.
    """
    headers = _game_headers(version, private)
    return Response(content, status_code=status_code, media_type="application/json", headers=headers)


class GamesController(Controller):
    """Games: every operation after creation acts as the seat of the bearer token (or a spectator)."""

    path = "/v1/games"
    tags = ["games"]

    @post(
        "/",
        operation_id="createGame",
        summary="Create a game",
        status_code=HTTP_201_CREATED,
        response_headers=[
            ResponseHeader(
                name="Location",
                value="/v1/games/{id}",
                documentation_only=True,
                required=True,
                description="The new game's URL.",
            ),
            _CACHE_CONTROL,
        ],
        responses=problem_responses(
            "bad-request",
            "request-timeout",
            "body-too-large",
            "unsupported-media-type",
            "bad-config",
            "unknown-component",
            "unknown-bot",
            "plugin-error",
            "store-unavailable",
            "replication-timeout",
        ),
    )
    async def create_game(
        self, request: Request[Any, Any, Any], service: NamedDependency[GameService]
    ) -> Response[CreatedGame]:
        """Set up a new game and deal one secret token per seat.

        The tokens are returned only in this response; the server keeps their hashes.
        """
        require_json(request.headers.get("content-type"))
        raw = await read_body(
            request.receive, request.headers.get("content-length"), service.settings.request_max_body_size
        )
        data = parse_model(raw, NewGame)
        config = data.to_config(seed=secrets.randbelow(MAX_SEED + 1), seat_kinds=service.engine.seat_kinds)
        created = await service.create(config, _seating(data))
        body = CreatedGame(
            id=created.id,
            version=created.version,
            seats=[
                SeatToken(seat=seat, token=token, kind=view["kind"], name=view["name"], bot=view["bot"])
                for seat, (token, view) in enumerate(zip(created.tokens, created.seats, strict=True))
            ],
            status=created.status,  # type: ignore[arg-type]
            open_seats=[view["seat"] for view in created.seats if view["kind"] == "open"],
        )
        headers = {"Location": f"{self.path}/{created.id}", **_PRIVATE}  # the tokens
        return Response(body, status_code=HTTP_201_CREATED, headers=headers)

    @get(
        "/",
        operation_id="listGames",
        summary="List games waiting for players",
        responses=problem_responses("bad-request", "store-unavailable"),
    )
    async def list_games(
        self,
        service: NamedDependency[GameService],
        status: Annotated[
            Literal["waiting"],
            QueryParameter(description="Which games: `waiting` (listed games with an open seat)."),
        ] = "waiting",
        limit: Annotated[
            int, QueryParameter(description="Most games on this page.", ge=1, le=MAX_LISTING_PAGE)
        ] = 20,
        cursor: Annotated[
            str | None,
            QueryParameter(
                description="Continue after this point: the previous page's `next`.",
                pattern=ENTRY_PATTERN,
                max_length=36,
            ),
        ] = None,
    ) -> Response[WaitingGames]:
        """The listed games waiting for players, newest first, a page at a time.

        Join one of a game's `open_seats` with `POST .../seats/{seat}/join`. Follow `next`
        (as `cursor`) for older games; a game fills up or expires at any time, so a join may
        still find its seat taken.
        """
        page = await service.waiting(cursor, limit)
        response: Response[Any] = Response(
            msgspec.json.encode({"games": page.games, "next": page.next}), media_type="application/json"
        )
        return response

    @post(
        "/{game_id:str}/seats/{seat:int}/join",
        operation_id="joinSeat",
        summary="Join an open seat",
        status_code=HTTP_201_CREATED,
        response_headers=[
            ResponseHeader(
                name="Location",
                value="/v1/games/{id}",
                documentation_only=True,
                required=True,
                description="The game's URL.",
            ),
            _CACHE_CONTROL,
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
            *_COMMITS,
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
            HeaderParameter(
                name="Idempotency-Key",
                description="A unique key per intended join: a retry with the same key and the same name "
                f"within {JOIN_IDEMPOTENCY_TTL // 60} minutes gets the seat again, with a fresh token (the "
                "first answer's plays nothing any more): the key is a credential that long, keep it secret. "
                "The same key with another name is `422 idempotency-key-reused`.",
                # Checked by the handler, as on actions (the same problem), and documented as
                # there: a string (absent, not null, when there is none).
                schema_extra={
                    "one_of": None,
                    "type": OpenAPIType.STRING,
                    "min_length": 1,
                    "max_length": MAX_IDEMPOTENCY_KEY,
                },
            ),
        ] = None,
    ) -> Response[JoinedSeat]:
        """Take an open seat of a game under a name: the answer carries the seat's token, shown
        only here. Of two players joining one seat at once, one gets it, the other `409 seat-taken`.

        An answer lost (a dropped connection, a `503`) is recovered by sending the join again with
        the same `Idempotency-Key` and name: the seat, with a new token (an event `seat_rejoined`).

        Once every seat is taken the game starts (`seats_filled`), and the bots play what they are
        awaited for before this answers.
        """
        idempotency_key = _idempotency_key(idempotency_key)
        require_json(request.headers.get("content-type"))
        raw = await read_body(
            request.receive, request.headers.get("content-length"), service.settings.request_max_body_size
        )
        data = parse_model(raw, JoinSeat)
        joined = await service.join(game_id, seat, data.name, idempotency_key)
        body = JoinedSeat(seat=joined.seat, token=joined.token, version=joined.version)
        headers = {"Location": f"{self.path}/{game_id}", **_PRIVATE}  # the token
        return Response(body, status_code=HTTP_201_CREATED, headers=headers)

    @post(
        "/{game_id:str}/seats/{seat:int}/leave",
        operation_id="leaveSeat",
        summary="Leave a seat before the game starts",
        status_code=HTTP_204_NO_CONTENT,
        security=ACT,
        responses=problem_responses(
            *_SEAT_HOLDER,
            "game-started",
            "game-finished",
            "stale-version",
            "store-unavailable",
            "replication-timeout",
        ),
    )
    async def leave_seat(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        seat: SeatNumber,
        service: NamedDependency[GameService],
    ) -> Response[None]:
        """With the seat's token, while the game waits for players: the seat is open again (and
        the token no longer valid)."""
        await service.leave(game_id, seat, request.headers.get("authorization"))
        return Response(None, status_code=HTTP_204_NO_CONTENT)

    @post(
        "/{game_id:str}/seats/{seat:int}/timeout",
        operation_id="timeoutSeat",
        summary="Hand an overdue seat to a bot",
        status_code=200,
        security=ACT,
        response_headers=[_ETAG, _CACHE_CONTROL],
        responses=problem_responses(
            *_SEAT_HOLDER,
            "game-not-started",
            "not-overdue",
            "game-finished",
            "stale-version",
            *_COMMITS,
        ),
    )
    async def timeout_seat(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        seat: SeatNumber,
        service: NamedDependency[GameService],
    ) -> Response[GameView]:
        """With the token of another seat: hand a player's seat the game has awaited for longer
        than its `turn_timeout` to the game's timeout bot (`seat_replaced`), which plays it from
        now on; answers the caller's view after the bot's moves.

        Any read or action of another seat does the same by itself; this is for a client that
        wants to move on at `timeout_at` without waiting for its next request.
        """
        caller = await service.timeout(game_id, seat, request.headers.get("authorization"))
        return encoded(service.view(caller), version=caller.stored.version, private=True)

    @post(
        "/{game_id:str}/seats/{seat:int}/reclaim",
        operation_id="reclaimSeat",
        summary="Take a seat back from a bot",
        status_code=200,
        security=ACT,
        response_headers=[_ETAG, _CACHE_CONTROL],
        responses=problem_responses(
            *_SEAT_HOLDER,
            "game-finished",
            "stale-version",
            *_COMMITS,
        ),
    )
    async def reclaim_seat(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        seat: SeatNumber,
        service: NamedDependency[GameService],
    ) -> Response[GameView]:
        """With the seat's own token: take the seat back from the bot that played it since it
        timed out (`seat_reclaimed`); the player decides again from the next decision. A seat
        no bot plays is left as it is. Answers the caller's view."""
        caller = await service.reclaim(game_id, seat, request.headers.get("authorization"))
        return encoded(service.view(caller), version=caller.stored.version, private=True)

    @get(
        "/{game_id:str}",
        operation_id="getGame",
        summary="View a game",
        security=READ,
        response_headers=[_ETAG, _CACHE_CONTROL],
        responses={
            HTTP_304_NOT_MODIFIED: ResponseSpec(
                data_container=None, description="`If-None-Match` names the current version."
            ),
            **problem_responses(
                "bad-request", "invalid-token", "unknown-game", "missing-plugin", "store-unavailable"
            ),
        },
    )
    async def get_game(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        service: NamedDependency[GameService],
        if_none_match_header: Annotated[
            str | None,
            HeaderParameter(name="If-None-Match", description="An `ETag` seen before: 304 if still current."),
        ] = None,
    ) -> Response[GameView]:
        """The caller's view of the game: the public board plus the caller's private parts.

        The bots play what they are awaited for first (a game of bots only goes on this way), and
        a seated caller hands a seat awaited longer than `turn_timeout` to a bot.
        """
        caller = await service.advance(await service.caller(game_id, request.headers.get("authorization")))
        if if_none_match(if_none_match_header, caller.stored.version):
            return encoded(None, version=caller.stored.version, status_code=HTTP_304_NOT_MODIFIED)
        return encoded(service.view(caller), version=caller.stored.version, private=caller.seat is not None)

    @get(
        "/{game_id:str}/actions",
        operation_id="listActions",
        summary="List my legal actions",
        security=READ,
        response_headers=[_ETAG, _CACHE_CONTROL],
        responses=problem_responses(
            "bad-request", "invalid-token", "unknown-game", "missing-plugin", "store-unavailable"
        ),
    )
    async def list_actions(
        self, request: Request[Any, Any, Any], game_id: GameId, service: NamedDependency[GameService]
    ) -> Response[ActionList]:
        """Every legal action of the caller's seat (empty when the game does not wait for it).

        Each can be submitted unchanged with `POST .../actions`.
        """
        caller = await service.advance(await service.caller(game_id, request.headers.get("authorization")))
        body = msgspec.json.encode(
            {
                "version": caller.stored.version,
                "status": service.status(caller),
                "actions": service.legal_actions(caller),
            }
        )
        return encoded(body, version=caller.stored.version, private=caller.seat is not None)

    @post(
        "/{game_id:str}/actions",
        operation_id="submitAction",
        operation_class=_SubmitActionOperation,
        middleware=[action_endpoint],
        summary="Act",
        status_code=200,
        security=ACT,
        response_headers=[
            _ETAG,
            _CACHE_CONTROL,
            ResponseHeader(
                name="Idempotent-Replayed",
                value="true",
                documentation_only=True,
                required=False,
                description="`true` when this is the recorded answer to an earlier request with this key.",
            ),
        ],
        responses=problem_responses(
            "bad-request",
            "missing-token",
            "invalid-token",
            "wrong-seat",
            "unknown-game",
            "stale-version",
            "illegal-action",
            "not-your-decision",
            "game-finished",
            "request-timeout",
            "game-not-started",
            "seat-replaced",
            "body-too-large",
            "unsupported-media-type",
            "bad-action",
            "idempotency-key-reused",
            *_COMMITS,
        ),
    )
    async def submit_action(self, request: Request[Any, Any, Any]) -> Response[GameView]:
        """Submit one action for the caller's seat; answers with the caller's new view.

        The body is one of the objects `GET .../actions` listed. Without `If-Match`, the
        action is applied to the current version if it is legal there.
        """
        # Normally answered by ``action_endpoint`` (this route's middleware) before this
        # handler is reached; both run ``_submit`` and answer alike.
        return _handler_answer(await _submit(request.app.state.service, request.scope, request.receive))

    @route(
        "/{game_id:str}/actions",
        http_method=HttpMethod.OPTIONS,
        include_in_schema=False,
        status_code=HTTP_204_NO_CONTENT,
    )
    async def actions_options(self) -> Response[None]:
        """``Allow`` of the actions resource.

        Litestar's automatic OPTIONS answer lists only the methods of the first handler
        registered on a path (GET here), so this path declares its own.
        """
        return Response(None, status_code=HTTP_204_NO_CONTENT, headers={"Allow": "GET, OPTIONS, POST"})

    @get(
        "/{game_id:str}/log",
        operation_id="getLog",
        summary="Read the event log",
        security=READ,
        response_headers=[_CACHE_CONTROL],
        responses=problem_responses(
            "bad-request", "invalid-token", "unknown-game", "too-many-streams", "store-unavailable"
        ),
    )
    async def get_log(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        service: NamedDependency[GameService],
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
        As at every read, the bots play what they are awaited for first (and while it waits).
        """
        caller = await service.caller(game_id, request.headers.get("authorization"))
        page = await service.log(caller, after, limit, wait, client_key(request.scope))
        body = msgspec.json.encode(
            {
                "events": [msgspec.Raw(event.payload) for event in page.events],
                "next": page.next,
                "more": page.more,
                "finished": page.finished,
            }
        )
        return encoded(body, private=caller.seat is not None)

    @get(
        "/{game_id:str}/stream",
        operation_id="streamEvents",
        summary="Follow the events (server-sent events)",
        security=READ,
        response_headers=[_CACHE_CONTROL],
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
        after: After = -1,
        last_event_id: Annotated[
            int | None,
            HeaderParameter(
                name="Last-Event-ID",
                description="Resume after this event (sent by `EventSource` on reconnect); overrides `after`.",
                ge=-1,
                le=MAX_EVENT,
            ),
        ] = None,
    ) -> Response[Any]:
        """The events the caller may see as `text/event-stream`, live, one JSON event per message.

        Each message's `id` is the event's `n`. The server closes the stream now and then
        (and when the game is over); reconnect with `Last-Event-ID` to resume. The bots play
        what they are awaited for as the stream goes: following it is enough to see a game of
        bots only to its end.
        """
        release = service.streams.take(client_key(request.scope))
        try:
            caller = await service.caller(game_id, request.headers.get("authorization"))
            cursor = after if last_event_id is None else last_event_id
            over = await service.stream_over(caller, cursor)
        except BaseException:
            release()
            raise
        if over:
            release()
            return Response(None, status_code=HTTP_204_NO_CONTENT)
        messages = _messages(service.follow(caller, cursor), release)
        # A stream whose response never starts (the client left at once) is never iterated,
        # so its ``finally`` never runs: the slot is freed when the generator is dropped.
        weakref.finalize(messages, release)
        return ServerSentEvent(messages, headers=_PRIVATE if caller.seat is not None else None)

    @get(
        "/{game_id:str}/score",
        operation_id="getScore",
        summary="Final score",
        security=READ,
        response_headers=[_CACHE_CONTROL],
        responses=problem_responses(
            "bad-request",
            "invalid-token",
            "unknown-game",
            "game-not-finished",
            "missing-plugin",
            "store-unavailable",
        ),
    )
    async def get_score(
        self, request: Request[Any, Any, Any], game_id: GameId, service: NamedDependency[GameService]
    ) -> Response[FinalScore]:
        """Each seat's final score and its breakdown, and the winners; 409 until the game is over.

        As at every read, the bots play what they are awaited for first.
        """
        caller = await service.advance(await service.caller(game_id, request.headers.get("authorization")))
        score = msgspec.convert(service.score(caller), FinalScore)
        return Response(score, headers=_PRIVATE if caller.seat is not None else None)


def _seating(data: NewGame) -> Seating:
    seats = None
    if data.seats is not UNSET:
        seats = []
        for spec in data.seats:
            name: str | msgspec.UnsetType = UNSET
            if isinstance(spec, HumanSeat):
                kind, name, bot = "human", spec.name, None
            elif isinstance(spec, BotSeat):
                kind, name, bot = "bot", spec.name, spec.bot
            else:
                kind, bot = "open", None
            seats.append((kind, None if name is UNSET else clean_name(name), bot))
    return Seating(
        seats=seats,
        listed=None if data.listed is UNSET else data.listed,
        turn_timeout=None if data.turn_timeout is UNSET else data.turn_timeout,
        timeout_bot=None if data.timeout_bot is UNSET else data.timeout_bot,
    )


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
