"""Request and response bodies of the API, as msgspec structs (validation and OpenAPI).

The OpenAPI document describes these with msgspec's own JSON Schemas (:data:`MODELS`),
which carry every constraint exactly. Actions and events are not here: they are the
engine's (plugins contribute their types), taken as raw JSON and described from
``Engine.action_schema()`` / ``Engine.event_schema()`` (see :mod:`darkroad.api.openapi`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from darkroad.api.problems import FieldError, ProblemDetails
from darkroad.core import GameConfig
from darkroad.core.errors import BadConfig
from darkroad.core.state import ScoreLine  # the core's own class: its schema cannot drift

MAX_SEED = 2**63 - 1


def _doc(description: str) -> Meta:
    return Meta(description=description)


# -- requests ----------------------------------------------------------------------


class Variants(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Optional rules."""

    drafting: Annotated[bool, _doc("Deal heroes and deeds by drafting.")] = False
    advanced_deeds: Annotated[bool, _doc("Play with the advanced deeds.")] = False


class NewGame(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """How to set up a game."""

    players: Annotated[int, Meta(ge=1, le=4, description="Number of seats, the Private Concern included: "
                                                     "1 is solo (you against the Private Concern).")]
    private_concern: Annotated[
        bool | None,
        _doc("Seat the Private Concern, the automated opponent, in the last seat: implied by `players: 1`; "
             "allowed with 3 or 4 players."),
    ] = None
    seed: (
        Annotated[
            int,
            Meta(
                ge=0,
                le=MAX_SEED,
                description="Seed of the game's random generator (random when absent; secret).",
            ),
        ]
        | None
    ) = None
    buildings: Annotated[
        list[str],
        Meta(
            max_length=4,
            description="Exactly 4 different building ids from `GET /v1/catalog`, or none: then the first-game "
            "buildings, or random ones with `random_buildings`.",
        ),
    ] = msgspec.field(default_factory=list)
    random_buildings: Annotated[bool, _doc("With no `buildings`: draw them at random.")] = False
    variants: Variants = msgspec.field(default_factory=Variants)
    companions: Annotated[
        list[str], _doc("Extra companion ids (fan companions) shuffled into the companion deck.")
    ] = msgspec.field(default_factory=list)

    def to_config(self, seed: int) -> GameConfig:
        """The engine's configuration, with ``seed`` when the request has none.

        Solo (``players: 1``) is a 2-seat game in the engine: you and the Private Concern."""
        concern = self.players == 1 if self.private_concern is None else self.private_concern
        if self.players == 1 and not concern:
            raise BadConfig("a 1-player game is solo against the Private Concern: leave private_concern out")
        if self.players == 2 and concern:
            raise BadConfig("the Private Concern plays solo (players: 1) or fills a seat of a 3-4 player game")
        return GameConfig(
            private_concern=concern,
            players=max(self.players, 2),
            seed=seed if self.seed is None else self.seed,
            buildings=list(self.buildings),
            random_buildings=self.random_buildings,
            variants={name: value for name, value in msgspec.structs.asdict(self.variants).items() if value},
            companions=list(self.companions),
        )


# -- responses ---------------------------------------------------------------------


class SeatToken(msgspec.Struct):
    """The secret of one seat: whoever holds it plays that seat. The Private Concern's seat
    has no token: it plays itself."""

    seat: int
    token: str | None
    kind: Annotated[str, _doc("`human`, or `private_concern` for the automated opponent.")] = "human"


class CreatedGame(msgspec.Struct):
    """A new game. The tokens are shown only here: hand each player their own."""

    id: str
    version: int
    seats: list[SeatToken]


class Decision(msgspec.Struct):
    """What the game waits for."""

    type: Annotated[str, _doc("The action `type` that answers it.")]
    seats: Annotated[list[int], _doc("Who decides (several seats for simultaneous steps).")]
    prompt: str


class ConcernView(msgspec.Struct):
    """The Private Concern's public state."""

    goods: int
    deck: int
    discard: list[str]


class PlayerView(msgspec.Struct):
    """One player's wagon; `coins` and `deeds` are null unless it is the caller's (or the game is over)."""

    seat: int
    kind: str
    prestige: int
    position: int
    locked: list[int | None]
    reserve: list[int]
    spent: int
    removed: int
    special_reserve: list[int]
    action_pool: list[dict[str, Any]]
    lanterns: int
    quartz: int
    horseshoes: int
    goods: list[str]
    heroes: list[str]
    commissions: list[str]
    steeds: list[str]
    upgrades: list[str]
    companions: list[dict[str, Any]]
    delivered_commissions: int
    delivered_heroes: int
    deed_count: int
    coins: int | None
    deeds: list[str] | None
    concern: Annotated[
        ConcernView | None,
        _doc("The Private Concern's public state (its seat only): goods held, cards left in its deck, "
             "its discard pile."),
    ] = None


class GameView(msgspec.Struct):
    """The game as the caller may see it (a spectator sees only public information)."""

    schema_version: int
    version: Annotated[int, _doc("Increases by one with every applied action; the `ETag`.")]
    status: Literal["active", "finished"]
    round: int
    phase: str
    active_seat: int
    start_seat: int
    seat: Annotated[int | None, _doc("The caller's seat; null for a spectator.")]
    awaiting: Annotated[list[int], _doc("Seats whose decision the game waits for.")]
    decision: Decision | None
    config: dict[str, Any]
    board: dict[str, Any]
    caravan: dict[str, Any] | None
    players: list[PlayerView]
    score: list[ScoreLine] | None
    winners: list[int] | None


class ActionList(msgspec.Struct):
    """The caller's legal actions; POST any of them unchanged to act."""

    version: int
    status: Annotated[Literal["active", "finished"], _doc("`finished`: no action will ever be legal again.")]
    actions: Annotated[list[dict[str, Any]], _doc("Empty when the game does not wait for the caller.")]


class EventPage(msgspec.Struct):
    """A page of the events the caller may see, oldest first."""

    events: list[dict[str, Any]]
    next: Annotated[int, _doc("Pass as `after` to read the next page.")]
    more: Annotated[bool, _doc("True when the page was full: more events may follow.")]


class FinalScore(msgspec.Struct):
    """The end of the game."""

    version: int
    score: list[ScoreLine]
    winners: list[int]


class Component(msgspec.Struct):
    """A component of this installation and the plugin providing it."""

    id: str
    kind: str
    name: str
    text: str
    plugin: str
    version: Annotated[str, _doc("The plugin's version.")]
    data: dict[str, Any]


class Catalog(msgspec.Struct):
    """Every component of this installation, by kind (`building`, `companion`, ...)."""

    components: dict[str, list[Component]]


class Health(msgspec.Struct):
    """A liveness or readiness answer."""

    status: Literal["ok", "ready"]


MODELS: tuple[type[msgspec.Struct], ...] = (
    NewGame,
    CreatedGame,
    GameView,
    ActionList,
    EventPage,
    FinalScore,
    Catalog,
    Health,
    ProblemDetails,
    FieldError,
)
"""Every body type; their JSON Schemas (and those they refer to) go into the OpenAPI components."""
