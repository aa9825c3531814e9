"""The game state: a tree of attrs classes, serialised by the one converter in :mod:`serde`.

Everything that decides the next state lives here (including the RNG), so that
``same config + same actions = identical state``. Nothing global.

Goods are stored as short strings: ``"potion"`` is a basic potion, ``"potion+"`` the
upgraded side of the same tile (see :mod:`goods`).
"""

from __future__ import annotations

import warnings
from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from typing import Annotated, Any

import msgspec
from attrs import NOTHING, Factory, define, field, fields
from msgspec import Meta

SCHEMA_VERSION = 3
"""Version 3: the turn (:class:`Turn`) and its caravan (:class:`Caravan`) are typed, each with
an ``extra`` mapping for plugins' keys. Version 2: the settings and seat state of plugins (a
seat kind's) moved from fields of their own into ``GameConfig.options`` and ``Player.extra``.
:func:`serde.upgrade` reads both older versions."""

FINISHED = "finished"
"""The phase of a finished game (:attr:`Game.finished`): the one spelling, which the hot paths
compare with directly."""


class PluginVersions(Mapping[str, str]):
    """The plugins a game was made with, by name: version (:attr:`GameConfig.plugins`), as an
    immutable mapping: a game's plugins do not change while it is played, and a hand edit
    replaces them (``config.plugins = {...}``, made a ``PluginVersions`` on assignment) rather
    than changing them in place.

    Being a value, what is made of it alone is made once, on first use: its MessagePack, which
    every stored game carries (:meth:`Serde.pack`, through the encoders' ``enc_hook``), and its
    JSON, which every view's ``config`` block shows: a game names about 60 plugins, and the two,
    made once, save 3.6% of the ``action`` workload (``benchmarks/instructions.py --workloads
    action --without plugin-versions``)."""

    __slots__ = ("_versions", "_packed", "_json")

    def __init__(self, versions: Mapping[str, str] | Iterable[tuple[str, str]] = ()) -> None:
        self._versions: dict[str, str] = dict(versions)
        self._packed: msgspec.Raw | None = None
        self._json: msgspec.Raw | None = None

    @classmethod
    def of(cls, versions: Mapping[str, str] | Iterable[tuple[str, str]]) -> PluginVersions:
        """``versions`` as a ``PluginVersions`` (itself when it is one)."""
        return versions if isinstance(versions, cls) else cls(versions)

    def __getitem__(self, name: str) -> str:
        return self._versions[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._versions)

    def __len__(self) -> int:
        return len(self._versions)

    def __contains__(self, name: object) -> bool:
        return name in self._versions

    def get(self, name: str, default: Any = None) -> Any:
        return self._versions.get(name, default)

    def keys(self) -> KeysView[str]:
        return self._versions.keys()

    def items(self) -> ItemsView[str, str]:
        return self._versions.items()

    def values(self) -> ValuesView[str]:
        return self._versions.values()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PluginVersions):
            return self._versions == other._versions
        return isinstance(other, Mapping) and self._versions == dict(other.items())

    def __hash__(self) -> int:
        return hash(frozenset(self._versions.items()))

    def __repr__(self) -> str:
        return repr(self._versions)

    def __reduce__(self) -> tuple[type[PluginVersions], tuple[dict[str, str]]]:
        return (PluginVersions, (self._versions,))

    @property
    def packed(self) -> msgspec.Raw:
        """The versions as a MessagePack map (what ``msgspec.msgpack.encode(dict(self))`` gives)."""
        packed = self._packed
        if packed is None:
            packed = self._packed = msgspec.Raw(msgspec.msgpack.encode(self._versions))
        return packed

    @property
    def json(self) -> msgspec.Raw:
        """The versions as a JSON object (what ``msgspec.json.encode(dict(self))`` gives)."""
        encoded = self._json
        if encoded is None:
            encoded = self._json = msgspec.Raw(msgspec.json.encode(self._versions))
        return encoded


def _plugin_versions(versions: Mapping[str, str] | Iterable[tuple[str, str]]) -> PluginVersions:
    """:attr:`GameConfig.plugins`' converter (:meth:`PluginVersions.of`)."""
    return PluginVersions.of(versions)


def msgpack_hook(obj: Any) -> Any:
    """The MessagePack encoders' ``enc_hook`` for the state's own value types (a
    :class:`PluginVersions`: its MessagePack, made once)."""
    if isinstance(obj, PluginVersions):
        return obj.packed
    raise NotImplementedError(f"cannot encode a {type(obj).__name__}")


def json_hook(obj: Any) -> Any:
    """The JSON encoders' ``enc_hook`` for the state's own value types (a :class:`PluginVersions`:
    its JSON, made once)."""
    if isinstance(obj, PluginVersions):
        return obj.json
    raise NotImplementedError(f"cannot encode a {type(obj).__name__}")


@define(kw_only=True)
class GameConfig:
    """What a game was created with. Immutable after creation: its plugins are a
    :class:`PluginVersions`; replace a config (or its ``plugins``), never change it in place."""

    players: int = 2
    seed: int = 0
    buildings: list[str] = Factory(list)
    """The 4 building ids in play, in building-space order 1..4 (empty = decided at setup)."""
    random_buildings: bool = False
    variants: dict[str, Any] = Factory(dict)
    """Game options: ``drafting`` (bool), ``advanced_deeds`` (bool)."""
    companions: list[str] = Factory(list)
    """Extra companion card ids added to the companion deck (fan companions)."""
    plugins: Mapping[str, str] = field(factory=PluginVersions, converter=_plugin_versions)
    """Plugin name -> version of every plugin providing a component this game uses (a
    :class:`PluginVersions`: assigning a dict makes one of it)."""
    options: dict[str, Any] = Factory(dict)
    """Settings that plugins define, by name: a seat kind's (``<kind>: true`` puts it in a
    seat, ``<kind>_seat: n`` chooses which; ``players`` counts it). Every option must belong
    to an installed plugin."""

    def __attrs_post_init__(self) -> None:
        # msgspec decodes a config without its __init__ (the converter): the plugins come as a dict.
        if type(self.plugins) is not PluginVersions:
            self.plugins = self.plugins


@define(kw_only=True)
class PoolDie:
    """A die in a player's action pool."""

    # Described for the HTTP API's document, which derives the view's ActionDie from this class.
    kind: Annotated[str, Meta(description="`night` or `illuminated`.")]
    value: int


CONFIG_FIELDS = frozenset(a.name for a in fields(GameConfig))
"""The names of ``GameConfig``'s fields (any other config key is an option a plugin reads)."""


@define(kw_only=True)
class CompanionCard:
    """A companion card on a wagon."""

    # Described for the HTTP API's document, which derives the view's WagonCompanion from this class.
    card: Annotated[str, Meta(description="The card id (`<companion id>-<copy>`).")]
    gifts: Annotated[list[int], Meta(description="The abilities already used (their indexes), for a loyal "
                                                 "companion.")] = Factory(list)
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


class _Keyed:
    """Read and write a record by key, as when it was a dict: deprecated (a plugin reads the
    attributes, and keeps its own keys in ``extra``). A field's key reads and writes the field
    (a field that is ``None`` is absent); any other key is one of ``extra``."""

    __slots__ = ()
    extra: dict[str, Any]

    def _field(self, key: str) -> bool:
        _deprecated(type(self).__name__)
        return key != "extra" and key in _FIELDS[type(self)]

    def __getitem__(self, key: str) -> Any:
        if self._field(key):
            value = getattr(self, key)
            if value is None:
                raise KeyError(key)
            return value
        return self.extra[key]

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __setitem__(self, key: str, value: Any) -> None:
        if self._field(key):
            setattr(self, key, value)
        else:
            self.extra[key] = value

    def pop(self, key: str, default: Any = None) -> Any:
        value = self.get(key, default)
        if self._field(key):
            setattr(self, key, fields_defaults(type(self))[key])
        else:
            self.extra.pop(key, None)
        return value

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def __iter__(self) -> Iterator[str]:
        _deprecated(type(self).__name__)
        return iter([*(k for k in _FIELDS[type(self)] if k != "extra" and getattr(self, k) is not None), *self.extra])


def _deprecated(record: str) -> None:
    warnings.warn(f"reading or writing game.turn (a {record}) by key is deprecated: read its attributes, and keep "
                  "a plugin's own keys in its extra mapping", DeprecationWarning, stacklevel=4)


def fields_defaults(cls: type) -> dict[str, Any]:
    """Each field of attrs class ``cls`` -> its default (``None`` for a field without one)."""
    out: dict[str, Any] = {}
    for a in fields(cls):
        default = a.default
        out[a.name] = default.factory() if hasattr(default, "factory") else (None if default is NOTHING else default)
    return out


@define(kw_only=True)
class Caravan(_Keyed):
    """The caravan under way this turn; fields appear as it goes."""

    leader: Annotated[int, Meta(ge=0, le=3, description="The seat leading it.")]
    route: Annotated[str, Meta(description="The route id.")]
    town: Annotated[str, Meta(description="The destination town id.")]
    members: Annotated[list[int], Meta(description="The seats travelling, the leader first.")]
    extra_die: Annotated[bool, Meta(description="A companion adds a travel die.")]
    event: Annotated[str, Meta(description="The event card revealed (once revealed).")] | None = None
    dice: Annotated[list[int], Meta(description="The travel dice not taken yet.")] | None = None
    rolled: Annotated[list[int], Meta(description="Every travel die rolled, rerolls included.")] | None = None
    taken: Annotated[dict[str, int], Meta(description="The event card face each seat took, by seat number.")] \
        | None = None
    extra: dict[str, Any] = Factory(dict)
    """Keys of plugins (a seat kind's ``ViewBlock`` with ``where="caravan"``), JSON-able: the
    view's ``caravan`` shows them beside the fields."""


@define(kw_only=True)
class Turn(_Keyed):
    """The bookkeeping of the turn under way, kept apart from the board (boardgame.io's
    ``ctx`` beside its ``G``): a new turn starts with a fresh one."""

    seat: int | None = None
    """Whose turn it is (``None`` before the first turn and in the final travel)."""
    horseshoe: bool = False
    """A horseshoe moved the wagon this turn ("You may only spend 1 horseshoe per turn", p. 7)."""
    extra_die: bool = False
    """The companion just taken for a caravan brings the extra travel die (until the route is
    declared: then :attr:`Caravan.extra_die`)."""
    caravan: Caravan | None = None
    """The caravan under way."""
    undo: dict[str, Any] | None = None
    """The engine's undo chain (core/undo.py)."""
    extra: dict[str, Any] = Factory(dict)
    """Per-turn state of plugins, keyed by the plugin's component id (a companion's flag);
    JSON-able."""


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
    """One seat's final score, field by field.

    `total = base + deed_vp + illuminated_vp + goods_vp + quartz_vp`, where
    `base = min(coins, prestige)`. Ties are broken by `discarded`, then `gifts`,
    `commissions_delivered` and `heroes_delivered`; `rank` says the outcome.
    """

    # Described for the HTTP API's document, which derives the view's ScoreLine from this class.
    seat: Annotated[int, Meta(ge=0, le=3)]
    coins: Annotated[int, Meta(description="Coins at the end, the deeds' coins included.")]
    prestige: Annotated[int, Meta(description="Prestige at the end, the deeds' prestige included.")]
    base: Annotated[int, Meta(description="`min(coins, prestige)`: the base score.")]
    deed_vp: Annotated[int, Meta(description="VP from deeds.")]
    illuminated_vp: Annotated[int, Meta(description="1 VP per illuminated die held but not used.")]
    total: Annotated[int, Meta(description="`base + deed_vp + illuminated_vp + goods_vp + quartz_vp`.")]
    discarded: Annotated[int, Meta(description="`max(coins, prestige)`: the first tie-breaker.")]
    gifts: Annotated[int, Meta(description="Gifts on loyal companions: the second tie-breaker.")]
    commissions_delivered: Annotated[int, Meta(description="The third tie-breaker.")]
    heroes_delivered: Annotated[int, Meta(description="The fourth tie-breaker.")]
    rank: Annotated[int, Meta(description="1 for the winners; seats equal on every tie-breaker share a rank.")] = 0
    """0 until the game is ranked (:func:`~darkroad.core.rulebook.scoring.rank`)."""
    details: Annotated[list[str], Meta(description="Each deed's contribution, in words.")] = Factory(list)
    goods_vp: Annotated[int, Meta(description="An automated seat only: VP for the goods it holds (0 for "
                                              "players).")] = 0
    """VP for the goods held, for a seat kind that scores them (0 for players)."""
    quartz_vp: Annotated[int, Meta(description="An automated seat only: VP for its blazing quartz (0 for "
                                               "players).")] = 0
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
    turn: Turn = Factory(Turn)
    """The bookkeeping of the turn under way (:class:`Turn`)."""
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
        return self.phase == FINISHED

    def player(self, seat: int) -> Player:
        return self.players[seat]


_FIELDS: dict[type, frozenset[str]] = {cls: frozenset(a.name for a in fields(cls)) for cls in (Turn, Caravan)}

__all__ = [
    "SCHEMA_VERSION",
    "Board",
    "Caravan",
    "CompanionCard",
    "Event",
    "Game",
    "GameConfig",
    "Player",
    "PluginVersions",
    "PoolDie",
    "ScoreLine",
    "Task",
    "Turn",
    "field",
]
