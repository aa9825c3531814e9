"""Phoenix, a loyal companion (rulebook p. 16, "Companions"): gain 2 lanterns / move the
ruins marker 1 space clockwise and gain the reward shown."""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl
from darkroad.core.steps import Option

from . import _base

ID = "phoenix"
LANTERNS, RUINS = 0, 1


@hookimpl
def darkroad_components() -> list[Component]:
    return [_base.loyal(ID, "Phoenix", [
        "Gain 2 lanterns from the supply.",
        "Move the district marker in the ruins 1 space clockwise and gain the reward shown.",
    ])]


def usable(ctx: Ctx, seat: int, ability: int) -> bool:
    if ability == LANTERNS:
        return ctx.player(seat).lanterns < ctx.capacity(seat, "lanterns")
    return True


def resolve(ctx: Ctx, seat: int, card: str, ability: int) -> None:
    ctx.gain_effects(seat, ["lantern:2" if ability == LANTERNS else "ruins:1"], source=f"companion:{card}")


@hookimpl
def darkroad_companion_options(ctx: Ctx, seat: int) -> list[Option]:
    return _base.options(ctx, seat, ID, usable)


@hookimpl
def darkroad_companion_use(ctx: Ctx, seat: int, option: str) -> bool | None:
    return _base.use(ctx, seat, option, ID, resolve)
