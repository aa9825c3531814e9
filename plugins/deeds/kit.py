"""What the 19 base game deeds share: the card model, the criteria, the game-history tracking.

Rulebook p. 17, "Deeds": personal objectives evaluated at the end of the game, paying
coins, prestige or victory points; p. 13, "Final Scoring": deed coins and prestige are
added before the lower of the two is taken, deed VP are added to the total.

The rulebook does not print the deed faces: every criterion and reward here is a
reconstruction (docs/deeds.md tables them, with how to replace them). Each deed module declares one
:class:`Deed` (criterion measure, threshold, reward) and binds its two hooks, which are
methods of the deed (bound methods carry the ``hookimpl`` marker like functions do)::

    DEED = Deed(ID, "Collector", "your storage holds ...", good_types, need=6, reward="vp", amount=3)
    darkroad_components = DEED.components
    darkroad_deed_score = DEED.deed_score

A criterion is a *measure* of the player's end-of-game state (a count, or 1/0 for a
yes/no condition) compared with the card's threshold. Coins and prestige are measured
before any deed reward is added. Two measures need history the game state does not keep
(how many goods each delivered commission received, how many caravans a player led):
one module (``history.py``) counts it as it happens for every deed that reads it, in
``board.extra["_deeds"]`` (the leading ``_`` keeps plugin bookkeeping out of views).
Counting happens whether or not anyone holds the deed yet, since deeds are gained late.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from darkroad.core import Component, Ctx, good_type, hookimpl, is_upgraded

Measure = Callable[[Ctx, int], int]

REWARD_NAMES = {"coins": "coins", "prestige": "prestige", "vp": "VP"}
TRACK_KEY = "_deeds"
FULL_DELIVERIES = "full_deliveries"
CARAVANS_LED = "caravans_led"


@dataclass(frozen=True)
class Deed:
    """One deed card: met when ``measure`` reaches ``need``; pays ``amount`` of ``reward``.

    A sliding deed (``per_extra`` > 0) pays ``per_extra`` more for every unit of the
    measure beyond ``need``, up to ``most`` in all.
    """

    id: str
    name: str
    criterion: str
    """The condition as printed, completing "At the end of the game, if ..."."""
    measure: Measure
    need: int
    reward: str
    amount: int
    per_extra: int = 0
    most: int = 0
    unit: str = ""
    """What a sliding deed counts beyond ``need`` ("hero", "caravan"), for the card text."""

    def __post_init__(self) -> None:
        if self.reward not in REWARD_NAMES:
            raise ValueError(f"deed {self.id!r}: reward must be one of {sorted(REWARD_NAMES)}")
        if self.per_extra and (self.most < self.amount or not self.unit):
            raise ValueError(f"deed {self.id!r}: a sliding deed needs a unit and a maximum >= its amount")

    def payout(self, level: int) -> int:
        """What the deed pays when its measure is ``level``."""
        if level < self.need:
            return 0
        if not self.per_extra:
            return self.amount
        return min(self.most, self.amount + self.per_extra * (level - self.need))

    @property
    def text(self) -> str:
        unit = REWARD_NAMES[self.reward]
        text = f"At the end of the game, if {self.criterion}: gain {self.amount} {unit}"
        if self.per_extra:
            text += (f", +{self.per_extra} {unit} for each {self.unit} beyond {self.need}"
                     f" (at most {self.most} {unit})")
        return text + "."

    def component(self) -> Component:
        data: dict[str, object] = {"reward": self.reward, "amount": self.amount, "criterion": self.criterion,
                                   "need": self.need}
        if self.per_extra:
            data |= {"per_extra": self.per_extra, "max": self.most, "unit": self.unit}
        return Component("deed", self.id, self.name, self.text, data)

    def score(self, ctx: Ctx, seat: int) -> dict[str, int]:
        """What this deed pays ``seat`` (0 when unmet): its hook's answer, the one place it is
        computed."""
        paid = self.deed_score(ctx, seat, self.id)
        assert paid is not None  # asked of this deed's own id
        return paid

    # -- its hooks: a module binds them (``darkroad_components = DEED.components``) ---------

    @hookimpl(specname="darkroad_components")
    def components(self) -> list[Component]:
        return [self.component()]

    @hookimpl(specname="darkroad_deed_score")
    def deed_score(self, ctx: Ctx, seat: int, deed: str) -> dict[str, int] | None:
        if deed != self.id:
            return None
        # Computed here, and :meth:`score` asks this: the hook is asked of every deed the viewer
        # holds in every view, where a call more per deed is not worth it.
        return {self.reward: self.payout(self.measure(ctx, seat))}


# -- measures of the end-of-game state ------------------------------------------------------


def commissions_delivered(ctx: Ctx, seat: int) -> int:
    return len(ctx.player(seat).delivered_commissions)


def heroes_delivered(ctx: Ctx, seat: int) -> int:
    return len(ctx.player(seat).delivered_heroes)


# The measures are taken in every view of a deed's holder (its projected score), so they are
# written as plain loops: a comprehension or a generator is a call of its own, which costs more
# than the few cards it counts.


def delivery_towns(ctx: Ctx, seat: int) -> list[str]:
    """The town of every commission and hero ``seat`` delivered (one entry per card)."""
    p, c = ctx.game.players[seat], ctx.content
    commissions, heroes = c.commissions, c.heroes
    towns = []
    for m in p.delivered_commissions:
        towns.append(commissions[m].town)
    for h in p.delivered_heroes:
        towns.append(heroes[h].town)
    return towns


def region_deliveries(region: str) -> Measure:
    """Commissions and heroes delivered to the towns of ``region``."""

    def measure(ctx: Ctx, seat: int) -> int:
        towns, n = ctx.content.towns, 0
        for t in delivery_towns(ctx, seat):
            if towns[t].region == region:
                n += 1
        return n

    return measure


def towns_delivered_to(ctx: Ctx, seat: int) -> int:
    return len(set(delivery_towns(ctx, seat)))


def inventory_full_of_quartz(ctx: Ctx, seat: int) -> int:
    """1 when every inventory slot of the wagon holds a blazing quartz (a tile may cover one;
    horseshoes share the slots)."""
    return int(ctx.player(seat).quartz >= ctx.capacity(seat, "inventory"))


def lantern_slots_full(ctx: Ctx, seat: int) -> int:
    """1 when every lantern slot of the wagon holds a lantern (a tile may cover one)."""
    return int(ctx.player(seat).lanterns >= ctx.capacity(seat, "lanterns"))


def heroes_on_wagon(ctx: Ctx, seat: int) -> int:
    return len(ctx.player(seat).heroes)


def upgraded_goods(ctx: Ctx, seat: int) -> int:
    return sum(1 for g in ctx.player(seat).goods if is_upgraded(g))


def good_types(ctx: Ctx, seat: int) -> int:
    return len({good_type(g) for g in ctx.player(seat).goods})


def companion_cards(ctx: Ctx, seat: int) -> int:
    return len(ctx.player(seat).companions)


def loyal_gifts(ctx: Ctx, seat: int) -> int:
    """Gifts on loyal companion cards (the quantity of the second tie-breaker, p. 13)."""
    owner, components, n = ctx.content.companion_cards, ctx.content.components, 0
    for card in ctx.game.players[seat].companions:
        companion = owner.get(card.card)
        if companion is not None and components[companion].data.get("loyalty") == "loyal":
            n += len(card.gifts)
    return n


def coins(ctx: Ctx, seat: int) -> int:
    return ctx.player(seat).coins


def prestige(ctx: Ctx, seat: int) -> int:
    return ctx.player(seat).prestige


def ledger_balanced(gap: int) -> Measure:
    """1 when coins and prestige differ by at most ``gap``."""

    def measure(ctx: Ctx, seat: int) -> int:
        p = ctx.player(seat)
        return int(abs(p.coins - p.prestige) <= gap)

    return measure


def unused_illuminated(ctx: Ctx, seat: int) -> int:
    """Illuminated dice still in the special reserve (the ones that also score 1 VP each)."""
    return len(ctx.player(seat).special)


def tracked(counter: str) -> Measure:
    """A count kept by :func:`count` during the game."""

    def measure(ctx: Ctx, seat: int) -> int:
        counts = ctx.game.board.extra.get(TRACK_KEY, {}).get(counter)
        return counts[seat] if counts else 0

    return measure


# -- history the state does not keep --------------------------------------------------------


def count(ctx: Ctx, counter: str, seat: int) -> None:
    """Add 1 to ``seat``'s ``counter`` (one small list of per-seat counts per counter)."""
    counts = ctx.game.board.extra.setdefault(TRACK_KEY, {}).setdefault(counter, [0] * len(ctx.game.players))
    counts[seat] += 1


def count_full_delivery(ctx: Ctx, seat: int, commission: str, goods: list[str]) -> None:
    """A commission delivered with every good it requests (3 for every base commission)."""
    if len(goods) == len(ctx.content.commissions[commission].requests):
        count(ctx, FULL_DELIVERIES, seat)


def count_caravan_led(ctx: Ctx, seat: int, choice: str) -> None:
    """Choosing a caravan at Yurg's Excursions makes ``seat`` its leader (p. 11)."""
    if choice == "caravan":
        count(ctx, CARAVANS_LED, seat)
