"""Woolsworth (rulebook p. 17, Steeds): when you deliver a commission, you also gain 1
blazing quartz for each upgraded good that you deliver for that commission."""

from __future__ import annotations

from collections.abc import Sequence

from darkroad.core import Component, Ctx, hookimpl, is_upgraded

ID = "woolsworth"


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("steed", ID, "Woolsworth", "When you deliver a commission, you also gain 1 blazing quartz "
                      "for each upgraded good that you deliver for that commission.")]


@hookimpl
def darkroad_commission_delivered(ctx: Ctx, seat: int, commission: str, goods: Sequence[str]) -> None:
    upgraded = sum(1 for g in goods if is_upgraded(g))
    if upgraded and ctx.owns(seat, ID):
        ctx.gain_effects(seat, [f"quartz:{upgraded}"], source=ID)
