"""The game state: a tree of attrs classes, serialised by the one converter in :mod:`serde`.

Everything that decides the next state lives here (including the RNG), so that
``same config + same actions = identical state``. Nothing global.

Goods are stored as short strings: ``"potion"`` is a basic potion, ``"potion+"`` the
upgraded side of the same tile (see :mod:`goods`).
"""

from __future__ import annotations

from typing import Any

from attrs import Factory, define, field, fields

SCHEMA_VERSION = 2
"""Version 2: the settings and seat state of plugins (a seat kind's) moved from fields of their
own into ``GameConfig.options`` and ``Player.extra`` (:func:`serde.upgrade` reads version 1)."""


@define(kw_only=True)
class GameConfig:
    """What a game was created with. Immutable after creation."""

    players: int = 2
    seed: int = 0
    buildings: list[str] = Factory(list)
    """The 4 building ids in play, in building-space order 1..4 (empty = decided at setup)."""
    random_buildings: bool = False
    variants: dict[str, Any] = Factory(dict)
    """Game options: ``drafting`` (bool), ``advanced_deeds`` (bool)."""
    companions: list[str] = Factory(list)
    """Extra companion card ids added to the companion deck (fan companions)."""
    plugins: dict[str, str] = Factory(dict)
    """Plugin name -> version of every plugin providing a component this game uses."""
    options: dict[str, Any] = Factory(dict)
    """Settings that plugins define, by name: a seat kind's (``<kind>: true`` puts it in a
    seat, ``<kind>_seat: n`` chooses which; ``players`` counts it). Every option must belong
    to an installed plugin."""


@define(kw_only=True)
class PoolDie:
    """A die in a player's action pool."""

    kind: str  # "night" | "illuminated"
    value: int


CONFIG_FIELDS = frozenset(a.name for a in fields(GameConfig))
"""The names of ``GameConfig``'s fields (any other config key is an option a plugin reads)."""


@define(kw_only=True)
class CompanionCard:
    """A companion card on a player's wagon; ``gifts`` marks the used abilities (loyal)."""

    card: str
    gifts: list[int] = Factory(list)
    """Indexes of abilities already triggered (a blazing quartz sits on each)."""


@define(kw_only=True)
class Player:
    seat: int
    kind: str = "human"
    """``"human"`` (a player's seat), or the id of the seat kind that plays it (core/seats.py)."""
    coins: int = 5
    prestige: int = 0
    position: int = 0
    """Ringway space 0..4; 0 is the start space between the Ringway Inn and the Great Bazaar."""
    locked: list[int | None] = Factory(lambda: [1, 2, 3])
    """Values of the night dice in locked slots #1, #2, #3 (None = empty in the last rounds)."""
    reserve: list[int] = Factory(list)
    """Values of the night dice in the main reserve."""
    spent: int = 0
    """Night dice in the spent pile (their faces do not matter: they are rerolled)."""
    removed: int = 0
    """Night dice removed from the game at the end of rounds 4, 7, 9, 10."""
    special: list[int] = Factory(list)
    """Illuminated dice in the special reserve (their values)."""
    pool: list[PoolDie] = Factory(list)
    lanterns: int = 0
    quartz: int = 0
    horseshoes: int = 0
    goods: list[str] = Factory(list)
    heroes: list[str] = Factory(list)
    commissions: list[str] = Factory(list)
    deeds: list[str] = Factory(list)
    steeds: list[str] = Factory(list)
    upgrades: list[str] = Factory(list)
    companions: list[CompanionCard] = Factory(list)
    delivered_commissions: list[str] = Factory(list)
    delivered_heroes: list[str] = Factory(list)
    extra: dict[str, Any] = Factory(dict)
    """State of this seat owned by plugins (a seat kind's), keyed by name; JSON-able. Not in
    views: a seat kind shows what is public of it."""


@define(kw_only=True)
class Board:
    wheel_offset: int = 0
    """Index (in the wheel order of goods) of the good type whose section sits at $5."""
    market: list[int] = Factory(lambda: [0] * 6)
    """Market dice per good type (wheel order); at most 2 per section."""
    set_aside: int = 0
    """Market dice bought this turn, rerolled in Rest."""
    buildings: list[str] = Factory(list)
    """Building ids on building spaces 1..4 (index 0 = space 1)."""
    commission_stacks: dict[str, list[str]] = Factory(dict)
    """Town -> commission ids, index 0 is the top (the only visible one)."""
    hero_deck: list[str] = Factory(list)
    inn: list[str | None] = Factory(lambda: [None] * 4)
    deed_deck: list[str] = Factory(list)
    courtyard: list[str | None] = Factory(lambda: [None, None])
    companion_deck: list[str] = Factory(list)
    companion_row: list[str | None] = Factory(lambda: [None] * 3)
    """Face-up companions; index 2 is farthest from the deck and carries the travel die."""
    events: dict[str, list[str]] = Factory(dict)
    """Route -> event deck, index 0 is the top."""
    upgrades: list[str] = Factory(list)
    """The wagon upgrade stack on the good fortune track (all available)."""
    five_coins: bool = True
    """The $5 still sits on the good fortune track."""
    dark_market: int = 2
    """Dark market marker: 0 north, 1 east, 2 south, 3 west (clockwise)."""
    ruins: int = 3
    """Ruins marker: 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left (clockwise)."""
    extra: dict[str, Any] = Factory(dict)
    """Board state owned by plugins, keyed by plugin component id."""


@define(kw_only=True)
class Task:
    """One step on the engine's stack: automatic, or a decision waiting for an action."""

    kind: str
    seat: int = -1
    data: dict[str, Any] = Factory(dict)


@define(kw_only=True)
class Event:
    """Something that happened. ``private_to`` set = only that seat sees it."""

    n: int
    type: str
    seat: int | None = None
    private_to: int | None = None
    data: dict[str, Any] = Factory(dict)


@define(kw_only=True)
class ScoreLine:
    seat: int
    coins: int
    prestige: int
    base: int
    deed_vp: int
    illuminated_vp: int
    total: int
    discarded: int
    gifts: int
    commissions_delivered: int
    heroes_delivered: int
    rank: int = 0
    details: list[str] = Factory(list)
    goods_vp: int = 0
    """VP for the goods held, for a seat kind that scores them (0 for players)."""
    quartz_vp: int = 0
    """VP for the blazing quartz held, for a seat kind that scores them (0 for players)."""


@define(kw_only=True)
class Game:
    """The whole game. ``version`` increases by one with every applied action."""

    schema_version: int = SCHEMA_VERSION
    config: GameConfig
    version: int = 0
    round: int = 0
    phase: str = "setup"
    start_seat: int = 0
    active: int = 0
    """The seat whose turn it is."""
    players: list[Player] = Factory(list)
    board: Board = Factory(Board)
    stack: list[Task] = Factory(list)
    """Pending steps; the last item is the top."""
    turn: dict[str, Any] = Factory(dict)
    """Per-turn bookkeeping (horseshoe used, activations left, refills due, ...)."""
    rng: list[int] = Factory(lambda: [0, 0, 0, 0])
    """xoshiro128** state."""
    events: int = 0
    """How many events have been emitted (the next event's ``n``). The events and the
    applied actions themselves are kept by the caller, not in the state, so the state
    stays small; replaying the actions from the config reproduces the state."""
    score: list[ScoreLine] = Factory(list)
    winners: list[int] = Factory(list)

    @property
    def finished(self) -> bool:
        return self.phase == "finished"

    def player(self, seat: int) -> Player:
        return self.players[seat]


__all__ = [
    "SCHEMA_VERSION",
    "Board",
    "CompanionCard",
    "Event",
    "Game",
    "GameConfig",
    "Player",
    "PoolDie",
    "ScoreLine",
    "Task",
    "field",
]
