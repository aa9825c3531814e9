"""The bodies that set up a game and seat its players: ``POST /v1/games`` (:class:`NewGame`, its
seats, variants and clock), a join, and their answers with the seats' tokens.

The installed seat kinds' members are not here: each declares its request field, which
:mod:`darkroad.api.http.seat_kinds` adds to :class:`NewGame` and to the document.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

import msgspec
from msgspec import Meta

from darkroad.api.app.lobby import MAX_TURN_TIMEOUT
from darkroad.api.http.schema_types import UNSET, Name, Unset, doc
from darkroad.core import Engine
from darkroad.core import GameConfig as EngineConfig
from darkroad.core import SeatKind as EngineSeatKind
from darkroad.core.errors import BadConfig
from darkroad.core.i18n import Text

MAX_SEED = 2**63 - 1
MAX_COMPONENT_ID = 64
"""Longest component id a request may name."""
MAX_COMPANIONS = 32
"""Most extra companions a game may ask for."""
ComponentId = Annotated[str, Meta(max_length=MAX_COMPONENT_ID)]
MAX_BOT_ID = 64
BotId = Annotated[str, Meta(max_length=MAX_BOT_ID, description="An installed bot's id (`GET /v1/catalog`: `bots`).")]
SOLO = 1
"""``players`` of a solo game: one player against a seat kind that plays solo (2 seats in the engine)."""


def refused_sizes(kind: EngineSeatKind) -> list[int]:
    """The ``players`` of ``NewGame`` (2-4) with which a seat kind's field may not be true: sizes
    it does not play in (from the catalogue of seat kinds: :attr:`SeatKind.players`), and 2,
    since its solo game is ``players: 1``."""
    return [n for n in (2, 3, 4) if n == 2 or n not in kind.players]


def solo_kinds(kinds: tuple[EngineSeatKind, ...]) -> list[EngineSeatKind]:
    """The seat kinds that play solo (in games of 2 seats, theirs included)."""
    return [kind for kind in kinds if SOLO + 1 in kind.players]


def the(kind: EngineSeatKind) -> str:
    """A seat kind's name in a sentence: "the Peddler" (its id when it has no name)."""
    return f"the {kind.name}" if kind.name else f"`{kind.id}`"


def plays(kind: EngineSeatKind) -> str:
    """Where a seat kind may be asked for, in words: "plays solo (players: 1) or fills a seat of
    a 3-4 player game"."""
    fills = [n for n in (3, 4) if n in kind.players]
    ways = ["plays solo (players: 1)"] if SOLO + 1 in kind.players else []
    if fills:
        ways.append(f"fills a seat of a {'-'.join(map(str, (fills[0], fills[-1]) if len(fills) > 1 else fills))} "
                    "player game")
    return " or ".join(ways) or "plays in no game the API creates"


def the_text(kind: EngineSeatKind) -> Text | str:
    """:func:`the` for a problem, translated where it is shown (its name from its plugin's catalog)."""
    return Text("the %(kind)s", kind=Text(kind.name)) if kind.name else f"`{kind.id}`"


def plays_text(kind: EngineSeatKind) -> Text:
    """:func:`plays` for a problem, translated where it is shown (one sentence each way)."""
    fills = [n for n in (3, 4) if n in kind.players]
    sizes = "-".join(map(str, (fills[0], fills[-1]) if len(fills) > 1 else fills))
    solo = SOLO + 1 in kind.players
    if solo and fills:
        return Text("plays solo (players: 1) or fills a seat of a %(sizes)s player game", sizes=sizes)
    if solo:
        return Text("plays solo (players: 1)")
    if fills:
        return Text("fills a seat of a %(sizes)s player game", sizes=sizes)
    return Text("plays in no game the API creates")





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
    name: Annotated[Name | Unset, doc("The seat's name (default: the bot's name).")] = UNSET
    think_time: Annotated[
        float,
        msgspec.Meta(gt=0, le=MAX_THINK_TIME, description=(
            "Seconds the bot may think per decision: what a bot that searches against the clock takes (the "
            "`search` bot; 1 s by default), a budget the other bots are always within. It must be below the "
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
    players: Annotated[int, Meta(ge=1, le=4)]
    seed: Annotated[
        Annotated[int, Meta(ge=0, le=MAX_SEED)] | None,
        doc("Seed of the game's random generator (random when absent; secret)."),
    ] = None
    buildings: Annotated[
        list[ComponentId],
        Meta(
            max_length=4,
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
        Annotated[list[NewSeat], Meta(max_length=4)] | Unset,
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

    def asked(self) -> list[EngineSeatKind]:
        """The seat kinds whose field is true."""
        return [kind for kind in self.seat_kinds if getattr(self, kind.api_field, None)]

    def automated(self) -> list[EngineSeatKind]:
        """The seat kinds taking a seat: those asked for; in a solo game none is, the one
        installed seat kind that plays solo (its field is implied)."""
        asked = self.asked()
        if self.players == SOLO and not asked:
            solo = solo_kinds(self.seat_kinds)
            return solo if len(solo) == 1 else []
        return asked

    def seat_count(self) -> int:
        """How many items ``seats`` must have: every seat but the automated ones."""
        return self.players if self.players == SOLO else self.players - len(self.automated())

    def schema_errors(self, engine: Engine) -> list[tuple[Text, str]]:
        """What the document's ``uniqueItems`` and ``not`` clauses refuse in this body, as (message,
        field) pairs (none when it conforms): an id twice in ``buildings`` or ``companions``; a seat kind's field true with a ``players`` it does not take, or
        false with ``players: 1``; ``seats`` not one item per seat; 1-3 ``buildings``, or both
        sides of one tile. Checked before :meth:`to_config`, so that a body the document refuses
        is a ``400 bad-request`` as every other schema violation (a client validating against
        the document sees the same)."""
        errors = []
        for field in ("buildings", "companions"):
            ids: list[str] = getattr(self, field)
            twice = sorted({id_ for id_ in ids if ids.count(id_) > 1})
            if twice:
                errors.append((Text("`%(field)s` names each id at most once: %(ids)s more than once", field=field,
                                    ids=", ".join(twice)), field))
        if 1 <= len(self.buildings) <= 3:
            errors.append((Text("`buildings` names exactly 4 buildings or none, not %(count)d",
                                count=len(self.buildings)), "buildings"))
        if self.buildings:
            tiles: dict[Any, list[str]] = {}
            for component in engine.catalog():
                if (component["kind"] == "building" and component["id"] in self.buildings
                        and component["data"].get("tile") is not None):
                    tiles.setdefault(component["data"]["tile"], []).append(component["id"])
            for sides in tiles.values():
                if len(sides) > 1:
                    errors.append((Text("`buildings` names both sides of one tile: %(sides)s",
                                        sides=", ".join(sorted(sides))), "buildings"))
        for kind in self.seat_kinds:
            field = kind.api_field
            wanted = getattr(self, field, None)
            if wanted is True and self.players in refused_sizes(kind):
                errors.append((Text("`%(field)s: true` with `players: %(players)d`: %(kind)s %(plays)s", field=field,
                                    players=self.players, kind=the_text(kind), plays=plays_text(kind)), field))
            elif wanted is False and self.players == SOLO:
                errors.append((Text("`%(field)s: false` with `players: 1`: a 1-player game is solo against it; "
                                    "leave %(field)s out", field=field), field))
        if self.seats is not UNSET:
            # As the document counts: solo and 2 players take one item per player; 3-4 one fewer
            # with an automated seat asked for (``true``).
            asked = sum(getattr(self, kind.api_field, None) is True for kind in self.seat_kinds)
            count = self.players if self.players <= SOLO + 1 else self.players - asked
            if len(self.seats) != count:
                errors.append((Text("`seats` lists every seat but the automated one's: %(count)d here, not "
                                    "%(given)d", count=count, given=len(self.seats)), "seats"))
        return errors

    def to_config(self, seed: int) -> EngineConfig:
        """The engine's configuration, with ``seed`` when the request has none; the installed
        seat kinds' game sizes (:attr:`seat_kinds`) decide where an automated seat may be asked for.

        Solo (``players: 1``) is a 2-seat game in the engine: you and the seat kind that plays solo."""
        options: dict[str, Any] = {}
        for kind in self._seated():
            options |= kind.game_options()
        if self.seats is not UNSET and len(self.seats) != self.seat_count():
            raise BadConfig("seats lists every seat but the automated one's: %(count)d here, not %(given)d",
                            count=self.seat_count(), given=len(self.seats))
        if len(set(self.companions)) != len(self.companions):
            twice = sorted({c for c in self.companions if self.companions.count(c) > 1})
            raise BadConfig("each extra companion may be named once: %(ids)s more than once", ids=", ".join(twice))
        return EngineConfig(
            options=options,
            players=max(self.players, 2),
            seed=seed if self.seed is None else self.seed,
            buildings=list(self.buildings),
            random_buildings=self.random_buildings,
            variants={name: value for name, value in msgspec.structs.asdict(self.variants).items() if value},
            companions=list(self.companions),
        )

    def _seated(self) -> list[EngineSeatKind]:
        """:meth:`automated`, or :class:`BadConfig` where a seat kind may not be asked for."""
        solo = self.players == SOLO
        for kind in self.seat_kinds:
            if solo and getattr(self, kind.api_field, None) is False:
                raise BadConfig("a 1-player game is solo against a seat kind: leave %(field)s out", field=kind.api_field)
        seated = self.automated()
        if solo and len(seated) != 1:
            playing = [Text("`%(field)s: true` (%(kind)s)", field=kind.api_field, kind=the_text(kind))
                       for kind in solo_kinds(self.seat_kinds)]
            if not playing:
                raise BadConfig("a 1-player game is solo against a seat kind, and this installation has none that "
                                "plays solo")
            raise BadConfig("a 1-player game is solo against one seat kind, ask for one of: %(kinds)s",
                            kinds=playing)
        for kind in seated:
            if (solo and SOLO + 1 not in kind.players) or (not solo and self.players in refused_sizes(kind)):
                raise BadConfig("%(kind)s %(plays)s", kind=the_text(kind), plays=plays_text(kind))
        return seated




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
