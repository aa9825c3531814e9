"""The bodies that set up a game and seat its players: ``POST /v1/games`` (:class:`NewGame`, its
seats, variants and clock), a join, and their answers with the seats' tokens.

The installed seat kinds' members are not here: each declares its request field, which
:mod:`darkroad.api.http.seat_kinds` adds to :class:`NewGame` and to the document.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

import msgspec
from msgspec import Meta

from darkroad.api.app.lobby import MAX_TURN_TIMEOUT
from darkroad.api.http.schema_types import UNSET, Name, Unset, doc
from darkroad.core import SeatKind as EngineSeatKind
from darkroad.core import game_setup
from darkroad.core.configs import BUILDING_SPACES
from darkroad.core.game_setup import SetupRequest

MAX_SEED = 2**63 - 1
MAX_COMPONENT_ID = 64
"""Longest component id a request may name."""
MAX_COMPANIONS = 32
"""Most extra companions a game may ask for."""
ComponentId = Annotated[str, Meta(max_length=MAX_COMPONENT_ID)]
MAX_BOT_ID = 64
BotId = Annotated[str, Meta(max_length=MAX_BOT_ID, description="An installed bot's id (`GET /v1/catalog`: `bots`).")]


def the(kind: EngineSeatKind) -> str:
    """A seat kind's name in the document's sentences: "the Peddler" (its id when it has no name)."""
    return f"the {kind.name}" if kind.name else f"`{kind.id}`"


MAX_THINK_TIME = 20.0
"""The longest ``think_time`` a bot seat may ask for: below the default bot move timeout (30 s),
so that a request the document admits is one a server with default settings accepts."""

class Variants(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Optional rules."""

    drafting: Annotated[bool, doc("Deal heroes and deeds by drafting.")] = False
    advanced_deeds: Annotated[bool, doc("Play with the advanced deeds.")] = False


class HumanSeat(msgspec.Struct, tag_field="kind", tag="human", forbid_unknown_fields=True, kw_only=True):
    """A seat the creator hands out: its token is in the answer (every seat is one without `seats`)."""

    name: Annotated[Name | Unset, doc("The player's name (none: the seat shows no name).")] = UNSET


class OpenSeat(msgspec.Struct, tag_field="kind", tag="open", forbid_unknown_fields=True, kw_only=True):
    """A seat a player joins later (`POST /v1/games/{game_id}/seats/{seat}/join`): the game waits until
    every open seat is joined."""


class BotSeat(msgspec.Struct, tag_field="kind", tag="bot", forbid_unknown_fields=True, kw_only=True):
    """A seat an installed bot plays (in the service's bot workers, apart from requests)."""

    bot: BotId
    name: Annotated[Name | Unset, doc("The seat's name (default: the bot's name, in the reader's language).")] = UNSET
    think_time: Annotated[
        float,
        msgspec.Meta(gt=0, le=MAX_THINK_TIME, description=(
            "Seconds the bot may think per decision. A bot that can search against the clock (the `search` "
            "bot) then thinks up to that long, and its answers depend on the machine's speed; without it, the "
            "`search` bot thinks to a fixed budget of trials (the same answers on every machine, a decision "
            "within a fraction of a second). The other bots are always within it. It must be below the "
            "server's bot move timeout (`DARKROAD_BOT_MOVE_TIMEOUT`, 30 s by default), else `bad-bot-option`.")),
    ] | Unset = UNSET


NewSeat = HumanSeat | OpenSeat | BotSeat


class NewClock(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A game's time banks."""

    initial: Annotated[int, Meta(ge=1, le=MAX_TURN_TIMEOUT, description="Seconds in each seat's bank at first "
                                                                        "(and the most it holds).")]
    increment: Annotated[int, Meta(ge=0, le=MAX_TURN_TIMEOUT, description="Seconds each decision adds to the "
                                                                          "seat's bank (up to `initial`).")] = 0


class NewGame(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """How to set up a game."""

    # The request of an app is a subclass with one more field per installed seat kind, its
    # ``api_field`` (``bool | None``: true seats it), made by ``SeatKindSurface``
    # (darkroad.api.http.seat_kinds).
    seat_kinds: ClassVar[tuple[EngineSeatKind, ...]] = ()
    """The installed seat kinds, each with its field."""

    # Its description names the installed seat kinds (darkroad.api.http.seat_kinds).
    players: Annotated[int, Meta(ge=game_setup.SOLO, le=max(game_setup.SIZES))]
    seed: Annotated[
        Annotated[int, Meta(ge=0, le=MAX_SEED)] | None,
        doc("Seed of the game's random generator (random when absent; secret)."),
    ] = None
    buildings: Annotated[
        list[ComponentId],
        Meta(
            max_length=BUILDING_SPACES,
            description="Exactly 4 different building ids from `GET /v1/catalog`, or none: then the first-game "
            "buildings, or random ones with `random_buildings`.",
        ),
    ] = msgspec.field(default_factory=list)
    random_buildings: Annotated[bool, doc("With no `buildings`: draw them at random.")] = False
    variants: Variants = msgspec.field(default_factory=Variants)
    companions: Annotated[
        list[ComponentId],
        Meta(
            max_length=MAX_COMPANIONS,
            description="Extra companion ids (fan companions) shuffled into the companion deck, each at most once.",
        ),
    ] = msgspec.field(default_factory=list)
    seats: Annotated[
        Annotated[list[NewSeat], Meta(max_length=max(game_setup.SIZES))] | Unset,
        Meta(
            description="Who sits where: one item per seat, the automated seat's excepted, each `human` (the "
            "creator gets its token), `open` (a player joins it later: the game waits until every open seat is "
            "taken) or `bot` (an installed bot plays it). Default: every seat `human`.",
        ),
    ] = UNSET
    listed: Annotated[
        bool | Unset,
        doc("Show the game in `GET /v1/games?status=waiting` while it waits for players. Default: `true` "
             "when a seat is open (unlisted games are joined by those the creator tells its id)."),
    ] = UNSET
    turn_timeout: Annotated[
        Annotated[int, Meta(ge=1, le=MAX_TURN_TIMEOUT)] | Unset,
        doc("Seconds a player may take to decide. A seat awaited longer (since the decision opened or its "
             "last action) may be handed to a bot (`timeout_bot`) by any other seat's request or "
             "`POST .../seats/{seat}/timeout`; its player reclaims it with their token. Default: no timeout."),
    ] = UNSET
    timeout_bot: Annotated[
        BotId | Unset, doc("The bot that plays a timed-out seat. Default: `search`.")
    ] = UNSET
    clock: Annotated[
        NewClock | Unset,
        doc("Time banks: every player's seat has `initial` seconds, which run only while the game waits for "
             "that seat; each decision it makes adds `increment` (up to `initial`). A seat whose bank runs out "
             "is handed to `timeout_bot` by the workers, as a `turn_timeout` hands it; one whose bank falls "
             "under a tenth is told (`seat_clock_low`, and a `clock` webhook message). Default: no clock."),
    ] = UNSET

    def setup(self, seed: int) -> SetupRequest:
        """The game this body asks for, in core's terms (:mod:`darkroad.core.game_setup` checks
        it), with ``seed`` when the body has none."""
        return SetupRequest(
            players=self.players,
            seed=seed if self.seed is None else self.seed,
            buildings=tuple(self.buildings),
            random_buildings=self.random_buildings,
            variants=tuple(name for name, on in msgspec.structs.asdict(self.variants).items() if on),
            companions=tuple(self.companions),
            seat_kinds={kind.id: asked for kind in self.seat_kinds
                        if (asked := getattr(self, kind.api_field, None)) is not None},
            seats=None if self.seats is UNSET else len(self.seats),
            seat_bots=() if self.seats is UNSET else tuple(
                spec.bot if isinstance(spec, BotSeat) else None for spec in self.seats),
            timeout_bot=None if self.timeout_bot is UNSET else self.timeout_bot,
        )

    def seat_count(self) -> int:
        """How many items ``seats`` must have: every seat but the automated ones."""
        return game_setup.seat_count(self.seat_kinds, self.setup(seed=0))


class JoinSeat(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Who joins."""

    name: Name


SeatKind = Literal["human", "open", "bot"]
"""A seat's ``kind``; the document adds the installed seat kinds' ids (automated seats)."""


class SeatToken(msgspec.Struct, kw_only=True):
    """The secret of one seat: whoever holds it plays that seat. Only `human` seats have one: an
    open seat's comes to whoever joins it, bots and automated seats (a seat kind's) play themselves."""

    seat: int
    token: str | None
    # Always sent; documented as optional with its default as v1 first published it (a v1
    # field never becomes required in the document). Its description names the seat kinds.
    kind: str = "human"
    name: Annotated[str | None, doc("The seat's name, if any.")]
    bot: Annotated[str | None, doc("A bot seat's bot id.")]
    think_time: Annotated[float | Unset, doc("A bot seat's `think_time`, if it was given one.")] = UNSET


class CreatedGame(msgspec.Struct):
    """A new game. The tokens are shown only here: hand each player their own."""

    id: str
    version: int
    seats: list[SeatToken]
    status: Annotated[
        Literal["waiting", "active", "finished"],
        doc("`waiting` while a seat is open (actions are refused until every seat is joined); a game of "
             "bots only may already be `finished`."),
    ]
    open_seats: Annotated[list[int], doc("The seats waiting for a player (`POST .../seats/{seat}/join`).")]


class JoinedSeat(msgspec.Struct):
    """A seat joined: its token is shown only here."""

    seat: int
    token: Annotated[str, doc("The seat's secret: `Authorization: Bearer <token>` plays (or leaves) it.")]
    version: Annotated[int, doc("The game's version after the join (bots play after it, in bot workers).")]
