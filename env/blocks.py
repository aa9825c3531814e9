"""The observation's blocks kept up to date field by field (:class:`Block`): the board's, and
each seat's (:class:`SeatBlock`), as the bytes of ``float32``s the observation is joined from.

An action changes a few fields of one seat and, one step in four, a few of the board's. A
block keeps the values its fields were written from (copies: a list changed in place is a
change) and, on each observation, compares them with the game's values now, in one tuple
comparison: when they differ, only the fields whose value differs are written again. So the
game is read once a step and encoded only where it changed, whatever changed it (an action,
a test or a tool changing the game by hand, another game: the values are compared, not the
objects), and the observation is the one :meth:`Encoder.encode_full` makes from scratch
(``tests/test_env.py`` compares them at every step of random games).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Sequence
from itertools import compress
from operator import attrgetter, ne
from typing import TYPE_CHECKING, Any

from darkroad.core import HUMAN, Board, Player

if TYPE_CHECKING:
    from .observation import Layout

SCALE = 10.0
"""Counts (coins, prestige, goods, deck sizes) are divided by this."""
DIE_FACES = 7
"""Die values 0-6 (a locked slot: one-hot of its value, none when empty)."""
STACK_SIZE = 5.0
"""A commission stack's size is divided by this."""

Write = Callable[[bytearray, Any], None]
"""Writes one field of a block from its value (the block's bytes, the value)."""
Places = Callable[[Any], Iterable[int]]
"""A field's value as the places it counts 1 at (within the field; ``width``: nowhere)."""


def counts(lo: int, width: int, places: Places) -> Write:
    """A one-hot or multi-hot field of ``width`` numbers at ``lo``: how many times each place
    comes in ``places(value)`` (two potions count 2); a place of ``width`` or more (an id the
    layout does not know) counts nowhere. An empty value (most fields, most of the game:
    no special dice, no upgrades) writes the zeros made once."""
    pack = struct.Struct(f"={width}f").pack
    start, end = 4 * lo, 4 * (lo + width)
    zeros = bytes(end - start)
    nothing = [0.0] * (width + 1)

    def write(buf: bytearray, value: Any) -> None:
        if not value:
            buf[start:end] = zeros
            return
        hot = nothing[:]
        for i in places(value):
            hot[i] += 1.0
        del hot[width]
        buf[start:end] = pack(*hot)

    return write


def id_counts(lo: int, width: int, index: dict[Any, int]) -> Write:
    """A multi-hot field of a list of ids (:func:`counts` of their places in ``index``),
    looked up without a Python call per id (a ``_Sink`` given as ``index`` answers for the
    ids it does not know; any other dict's unknown ids count nowhere)."""
    pack = struct.Struct(f"={width}f").pack
    start, end = 4 * lo, 4 * (lo + width)
    zeros = bytes(end - start)
    nothing = [0.0] * (width + 1)
    place = (index if isinstance(index, _Sink) else _Sink(index, width)).__getitem__

    def write(buf: bytearray, value: Any) -> None:
        if not value:
            buf[start:end] = zeros
            return
        hot = nothing[:]
        for i in map(place, value):
            hot[i] += 1.0
        del hot[width]
        buf[start:end] = pack(*hot)

    return write


def slot_hots(lo: int, size: int, index: dict[Any, int], slots: int) -> Write:
    """One one-hot of ``size`` per slot (a list of ``slots`` ids, ``None`` for an empty slot,
    which with an id ``index`` does not know sets none): each slot's bytes made once per id
    and joined, no number packed at a write."""
    pack = struct.Struct(f"={size}f").pack
    start, end = 4 * lo, 4 * (lo + size * slots)
    hots = {k: pack(*(1.0 if j == i else 0.0 for j in range(size))) for k, i in index.items() if 0 <= i < size}
    tables = [_Sink(hots, bytes(4 * size)) for _ in range(slots)]
    get = dict.__getitem__  # a _Sink's __missing__ answers for an empty slot or an unknown id

    def write(buf: bytearray, value: Any) -> None:
        if len(value) != slots:  # (never, in the base game: a short list's last slots are empty)
            value = [*value[:slots], *[None] * (slots - len(value))]
        buf[start:end] = b"".join(map(get, tables, value))

    return write


def scaled(at: int, scale: float, of: Callable[[Any], int] | None = None) -> Write:
    """A number at ``at``: the value (or ``of(value)``, a C function: ``len``) divided by
    ``scale``, with no Python call of its own."""
    pack_into = struct.Struct("=f").pack_into
    start = 4 * at
    if of is None:
        def write(buf: bytearray, value: Any) -> None:
            pack_into(buf, start, value / scale)
    else:
        size = of

        def write(buf: bytearray, value: Any) -> None:
            pack_into(buf, start, size(value) / scale)

    return write


def scalar(at: int, of: Callable[[Any], float]) -> Write:
    """A number at ``at``: ``of(value)``."""
    pack_into = struct.Struct("=f").pack_into
    start = 4 * at

    def write(buf: bytearray, value: Any) -> None:
        pack_into(buf, start, of(value))

    return write


class _Sink(dict[Any, Any]):
    """Places (or bytes) by id; an id it does not know (or ``None``: an empty slot) gets ``sink``."""

    __slots__ = ("sink",)

    def __init__(self, items: dict[Any, Any], sink: Any) -> None:
        super().__init__(items)
        self.sink = sink

    def __missing__(self, key: object) -> Any:
        return self.sink


def one_hot(lo: int, width: int) -> Write:
    """A one-hot of a number modulo ``width``, from its bytes made once."""
    start, end = 4 * lo, 4 * (lo + width)
    pack = struct.Struct(f"={width}f").pack
    hots = [pack(*(1.0 if j == i else 0.0 for j in range(width))) for i in range(width)]

    def write(buf: bytearray, value: int) -> None:
        buf[start:end] = hots[value % width]

    return write


def _kept(v: Any) -> Any:
    """A value as a block keeps it: a list copied, a dict's lists too (the game changes them
    in place)."""
    if v.__class__ is list:
        return v[:]
    if v.__class__ is dict:
        return {k: x[:] if x.__class__ is list else x for k, x in v.items()}
    return v


class Block:
    """A block of ``width`` numbers (as bytes) written by ``fields``: ``(k, write)``, the field
    written from item ``k`` of the block's values (several fields may read one value)."""

    __slots__ = ("buf", "kept", "places", "writers")

    def __init__(self, width: int, fields: Sequence[tuple[int, Write]]) -> None:
        self.buf = bytearray(4 * width)
        writers: dict[int, list[Write]] = {}
        for k, write in fields:
            writers.setdefault(k, []).append(write)
        self.writers = [tuple(writers.get(k, ())) for k in range(max(writers) + 1)]
        """The fields written from each value, by its place among the values."""
        self.places = range(len(self.writers))
        self.kept: list[Any] = []
        """The values the fields were last written from (copies): the block's own list,
        changed in place, compared with a list of the game's values now."""

    def update(self, values: list[Any]) -> None:
        """Write again the fields whose values differ from the values the block was last
        written from (every field the first time). Called when ``values`` differ from them."""
        kept = self.kept
        if not kept:
            for k, v in enumerate(values):
                for write in self.writers[k]:
                    write(self.buf, v)
            self.kept = list(map(_kept, values))
            return
        buf, writers = self.buf, self.writers
        for k in compress(self.places, map(ne, values, kept)):
            v = values[k]
            kept[k] = v[:] if v.__class__ is list else _kept(v)
            for write in writers[k]:
                write(buf, v)


def numbers(lo: int, width: int, of: Callable[[Any], Iterable[float]]) -> Write:
    """``width`` numbers from ``lo``: ``of(value)``."""
    pack = struct.Struct(f"={width}f").pack
    start, end = 4 * lo, 4 * (lo + width)

    def write(buf: bytearray, value: Any) -> None:
        buf[start:end] = pack(*of(value))

    return write


class _Fields:
    """Makes a block's fields from the layout's places, within the block that starts at ``lo``."""

    def __init__(self, layout: Layout, lo: int, prefix: str = "") -> None:
        self.at = {name[len(prefix):]: (off - lo, width) for name, off, width in layout.fields
                   if name.startswith(prefix)}
        self.scale = SCALE

    def count(self, field: str, places: Callable[[int], Places], fields: int = 1) -> Write:
        """A one-hot or multi-hot field, or ``fields`` such fields of the same width one after
        the other (``places(width)``: its value's places)."""
        lo, width = self.at[field]
        return counts(lo, fields * width, places(fields * width))

    def ids(self, field: str, index: dict[Any, int]) -> Write:
        """A multi-hot field of ids (a list of them; an id ``index`` does not know: nowhere)."""
        return id_counts(*self.at[field], index)

    def slots(self, field: str, index: dict[Any, int], slots: int) -> Write:
        """A one-hot of ``index``'s ids per slot (a list of ids or ``None``, one a slot)."""
        lo, width = self.at[field]
        return slot_hots(lo, width // slots, index, slots)

    def mod(self, field: str) -> Write:
        """A one-hot of a number modulo the field's width."""
        return one_hot(*self.at[field])

    def number(self, field: str, of: Callable[[Any], float] | None = None) -> Write:
        """A number: ``of(value)``, by default the value divided by :data:`SCALE`."""
        if of is not None:
            return scalar(self.at[field][0], of)
        return scaled(self.at[field][0], self.scale)

    def length(self, field: str) -> Write:
        """A list's length divided by :data:`SCALE`."""
        return scaled(self.at[field][0], self.scale, len)


_NONE = ()
(KIND, PRESTIGE, POSITION, LOCKED, RESERVE, SPECIAL, SPENT, REMOVED, LANTERNS, QUARTZ, HORSESHOES, GOODS, HEROES,
 COMMISSIONS, STEEDS, UPGRADES, DELIVERED_COMMISSIONS, DELIVERED_HEROES, DEEDS, COINS, POOL, COMPANIONS) = range(22)


_KIND_VALUE = attrgetter("kind", "value")
"""A die in play as ``(kind, value)``."""


def seat_values(p: Player) -> list[Any]:
    """A seat block's values, in the order of the names above: its fields, then its dice in
    play and its companions as ``(kind, value)`` and ``(card, gifts used)`` pairs (their
    records may change in place). Read attribute by attribute, not with one
    ``operator.attrgetter``: on a slotted class the interpreter's specialised attribute reads
    are cheaper than the generic lookup ``attrgetter`` makes for each name."""
    pool, companions = p.pool, p.companions
    return [p.kind, p.prestige, p.position, p.locked, p.reserve, p.special, p.spent, p.removed, p.lanterns,
            p.quartz, p.horseshoes, p.goods, p.heroes, p.commissions, p.steeds, p.upgrades,
            p.delivered_commissions, p.delivered_heroes, p.deeds, p.coins,
            tuple(map(_KIND_VALUE, pool)) if pool else _NONE,
            [(c.card, len(c.gifts)) for c in companions] if companions else _NONE]


class _PoolPlaces(_Sink):
    """A die in play's place, by ``(kind, value)``: a die of a kind the layout does not know
    counts as a night die, as encode_full does; a value it does not know, nowhere."""

    __slots__ = ()

    def __missing__(self, key: Any) -> Any:
        if key[0] == "illuminated":
            return self.sink
        return self.get(("night", key[1]), self.sink)


def coins_known(at: int, scale: float) -> Write:
    """``coins_known`` (1) and ``coins`` (scaled) at ``at``: the seat's own coins."""
    pack_into = struct.Struct("=2f").pack_into
    start = 4 * at

    def write(buf: bytearray, value: Any) -> None:
        pack_into(buf, start, 1.0, value / scale)

    return write


def seat_fields(layout: Layout) -> list[tuple[int, Write]]:
    """The fields of a seat block (block 0's places, counted from its start)."""
    f = _Fields(layout, layout.seat_offset, "seat.")
    faces = {d: d for d in range(DIE_FACES)}
    night = {("night", d): d for d in range(DIE_FACES)}
    pool = _PoolPlaces(night | {("illuminated", d): DIE_FACES + d for d in range(DIE_FACES)}, 2 * DIE_FACES)

    cards = {card: layout.companions[c] for card, c in layout.card_companion.items() if c in layout.companions}

    def companion_places(width: int) -> Places:
        return lambda value: [cards.get(card, width) for card, _ in value]

    scale = f.scale
    return [
        (KIND, f.number("automated", lambda kind: 0.0 if kind == HUMAN else 1.0)),
        (PRESTIGE, f.number("prestige")),
        (POSITION, f.mod("position")),
        (LOCKED, f.slots("locked", faces, 3)),
        (RESERVE, f.ids("reserve", faces)),
        (SPECIAL, f.ids("special", faces)),
        (SPENT, f.number("spent")),
        (REMOVED, f.number("removed")),
        (LANTERNS, f.number("lanterns")),
        (QUARTZ, f.number("quartz")),
        (HORSESHOES, f.number("horseshoes")),
        (GOODS, f.ids("goods", layout.goodx_index)),
        (HEROES, f.ids("heroes", layout.heroes)),
        (COMMISSIONS, f.ids("commissions", layout.commissions)),
        (STEEDS, f.ids("steeds", layout.steeds)),
        (UPGRADES, f.ids("upgrades", layout.upgrades)),
        (DELIVERED_COMMISSIONS, f.length("delivered_commissions")),
        (DELIVERED_HEROES, f.length("delivered_heroes")),
        (DEEDS, f.length("deed_count")),
        (DEEDS, f.ids("deeds", layout.deeds)),
        (COINS, coins_known(f.at["coins_known"][0], scale)),  # the seat's own view
        (POOL, id_counts(f.at["pool_night"][0], 2 * DIE_FACES, pool)),  # pool_night, then pool_illuminated
        (COMPANIONS, f.count("companions", companion_places)),
        (COMPANIONS, f.number("gifts", lambda value: sum(g for _, g in value) / scale)),
    ]


class SeatBlock:
    """A seat's block, kept up to date by a :class:`Block` as the seat sees itself (its coins
    and deeds in it: the block's buffer, which the encoder joins as it is), and as the others
    see it, without its coins and deeds (:attr:`public_bytes`), made when first asked for
    after a change (``None`` until then). The encoder checks the values and reads the bytes
    itself (:meth:`Encoder.encode`: no call a seat when nothing changed); :meth:`own` and
    :meth:`public` do the same in one call."""

    __slots__ = ("block", "coins", "deeds", "public_bytes", "zero_deeds")

    def __init__(self, layout: Layout, fields: Sequence[tuple[int, Write]]) -> None:
        self.block = Block(layout.seat_width, fields)
        self.block.buf[:4] = _ONE  # "present"
        at = {name: off - layout.seat_offset for name, off, _ in layout.fields}
        self.coins = 4 * at["seat.coins_known"]
        """Where ``coins_known`` is, as bytes (``coins`` follows it)."""
        self.deeds = 4 * at["seat.deeds"]
        """Where the deeds are, as bytes: the block's last field."""
        self.zero_deeds = bytes(4 * layout.seat_width - self.deeds)
        self.public_bytes: bytes | None = None

    def update(self, values: list[Any]) -> None:
        """Write the fields whose values changed (:meth:`Block.update`, called when they
        differ); the others' view is then made again when asked for."""
        self.block.update(values)
        self.public_bytes = None

    def make_public(self) -> bytes:
        """The block's bytes as the others see the seat (kept as :attr:`public_bytes`)."""
        buf, c = self.block.buf, self.coins
        self.public_bytes = b"".join((buf[:c], _NO_COINS, buf[c + 8:self.deeds], self.zero_deeds))
        return self.public_bytes

    def own(self, p: Player) -> bytes:
        """The block as seat ``p`` sees itself."""
        values = seat_values(p)
        if values != self.block.kept:
            self.update(values)
        return bytes(self.block.buf)

    def public(self, p: Player) -> bytes:
        """The block as the other seats see seat ``p``."""
        values = seat_values(p)
        if values != self.block.kept:
            self.update(values)
        return self.public_bytes or self.make_public()


_ONE = struct.pack("=f", 1.0)
_NO_COINS = bytes(8)

(WHEEL, DARK_MARKET, RUINS, BUILDINGS, INN, COURTYARD, COMPANION_ROW, BOARD_UPGRADES, FIVE_COINS, MARKET, SET_ASIDE,
 STACKS, HERO_DECK, DEED_DECK, COMPANION_DECK) = range(15)


def board_values(b: Board) -> list[Any]:
    """The board block's values, in the order of the names above (the decks by their sizes:
    their order is hidden); read attribute by attribute, as :func:`seat_values`."""
    return [b.wheel_offset, b.dark_market, b.ruins, b.buildings, b.inn, b.courtyard, b.companion_row, b.upgrades,
            b.five_coins, b.market, b.set_aside, b.commission_stacks, len(b.hero_deck), len(b.deed_deck),
            len(b.companion_deck)]


def board_fields(layout: Layout) -> list[tuple[int, Write]]:
    """The fields of the board's block: from the market wheel to the caravan (exclusive)."""
    lo = layout.offset["market_wheel"]
    f = _Fields(layout, lo)
    towns = list(layout.towns)
    cards = {card: layout.companions[c] for card, c in layout.card_companion.items() if c in layout.companions}

    def tops(width: int) -> Places:  # the top card of each stack (the others are hidden)
        get = layout.commissions.get
        return lambda stacks: [get(s[0], width) for s in stacks.values() if s]

    def sizes(stacks: dict[str, list[str]]) -> list[float]:
        return [len(stacks.get(t, ())) / STACK_SIZE for t in towns]

    return [
        (WHEEL, f.mod("market_wheel")),
        (DARK_MARKET, f.mod("dark_market")),
        (RUINS, f.mod("ruins")),
        (BUILDINGS, f.ids("buildings", layout.buildings)),
        (INN, f.slots("inn", layout.heroes, 4)),
        (COURTYARD, f.ids("courtyard", layout.deeds)),
        (COMPANION_ROW, f.slots("companion_row", cards, 3)),
        (BOARD_UPGRADES, f.ids("upgrades", layout.upgrades)),
        (FIVE_COINS, f.number("five_coins", lambda v: 1.0 if v else 0.0)),
        (MARKET, numbers(f.at["market_dice"][0], f.at["market_dice"][1], lambda v: [m / 2.0 for m in v])),
        (SET_ASIDE, f.number("set_aside")),
        (STACKS, f.count("commission_tops", tops)),
        (STACKS, numbers(f.at["commission_counts"][0], len(towns), sizes)),
        (HERO_DECK, f.number("hero_deck")),
        (DEED_DECK, f.number("deed_deck")),
        (COMPANION_DECK, f.number("companion_deck")),
    ]


def board_width(layout: Layout) -> int:
    """The board block's width."""
    return layout.offset["caravan"] - layout.offset["market_wheel"]
