"""A game's past and its record: ``GET .../history/{version}``, ``GET .../record`` and
``POST /v1/games/import``."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.di import NamedDependency
from litestar.params import PathParameter, QueryParameter
from litestar.status_codes import HTTP_201_CREATED

from darkroad.api.app import records
from darkroad.api.app.records import GameRecord
from darkroad.api.app.service import GameService
from darkroad.api.http.bodies import parse_json, read_body, require_json
from darkroad.api.http.games import created_answer
from darkroad.api.http.guards import DEPENDENCIES
from darkroad.api.http.params import CACHE_CONTROL, CREATES, GAMES, READ, SECRET, GameId, encoded, location
from darkroad.api.http.problems import problem_responses
from darkroad.api.http.schemas import HistoryEntry
from darkroad.api.http.setup_schemas import CreatedGame

MAX_RECORD_BODY = 4 * 1024 * 1024
"""Largest record ``POST /v1/games/import`` accepts, in bytes (a 4-player game's is about 60 KB)."""
MAX_VERSION = 2**31 - 1
Version = Annotated[int, PathParameter(description="A version of the game, 0 to its current one.", ge=0,
                                       le=MAX_VERSION)]


class RecordsController(Controller):
    """A game's history and record; new games from records."""

    path = GAMES
    tags = ["games"]
    dependencies = DEPENDENCIES

    @get(
        "/{game_id:str}/history/{version:int}",
        operation_id="getHistory",
        summary="View the game at a past version",
        security=READ,
        response_headers=[CACHE_CONTROL],
        responses=problem_responses(
            "bad-request", "invalid-token", "unknown-game", "unknown-version", "missing-plugin", "store-unavailable"
        ),
    )
    async def get_history(
        self, game_id: GameId, version: Version, service: NamedDependency[GameService],
        token: NamedDependency[str | None],
    ) -> Response[HistoryEntry]:
        """The caller's view of the game at `version`, and the events of that version the caller may see.

        With a seat's token, that seat's view as it was then; without one, the spectator's. A
        seat sees only its own past: nothing hidden from it at that version is shown. Stepping
        through a whole game is cheap (the server keeps the replay).
        """
        caller = await service.reading.caller(game_id, token)
        return encoded(await service.history.at(caller, version))

    @get(
        "/{game_id:str}/record",
        operation_id="getRecord",
        summary="Export a finished game's record",
        security=READ,
        response_headers=[CACHE_CONTROL],
        responses=problem_responses(
            "bad-request", "invalid-token", "unknown-game", "game-not-finished", "missing-plugin",
            "store-unavailable",
        ),
    )
    async def get_record(
        self, game_id: GameId, service: NamedDependency[GameService], token: NamedDependency[str | None]
    ) -> Response[GameRecord]:
        """The game's record (`GameRecord`): its config, plugins, seats and actions, and its result.

        Only a finished game has one: a running game's seed would show every hidden card
        (`409 game-not-finished`). Import it again with `POST /v1/games/import`.
        """
        caller = await service.reading.caller(game_id, token)
        return encoded(msgspec.json.encode(await service.history.record(caller)))

    @post(
        "/import",
        operation_id="importGame",
        summary="Create a game from a record",
        status_code=HTTP_201_CREATED,
        opt={**CREATES, **SECRET},
        response_headers=[location("The new game's URL."), CACHE_CONTROL],
        responses=problem_responses(
            "bad-request",
            "request-timeout",
            "body-too-large",
            "unsupported-media-type",
            "bad-record",
            "record-plugins",
            "record-not-replayable",
            "unknown-version",
            "unknown-bot",
            "plugin-error",
            "store-unavailable",
            "replication-timeout",
        ),
    )
    async def import_game(
        self,
        request: Request[Any, Any, Any],
        service: NamedDependency[GameService],
        at: Annotated[
            int | None,
            QueryParameter(description="Stop at this version of the record: a running game to play on from "
                           "there (absent: replay it to its end).", ge=0, le=MAX_VERSION),
        ] = None,
    ) -> Response[CreatedGame]:
        """Replay a game record (the body, as `GET .../record` answers it) into a new game, with a fresh token for
        each player's seat.

        With `at`, the replay stops at that version: a running game to play on from there.
        A record that is malformed, needs plugins this server lacks (or has at other
        versions), or whose actions do not replay is refused with a problem naming what is
        wrong, and nothing is stored.
        """
        require_json(request.headers.get("content-type"))
        raw = await read_body(request.receive, request.headers.get("content-length"), MAX_RECORD_BODY)
        return created_answer(await service.imports.create(records.parse(parse_json(raw)), at))
