"""Velvet (rulebook p. 17, Steeds): your wagon can have unlimited upgrades (instead of 1);
when you gain a wagon upgrade, gain 2 prestige."""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

ID = "velvet"
UNLIMITED = 99
PRESTIGE = 2


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("steed", ID, "Velvet", "Your wagon can have unlimited upgrades (instead of 1). When you "
                      "gain a wagon upgrade, gain 2 prestige.")]


@hookimpl
def darkroad_upgrade_limit(ctx: Ctx, seat: int) -> int | None:
    return UNLIMITED if ctx.owns(seat, ID) else None


@hookimpl
def darkroad_upgrade_gained(ctx: Ctx, seat: int, upgrade: str) -> None:
    if ctx.owns(seat, ID):
        ctx.gain_effects(seat, [f"prestige:{PRESTIGE}"], source=ID)
