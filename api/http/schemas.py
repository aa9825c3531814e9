"""Request and response bodies of the API, as msgspec structs (validation and OpenAPI): the
listings, event pages, history and probes here, a game's setup in
:mod:`~darkroad.api.http.setup_schemas`, its view in :mod:`~darkroad.api.http.view_schemas`, the
catalogue in :mod:`~darkroad.api.http.catalog_schemas`.

The OpenAPI document describes these with msgspec's own JSON Schemas (:data:`MODELS`),
which carry every constraint exactly. Actions and events are not here: they are the
engine's (plugins contribute their types), taken as raw JSON and described from
``Engine.action_schema()`` / ``Engine.event_schema()`` (see :mod:`darkroad.api.http.openapi`).
Nor are the installed seat kinds' members: each declares its request field and its view
blocks (``SeatKind.view_blocks``), which :mod:`darkroad.api.http.seat_kinds` adds to
:class:`NewGame` and to the document.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from darkroad.api.app.lobby import ENTRY_PATTERN
from darkroad.api.app.records import GameRecord
from darkroad.api.http.catalog_schemas import (
    BuildingData,
    Catalog,
    CompanionData,
    Component,
    DeedData,
    SteedData,
    UpgradeData,
)
from darkroad.api.http.problems import FieldError, ProblemDetails
from darkroad.api.http.schema_types import Instant, doc
from darkroad.api.http.setup_schemas import CreatedGame, JoinedSeat, JoinSeat, NewGame
from darkroad.api.http.view_schemas import ActionList, BoardExtra, GameView, ScoreLine, SeatView
from darkroad.api.http.webhook_schemas import PutWebhook, WebhookSubscription

LAST_EVENT_ID_PATTERN = "^(-1|[0-9]{1,16})$"
"""``Last-Event-ID``: a header, so text (typed as a string: generated clients send it as one),
holding an event's ``n`` (at most 2**53 - 1, 16 digits) or -1."""


class GameSummary(msgspec.Struct):
    """A game's setup, as the listing shows it."""

    # Each installed seat kind's seat follows `players`, under its id (darkroad.api.http.seat_kinds).

    players: Annotated[int, Meta(ge=2, le=4)]
    buildings: Annotated[list[str], doc("The buildings in play.")]
    variants: Annotated[dict[str, bool], doc("The optional rules in play.")]
    companions: Annotated[list[str], doc("The extra companions shuffled in.")]


class WaitingGame(msgspec.Struct):
    """A listed game waiting for players."""

    id: str
    players: int
    open_seats: Annotated[list[int], doc("The seats to join.")]
    seats: list[SeatView]
    config: GameSummary
    created: Instant
    turn_timeout: Annotated[int | None, doc("Seconds a player may take to decide; null: no timeout.")]
    timeout_bot: Annotated[str | None, doc("With a `turn_timeout`: the bot that takes over a seat awaited "
                                            "longer; null: no timeout.")]


class WaitingGames(msgspec.Struct):
    """A page of waiting games, newest first."""

    games: list[WaitingGame]
    next: Annotated[
        Annotated[str, Meta(pattern=ENTRY_PATTERN)] | None,
        doc("Pass as `cursor` for the next page; null when this is the last."),
    ]


class EventPage(msgspec.Struct):
    """A page of the events the caller may see, oldest first."""

    events: list[dict[str, Any]]
    next: Annotated[int, doc("Pass as `after` to read the next page.")]
    more: Annotated[bool, doc("True when the page was full: more events may follow.")]
    finished: Annotated[bool, doc("The game is over: once `more` is false, no event will follow.")]


class FinalScore(msgspec.Struct):
    """The end of the game."""

    version: int
    score: list[ScoreLine]
    winners: list[int]


class HistoryEntry(msgspec.Struct):
    """A game as the caller saw it at one version, and the events of that version they may see."""

    version: Annotated[int, doc("The version shown.")]
    latest: Annotated[int, doc("The game's current version (the last one there is to show).")]
    finished: Annotated[bool, doc("The game is over (every version is final).")]
    view: Annotated[GameView, doc("The caller's view at `version`, exactly as it was answered then (a seat's "
                                   "turn clock excepted: `seats[].timeout_at` is null).")]
    events: Annotated[list[dict[str, Any]], doc("The events that made `version` (for 0: the setup's), those "
                                                 "the caller may see.")]


class Health(msgspec.Struct):
    """A liveness or readiness answer."""

    status: Literal["ok", "ready"]


OPEN: tuple[type[msgspec.Struct], ...] = (BoardExtra, BuildingData, CompanionData, SteedData, DeedData, UpgradeData)
"""Objects a plugin may add its own members to (documented as ``additionalProperties: true``)."""

MODELS: tuple[type[msgspec.Struct], ...] = (
    NewGame,
    CreatedGame,
    JoinSeat,
    JoinedSeat,
    WaitingGames,
    GameView,
    ActionList,
    EventPage,
    FinalScore,
    GameRecord,
    HistoryEntry,
    Catalog,
    Component,
    Health,
    ProblemDetails,
    FieldError,
    PutWebhook,
    WebhookSubscription,
)
"""Every body type; their JSON Schemas (and those they refer to) go into the OpenAPI components."""
