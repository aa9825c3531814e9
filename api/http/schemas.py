"""Request and response bodies of the API, as msgspec structs (validation and OpenAPI).

The OpenAPI document describes these with msgspec's own JSON Schemas (:data:`MODELS`),
which carry every constraint exactly. Actions and events are not here: they are the
engine's (plugins contribute their types), taken as raw JSON and described from
``Engine.action_schema()`` / ``Engine.event_schema()`` (see :mod:`darkroad.api.http.openapi`).
Nor are the installed seat kinds' members: each declares its request field and its view
blocks (``SeatKind.view_blocks``), which :mod:`darkroad.api.http.seat_kinds` adds to
:class:`NewGame` and to the document.
"""

from __future__ import annotations

import datetime
import typing
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

import attrs
import msgspec
from msgspec import Meta

from darkroad.api.app.lobby import ENTRY_PATTERN, MAX_NAME_LENGTH, MAX_TURN_TIMEOUT, NAME_PATTERN
from darkroad.api.app.records import GameRecord
from darkroad.api.http.problems import FieldError, ProblemDetails
from darkroad.api.http.webhook_schemas import PutWebhook, WebhookSubscription
from darkroad.core import Caravan as EngineCaravan
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
Name = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=MAX_NAME_LENGTH,
        pattern=NAME_PATTERN,
        description=f"A display name, 1 to {MAX_NAME_LENGTH} characters with at least one visible one and no "
        "control character (but in the surrounding whitespace, which is trimmed). Shown to everyone; never a "
        "credential.",
    ),
]
Unset = msgspec.UnsetType
UNSET = msgspec.UNSET
SOLO = 1
"""``players`` of a solo game: one player against a seat kind that plays solo (2 seats in the engine)."""
LAST_EVENT_ID_PATTERN = "^(-1|[0-9]{1,16})$"
"""``Last-Event-ID``: a header, so text (typed as a string: generated clients send it as one),
holding an event's ``n`` (at most 2**53 - 1, 16 digits) or -1."""


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


def _doc(description: str) -> Meta:
    return Meta(description=description)


# -- requests ----------------------------------------------------------------------



MAX_THINK_TIME = 20.0
"""The longest ``think_time`` a bot seat may ask for: below the default bot move timeout (30 s),
so that a request the document admits is one a server with default settings accepts."""

class Variants(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Optional rules."""

    drafting: Annotated[bool, _doc("Deal heroes and deeds by drafting.")] = False
    advanced_deeds: Annotated[bool, _doc("Play with the advanced deeds.")] = False


class HumanSeat(msgspec.Struct, tag_field="kind", tag="human", forbid_unknown_fields=True, kw_only=True):
    """A seat the creator hands out: its token is in the answer (every seat is one without `seats`)."""

    name: Annotated[Name | Unset, _doc("The player's name (none: the seat shows no name).")] = UNSET


class OpenSeat(msgspec.Struct, tag_field="kind", tag="open", forbid_unknown_fields=True, kw_only=True):
    """A seat a player joins later (`POST /v1/games/{game_id}/seats/{seat}/join`): the game waits until
    every open seat is joined."""


class BotSeat(msgspec.Struct, tag_field="kind", tag="bot", forbid_unknown_fields=True, kw_only=True):
    """A seat an installed bot plays (in the service's bot workers, apart from requests)."""

    bot: BotId
    name: Annotated[Name | Unset, _doc("The seat's name (default: the bot's name).")] = UNSET
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
        _doc("Seed of the game's random generator (random when absent; secret)."),
    ] = None
    buildings: Annotated[
        list[ComponentId],
        Meta(
            max_length=4,
            description="Exactly 4 different building ids from `GET /v1/catalog`, or none: then the first-game "
            "buildings, or random ones with `random_buildings`.",
        ),
    ] = msgspec.field(default_factory=list)
    random_buildings: Annotated[bool, _doc("With no `buildings`: draw them at random.")] = False
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
        _doc("Show the game in `GET /v1/games?status=waiting` while it waits for players. Default: `true` "
             "when a seat is open (unlisted games are joined by those the creator tells its id)."),
    ] = UNSET
    turn_timeout: Annotated[
        Annotated[int, Meta(ge=1, le=MAX_TURN_TIMEOUT)] | Unset,
        _doc("Seconds a player may take to decide. A seat awaited longer (since the decision opened or its "
             "last action) may be handed to a bot (`timeout_bot`) by any other seat's request or "
             "`POST .../seats/{seat}/timeout`; its player reclaims it with their token. Default: no timeout."),
    ] = UNSET
    timeout_bot: Annotated[
        BotId | Unset, _doc("The bot that plays a timed-out seat. Default: `search`.")
    ] = UNSET
    clock: Annotated[
        NewClock | Unset,
        _doc("Time banks: every player's seat has `initial` seconds, which run only while the game waits for "
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


# -- responses ---------------------------------------------------------------------


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
    name: Annotated[str | None, _doc("The seat's name, if any.")]
    bot: Annotated[str | None, _doc("A bot seat's bot id.")]
    think_time: Annotated[float | Unset, _doc("A bot seat's `think_time`, if it was given one.")] = UNSET


class CreatedGame(msgspec.Struct):
    """A new game. The tokens are shown only here: hand each player their own."""

    id: str
    version: int
    seats: list[SeatToken]
    status: Annotated[
        Literal["waiting", "active", "finished"],
        _doc("`waiting` while a seat is open (actions are refused until every seat is joined); a game of "
             "bots only may already be `finished`."),
    ]
    open_seats: Annotated[list[int], _doc("The seats waiting for a player (`POST .../seats/{seat}/join`).")]


class JoinedSeat(msgspec.Struct):
    """A seat joined: its token is shown only here."""

    seat: int
    token: Annotated[str, _doc("The seat's secret: `Authorization: Bearer <token>` plays (or leaves) it.")]
    version: Annotated[int, _doc("The game's version after the join (bots play after it, in bot workers).")]


class Decision(msgspec.Struct):
    """What the game waits for."""

    type: Annotated[str, _doc("The action `type` that answers it.")]
    seats: Annotated[list[int], _doc("Who decides (several seats for simultaneous steps).")]
    prompt: str


Seat = Annotated[int, Meta(ge=0, le=3)]
Count = Annotated[int, Meta(ge=0)]
Instant = Annotated[datetime.datetime, Meta(tz=True)]


class GameClock(msgspec.Struct):
    """A game's time banks, as it was created with them."""

    initial: Annotated[float, _doc("Seconds in each seat's bank at first (and the most it holds).")]
    increment: Annotated[float, _doc("Seconds each decision adds to the seat's bank.")]


class SeatClock(msgspec.Struct):
    """A player's seat's time bank, as of the game's version."""

    remaining: Annotated[float, _doc("Seconds left in the bank at this version (when it runs: at the moment "
                                     "it started running; it counts down to `ends_at`).")]
    running: Annotated[bool, _doc("The game waits for this seat: its bank runs.")]
    ends_at: Annotated[Instant | None, _doc("While it runs: when it runs out (the seat is then handed to the "
                                            "game's `timeout_bot`); else null.")]


class SeatView(msgspec.Struct):
    """Who sits in a seat."""

    seat: Seat
    kind: SeatKind  # described with the installed seat kinds' ids (darkroad.api.http.seat_kinds)
    name: Annotated[str | None, _doc("The player's name (a bot seat: its name); null for an open seat or a "
                                     "player who gave none.")]
    bot: Annotated[str | None, _doc("The bot playing the seat: a bot seat's, or the one playing for a player "
                                    "who timed out (`replaced`); else null.")]
    replaced: Annotated[bool, _doc("A bot plays this human seat since its player timed out; the player "
                                   "reclaims it with `POST .../seats/{seat}/reclaim`.")]
    timeout_at: Annotated[
        Instant | None,
        _doc("With a `turn_timeout`, while the seat's player is awaited: from when the seat may be handed to "
             "a bot; else null."),
    ]
    think_time: Annotated[
        float | None,
        _doc("A bot seat's `think_time`, seconds per decision, as the game was created with; absent: the bot's "
             "default."),
    ] = None
    clock: Annotated[SeatClock | Unset, _doc("A player's seat in a game with a `clock`: its time bank; absent "
                                             "otherwise.")] = UNSET


class GameConfig(msgspec.Struct):
    """How the game was set up (the engine's configuration)."""

    # Each installed seat kind's seat follows `variants`, under its id (darkroad.api.http.seat_kinds).

    players: Annotated[int, Meta(ge=2, le=4)]
    variants: Annotated[dict[str, bool], _doc("The optional rules in play (`drafting`, `advanced_deeds`).")]
    buildings: Annotated[list[str], _doc("The building ids asked for at creation (empty: chosen by the server; "
                                         "the buildings in play are `board.buildings`).")]
    plugins: Annotated[dict[str, str], _doc("The plugins the game needs, with their versions.")]


class Market(msgspec.Struct):
    """The market wheel and its dice."""

    wheel: Annotated[dict[str, int], _doc("Each good type's current price in coins (the wheel's section).")]
    dice: Annotated[dict[str, Count], _doc("Market dice on each good type's section (at most 2).")]
    set_aside: Annotated[Count, _doc("Market dice bought this turn, rerolled in Rest.")]


class CommissionStack(msgspec.Struct):
    """One town's commission stack: only its top card is visible."""

    top: Annotated[str | None, _doc("The top commission's id; null when the stack is empty.")]
    count: Annotated[Count, _doc("Cards in the stack.")]


class BoardExtra(msgspec.Struct, omit_defaults=True):
    """Board state owned by plugins, keyed by component id (any JSON), and the draft."""

    draft: Annotated[
        list[list[str | None]] | msgspec.UnsetType,
        _doc("While drafting: the stacks left, each `[steed id, starting hero id]` (null once taken)."),
    ] = msgspec.UNSET


class Board(msgspec.Struct):
    """The public board."""

    ringway: Annotated[list[str], _doc("The districts clockwise around the Ringway; wagon space `s` lies between "
                                       "district `s - 1` and district `s`.")]
    buildings: Annotated[list[str], _doc("The building ids on building spaces 1-4.")]
    market: Market
    commissions: Annotated[dict[str, CommissionStack], _doc("Each town's commission stack, by town id.")]
    inn: Annotated[list[str | None], _doc("The heroes at the Ringway Inn's 4 places (null: empty).")]
    hero_deck: Annotated[Count, _doc("Cards left in the hero deck.")]
    courtyard: Annotated[list[str | None], _doc("The deeds face up in the courtyard (null: empty).")]
    courtyard_banners: Annotated[list[list[str]], _doc(
        "The bonus on the banner of each courtyard slot, as effects (base game: `[\"prestige:2\"]`, "
        "`[\"good:any\", \"horseshoe:1\"]`); the top of the deed deck gives none.")]
    deed_deck: Annotated[Count, _doc("Cards left in the deed deck.")]
    companion_row: Annotated[list[str | None], _doc("The face-up companion cards; the last carries the travel die "
                                                    "(null: empty).")]
    companion_deck: Annotated[Count, _doc("Cards left in the companion deck.")]
    event_decks: Annotated[dict[str, Count], _doc("Cards in each route's event deck, by route id.")]
    upgrades: Annotated[list[str], _doc("The wagon upgrades left on the good fortune track.")]
    five_coins: Annotated[bool, _doc("The 5 coins still lie on the good fortune track.")]
    dark_market: Literal["north", "east", "south", "west"]
    ruins: Literal["top_left", "top_right", "bottom_right", "bottom_left"]
    extra: BoardExtra


def _view_of(cls: type[Any]) -> type[msgspec.Struct]:
    """The view's struct of a core state class (attrs): its fields with their core types and
    descriptions (``typing.Annotated`` on the class), a field that is ``None`` until set absent
    until set, ``extra`` (the plugins' keys, shown beside the fields) left out. Derived, so the
    document describes what the core keeps, written once."""
    hints = typing.get_type_hints(cls, include_extras=True)
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for a in attrs.fields(cls):
        if a.name == "extra":
            continue
        if a.default is None:  # X | None: absent until set
            (present,) = [t for t in typing.get_args(hints[a.name]) if t is not type(None)]
            fields.append((a.name, present | msgspec.UnsetType, msgspec.UNSET))
        else:
            fields.append((a.name, hints[a.name]))
    return msgspec.defstruct(cls.__name__, fields, omit_defaults=True, module=__name__,
                             namespace={"__doc__": cls.__doc__})


if TYPE_CHECKING:  # a struct made at run time: a type to check its uses against

    class Caravan(msgspec.Struct):
        """The caravan under way this turn (``darkroad.core.Caravan``, the view's ``caravan``)."""

else:
    Caravan = _view_of(EngineCaravan)


class ActionDie(msgspec.Struct):
    """A die in a player's action pool."""

    kind: Annotated[str, _doc("`night` or `illuminated`.")]
    value: int


class WagonCompanion(msgspec.Struct):
    """A companion card on a wagon."""

    card: Annotated[str, _doc("The card id (`<companion id>-<copy>`).")]
    gifts: Annotated[list[int], _doc("The abilities already used (their indexes), for a loyal companion.")]


Cell = Annotated[
    Annotated[int, Meta(ge=0)] | None,
    Meta(description="The index in `goods` of the good covering this cell; null: empty."),
]
Grid = list[list[Cell]]


class Storage(msgspec.Struct):
    """One arrangement of the wagon's goods in its storage, as the engine found it: each good's
    polyomino on the grid (goods may be rearranged at any time, so this is one legal packing,
    not a position the player chose). Every index of `goods` appears in the grids' cells (a good
    covers as many cells as its shape) or in `slot_goods`, exactly once."""

    grid: Annotated[Grid, _doc("The main storage grid (5 rows of 6 cells in the base game), rows from the "
                               "top: each cell names the good covering it.")]
    fixed_tiles: Annotated[
        list[list[Annotated[list[int], Meta(min_length=2, max_length=2)]]],
        _doc("Tiles fixed in the main grid (a wagon upgrade such as the Secret Compartment), each as the "
             "`[row, column]` cells it covers (null in `grid`)."),
    ]
    extra_grids: Annotated[list[Grid], _doc("Extra grids (a steed's saddle bag), each like `grid`.")]
    slots: Annotated[Count, _doc("Storage slots holding one good of any shape each (storage heroes, wagon "
                                 "upgrades).")]
    slot_goods: Annotated[list[Annotated[int, Meta(ge=0)]], _doc("The goods (indexes in `goods`) kept in "
                                                                  "those slots.")]


class PlayerView(msgspec.Struct):
    """One player's wagon; `coins` and `deeds` are null unless it is the caller's (or the game is over)."""

    seat: Seat
    kind: str  # described with the installed seat kinds' ids (darkroad.api.http.seat_kinds)
    prestige: int
    position: Annotated[int, _doc("The wagon's Ringway space, 0-4 (0: the start space).")]
    locked: Annotated[list[int | None], _doc("The night dice in locked slots #1-#3 (null: empty in the last rounds).")]
    reserve: Annotated[list[int], _doc("The night dice in the main reserve.")]
    spent: Annotated[Count, _doc("Night dice in the spent pile.")]
    removed: Annotated[Count, _doc("Night dice removed from the game.")]
    special_reserve: Annotated[list[int], _doc("The illuminated dice in the special reserve.")]
    action_pool: list[ActionDie]
    lanterns: Count
    quartz: Count
    horseshoes: Count
    goods: Annotated[list[str], _doc("The good tiles in the wagon (`potion`, `potion+` for the upgraded side).")]
    storage: Annotated[
        Storage | None,
        _doc("Where the goods lie in the wagon's storage (one arrangement the engine found); null for an "
             "automated seat (a seat kind keeps its goods its own way) and while the goods do not fit (a "
             "discard is the next decision)."),
    ]
    heroes: list[str]
    commissions: list[str]
    steeds: list[str]
    upgrades: list[str]
    companions: list[WagonCompanion]
    delivered_commissions: Count
    delivered_heroes: Count
    deed_count: Count
    coins: int | None
    deeds: list[str] | None
    name: Annotated[str | None, _doc("The seat's name (see `GameView.seats`); null if none.")]


class ScoreLine(msgspec.Struct):
    """One seat's final score, field by field.

    `total = base + deed_vp + illuminated_vp + goods_vp + quartz_vp`, where
    `base = min(coins, prestige)`. Ties are broken by `discarded`, then `gifts`,
    `commissions_delivered` and `heroes_delivered`; `rank` says the outcome.
    """

    seat: Seat
    coins: Annotated[int, _doc("Coins at the end, the deeds' coins included.")]
    prestige: Annotated[int, _doc("Prestige at the end, the deeds' prestige included.")]
    base: Annotated[int, _doc("`min(coins, prestige)`: the base score.")]
    # The installed seat kinds' score notes are added to these (darkroad.api.http.seat_kinds).
    deed_vp: Annotated[int, _doc("VP from deeds.")]
    illuminated_vp: Annotated[int, _doc("1 VP per illuminated die held but not used.")]
    goods_vp: Annotated[int, _doc("An automated seat only: VP for the goods it holds (0 for players).")]
    quartz_vp: Annotated[int, _doc("An automated seat only: VP for its blazing quartz (0 for players).")]
    total: Annotated[int, _doc("`base + deed_vp + illuminated_vp + goods_vp + quartz_vp`.")]
    discarded: Annotated[int, _doc("`max(coins, prestige)`: the first tie-breaker.")]
    gifts: Annotated[int, _doc("Gifts on loyal companions: the second tie-breaker.")]
    commissions_delivered: Annotated[int, _doc("The third tie-breaker.")]
    heroes_delivered: Annotated[int, _doc("The fourth tie-breaker.")]
    rank: Annotated[int, Meta(ge=1, description="1 for the winners; seats equal on every tie-breaker share a rank.")]
    details: Annotated[list[str], _doc("Each deed's contribution, in words.")]


class ProjectedScore(msgspec.Struct):
    """A seat's final score if the game ended now (rulebook p. 13: the lower of coins and prestige,
    the deeds' coins and prestige added first, plus victory points), as far as the caller may see
    it. The caller's own seat (and every seat once the game is over) is `known`: `total` is exact.
    Another seat's coins and deeds are hidden: its base score lies between 0 and its prestige, its
    secret deeds are not counted, so `low` and `high` bound what is public."""

    seat: Seat
    known: Annotated[bool, _doc("Whether the caller sees everything the score counts (its own seat, or the "
                                "game is over).")]
    total: Annotated[int | None, _doc("The projected final score; null unless `known`.")]
    low: Annotated[int, _doc("The least it can be from what the caller sees (`total` when known): the "
                             "victory points known, with no coins.")]
    high: Annotated[int, _doc("The most it can be from what the caller sees, before `secret_deeds` (`total` "
                              "when known): prestige plus the victory points known.")]
    coins: Annotated[int | None, _doc("Coins with the deeds' coins; null unless `known`.")]
    prestige: Annotated[int, _doc("Prestige (with the deeds' prestige when `known`).")]
    base: Annotated[int | None, _doc("`min(coins, prestige)`; null unless `known`.")]
    vp: Annotated[int, _doc("The victory points counted: deeds' and unused illuminated dice' (an automated "
                            "seat: those its kind counts, from what is public).")]
    secret_deeds: Annotated[Count, _doc("Deeds the caller cannot see, not counted in `low` and `high`.")]


class GameView(msgspec.Struct):
    """The game as the caller may see it (a spectator sees only public information)."""

    schema_version: int
    version: Annotated[int, _doc("Increases by one with every applied action (and every change of seats); "
                                 "the `ETag`.")]
    status: Annotated[
        Literal["waiting", "active", "finished"],
        _doc("`waiting`: a seat is open, actions are refused until every seat is joined."),
    ]
    round: Annotated[int, Meta(ge=0, le=13, description="The round, 1-13 (13 is the last); 0 while drafting.")]
    phase: Annotated[str, _doc("`setup`, `plan`, `move`, `activate`, `final_travel`, `finished`, ...")]
    active_seat: Seat
    start_seat: Seat
    seat: Annotated[Seat | None, _doc("The caller's seat; null for a spectator.")]
    awaiting: Annotated[list[int], _doc("Seats whose decision the game waits for.")]
    undo_available: Annotated[bool, _doc("Whether the caller may take back its last action now "
                                         "(`POST .../undo`); always false for a spectator.")]
    decision: Decision | None
    config: GameConfig
    board: Board
    caravan: Annotated[Caravan | None, _doc("The caravan under way; null when there is none.")]
    players: list[PlayerView]
    score: Annotated[list[ScoreLine] | None, _doc("Each seat's final score; null until the game is over.")]
    winners: Annotated[list[int] | None, _doc("The winning seats; null until the game is over.")]
    seats: Annotated[list[SeatView], _doc("Who sits in each seat.")]
    turn_timeout: Annotated[int | None, _doc("Seconds a player may take to decide before their seat may be "
                                             "handed to a bot; null: no timeout.")]
    timeout_bot: Annotated[str | None, _doc("With a `turn_timeout` or a `clock`: the bot that takes over a seat "
                                            "awaited longer (its `BotInfo.id`); null: neither.")]
    clock: Annotated[GameClock | Unset, _doc("The game's time banks (each seat's in `seats[i].clock`); absent: "
                                             "none.")] = UNSET
    projected: Annotated[
        list[ProjectedScore],
        _doc("Each seat's projected final score, as far as the caller may see it. Absent from views kept "
             "before it was added (a replay of an older game's history)."),
    ] = msgspec.field(default_factory=list)


class ActionList(msgspec.Struct):
    """The caller's legal actions; POST any of them unchanged to act."""

    version: int
    status: Annotated[
        Literal["waiting", "active", "finished"],
        _doc("`finished`: no action will ever be legal again; `waiting`: none until every seat is joined."),
    ]
    actions: Annotated[list[dict[str, Any]], _doc("Empty when the game does not wait for the caller (or a bot "
                                                  "plays the caller's seat).")]


class GameSummary(msgspec.Struct):
    """A game's setup, as the listing shows it."""

    # Each installed seat kind's seat follows `players`, under its id (darkroad.api.http.seat_kinds).

    players: Annotated[int, Meta(ge=2, le=4)]
    buildings: Annotated[list[str], _doc("The buildings in play.")]
    variants: Annotated[dict[str, bool], _doc("The optional rules in play.")]
    companions: Annotated[list[str], _doc("The extra companions shuffled in.")]


class WaitingGame(msgspec.Struct):
    """A listed game waiting for players."""

    id: str
    players: int
    open_seats: Annotated[list[int], _doc("The seats to join.")]
    seats: list[SeatView]
    config: GameSummary
    created: Instant
    turn_timeout: Annotated[int | None, _doc("Seconds a player may take to decide; null: no timeout.")]
    timeout_bot: Annotated[str | None, _doc("With a `turn_timeout`: the bot that takes over a seat awaited "
                                            "longer; null: no timeout.")]


class WaitingGames(msgspec.Struct):
    """A page of waiting games, newest first."""

    games: list[WaitingGame]
    next: Annotated[
        Annotated[str, Meta(pattern=ENTRY_PATTERN)] | None,
        _doc("Pass as `cursor` for the next page; null when this is the last."),
    ]


class EventPage(msgspec.Struct):
    """A page of the events the caller may see, oldest first."""

    events: list[dict[str, Any]]
    next: Annotated[int, _doc("Pass as `after` to read the next page.")]
    more: Annotated[bool, _doc("True when the page was full: more events may follow.")]
    finished: Annotated[bool, _doc("The game is over: once `more` is false, no event will follow.")]


class FinalScore(msgspec.Struct):
    """The end of the game."""

    version: int
    score: list[ScoreLine]
    winners: list[int]


class HistoryEntry(msgspec.Struct):
    """A game as the caller saw it at one version, and the events of that version they may see."""

    version: Annotated[int, _doc("The version shown.")]
    latest: Annotated[int, _doc("The game's current version (the last one there is to show).")]
    finished: Annotated[bool, _doc("The game is over (every version is final).")]
    view: Annotated[GameView, _doc("The caller's view at `version`, exactly as it was answered then (a seat's "
                                   "turn clock excepted: `seats[].timeout_at` is null).")]
    events: Annotated[list[dict[str, Any]], _doc("The events that made `version` (for 0: the setup's), those "
                                                 "the caller may see.")]


class Component(msgspec.Struct):
    """A component of this installation and the plugin providing it."""

    id: str
    kind: Annotated[str, _doc("`building`, `companion`, `steed`, `deed` or `upgrade`.")]
    name: str
    text: str
    plugin: str
    version: Annotated[str, _doc("The plugin's version.")]
    builtin: Annotated[bool, _doc("Shipped with darkroad (the base game); false for a fan plugin's component. "
                                  "The base game's companions are in every game's deck; others only when a game "
                                  "names them (`companions`).")]
    data: Annotated[dict[str, Any], _doc("Kind-specific facts (typed per kind in `CatalogComponents`).")]


# The data of components comes from their plugins, which the engine only reads where it needs
# to: every member is optional (a fan component may leave it out) and plugins may add their own.


class BuildingData(msgspec.Struct, omit_defaults=True):
    """A building's facts."""

    tile: Annotated[int | Unset, _doc("The double-sided tile it is printed on: a game has at most one side "
                                      "of each tile.")] = UNSET
    first_game: Annotated[bool | Unset, _doc("One of the buildings of the first game.")] = UNSET
    oracle_die: Annotated[
        list[list[str]] | Unset, _doc("The Oracle of Lumi: the oracle die's faces, as effects.")
    ] = UNSET


class CompanionAbility(msgspec.Struct, omit_defaults=True):
    """One ability of a companion."""

    id: str
    text: str
    gift: Annotated[str | Unset, _doc("What using it costs a loyal companion's owner (its gift).")] = UNSET


class CompanionData(msgspec.Struct, omit_defaults=True):
    """A companion's facts."""

    loyalty: Annotated[str | Unset, _doc("`loyal` (stays, takes gifts) or `stray` (moves on).")] = UNSET
    copies: Annotated[int | Unset, _doc("Cards of it in the companion deck (absent: 1).")] = UNSET
    abilities: list[CompanionAbility] | Unset = UNSET


class DeedData(msgspec.Struct, omit_defaults=True):
    """A deed's facts: when `criterion` is met (`need`), it gives `amount` of `reward`."""

    reward: Annotated[str | Unset, _doc("`coins`, `prestige` or `vp`.")] = UNSET
    amount: int | Unset = UNSET
    criterion: Annotated[str | Unset, _doc("When it scores, in words.")] = UNSET
    need: int | Unset = UNSET
    per_extra: Annotated[int | Unset, _doc("More reward per unit beyond `need`.")] = UNSET
    max: Annotated[int | Unset, _doc("The most it can give.")] = UNSET
    unit: Annotated[str | Unset, _doc("What `per_extra` counts.")] = UNSET


class SteedData(msgspec.Struct):
    """A steed's facts (none in the base game; a fan steed may have its own)."""


class UpgradeData(msgspec.Struct, omit_defaults=True):
    """A wagon upgrade's facts."""

    goes_in: Annotated[str | Unset, _doc("Where it is placed on the wagon.")] = UNSET
    shape: Annotated[
        list[list[int]] | Unset, _doc("The cells it fills in the storage grid, `[row, column]`.")
    ] = UNSET
    any_slots: Annotated[int | Unset, _doc("Storage slots for a good of any shape.")] = UNSET


class BuildingComponent(msgspec.Struct):
    """A building."""

    id: str
    kind: Literal["building"]
    name: str
    text: str
    plugin: str
    version: str
    builtin: bool
    data: BuildingData


class CompanionComponent(msgspec.Struct):
    """A companion."""

    id: str
    kind: Literal["companion"]
    name: str
    text: str
    plugin: str
    version: str
    builtin: bool
    data: CompanionData


class SteedComponent(msgspec.Struct):
    """A steed."""

    id: str
    kind: Literal["steed"]
    name: str
    text: str
    plugin: str
    version: str
    builtin: bool
    data: SteedData


class DeedComponent(msgspec.Struct):
    """A deed."""

    id: str
    kind: Literal["deed"]
    name: str
    text: str
    plugin: str
    version: str
    builtin: bool
    data: DeedData


class UpgradeComponent(msgspec.Struct):
    """A wagon upgrade."""

    id: str
    kind: Literal["upgrade"]
    name: str
    text: str
    plugin: str
    version: str
    builtin: bool
    data: UpgradeData


class CatalogComponents(msgspec.Struct):
    """The components by kind."""

    building: list[BuildingComponent]
    companion: list[CompanionComponent]
    steed: list[SteedComponent]
    deed: list[DeedComponent]
    upgrade: list[UpgradeComponent]


Effects = Annotated[list[str], _doc("Effects in the engine's effect language (`coins:2`, `good:any`, ...).")]
GoodIds = Annotated[list[str], _doc("Good type ids.")]


class GoodType(msgspec.Struct):
    """A type of good: its tiles' shape in the wagon's storage."""

    id: str
    name: str
    footprint: Annotated[list[Annotated[list[int], Meta(min_length=2, max_length=2)]],
                         _doc("The cells of its polyomino, `[row, column]` (any orientation fits).")]


class Town(msgspec.Struct):
    """An outlying town."""

    id: str
    name: str
    region: Annotated[str, _doc("`north`, `west` or `east`: towns of one region share a caravan's visit.")]
    hero_class: Annotated[str, _doc("The class of the heroes travelling there.")]
    reward: Annotated[Effects, _doc("Gained per hero delivered there.")]


class HeroCard(msgspec.Struct):
    """A hero card."""

    id: str
    name: str
    hero_class: str
    town: Annotated[str, _doc("The town the hero travels to (a town id).")]
    requests: Annotated[GoodIds, _doc("The goods the hero buys at the Ringway Inn.")]
    bonus: Annotated[str | None, _doc("`lantern`, `horseshoe` or `storage` (a slot for any good), or null.")]
    starting: Annotated[bool, _doc("A starting hero (dealt at setup).")]


class CommissionCard(msgspec.Struct):
    """A commission tile."""

    id: str
    town: Annotated[str, _doc("The town requesting the goods (a town id).")]
    requests: Annotated[GoodIds, _doc("The goods requested.")]


class EventCard(msgspec.Struct):
    """An event card of a caravan's route."""

    id: str
    name: str
    route: Annotated[str, _doc("`dark_road` or `shortcut`.")]
    flavor: str
    faces: Annotated[dict[str, list[str]], _doc("What each travel die value (`\"1\"`-`\"6\"`) gives, as effects.")]


class CatalogContent(msgspec.Struct):
    """What the content packs print on cards and boards: views name these by id."""

    goods: Annotated[list[GoodType], _doc("The good types, in the market wheel's clockwise order.")]
    towns: list[Town]
    heroes: list[HeroCard]
    commissions: list[CommissionCard]
    events: list[EventCard]
    crafting_chart: Annotated[dict[str, str], _doc("The basic good crafted for each night die value (`\"0\"`-`\"5\"`).")]
    dark_market: Annotated[dict[str, list[str]], _doc("The goods of each space of the dark market ring; the south "
                                                      "space (absent) gives a commission or a deed.")]
    ruins_tablet: Annotated[dict[str, list[str]], _doc("The upgraded goods offered by each space of the ruins tablet "
                                                       "(`any`: any good).")]
    ruins_die: Annotated[Effects, _doc("The ruins die's six faces.")]
    effect_words: Annotated[
        dict[str, str],
        _doc("Every effect, and every list of effects, the content prints (event cards' faces, towns' "
             "rewards, the ruins die, the courtyard banners, components' data such as the oracle die), in "
             "words in the caller's language: keyed by the effects joined with `|` (`lantern:1|prestige:1`: "
             "\"gain 1 lantern and 1 prestige\"). A client shows these rather than wording effects itself."),
    ] = msgspec.field(default_factory=dict)


class BotInfo(msgspec.Struct):
    """An installed bot: a seat may be played by it (`seats`, `timeout_bot`)."""

    id: str
    name: str
    text: Annotated[str, _doc("How it plays.")]
    plugin: str
    version: Annotated[str, _doc("The plugin's version.")]


class Catalog(msgspec.Struct):
    """Every component of this installation, by kind (`building`, `companion`, ...), its content
    and its bots."""

    components: CatalogComponents
    content: CatalogContent
    bots: list[BotInfo]


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
