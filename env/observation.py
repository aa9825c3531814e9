"""The observation: a fixed-size numeric encoding of one seat's view of the game.

Everything encoded is something the seat's view shows (:meth:`Engine.view`): the board, every
seat's public wagon, and the seat's own secrets (its coins and deeds). What the view hides is
left out: the other seats' coins and deeds (their number of deeds is shown), the order of the
decks (their sizes are shown), a seat kind's hidden state, the dice to come.
``tests/test_env.py`` checks it: the observation is the same in every game
:meth:`Engine.determinize` draws for the seat.

Seats are encoded relative to the observer: seat block 0 is the observer's own, block 1 the
next seat clockwise, and so on (:data:`MAX_SEATS` blocks; absent seats are zeros). Counts are
divided by a scale (:data:`SCALE`) so that they are mostly within 0-1; ids are one-hot (a
single id) or multi-hot (a set), over the installed content's ids in sorted order.
:class:`Layout` gives each feature's offset and width (``layout.fields``), and docs/agents.md
lists them.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from attrs import define

from darkroad.core import (
    DARK_MARKET_SPACES,
    HUMAN,
    ROUNDS,
    RUINS_SPACES,
    Board,
    Caravan,
    Engine,
    Game,
    Player,
)

from . import blocks
from .blocks import DIE_FACES, SCALE, STACK_SIZE, board_values, seat_values

MAX_SEATS = 4
"""Seat blocks in every observation (a game has 2 to 4 seats)."""
PHASES = ("setup", "plan", "move", "activate", "caravan", "end", "final", "finished")
"""Phases of a turn one-hot (``game.phase``); any other phase sets none."""
HEADS = 4096
"""At most this many turns' features kept (:attr:`Encoder._heads`); then they are made again."""
POSITIONS = 10
"""Ringway positions one-hot."""
WHEEL = 6
"""The market wheel's rotation (``board.wheel_offset``) one-hot: which good is worth what."""

_FLOAT32 = np.dtype(np.float32)
"""The observation's type (NumPy reads a type given as an instance faster than as a class)."""
_F32 = struct.Struct("=f").pack
"""A number as the bytes of a ``float32`` (rounded as NumPy rounds it)."""


class _Packers(dict[int, Callable[..., bytes]]):
    """``_F32S[w](*values)``: ``w`` numbers as the bytes of ``float32``s."""

    def __missing__(self, width: int) -> Callable[..., bytes]:
        pack = self[width] = struct.Struct(f"={width}f").pack
        return pack


_F32S = _Packers()


class Layout:
    """Where each feature sits in the observation vector: ``fields`` lists ``(name, offset,
    width)`` in order; ``size`` is the vector's length. Built from the installed content (the
    same plugins give the same layout) and the decision kinds of the action catalogue."""

    def __init__(self, engine: Engine, kinds: Sequence[str]) -> None:
        c = engine.content
        self.goods = list(c.good_ids)
        self.goodx = self.goods + [g + "+" for g in self.goods]
        self.goodx_index = {g: i for i, g in enumerate(self.goodx)}
        ids = {kind: sorted(cid for cid, comp in c.components.items() if comp.kind == kind)
               for kind in ("building", "deed", "steed", "upgrade", "companion")}
        self.heroes = {h: i for i, h in enumerate(sorted(c.heroes))}
        self.commissions = {m: i for i, m in enumerate(sorted(c.commissions))}
        self.towns = {t: i for i, t in enumerate(c.towns)}
        self.buildings = {b: i for i, b in enumerate(ids["building"])}
        self.deeds = {d: i for i, d in enumerate(ids["deed"])}
        self.steeds = {s: i for i, s in enumerate(ids["steed"])}
        self.upgrades = {u: i for i, u in enumerate(ids["upgrade"])}
        self.companions = {k: i for i, k in enumerate(ids["companion"])}
        self.card_companion = dict(c.companion_cards)
        self.kinds = {k: i for i, k in enumerate(kinds)}
        self.phases = {p: i for i, p in enumerate(PHASES)}
        self.fields: list[tuple[str, int, int]] = []
        self.size = 0
        g, h, t, n = len(self.goods), len(self.heroes), len(self.towns), MAX_SEATS
        for name, width in (
            ("round", 1), ("finished", 1), ("players", n), ("phase", len(PHASES)), ("active_seat", n),
            ("start_seat", n), ("awaiting", n), ("decision", len(self.kinds)),
            ("market_wheel", WHEEL), ("market_dice", g), ("set_aside", 1), ("buildings", len(self.buildings)),
            ("commission_tops", len(self.commissions)), ("commission_counts", t),
            ("inn", 4 * h), ("hero_deck", 1), ("courtyard", len(self.deeds)), ("deed_deck", 1),
            ("companion_row", 3 * len(self.companions)), ("companion_deck", 1), ("upgrades", len(self.upgrades)),
            ("five_coins", 1), ("dark_market", len(DARK_MARKET_SPACES)), ("ruins", len(RUINS_SPACES)),
            ("caravan", 1), ("caravan_leader", n), ("caravan_shortcut", 1), ("caravan_town", t),
            ("caravan_members", n), ("caravan_dice", DIE_FACES),
        ):
            self._add(name, width)
        self.seat_offset = self.size
        for name, width in self.seat_fields():
            self._add(f"seat.{name}", width)
        self.seat_width = self.size - self.seat_offset
        self.size = self.seat_offset + MAX_SEATS * self.seat_width
        self.offset = {name: off for name, off, _ in self.fields}

    def seat_fields(self) -> list[tuple[str, int]]:
        """One seat block's features, in order."""
        return [("present", 1), ("automated", 1), ("prestige", 1), ("coins_known", 1), ("coins", 1),
                ("position", POSITIONS), ("locked", 3 * DIE_FACES), ("reserve", DIE_FACES), ("special", DIE_FACES),
                ("spent", 1), ("removed", 1), ("pool_night", DIE_FACES), ("pool_illuminated", DIE_FACES),
                ("lanterns", 1), ("quartz", 1), ("horseshoes", 1), ("goods", len(self.goodx)),
                ("heroes", len(self.heroes)), ("commissions", len(self.commissions)), ("steeds", len(self.steeds)),
                ("upgrades", len(self.upgrades)), ("companions", len(self.companions)), ("gifts", 1),
                ("delivered_commissions", 1), ("delivered_heroes", 1), ("deed_count", 1),
                ("deeds", len(self.deeds))]

    def _add(self, name: str, width: int) -> None:
        self.fields.append((name, self.size, width))
        self.size += width


class _Index(dict[object, int]):
    """An id's index in the observation; an id it does not know (or ``None``: an empty slot)
    goes to the sink, one place past the vector's end, dropped at the end. Read as
    ``map(index.__getitem__, ids)``: the lookups run without a Python call per id."""

    __slots__ = ("sink",)

    def __init__(self, items: Iterable[tuple[object, int]], sink: int) -> None:
        super().__init__(items)
        self.sink = sink

    def __missing__(self, key: object) -> int:
        return self.sink


class Encoder:
    """Encodes a seat's view of a game into a ``float32`` vector of :attr:`Layout.size`.

    Every one-hot and multi-hot feature is an index into the vector, gathered in one list (an
    index that comes twice counts two: two potions), looked up through :class:`_Index` tables
    made once for every place (each seat block, each slot); the scaled counts are values at
    fixed places. ``numpy.bincount`` of the indices, weighted 1 each and by the counts' values
    at theirs, makes the vector in one call. An environment encodes once per step, so this is
    most of what an environment adds to the engine's work (benchmarks/env.py)."""

    def __init__(self, engine: Engine, layout: Layout) -> None:
        self.engine = engine
        self.layout = layout
        self.size = layout.size
        self.sink = layout.size
        """The index past the vector's end where an id it does not know goes (:class:`_Index`)."""
        self.seats = self._seat_places()
        self._board_places()
        self._pieces()
        self._heads: dict[tuple[Any, ...], bytes] = {}
        """The turn's features but the round as bytes, by what they are made of: the observer,
        the number of seats, the phase, the active and start seats, the seats awaited and the
        decision's kind (:meth:`_head`): about 70 of them after 4 games of 2 seats, 100 after
        40. Measured with ``benchmarks/env.py --observation --games 3``: 58,300 instructions
        an observation with them, 69,000 with every head made again (:meth:`_head` each
        time); the features made inline without keeping cost about 4,500 more an observation
        than the kept bytes: 7% of an observation, 1.3% of an environment's step."""


    def _table(self, items: Iterable[tuple[object, int]]) -> _Index:
        return _Index(items, self.sink)

    def _seat_places(self) -> list[_SeatPlaces]:
        """Each seat block's places (:meth:`encode_full`'s index tables and scalars), by seat."""
        lay, o = self.layout, self.layout.offset
        seat_scalars = ("present", "prestige", "lanterns", "quartz", "horseshoes", "spent", "removed",
                        "delivered_commissions", "delivered_heroes", "deed_count", "gifts", "coins_known", "coins")
        seats: list[_SeatPlaces] = []
        for k in range(MAX_SEATS):
            base = lay.seat_offset + k * lay.seat_width - lay.seat_offset
            at = {name: base + o[f"seat.{name}"] for name, _ in lay.seat_fields()}
            faces = range(DIE_FACES)
            seats.append(_SeatPlaces(
                position=at["position"], automated=at["automated"],
                locked=[self._table((d, at["locked"] + i * DIE_FACES + d) for d in faces) for i in range(3)],
                reserve=self._table((d, at["reserve"] + d) for d in faces),
                special=self._table((d, at["special"] + d) for d in faces),
                pool={kind: self._table((d, at[f"pool_{kind}"] + d) for d in faces)
                      for kind in ("night", "illuminated")},
                goods=self._table((g, at["goods"] + i) for g, i in lay.goodx_index.items()),
                heroes=self._table((h, at["heroes"] + i) for h, i in lay.heroes.items()),
                commissions=self._table((m, at["commissions"] + i) for m, i in lay.commissions.items()),
                steeds=self._table((s, at["steeds"] + i) for s, i in lay.steeds.items()),
                upgrades=self._table((u, at["upgrades"] + i) for u, i in lay.upgrades.items()),
                companions=self._table((card, at["companions"] + lay.companions[cid])
                                       for card, cid in lay.card_companion.items() if cid in lay.companions),
                deeds=self._table((d, at["deeds"] + i) for d, i in lay.deeds.items()),
                scalars=[at[name] for name in seat_scalars],
            ))
        return seats

    def _board_places(self) -> None:
        """The board's and the turn's places (:meth:`encode_full`), and the blocks :meth:`encode`
        keeps up to date."""
        lay, o = self.layout, self.layout.offset
        self.board_scalars = [o["round"], *(o["market_dice"] + i for i in range(len(lay.goods))), o["set_aside"],
                              *(o["commission_counts"] + t for t in range(len(lay.towns))),
                              o["hero_deck"], o["deed_deck"], o["companion_deck"]]
        self.scalar_places = [self.board_scalars + sum((s.scalars for s in self.seats[:n]), [])
                              for n in range(MAX_SEATS + 1)]
        self.players = [o["players"] + n - 1 for n in range(MAX_SEATS + 1)]
        self.start_seat, self.active_seat, self.awaiting = o["start_seat"], o["active_seat"], o["awaiting"]
        self.wheel, self.dark_market, self.ruins = o["market_wheel"], o["dark_market"], o["ruins"]
        self.finished, self.five_coins = o["finished"], o["five_coins"]
        self.phase = self._table((p, o["phase"] + i) for p, i in lay.phases.items())
        self.decision = self._table((kind, o["decision"] + i) for kind, i in lay.kinds.items())
        self.buildings = self._table((b, o["buildings"] + i) for b, i in lay.buildings.items())
        self.tops = self._table((m, o["commission_tops"] + i) for m, i in lay.commissions.items())
        self.courtyard = self._table((d, o["courtyard"] + i) for d, i in lay.deeds.items())
        self.upgrades = self._table((u, o["upgrades"] + i) for u, i in lay.upgrades.items())
        self.inn = [self._table((h, o["inn"] + slot * len(lay.heroes) + i) for h, i in lay.heroes.items())
                    for slot in range(4)]
        self.row = [self._table((card, o["companion_row"] + slot * len(lay.companions) + lay.companions[cid])
                                for card, cid in lay.card_companion.items() if cid in lay.companions) for slot in range(3)]
        self.towns = list(lay.towns)
        self.caravan_town = self._table((t, o["caravan_town"] + i) for t, i in lay.towns.items())
        self.caravan_dice = self._table((d, o["caravan_dice"] + d) for d in range(DIE_FACES))
        self.caravan_at = (o["caravan"], o["caravan_leader"], o["caravan_shortcut"], o["caravan_members"])
        self.middle = (o["market_wheel"], o["caravan"])
        """The board's block: from the market wheel to the ruins (:meth:`_board_block`)."""
        self.middle_scalars = self.board_scalars[1:]
        self.round_at = o["round"]
        self.seat_lo, self.width = lay.seat_offset, lay.seat_width
        scalars = self.seats[0].scalars
        self.own_at = (scalars[-2] - self.seat_lo, scalars[-1] - self.seat_lo)
        """The places of ``coins_known`` and ``coins`` in a seat's block."""
        self._board = blocks.Block(blocks.board_width(lay), blocks.board_fields(lay))
        seat_fields = blocks.seat_fields(lay)
        self._seat_blocks = [blocks.SeatBlock(lay, seat_fields) for _ in range(MAX_SEATS)]
        """Each seat's block, by seat number (kept up to date by value: env/blocks.py)."""

    def _pieces(self) -> None:
        """The one-hot pieces :meth:`encode` joins, as bytes of ``float32``, made once."""
        lay, o = self.layout, self.layout.offset
        widths = {1, MAX_SEATS, len(PHASES), len(lay.kinds), len(lay.towns)}
        self.zero = {w: bytes(4 * w) for w in widths}
        """``w`` zeros as bytes of ``float32``."""
        self.one = {w: [_F32S[w](*(1.0 if j == i else 0.0 for j in range(w))) for i in range(w)] for w in widths}
        """``one[w][i]``: a one-hot of width ``w`` at ``i``, as bytes."""
        self.phase_hot = {p: self.one[len(PHASES)][i] for p, i in lay.phases.items()}
        self.no_phase = self.zero[len(PHASES)]
        self.seat_hot = self.one[MAX_SEATS]
        """``seat_hot[i]``: a seat's one-hot (relative seat ``i``), as bytes."""
        self.no_seat = self.zero[MAX_SEATS]
        self.size_hot = [[self.zero[1] + self.one[MAX_SEATS][n - 1] for n in range(MAX_SEATS + 1)],
                         [self.one[1][0] + self.one[MAX_SEATS][n - 1] for n in range(MAX_SEATS + 1)]]
        """``size_hot[finished][n]``: the ``finished`` and ``players`` features, as bytes."""
        self.turn_hot = [[active + start for start in self.seat_hot] for active in [*self.seat_hot, self.no_seat]]
        """``turn_hot[active][start]``: the active seat (:data:`MAX_SEATS`: none) and the start
        player (relative seats), as bytes."""
        self.decision_hot = {k: self.one[len(lay.kinds)][i] for k, i in lay.kinds.items()}
        self.no_decision = self.zero[len(lay.kinds)]
        self.town_hot = {t: self.one[len(lay.towns)][i] for t, i in lay.towns.items()}
        self.no_caravan = bytes(4 * (lay.seat_offset - o["caravan"]))
        self.absent = [bytes(4 * lay.seat_width * (MAX_SEATS - n)) for n in range(MAX_SEATS + 1)]
        """The seat blocks of the seats a game of ``n`` has not, as bytes."""

    def encode(self, game: Game, seat: int, awaiting: Sequence[int] | None = None) -> npt.NDArray[np.float32]:
        """The observation of ``seat`` (what :meth:`Engine.view` shows it, encoded), a new array.

        Joined from bytes: the board's block and each seat's, kept up to date field by field
        by the value of what they are made of (env/blocks.py: only the fields whose value
        changed since the last observation are written again), and the turn's features (the
        phase, the seats awaited, the caravan: :meth:`_caravan_block`) from one-hot pieces
        made once. The same vector as :meth:`encode_full` (``tests/test_env.py``
        compares them over random games). ``awaiting``: the seats the game awaits, when the
        caller knows them (:meth:`Engine.awaiting`)."""
        players = game.players
        n = len(players)
        if awaiting is None:
            awaiting = self.engine.awaiting(game)
        # the turn's features, then the blocks' values checked, written out here rather than
        # in a method each: an observation a step, with as few Python calls as it can
        stack = game.stack
        key = (seat, n, game.phase, game.active, game.start_seat,
               awaiting[0] if len(awaiting) == 1 else tuple(awaiting),  # most decisions: one seat's
               stack[-1].kind if awaiting and stack else None)
        head = self._heads.get(key)
        if head is None:
            head = self._head(key, awaiting)
        board = self._board
        values = board_values(game.board)
        if values != board.kept:
            board.update(values)
        caravan = game.turn.caravan
        kept = self._seat_blocks
        own = kept[seat]
        block = own.block
        values = seat_values(players[seat])
        if values != block.kept:
            block.update(values)
            own.public_bytes = None
        if n == 2:  # (most games: the other seat's block, and the bytes joined, with no list made)
            other = kept[1 - seat]
            block = other.block
            values = seat_values(players[1 - seat])
            if values != block.kept:
                block.update(values)
                other.public_bytes = None
            return np.frombuffer(bytearray().join((
                _F32(game.round / ROUNDS), head, board.buf, self.no_caravan if caravan is None else self._caravan_block(caravan, seat, n),
                own.block.buf, other.public_bytes or other.make_public(), self.absent[2])), _FLOAT32)
        parts: list[bytes | bytearray] = [
            _F32(game.round / ROUNDS), head, board.buf, self.no_caravan if caravan is None else self._caravan_block(caravan, seat, n),
            own.block.buf]  # as the seat sees itself: the block as it is kept
        for k in range(1, n):
            other = kept[(seat + k) % n]
            block = other.block
            values = seat_values(players[(seat + k) % n])
            if values != block.kept:
                block.update(values)
                other.public_bytes = None
            parts.append(other.public_bytes or other.make_public())
        parts.append(self.absent[n])
        return np.frombuffer(bytearray().join(parts), _FLOAT32)

    def _head(self, key: tuple[Any, ...], awaiting: Sequence[int]) -> bytes:
        """The turn's features (from ``finished`` to ``decision``) as bytes, made for ``key``
        (what they are made of: :meth:`encode`'s) and kept in :attr:`_heads` under it."""
        seat, n, phase, active, start, _, kind = key
        head = b"".join((
            self.size_hot[phase == "finished"][n], self.phase_hot.get(phase, self.no_phase),
            self.turn_hot[(active - seat) % n if active is not None and active >= 0 else MAX_SEATS][(start - seat) % n],
            self._hots(MAX_SEATS, [(s - seat) % n for s in awaiting]),
            self.no_decision if kind is None else self.decision_hot.get(kind, self.no_decision)))
        heads = self._heads
        if len(heads) >= HEADS:
            heads.clear()
        heads[key] = head
        return head

    def encode_full(self, game: Game, seat: int) -> npt.NDArray[np.float32]:
        """The observation of ``seat`` encoded from scratch, every feature at once: what
        :meth:`encode` returns, without its kept blocks."""
        hot: list[int] = []
        players = game.players
        n = len(players)
        self._head_hot(game, seat, n, hot)
        values = [game.round / ROUNDS]
        values += self._middle(game.board, hot)
        caravan = game.turn.caravan
        if caravan is not None:
            self._caravan(caravan, seat, n, hot)
        for k in range(n):
            values += self._seat(players[(seat + k) % n], self.seats[k], k == 0, hot)
        ones = len(hot)
        hot += self.scalar_places[n]
        weights = [1.0] * ones
        weights += values
        return np.bincount(hot, weights, self.size + 1)[:self.size].astype(np.float32)

    def _caravan_block(self, caravan: Caravan, seat: int, n: int) -> bytes:
        """The caravan's features (:attr:`middle`'s end to the seat blocks), as bytes."""
        one = self.one
        dice = [0.0] * DIE_FACES
        for d in caravan.dice or ():
            if 0 <= d < DIE_FACES:
                dice[d] += 1.0
        return b"".join((one[1][0], one[MAX_SEATS][(caravan.leader - seat) % n],
                         one[1][0] if caravan.route == "shortcut" else self.zero[1],
                         self.town_hot.get(caravan.town, self.zero[len(self.towns)]),
                         self._hots(MAX_SEATS, [(s - seat) % n for s in caravan.members]), _F32S[DIE_FACES](*dice)))

    def _hots(self, width: int, places: list[int]) -> bytes:
        """``width`` counts as bytes: how many times each place comes in ``places``."""
        counts = [0.0] * width
        for i in places:
            counts[i] += 1.0
        return _F32S[width](*counts)

    def _head_hot(self, game: Game, seat: int, n: int, hot: list[int]) -> None:
        """The turn's one-hots as places (:meth:`encode_full`'s, the same as :meth:`encode`'s)."""
        hot += (self.players[n], self.start_seat + (game.start_seat - seat) % n, self.phase[game.phase])
        if game.finished:
            hot.append(self.finished)
        if game.active is not None and game.active >= 0:
            hot.append(self.active_seat + (game.active - seat) % n)
        awaiting = self.engine.awaiting(game)
        hot += [self.awaiting + (s - seat) % n for s in awaiting]
        if awaiting and game.stack:
            hot.append(self.decision[game.stack[-1].kind])

    def _middle(self, b: Board, hot: list[int]) -> list[float]:
        """The board's one-hots (into ``hot``) and its scaled counts (at :attr:`middle_scalars`)."""
        hot += (self.wheel + b.wheel_offset % WHEEL, self.dark_market + b.dark_market % len(DARK_MARKET_SPACES),
                self.ruins + b.ruins % len(RUINS_SPACES))
        hot += map(self.buildings.__getitem__, b.buildings)
        stacks = b.commission_stacks
        hot += [self.tops[s[0]] for s in stacks.values() if s]
        hot += map(dict.__getitem__, self.inn, b.inn)
        hot += map(self.courtyard.__getitem__, b.courtyard)
        hot += map(dict.__getitem__, self.row, b.companion_row)
        hot += map(self.upgrades.__getitem__, b.upgrades)
        if b.five_coins:
            hot.append(self.five_coins)
        values = [m / 2.0 for m in b.market]
        values.append(b.set_aside / SCALE)
        values += [len(stacks.get(t, ())) / STACK_SIZE for t in self.towns]
        values += (len(b.hero_deck) / SCALE, len(b.deed_deck) / SCALE, len(b.companion_deck) / SCALE)
        return values

    def _caravan(self, caravan: Caravan, seat: int, n: int, hot: list[int]) -> None:
        at, leader, shortcut, members = self.caravan_at
        hot += (at, leader + (caravan.leader - seat) % n)
        if caravan.route == "shortcut":
            hot.append(shortcut)
        hot.append(self.caravan_town[caravan.town])
        hot += [members + (s - seat) % n for s in caravan.members]
        if caravan.dice:
            hot += map(self.caravan_dice.__getitem__, caravan.dice)

    @staticmethod
    def _seat(p: Player, at: _SeatPlaces, own: bool, hot: list[int]) -> list[float]:
        """A seat block's one-hots (into ``hot``) and its scaled counts, at the places ``at``."""
        hot.append(at.position + p.position % POSITIONS)
        if p.kind != HUMAN:
            hot.append(at.automated)
        hot += map(dict.__getitem__, at.locked, p.locked)
        hot += map(at.reserve.__getitem__, p.reserve)
        hot += map(at.special.__getitem__, p.special)
        if p.pool:
            pool = at.pool
            hot += [pool.get(d.kind, pool["night"])[d.value] for d in p.pool]
        hot += map(at.goods.__getitem__, p.goods)
        hot += map(at.heroes.__getitem__, p.heroes)
        hot += map(at.commissions.__getitem__, p.commissions)
        hot += map(at.steeds.__getitem__, p.steeds)
        hot += map(at.upgrades.__getitem__, p.upgrades)
        gifts = 0
        if p.companions:
            hot += [at.companions[c.card] for c in p.companions]
            gifts = sum(len(c.gifts) for c in p.companions)
        if own:  # behind its own screen: the seat's own coins and deeds
            hot += map(at.deeds.__getitem__, p.deeds)
        return [1.0, p.prestige / SCALE, p.lanterns / SCALE, p.quartz / SCALE, p.horseshoes / SCALE, p.spent / SCALE,
                p.removed / SCALE, len(p.delivered_commissions) / SCALE, len(p.delivered_heroes) / SCALE,
                len(p.deeds) / SCALE, gifts / SCALE, 1.0 if own else 0.0, p.coins / SCALE if own else 0.0]


@define(frozen=True)
class _SeatPlaces:
    """Where one seat block's features go (absolute indices, and :class:`_Index` tables)."""

    position: int
    automated: int
    locked: list[_Index]
    reserve: _Index
    special: _Index
    pool: dict[str, _Index]
    goods: _Index
    heroes: _Index
    commissions: _Index
    steeds: _Index
    upgrades: _Index
    companions: _Index
    deeds: _Index
    scalars: list[int]
