"""``/v1/games``: create games, list those waiting, view one, list and submit actions, the score.

Every operation after creation acts as the seat of the bearer token (or a spectator): the
guards (``darkroad.api.http.guards``) turn the request into domain values, the services do
the rest. The seats' routes are in ``seat_routes.py``, following a game in ``follow_routes.py``; the
policies every route shares (rate limits, metrics, problems, caching, ``Allow``) are the
policy layer's (``policy.py``).
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import HeaderParameter, QueryParameter
from litestar.status_codes import HTTP_201_CREATED, HTTP_304_NOT_MODIFIED

from darkroad.api.app.lobby import ENTRY_PATTERN, clean_name
from darkroad.api.app.service import GameService
from darkroad.api.app.values import ActResult, Seating, SeatSpec
from darkroad.api.app.values import CreatedGame as Created
from darkroad.api.http.bodies import (
    body_error,
    invalid_body,
    parse_model,
    raw_headers,
    read_body,
    require_json,
    text,
)
from darkroad.api.http.guards import (
    DEPENDENCIES,
    expected_versions,
    if_none_match,
    parse_action,
    prefers_minimal,
    seat_token,
)
from darkroad.api.http.guards import idempotency_key as checked_key
from darkroad.api.http.params import (
    ACT,
    CACHE_CONTROL,
    COMMITS,
    CREATES,
    ETAG,
    GAMES,
    IDEMPOTENT_REPLAYED,
    MAX_LISTING_PAGE,
    READ,
    SECRET,
    EncodedResponse,
    GameId,
    answer_headers,
    encoded,
    idempotency_key_header,
    location,
    text_header,
)
from darkroad.api.http.problems import problem_responses
from darkroad.api.http.schema_types import UNSET
from darkroad.api.http.schemas import FinalScore, WaitingGames
from darkroad.api.http.setup_schemas import MAX_SEED, BotSeat, CreatedGame, HumanSeat, NewGame, SeatToken
from darkroad.api.http.view_schemas import ActionList, GameView
from darkroad.core import GameConfig, errors, game_setup
from darkroad.core.i18n import N_
from darkroad.core.undo import UNDO


class GamesController(Controller):
    """Games: create, list, view, act, score."""

    path = GAMES
    tags = ["games"]
    dependencies = DEPENDENCIES

    @post(
        "/",
        operation_id="createGame",
        summary="Create a game",
        status_code=HTTP_201_CREATED,
        opt={**CREATES, **SECRET},
        response_headers=[
            location("The new game's URL."),
            CACHE_CONTROL,
        ],
        responses=problem_responses(
            "bad-request",
            "request-timeout",
            "body-too-large",
            "unsupported-media-type",
            "bad-config",
            "unknown-component",
            "unknown-bot",
            "bad-bot-option",
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
        new_game: type[NewGame] = request.app.state.new_game  # with the installed seat kinds' fields
        data = parse_model(raw, new_game)
        config = game_setup.game_config(service.engine, data.setup(seed=secrets.randbelow(MAX_SEED + 1)))
        if not isinstance(config, GameConfig):
            raise setup_problem(config)
        return created_answer(await service.seats.create(config, _seating(data)))

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
        page = await service.seats.waiting(cursor, limit)
        response: Response[Any] = Response(
            msgspec.json.encode({"games": page.games, "next": page.next}), media_type="application/json"
        )
        return response

    @get(
        "/{game_id:str}",
        operation_id="getGame",
        summary="View a game",
        security=READ,
        response_headers=[ETAG, CACHE_CONTROL],
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
        game_id: GameId,
        service: NamedDependency[GameService],
        token: NamedDependency[str | None],
        if_none_match_header: Annotated[
            str | None,
            HeaderParameter(name="If-None-Match", description="An `ETag` seen before: 304 if still current "
                                                               "(a tag of the answer's language: `Accept-Language`)."),
        ] = None,
    ) -> Response[GameView]:
        """The caller's view of the game: the public board plus the caller's private parts.

        Bots play in bot workers, apart from requests: their moves appear as new versions (follow
        `GET .../log?wait=` or `GET .../stream` to see them), and a seat awaited longer than
        `turn_timeout` is handed to a bot by the workers when its deadline passes.
        """
        caller = await service.reading.caller(game_id, token)
        if if_none_match(if_none_match_header, caller.stored.version):
            return encoded(None, version=caller.stored.version, status_code=HTTP_304_NOT_MODIFIED)
        return encoded(service.reading.view(caller), version=caller.stored.version)

    @get(
        "/{game_id:str}/actions",
        operation_id="listActions",
        summary="List my legal actions",
        security=READ,
        response_headers=[ETAG, CACHE_CONTROL],
        responses=problem_responses(
            "bad-request", "invalid-token", "unknown-game", "missing-plugin", "store-unavailable"
        ),
    )
    async def list_actions(
        self, game_id: GameId, service: NamedDependency[GameService], token: NamedDependency[str | None]
    ) -> Response[ActionList]:
        """Every legal action of the caller's seat (empty when the game does not wait for it).

        Each can be submitted unchanged with `POST .../actions`.
        """
        caller = await service.reading.caller(game_id, token)
        body = msgspec.json.encode(
            {
                "version": caller.stored.version,
                "status": service.reading.status(caller),
                "actions": service.reading.legal_actions(caller),
            }
        )
        return encoded(body, version=caller.stored.version)

    @post(
        "/{game_id:str}/actions",
        operation_id="submitAction",
        summary="Act",
        status_code=200,
        security=ACT,
        response_headers=[
            ETAG,
            CACHE_CONTROL,
            IDEMPOTENT_REPLAYED,
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
            *COMMITS,
        )
        | {
            204: ResponseSpec(
                data_container=None,
                description="The action was applied, and the request asked `Prefer: return=minimal`: no view; "
                "`ETag` names the new version, `Preference-Applied: return=minimal`.",
            )
        },
    )
    async def submit_action(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        if_match: Annotated[
            str | None,
            text_header("If-Match", "Act only if the game is still at this version (`ETag`); otherwise 409 "
                                    "`stale-version`."),
        ] = None,
        prefer: Annotated[
            str | None,
            text_header("Prefer", "`return=minimal` (RFC 7240): answer `204` without the view, for a client that "
                                  "follows the game's stream or long poll anyway (the view is not even worked out); "
                                  "`ETag` still names the new version and `Preference-Applied: return=minimal` "
                                  "confirms it. Other preferences are ignored."),
        ] = None,
        idempotency_key: Annotated[
            str | None,
            idempotency_key_header(
                "A unique key per intended action: a retry with the same key returns the first answer and does "
                "not act twice (remembered for a day)."
            ),
        ] = None,
    ) -> Response[GameView]:
        """Submit one action for the caller's seat; answers with the caller's new view.

        The body is one of the objects `GET .../actions` listed. Without `If-Match`, the
        action is applied to the current version if it is legal there.
        """
        # The request clients make most: no dependency injected (the service is the app's), the body
        # read and decoded here straight into the action's fields (``bodies.parse_action``). The
        # service by its key: ``State``'s attribute access finds it only after a failed attribute look-up.
        service: GameService = request.app.state["service"]
        key = checked_key(idempotency_key)
        headers = raw_headers(request.scope)  # as the policy layer read them, without building Litestar's Headers
        require_json(text(headers.get(b"content-type")))
        body = await read_body(request.receive, text(headers.get(b"content-length")),
                               service.settings.request_max_body_size)
        token = seat_token(text(headers.get(b"authorization")))
        action = parse_action(service.engine, body)
        if action.type == UNDO:  # recorded by an undo, never an answer (the app layer would undo)
            raise errors.IllegalAction(
                "`undo` answers no decision: `POST /v1/games/{game_id}/undo` takes back your last action."
            )
        minimal = prefers_minimal(prefer)
        result = await service.acting.act(game_id, token, action, expected_versions(if_match), key, minimal)
        return act_answer(result, minimal)

    @post(
        "/{game_id:str}/undo",
        operation_id="undoAction",
        summary="Undo my last action",
        status_code=200,
        security=ACT,
        response_headers=[ETAG, CACHE_CONTROL, IDEMPOTENT_REPLAYED],  # those of an action
        responses=problem_responses(
            "bad-request",
            "missing-token",
            "invalid-token",
            "unknown-game",
            "stale-version",
            "cannot-undo",
            "game-finished",
            "game-not-started",
            "seat-replaced",
            "idempotency-key-reused",
            *COMMITS,
        ),
    )
    async def undo_action(
        self,
        game_id: GameId,
        service: NamedDependency[GameService],
        seat_token: NamedDependency[str],
        if_match: Annotated[
            str | None,
            HeaderParameter(
                name="If-Match",
                description="Undo only if the game is still at this version (`ETag`); otherwise 409 `stale-version`.",
            ),
        ] = None,
        idempotency_key: Annotated[
            str | None,
            idempotency_key_header(
                "A unique key per intended undo: a retry with the same key returns the first answer "
                "and does not undo twice (remembered for a day)."
            ),
        ] = None,
    ) -> Response[GameView]:
        """Take back the caller's last action of this turn; answers with the caller's new view.

        Board Game Arena's rule, decided by the engine: a seat may undo its own actions of its
        turn one by one, most recent first, back to the last *checkpoint*: an action that drew
        on chance (a die, a card, a shuffle), revealed hidden information, told another seat
        something privately, answered a decision on another seat's turn or one taken by several
        seats at once, let an automated seat act, or passed the decision on. The view's
        `undo_available` says whether this would succeed; otherwise it is `409 cannot-undo` with
        the reason, and nothing changes.

        An undo is a version of its own (the `ETag` goes up by one), recorded in the action
        list, with a public `undone` event naming the versions taken back: followers refresh.
        It does not restart the turn clock. A seat a bot plays cannot undo (`seat-replaced`),
        nor, once reclaimed, take back the bot's moves.
        """
        key = checked_key(idempotency_key)
        result = await service.acting.undo(game_id, seat_token, expected_versions(if_match), key)
        return act_answer(result, minimal=False)

    @get(
        "/{game_id:str}/score",
        operation_id="getScore",
        summary="Final score",
        security=READ,
        response_headers=[CACHE_CONTROL],
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
        self, game_id: GameId, service: NamedDependency[GameService], token: NamedDependency[str | None]
    ) -> Response[FinalScore]:
        """Each seat's final score and its breakdown, and the winners; 409 until the game is over."""
        caller = await service.reading.caller(game_id, token)
        return Response(msgspec.convert(service.reading.score(caller), FinalScore))


DOCUMENTED = frozenset({game_setup.REPEATED_ID, game_setup.BUILDING_COUNT, game_setup.TILE_SIDES,
                        game_setup.KIND_SIZE, game_setup.KIND_REFUSED_SOLO, game_setup.SEAT_COUNT})
"""The setup problems the document's schema states (``uniqueItems`` and ``NewGame``'s ``not``
clauses, :mod:`darkroad.api.http.openapi`): a ``400 bad-request`` as every other schema violation,
so that a client validating against the document sees the same."""


def setup_problem(found: list[game_setup.SetupProblem]) -> Exception:
    """The problem detail of a refused setup: ``400 bad-request`` listing each problem the document
    states (its ``key`` the member the pointer names), else ``422 bad-config`` with the first."""
    errors = [body_error(problem.message.translated(), problem.pointer.removeprefix("/").replace("/", "."))
              for problem in found if problem.code in DOCUMENTED]
    if errors:
        return invalid_body(errors, N_("Invalid body: %(reasons)s"), reasons="; ".join(e["message"] for e in errors))
    return found[0].error()


def created_answer(created: Created) -> Response[CreatedGame]:
    """The ``201`` of a new game: its seats' tokens (shown only here) and its ``Location``."""
    body = CreatedGame(
        id=created.id,
        version=created.version,
        seats=[
            SeatToken(seat=seat, token=token, kind=view["kind"], name=view["name"], bot=view["bot"],
                      think_time=view.get("think_time", UNSET))
            for seat, (token, view) in enumerate(zip(created.tokens, created.seats, strict=True))
        ],
        status=created.status,  # type: ignore[arg-type]
        open_seats=[view["seat"] for view in created.seats if view["kind"] == "open"],
    )
    return Response(body, status_code=HTTP_201_CREATED, headers={"Location": f"{GAMES}/{created.id}"})


def act_answer(result: ActResult, minimal: bool) -> Response[Any]:
    """The answer to an action or an undo: the seat's new view (``204`` without it when the client
    prefers ``return=minimal``), the game's headers, and whether it was replayed or minimal."""
    body = None if minimal else result.view
    headers = answer_headers(result.version, body)
    if result.replayed:
        headers.append(_REPLAYED)
    if minimal:
        headers.append(_MINIMAL)
        return EncodedResponse(None, headers, 204)
    return EncodedResponse(body, headers)


_REPLAYED = (b"idempotent-replayed", b"true")
_MINIMAL = (b"preference-applied", b"return=minimal")


def _seating(data: NewGame) -> Seating:
    seats = None
    if data.seats is not UNSET:
        seats = []
        for spec in data.seats:
            name: str | msgspec.UnsetType = UNSET
            think_time = None
            if isinstance(spec, HumanSeat):
                kind, name, bot = "human", spec.name, None
            elif isinstance(spec, BotSeat):
                kind, name, bot = "bot", spec.name, spec.bot
                think_time = None if spec.think_time is UNSET else spec.think_time
            else:
                kind, bot = "open", None
            seats.append(SeatSpec(kind, None if name is UNSET else clean_name(name), bot, think_time))
    return Seating(
        seats=seats,
        listed=None if data.listed is UNSET else data.listed,
        turn_timeout=None if data.turn_timeout is UNSET else data.turn_timeout,
        timeout_bot=None if data.timeout_bot is UNSET else data.timeout_bot,
        clock=None if data.clock is UNSET else game_setup.time_banks(float(data.clock.initial),
                                                                     float(data.clock.increment)),
    )

