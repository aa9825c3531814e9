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

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from darkroad.core import DARK_MARKET_SPACES, ROUNDS, RUINS_SPACES, Engine, Game

MAX_SEATS = 4
"""Seat blocks in every observation (a game has 2 to 4 seats)."""
SCALE = 10.0
"""Counts (coins, prestige, goods, deck sizes) are divided by this."""
PHASES = ("setup", "plan", "move", "activate", "caravan", "end", "final", "finished")
"""Phases of a turn one-hot (``game.phase``); any other phase sets none."""
DIE_FACES = 7
"""Die values 0-6 (a locked slot: one-hot of its value, none when empty)."""
POSITIONS = 10
"""Ringway positions one-hot."""
WHEEL = 6
"""The market wheel's rotation (``board.wheel_offset``) one-hot: which good is worth what."""
STACK_SIZE = 5.0
"""A commission stack's size is divided by this."""


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


class Encoder:
    """Encodes a seat's view of a game into a ``float32`` vector of :attr:`Layout.size`."""

    def __init__(self, engine: Engine, layout: Layout) -> None:
        self.engine = engine
        self.layout = layout
        self.o = layout.offset
        self.seat_o = {name: off - layout.seat_offset for name, off, _ in layout.fields
                       if name.startswith("seat.")}

    def encode(self, game: Game, seat: int) -> npt.NDArray[np.float32]:
        """The observation of ``seat`` (what :meth:`Engine.view` shows it, encoded)."""
        at: list[int] = []
        val: list[float] = []
        self._board(game, seat, at, val)
        n = len(game.players)
        for k in range(n):
            self._seat(game, (seat + k) % n, seat, self.layout.seat_offset + k * self.layout.seat_width, at, val)
        # bincount adds the values of one index up: two potions are 2/3 at the potion's place.
        return np.bincount(at, weights=val, minlength=self.layout.size).astype(np.float32)

    def _board(self, game: Game, seat: int, at: list[int], val: list[float]) -> None:
        o, lay, b = self.o, self.layout, game.board
        n = len(game.players)
        at += [o["round"], o["players"] + n - 1]
        val += [game.round / ROUNDS, 1.0]
        if game.finished:
            at.append(o["finished"])
            val.append(1.0)
        phase = lay.phases.get(game.phase)
        if phase is not None:
            at.append(o["phase"] + phase)
            val.append(1.0)
        if game.active is not None and game.active >= 0:
            at.append(o["active_seat"] + (game.active - seat) % n)
            val.append(1.0)
        at.append(o["start_seat"] + (game.start_seat - seat) % n)
        val.append(1.0)
        awaiting = self.engine.awaiting(game)
        for s in awaiting:
            at.append(o["awaiting"] + (s - seat) % n)
            val.append(1.0)
        if awaiting and game.stack:
            kind = lay.kinds.get(game.stack[-1].kind)
            if kind is not None:
                at.append(o["decision"] + kind)
                val.append(1.0)
        at.append(o["market_wheel"] + b.wheel_offset % WHEEL)
        val.append(1.0)
        for i in range(len(lay.goods)):
            at.append(o["market_dice"] + i)
            val.append(b.market[i] / 2.0)
        at.append(o["set_aside"])
        val.append(b.set_aside / SCALE)
        for building in b.buildings:
            if building in lay.buildings:
                at.append(o["buildings"] + lay.buildings[building])
                val.append(1.0)
        for town, stack in b.commission_stacks.items():
            t = lay.towns.get(town)
            if t is not None:
                at.append(o["commission_counts"] + t)
                val.append(len(stack) / STACK_SIZE)
            if stack and stack[0] in lay.commissions:
                at.append(o["commission_tops"] + lay.commissions[stack[0]])
                val.append(1.0)
        heroes = len(lay.heroes)
        for i, hero in enumerate(b.inn[:4]):
            if hero in lay.heroes:
                at.append(o["inn"] + i * heroes + lay.heroes[hero])
                val.append(1.0)
        at += [o["hero_deck"], o["deed_deck"], o["companion_deck"]]
        val += [len(b.hero_deck) / SCALE, len(b.deed_deck) / SCALE, len(b.companion_deck) / SCALE]
        for deed in b.courtyard:
            if deed in lay.deeds:
                at.append(o["courtyard"] + lay.deeds[deed])
                val.append(1.0)
        kinds = len(lay.companions)
        for i, card in enumerate(b.companion_row[:3]):
            cid = lay.card_companion.get(card) if card else None
            if cid in lay.companions:
                at.append(o["companion_row"] + i * kinds + lay.companions[cid])
                val.append(1.0)
        for upgrade in b.upgrades:
            if upgrade in lay.upgrades:
                at.append(o["upgrades"] + lay.upgrades[upgrade])
                val.append(1.0)
        at += [o["dark_market"] + b.dark_market % len(DARK_MARKET_SPACES), o["ruins"] + b.ruins % len(RUINS_SPACES)]
        val += [1.0, 1.0]
        if b.five_coins:
            at.append(o["five_coins"])
            val.append(1.0)
        self._caravan(game, seat, at, val)

    def _caravan(self, game: Game, seat: int, at: list[int], val: list[float]) -> None:
        turn: Any = game.turn
        caravan = turn.get("caravan") if isinstance(turn, dict) else getattr(turn, "caravan", None)
        if not caravan:
            return
        o, n = self.o, len(game.players)
        at.append(o["caravan"])
        val.append(1.0)
        leader = caravan.get("leader")
        if isinstance(leader, int):
            at.append(o["caravan_leader"] + (leader - seat) % n)
            val.append(1.0)
        if caravan.get("route") == "shortcut":
            at.append(o["caravan_shortcut"])
            val.append(1.0)
        town = self.layout.towns.get(caravan.get("town", ""))
        if town is not None:
            at.append(o["caravan_town"] + town)
            val.append(1.0)
        for s in caravan.get("members", ()):
            at.append(o["caravan_members"] + (s - seat) % n)
            val.append(1.0)
        for d in caravan.get("dice", ()):
            if 0 <= d < DIE_FACES:
                at.append(o["caravan_dice"] + d)
                val.append(1.0 / 3.0)

    def _seat(self, game: Game, s: int, seat: int, base: int, at: list[int], val: list[float]) -> None:
        lay, o = self.layout, self.seat_o
        p = game.players[s]
        at += [base + o["seat.present"], base + o["seat.prestige"], base + o["seat.lanterns"],
               base + o["seat.quartz"], base + o["seat.horseshoes"], base + o["seat.spent"], base + o["seat.removed"],
               base + o["seat.delivered_commissions"], base + o["seat.delivered_heroes"], base + o["seat.deed_count"],
               base + o["seat.position"] + p.position % POSITIONS]
        val += [1.0, p.prestige / SCALE, p.lanterns / SCALE, p.quartz / SCALE, p.horseshoes / SCALE, p.spent / SCALE,
                p.removed / SCALE, len(p.delivered_commissions) / SCALE, len(p.delivered_heroes) / SCALE,
                len(p.deeds) / SCALE, 1.0]
        if p.kind != "human":
            at.append(base + o["seat.automated"])
            val.append(1.0)
        if s == seat:  # behind its own screen: the seat's own coins and deeds
            at += [base + o["seat.coins_known"], base + o["seat.coins"]]
            val += [1.0, p.coins / SCALE]
            for d in p.deeds:
                if d in lay.deeds:
                    at.append(base + o["seat.deeds"] + lay.deeds[d])
                    val.append(1.0)
        for i, locked in enumerate(p.locked[:3]):
            if locked is not None and 0 <= locked < DIE_FACES:
                at.append(base + o["seat.locked"] + i * DIE_FACES + locked)
                val.append(1.0)
        for field, dice in (("seat.reserve", p.reserve), ("seat.special", p.special)):
            for face in dice:
                if 0 <= face < DIE_FACES:
                    at.append(base + o[field] + face)
                    val.append(1.0)
        for pooled in p.pool:
            if 0 <= pooled.value < DIE_FACES:
                at.append(base + o["seat.pool_illuminated" if pooled.kind == "illuminated" else "seat.pool_night"]
                          + pooled.value)
                val.append(1.0)
        goodx = lay.goodx_index
        for g in p.goods:
            if g in goodx:
                at.append(base + o["seat.goods"] + goodx[g])
                val.append(1.0 / 3.0)
        for name, ids, owned in (("seat.heroes", lay.heroes, p.heroes), ("seat.commissions", lay.commissions,
                                 p.commissions), ("seat.steeds", lay.steeds, p.steeds),
                                 ("seat.upgrades", lay.upgrades, p.upgrades)):
            for x in owned:
                if x in ids:
                    at.append(base + o[name] + ids[x])
                    val.append(1.0)
        gifts = 0
        for card in p.companions:
            cid = lay.card_companion.get(card.card)
            if cid in lay.companions:
                at.append(base + o["seat.companions"] + lay.companions[cid])
                val.append(1.0)
            gifts += len(card.gifts)
        at.append(base + o["seat.gifts"])
        val.append(gifts / SCALE)
