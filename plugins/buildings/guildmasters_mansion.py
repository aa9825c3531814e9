"""Guildmaster's Mansion (rulebook p. 15): trade any number of the following items at a
1-to-1 ratio: 1 lantern, 1 blazing quartz, 2 coins.

Double-sided tile 4 with Otho's Lanternworks (docs/content.md, "Double-sided building tiles").

A repeated decision: each option is one trade ``"<give>><get>"`` (e.g. ``"coins>lantern"``
gives 2 coins for 1 lantern), offered only when the player holds what it gives, plus
``"done"``. A trade into a lantern is not offered when every lantern slot is full (the
rulebook discards an extra lantern, so it could only lose the item given). A blazing
quartz gained with a full inventory is offered: the player then discards a blazing
quartz or a horseshoe, which can be a trade worth making.
"""

from __future__ import annotations

from darkroad.core import EFFECT_RESOURCE, Choice, Component, Ctx, Option, Step, Task, hookimpl, i18n
from darkroad.plugins.buildings.kit import unused

ID = "guildmasters_mansion"
DONE = "done"
ITEMS = {"lantern": 1, "quartz": 1, "coins": 2}
"""Item -> how many of it make one unit of trade."""
NAMES = {"lantern": "1 lantern", "quartz": "1 blazing quartz", "coins": "2 coins"}


def trades(ctx: Ctx, seat: int) -> list[Option]:
    """Every single trade ``seat`` can make now."""
    p = ctx.player(seat)
    lantern_room = p.lanterns < ctx.capacity(seat, "lanterns")
    opts = []
    for give, n in ITEMS.items():
        if getattr(p, EFFECT_RESOURCE[give]) < n:
            continue
        for get in ITEMS:
            if get != give and (get != "lantern" or lantern_room):
                opts.append((f"{give}>{get}", f"trade {NAMES[give]} for {NAMES[get]}"))
    return opts


class Trade(Choice):
    """Make one 1-to-1 trade, or stop trading."""

    kind = f"{ID}_trade"
    prompt = i18n.N_("Guildmaster's Mansion: trade 1 lantern, 1 blazing quartz or 2 coins 1-to-1, or stop")

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        opts = trades(ctx, seat)
        return [*opts, (DONE, "stop trading")] if opts else []

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == DONE:
            return
        ctx.push(self.kind, seat)
        give, _, get = option.partition(">")
        ctx.pay(seat, EFFECT_RESOURCE[give], ITEMS[give], ID)
        ctx.add(seat, EFFECT_RESOURCE[get], ITEMS[get], ID)
        ctx.emit("traded", seat, building=ID, gave=give, got=get)


TRADE = Trade()


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("building", ID, "Guildmaster's Mansion",
                      "You may trade any number of the following items at a 1-to-1 ratio: 1 lantern, 1 blazing "
                      "quartz, 2 coins.", {"tile": 4})]


@hookimpl
def darkroad_steps() -> list[Step]:
    return [TRADE]


@hookimpl
def darkroad_activate_building(ctx: Ctx, seat: int, building: str) -> bool | None:
    if building != ID:
        return None
    if trades(ctx, seat):
        ctx.push(TRADE.kind, seat)
    else:
        unused(ctx, seat, ID, "nothing to trade: needs 1 lantern, 1 blazing quartz or 2 coins")
    return True
