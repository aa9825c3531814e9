"""A game as a seat or a spectator sees it (:class:`GameView`: the board, the players' wagons,
the score, the decision awaited, the clocks) and the caller's legal actions.

The installed seat kinds' view blocks are not here: :mod:`darkroad.api.http.seat_kinds` adds
them to the document.

Where core types a state class for the view, its struct is derived (:func:`_view_of`). ``PlayerView``,
``Board``, ``Market`` and ``CommissionStack`` are written here instead: core's blocks of an
encoded view (``PlayerBlock``, ``_BoardBlock``, ``_Market``, ``_Stack``) type what core encodes,
mostly ``Any``, not what a client reads. tests/api/http/test_api_view_schemas.py holds their
fields to core's: the same names in the same order, the same types where core's says more.
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Annotated, Any, Literal

import attrs
import msgspec
from msgspec import Meta

from darkroad.api.http.schema_types import UNSET, Count, Instant, Seat, Unset, doc
from darkroad.api.http.setup_schemas import SeatKind
from darkroad.core import Caravan as EngineCaravan
from darkroad.core import CompanionCard as EngineCompanionCard
from darkroad.core import PoolDie as EnginePoolDie
from darkroad.core import ScoreLine as EngineScoreLine


class Decision(msgspec.Struct):
    """What the game waits for."""

    type: Annotated[str, doc("The action `type` that answers it.")]
    seats: Annotated[list[int], doc("Who decides (several seats for simultaneous steps).")]
    prompt: str


class GameClock(msgspec.Struct):
    """A game's time banks, as it was created with them."""

    initial: Annotated[float, doc("Seconds in each seat's bank at first (and the most it holds).")]
    increment: Annotated[float, doc("Seconds each decision adds to the seat's bank.")]


class SeatClock(msgspec.Struct):
    """A player's seat's time bank, as of the game's version."""

    remaining: Annotated[float, doc("Seconds left in the bank at this version (when it runs: at the moment "
                                     "it started running; it counts down to `ends_at`).")]
    running: Annotated[bool, doc("The game waits for this seat: its bank runs.")]
    ends_at: Annotated[Instant | None, doc("While it runs: when it runs out (the seat is then handed to the "
                                            "game's `timeout_bot`); else null.")]


class SeatView(msgspec.Struct):
    """Who sits in a seat."""

    seat: Seat
    kind: SeatKind  # described with the installed seat kinds' ids (darkroad.api.http.seat_kinds)
    name: Annotated[str | None, doc("The player's name (a bot seat: its name); null for an open seat or a "
                                     "player who gave none.")]
    bot: Annotated[str | None, doc("The bot playing the seat: a bot seat's, or the one playing for a player "
                                    "who timed out (`replaced`); else null.")]
    replaced: Annotated[bool, doc("A bot plays this human seat since its player timed out; the player "
                                   "reclaims it with `POST .../seats/{seat}/reclaim`.")]
    timeout_at: Annotated[
        Instant | None,
        doc("With a `turn_timeout`, while the seat's player is awaited: from when the seat may be handed to "
             "a bot; else null."),
    ]
    think_time: Annotated[
        float | None,
        doc("A bot seat's `think_time`, seconds per decision, as the game was created with; absent: the bot's "
             "default."),
    ] = None
    clock: Annotated[SeatClock | Unset, doc("A player's seat in a game with a `clock`: its time bank; absent "
                                             "otherwise.")] = UNSET


class GameConfig(msgspec.Struct):
    """How the game was set up (the engine's configuration)."""

    # Each installed seat kind's seat follows `variants`, under its id (darkroad.api.http.seat_kinds).

    players: Annotated[int, Meta(ge=2, le=4)]
    variants: Annotated[dict[str, bool], doc("The optional rules in play (`drafting`, `advanced_deeds`).")]
    buildings: Annotated[list[str], doc("The building ids asked for at creation (empty: chosen by the server; "
                                         "the buildings in play are `board.buildings`).")]
    plugins: Annotated[dict[str, str], doc("The plugins the game needs, with their versions.")]


class Market(msgspec.Struct):
    """The market wheel and its dice."""

    wheel: Annotated[dict[str, int], doc("Each good type's current price in coins (the wheel's section).")]
    dice: Annotated[dict[str, Count], doc("Market dice on each good type's section (at most 2).")]
    set_aside: Annotated[Count, doc("Market dice bought this turn, rerolled in Rest.")]


class CommissionStack(msgspec.Struct):
    """One town's commission stack: only its top card is visible."""

    top: Annotated[str | None, doc("The top commission's id; null when the stack is empty.")]
    count: Annotated[Count, doc("Cards in the stack.")]


class BoardExtra(msgspec.Struct, omit_defaults=True):
    """Board state owned by plugins, keyed by component id (any JSON), and the draft."""

    draft: Annotated[
        list[list[str | None]] | msgspec.UnsetType,
        doc("While drafting: the stacks left, each `[steed id, starting hero id]` (null once taken)."),
    ] = msgspec.UNSET


class Board(msgspec.Struct):
    """The public board."""

    ringway: Annotated[list[str], doc("The districts clockwise around the Ringway; wagon space `s` lies between "
                                       "district `s - 1` and district `s`.")]
    buildings: Annotated[list[str], doc("The building ids on building spaces 1-4.")]
    market: Market
    commissions: Annotated[dict[str, CommissionStack], doc("Each town's commission stack, by town id.")]
    inn: Annotated[list[str | None], doc("The heroes at the Ringway Inn's 4 places (null: empty).")]
    hero_deck: Annotated[Count, doc("Cards left in the hero deck.")]
    courtyard: Annotated[list[str | None], doc("The deeds face up in the courtyard (null: empty).")]
    courtyard_banners: Annotated[list[list[str]], doc(
        "The bonus on the banner of each courtyard slot, as effects (base game: `[\"prestige:2\"]`, "
        "`[\"good:any\", \"horseshoe:1\"]`); the top of the deed deck gives none.")]
    deed_deck: Annotated[Count, doc("Cards left in the deed deck.")]
    companion_row: Annotated[list[str | None], doc("The face-up companion cards; the last carries the travel die "
                                                    "(null: empty).")]
    companion_deck: Annotated[Count, doc("Cards left in the companion deck.")]
    event_decks: Annotated[dict[str, Count], doc("Cards in each route's event deck, by route id.")]
    upgrades: Annotated[list[str], doc("The wagon upgrades left on the good fortune track.")]
    five_coins: Annotated[bool, doc("The 5 coins still lie on the good fortune track.")]
    dark_market: Literal["north", "east", "south", "west"]
    ruins: Literal["top_left", "top_right", "bottom_right", "bottom_left"]
    extra: BoardExtra


def _view_of(cls: type[Any], name: str | None = None, refined: dict[str, Meta] | None = None) -> type[msgspec.Struct]:
    """The view's struct of a core state class (attrs), named ``name`` in the document (default:
    the class's name): its fields with their core types and descriptions (``typing.Annotated`` on
    the class), a field that is ``None`` until set absent until set, ``extra`` (the plugins' keys,
    shown beside the fields) left out. Derived, so the document describes what the core keeps,
    written once. ``refined``: constraints the view promises beyond the core's type, by field (a
    score line's ``rank`` is 0 in the core until the game is ranked, from 1 in every view)."""
    hints = typing.get_type_hints(cls, include_extras=True)
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for a in attrs.fields(cls):
        if a.name == "extra":
            continue
        if a.default is None:  # X | None: absent until set
            (present,) = [t for t in typing.get_args(hints[a.name]) if t is not type(None)]
            fields.append((a.name, present | msgspec.UnsetType, msgspec.UNSET))
        else:
            kind = hints[a.name]
            fields.append((a.name, Annotated[kind, refined[a.name]] if refined and a.name in refined else kind))
    return msgspec.defstruct(name or cls.__name__, fields, omit_defaults=True, module=__name__,
                             namespace={"__doc__": cls.__doc__})


if TYPE_CHECKING:  # a struct made at run time: a type to check its uses against

    class Caravan(msgspec.Struct):
        """The caravan under way this turn (``darkroad.core.Caravan``, the view's ``caravan``)."""

else:
    Caravan = _view_of(EngineCaravan)


if TYPE_CHECKING:

    class ActionDie(msgspec.Struct):
        """A die in a player's action pool (``darkroad.core.PoolDie``)."""

    class WagonCompanion(msgspec.Struct):
        """A companion card on a wagon (``darkroad.core.CompanionCard``)."""

else:
    ActionDie = _view_of(EnginePoolDie, "ActionDie")
    WagonCompanion = _view_of(EngineCompanionCard, "WagonCompanion")


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

    grid: Annotated[Grid, doc("The main storage grid (5 rows of 6 cells in the base game), rows from the "
                               "top: each cell names the good covering it.")]
    fixed_tiles: Annotated[
        list[list[Annotated[list[int], Meta(min_length=2, max_length=2)]]],
        doc("Tiles fixed in the main grid (a wagon upgrade such as the Secret Compartment), each as the "
             "`[row, column]` cells it covers (null in `grid`)."),
    ]
    extra_grids: Annotated[list[Grid], doc("Extra grids (a steed's saddle bag), each like `grid`.")]
    slots: Annotated[Count, doc("Storage slots holding one good of any shape each (storage heroes, wagon "
                                 "upgrades).")]
    slot_goods: Annotated[list[Annotated[int, Meta(ge=0)]], doc("The goods (indexes in `goods`) kept in "
                                                                  "those slots.")]


class PlayerView(msgspec.Struct):
    """One player's wagon; `coins` and `deeds` are null unless it is the caller's (or the game is over)."""

    seat: Seat
    kind: str  # described with the installed seat kinds' ids (darkroad.api.http.seat_kinds)
    prestige: int
    position: Annotated[int, doc("The wagon's Ringway space, 0-4 (0: the start space).")]
    locked: Annotated[list[int | None], doc("The night dice in locked slots #1-#3 (null: empty in the last rounds).")]
    reserve: Annotated[list[int], doc("The night dice in the main reserve.")]
    spent: Annotated[Count, doc("Night dice in the spent pile.")]
    removed: Annotated[Count, doc("Night dice removed from the game.")]
    special_reserve: Annotated[list[int], doc("The illuminated dice in the special reserve.")]
    action_pool: list[ActionDie]
    lanterns: Count
    quartz: Count
    horseshoes: Count
    goods: Annotated[list[str], doc("The good tiles in the wagon (`potion`, `potion+` for the upgraded side).")]
    storage: Annotated[
        Storage | None,
        doc("Where the goods lie in the wagon's storage (one arrangement the engine found); null for an "
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
    name: Annotated[str | None, doc("The seat's name (see `GameView.seats`); null if none.")]


if TYPE_CHECKING:

    class ScoreLine(msgspec.Struct):
        """One seat's final score, field by field (``darkroad.core.ScoreLine``)."""

else:
    # The installed seat kinds' score notes are added to its descriptions (darkroad.api.http.seat_kinds).
    ScoreLine = _view_of(EngineScoreLine, refined={"rank": Meta(ge=1)})


class ProjectedScore(msgspec.Struct):
    """A seat's final score if the game ended now (rulebook p. 13: the lower of coins and prestige,
    the deeds' coins and prestige added first, plus victory points), as far as the caller may see
    it. The caller's own seat (and every seat once the game is over) is `known`: `total` is exact.
    Another seat's coins and deeds are hidden: its base score lies between 0 and its prestige, its
    secret deeds are not counted, so `low` and `high` bound what is public."""

    seat: Seat
    known: Annotated[bool, doc("Whether the caller sees everything the score counts (its own seat, or the "
                                "game is over).")]
    total: Annotated[int | None, doc("The projected final score; null unless `known`.")]
    low: Annotated[int, doc("The least it can be from what the caller sees (`total` when known): the "
                             "victory points known, with no coins.")]
    high: Annotated[int, doc("The most it can be from what the caller sees, before `secret_deeds` (`total` "
                              "when known): prestige plus the victory points known.")]
    coins: Annotated[int | None, doc("Coins with the deeds' coins; null unless `known`.")]
    prestige: Annotated[int, doc("Prestige (with the deeds' prestige when `known`).")]
    base: Annotated[int | None, doc("`min(coins, prestige)`; null unless `known`.")]
    vp: Annotated[int, doc("The victory points counted: deeds' and unused illuminated dice' (an automated "
                            "seat: those its kind counts, from what is public).")]
    secret_deeds: Annotated[Count, doc("Deeds the caller cannot see, not counted in `low` and `high`.")]


class GameView(msgspec.Struct):
    """The game as the caller may see it (a spectator sees only public information)."""

    schema_version: int
    version: Annotated[int, doc("Increases by one with every applied action (and every change of seats); "
                                 "the `ETag`.")]
    status: Annotated[
        Literal["waiting", "active", "finished"],
        doc("`waiting`: a seat is open, actions are refused until every seat is joined."),
    ]
    round: Annotated[int, Meta(ge=0, le=13, description="The round, 1-13 (13 is the last); 0 while drafting.")]
    phase: Annotated[str, doc("`setup`, `plan`, `move`, `activate`, `final_travel`, `finished`, ...")]
    active_seat: Seat
    start_seat: Seat
    seat: Annotated[Seat | None, doc("The caller's seat; null for a spectator.")]
    awaiting: Annotated[list[int], doc("Seats whose decision the game waits for.")]
    undo_available: Annotated[bool, doc("Whether the caller may take back its last action now "
                                         "(`POST .../undo`); always false for a spectator.")]
    decision: Decision | None
    config: GameConfig
    board: Board
    caravan: Annotated[Caravan | None, doc("The caravan under way; null when there is none.")]
    players: list[PlayerView]
    score: Annotated[list[ScoreLine] | None, doc("Each seat's final score; null until the game is over.")]
    winners: Annotated[list[int] | None, doc("The winning seats; null until the game is over.")]
    seats: Annotated[list[SeatView], doc("Who sits in each seat.")]
    turn_timeout: Annotated[int | None, doc("Seconds a player may take to decide before their seat may be "
                                             "handed to a bot; null: no timeout.")]
    timeout_bot: Annotated[str | None, doc("With a `turn_timeout` or a `clock`: the bot that takes over a seat "
                                            "awaited longer (its `BotInfo.id`); null: neither.")]
    clock: Annotated[GameClock | Unset, doc("The game's time banks (each seat's in `seats[i].clock`); absent: "
                                             "none.")] = UNSET
    projected: Annotated[
        list[ProjectedScore],
        doc("Each seat's projected final score, as far as the caller may see it. Absent from views kept "
             "before it was added (a replay of an older game's history)."),
    ] = msgspec.field(default_factory=list)


class ActionList(msgspec.Struct):
    """The caller's legal actions; POST any of them unchanged to act."""

    version: int
    status: Annotated[
        Literal["waiting", "active", "finished"],
        doc("`finished`: no action will ever be legal again; `waiting`: none until every seat is joined."),
    ]
    actions: Annotated[list[dict[str, Any]], doc("Empty when the game does not wait for the caller (or a bot "
                                                  "plays the caller's seat).")]
