"""Merchant's Guildhall (rulebook p. 15): spend 2 coins or 1 lantern, then gain 2 basic
goods: 1 of any type and 1 of a type with a current value of $1.

Double-sided tile 2 with Icebreaker Harbor (RULES.md B.4).
"""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl
from darkroad.core.steps import Step

from ._base import SpendToGain

ID = "merchants_guildhall"


class Pay(SpendToGain):
    """Spend 2 coins or 1 lantern, then gain 1 good of any type and 1 good valued $1."""

    kind = f"{ID}_pay"
    prompt = "Merchant's Guildhall: spend 2 coins or 1 lantern to gain 2 basic goods"
    building = ID
    costs = {"coins": 2, "lantern": 1}
    cost_text = "2 coins or 1 lantern"
    effects = ("good:any", "good:value1")


PAY = Pay()


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("building", ID, "Merchant's Guildhall",
                      "Spend 2 coins or 1 lantern, then gain 2 basic goods from the supply: 1 good of any "
                      "type and 1 good of a type with a current value of $1.", {"tile": 2})]


@hookimpl
def darkroad_steps() -> list[Step]:
    return [PAY]


@hookimpl
def darkroad_activate_building(ctx: Ctx, seat: int, building: str) -> bool | None:
    if building != ID:
        return None
    PAY.activate(ctx, seat)
    return True
