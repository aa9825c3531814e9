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

import numpy as np
import numpy.typing as npt

from darkroad.core import DARK_MARKET_SPACES, HUMAN, ROUNDS, RUINS_SPACES, Engine, Game, Player

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
    """Encodes a seat's view of a game into a ``float32`` vector of :attr:`Layout.size`.

    One-hot and multi-hot features are gathered as a list of indices (a count where an index
    comes twice: two potions), the scaled counts as a list of values at fixed places; then
    ``numpy.bincount`` and one assignment make the vector. An environment encodes once per
    step, so this is most of what an environment adds to the engine's work."""

    def __init__(self, engine: Engine, layout: Layout) -> None:
        self.engine = engine
        self.layout = layout
        o = layout.offset
        self.o = o
        lay = layout
        self.board_scalars = np.array([o["round"], *(o["market_dice"] + i for i in range(len(lay.goods))),
                                       o["set_aside"], *(o["commission_counts"] + t for t in range(len(lay.towns))),
                                       o["hero_deck"], o["deed_deck"], o["companion_deck"]], dtype=np.intp)
        seat_scalars = ("present", "prestige", "lanterns", "quartz", "horseshoes", "spent", "removed",
                        "delivered_commissions", "delivered_heroes", "deed_count", "gifts", "coins_known", "coins")
        per_seat = [[lay.seat_offset + k * lay.seat_width + o[f"seat.{name}"] - lay.seat_offset
                     for name in seat_scalars] for k in range(MAX_SEATS)]
        self.seat_scalars = [np.array(sum(per_seat[:n], []), dtype=np.intp) for n in range(MAX_SEATS + 1)]
        # Absolute indices of every id's one-hot place in each seat block and on the board.
        self.seat_ids: list[dict[str, dict[str, int]]] = []
        for k in range(MAX_SEATS):
            base = lay.seat_offset + k * lay.seat_width
            self.seat_ids.append({
                name: {x: base + o[f"seat.{name}"] - lay.seat_offset + i for x, i in ids.items()}
                for name, ids in (("goods", lay.goodx_index), ("heroes", lay.heroes), ("commissions", lay.commissions),
                                  ("steeds", lay.steeds), ("upgrades", lay.upgrades), ("deeds", lay.deeds),
                                  ("companions", {card: lay.companions[cid] for card, cid in lay.card_companion.items()
                                                  if cid in lay.companions}))})
        self.seat_at = [{name: lay.seat_offset + k * lay.seat_width + o[f"seat.{name}"] - lay.seat_offset
                         for name, _ in lay.seat_fields()} for k in range(MAX_SEATS)]
        self.buildings = {b: o["buildings"] + i for b, i in lay.buildings.items()}
        self.tops = {m: o["commission_tops"] + i for m, i in lay.commissions.items()}
        self.courtyard = {d: o["courtyard"] + i for d, i in lay.deeds.items()}
        self.upgrades = {u: o["upgrades"] + i for u, i in lay.upgrades.items()}
        self.inn = [{h: o["inn"] + slot * len(lay.heroes) + i for h, i in lay.heroes.items()} for slot in range(4)]
        self.row = [{card: o["companion_row"] + slot * len(lay.companions) + lay.companions[cid]
                     for card, cid in lay.card_companion.items() if cid in lay.companions} for slot in range(3)]

    def encode(self, game: Game, seat: int) -> npt.NDArray[np.float32]:
        """The observation of ``seat`` (what :meth:`Engine.view` shows it, encoded)."""
        hot: list[int] = []
        scalars = self._board(game, seat, hot)
        n = len(game.players)
        for k in range(n):
            scalars += self._seat(game.players[(seat + k) % n], k, k == 0, hot)
        out = np.bincount(hot, minlength=self.layout.size).astype(np.float32)
        out[self.board_scalars] = scalars[:len(self.board_scalars)]
        out[self.seat_scalars[n]] = scalars[len(self.board_scalars):]
        return out

    def _board(self, game: Game, seat: int, hot: list[int]) -> list[float]:
        o, lay, b = self.o, self.layout, game.board
        n = len(game.players)
        hot += [o["players"] + n - 1, o["start_seat"] + (game.start_seat - seat) % n,
                o["market_wheel"] + b.wheel_offset % WHEEL, o["dark_market"] + b.dark_market % len(DARK_MARKET_SPACES),
                o["ruins"] + b.ruins % len(RUINS_SPACES)]
        if game.finished:
            hot.append(o["finished"])
        phase = lay.phases.get(game.phase)
        if phase is not None:
            hot.append(o["phase"] + phase)
        if game.active is not None and game.active >= 0:
            hot.append(o["active_seat"] + (game.active - seat) % n)
        awaiting = self.engine.awaiting(game)
        hot += [o["awaiting"] + (s - seat) % n for s in awaiting]
        if awaiting and game.stack:
            kind = lay.kinds.get(game.stack[-1].kind)
            if kind is not None:
                hot.append(o["decision"] + kind)
        hot += [self.buildings[x] for x in b.buildings if x in self.buildings]
        stacks = b.commission_stacks
        hot += [self.tops[s[0]] for s in stacks.values() if s and s[0] in self.tops]
        hot += [self.inn[i][h] for i, h in enumerate(b.inn[:4]) if h in self.inn[i]]
        hot += [self.courtyard[d] for d in b.courtyard if d in self.courtyard]
        hot += [self.row[i][c] for i, c in enumerate(b.companion_row[:3]) if c in self.row[i]]
        hot += [self.upgrades[u] for u in b.upgrades if u in self.upgrades]
        if b.five_coins:
            hot.append(o["five_coins"])
        self._caravan(game, seat, hot)
        counts = [len(stacks.get(t, ())) / STACK_SIZE for t in lay.towns]
        return [game.round / ROUNDS, *(m / 2.0 for m in b.market), b.set_aside / SCALE, *counts,
                len(b.hero_deck) / SCALE, len(b.deed_deck) / SCALE, len(b.companion_deck) / SCALE]

    def _caravan(self, game: Game, seat: int, hot: list[int]) -> None:
        caravan = game.turn.caravan
        if caravan is None:
            return
        o, n = self.o, len(game.players)
        hot.append(o["caravan"])
        hot.append(o["caravan_leader"] + (caravan.leader - seat) % n)
        if caravan.route == "shortcut":
            hot.append(o["caravan_shortcut"])
        town = self.layout.towns.get(caravan.town)
        if town is not None:
            hot.append(o["caravan_town"] + town)
        hot += [o["caravan_members"] + (s - seat) % n for s in caravan.members]
        hot += [o["caravan_dice"] + d for d in caravan.dice or () if 0 <= d < DIE_FACES]

    def _seat(self, p: Player, k: int, own: bool, hot: list[int]) -> list[float]:
        """Seat block ``k``'s one-hots (into ``hot``) and its scaled counts."""
        at, ids = self.seat_at[k], self.seat_ids[k]
        hot.append(at["position"] + p.position % POSITIONS)
        if p.kind != HUMAN:
            hot.append(at["automated"])
        locked = at["locked"]
        hot += [locked + i * DIE_FACES + d for i, d in enumerate(p.locked[:3]) if d is not None and 0 <= d < DIE_FACES]
        hot += [at["reserve"] + d for d in p.reserve if 0 <= d < DIE_FACES]
        hot += [at["special"] + d for d in p.special if 0 <= d < DIE_FACES]
        hot += [at["pool_illuminated" if d.kind == "illuminated" else "pool_night"] + d.value for d in p.pool
                if 0 <= d.value < DIE_FACES]
        goods, heroes, commissions = ids["goods"], ids["heroes"], ids["commissions"]
        hot += [goods[g] for g in p.goods if g in goods]
        hot += [heroes[h] for h in p.heroes if h in heroes]
        hot += [commissions[m] for m in p.commissions if m in commissions]
        steeds, upgrades, companions = ids["steeds"], ids["upgrades"], ids["companions"]
        hot += [steeds[x] for x in p.steeds if x in steeds]
        hot += [upgrades[x] for x in p.upgrades if x in upgrades]
        hot += [companions[c.card] for c in p.companions if c.card in companions]
        gifts = sum(len(c.gifts) for c in p.companions)
        if own:  # behind its own screen: the seat's own coins and deeds
            deeds = ids["deeds"]
            hot += [deeds[d] for d in p.deeds if d in deeds]
        return [1.0, p.prestige / SCALE, p.lanterns / SCALE, p.quartz / SCALE, p.horseshoes / SCALE, p.spent / SCALE,
                p.removed / SCALE, len(p.delivered_commissions) / SCALE, len(p.delivered_heroes) / SCALE,
                len(p.deeds) / SCALE, gifts / SCALE, 1.0 if own else 0.0, p.coins / SCALE if own else 0.0]
