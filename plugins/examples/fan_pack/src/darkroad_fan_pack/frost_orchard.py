"""The Frost Orchard, a fan building: gain 1 basic good with a current value of $1, and
1 coin and 1 prestige for each frost-fruit on the trees. A frost-fruit ripens every round
the orchard is not harvested (at most 3); whoever harvests picks them all. When all 3 are
ripe the good is frost-kissed: it is gained on its upgraded side.

The orchard remembers the round of its last harvest in the game itself,
``board.extra["frost_orchard"] = {"harvested": <round>}`` (set by ``darkroad_setup``;
no leading ``_``, so every player's view shows it), never in a module global: one
process plays many games.

Balance: a harvest every round gives a $1 good, 1 coin and 1 prestige (Otho's
Lanternworks gives a $1 good, 1 lantern and 1 prestige); a harvest after three rounds
gives 3 coins, 3 prestige and an upgraded $1 good, if nobody else harvests first. A
second harvest in the same round gives the good alone.
"""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

ID = "frost_orchard"
MAX_FRUIT = 3


def ripe_fruit(ctx: Ctx) -> int:
    """Frost-fruit on the trees now: 1 per round since the last harvest, at most 3."""
    harvested: int = ctx.game.board.extra.get(ID, {}).get("harvested", 0)
    return max(0, min(MAX_FRUIT, ctx.game.round - harvested))


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("building", ID, "Frost Orchard",
                      "Gain 1 basic good with a current value of $1, and 1 coin and 1 prestige for each ripe "
                      "frost-fruit. A frost-fruit ripens every round the orchard is not harvested (at most 3); "
                      "with 3 ripe, the good is gained upgraded.", {"max_fruit": MAX_FRUIT})]


@hookimpl
def darkroad_setup(ctx: Ctx) -> None:
    if ctx.in_play(ID):
        ctx.game.board.extra[ID] = {"harvested": ctx.game.round}


@hookimpl
def darkroad_activate_building(ctx: Ctx, seat: int, building: str) -> bool | None:
    if building != ID:
        return None
    fruit = ripe_fruit(ctx)
    ctx.game.board.extra[ID] = {"harvested": ctx.game.round}
    ctx.emit("orchard_harvested", seat, building=ID, fruit=fruit)
    good = "good:value1+" if fruit == MAX_FRUIT else "good:value1"
    ctx.gain_effects(seat, [good, f"coins:{fruit}", f"prestige:{fruit}"] if fruit else [good], source=ID)
    return True
