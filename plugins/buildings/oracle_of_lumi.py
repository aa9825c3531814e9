"""The Oracle of Lumi (rulebook p. 15): roll the oracle die and gain the reward shown.

Double-sided tile 3 with The Candle & Quartz (docs/content.md, "Double-sided building tiles"); one of the rulebook's
first-game buildings (p. 4).

The oracle die (docs/content.md, "Dice faces": its faces are ours to design; a reconstruction, replace
them with the real die's faces by editing :data:`ORACLE_DIE`). Each face is a list of
effect strings, each about as strong as another building's activation:

====  ==================================  =====================================
face  effects                             reward
====  ==================================  =====================================
1     ``coins:3``                         gain 3 coins
2     ``quartz:1``                        gain 1 blazing quartz
3     ``lantern:1``, ``prestige:1``       gain 1 lantern and 1 prestige
4     ``good:any``                        gain 1 basic good of your choice
5     ``upgrade_good``                    flip 1 basic good in storage to its upgraded side
6     ``illuminated``                     gain 1 illuminated die (rolled, special reserve)
====  ==================================  =====================================

The faces are published as the component's ``data["oracle_die"]``, which is in the
catalogue whether or not the building is in play, so other components that "roll the
oracle die" (the Raven) read them there: ``ctx.content.components["oracle_of_lumi"]
.data["oracle_die"]``, roll ``ctx.randbelow(6)`` and gain that face's effects. The
``oracle_die_rolled`` event carries the face's effects (``face``) and its ``number`` (1-6).
"""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

ID = "oracle_of_lumi"
ORACLE_DIE: list[list[str]] = [
    ["coins:3"],
    ["quartz:1"],
    ["lantern:1", "prestige:1"],
    ["good:any"],
    ["upgrade_good"],
    ["illuminated"],
]


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("building", ID, "The Oracle of Lumi", "Roll the oracle die and gain the reward shown.",
                      {"tile": 3, "first_game": True, "oracle_die": ORACLE_DIE})]


@hookimpl
def darkroad_activate_building(ctx: Ctx, seat: int, building: str) -> bool | None:
    if building != ID:
        return None
    faces = ctx.content.components[ID].data["oracle_die"]
    i = ctx.randbelow(len(faces))
    ctx.emit("oracle_die_rolled", seat, face=list(faces[i]), number=i + 1, source=ID)
    ctx.gain_effects(seat, faces[i], source=ID)
    return True
