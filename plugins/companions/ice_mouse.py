"""Ice Mouse, a loyal companion (rulebook p. 16, "Companions"): gain 1 available
commission / gain 1 basic good from the supply."""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl
from darkroad.core.steps import Option

from . import _base

ID = "ice_mouse"
EFFECTS = ("commission", "good:any")


@hookimpl
def darkroad_components() -> list[Component]:
    return [_base.loyal(ID, "Ice Mouse", [
        "Gain 1 available commission.",
        "Gain 1 basic good from the supply.",
    ])]


def usable(ctx: Ctx, seat: int, ability: int) -> bool:
    return _base.can_gain(ctx, seat, EFFECTS[ability])


def resolve(ctx: Ctx, seat: int, card: str, ability: int) -> None:
    ctx.gain_effects(seat, [EFFECTS[ability]], source=f"companion:{card}")


@hookimpl
def darkroad_companion_options(ctx: Ctx, seat: int) -> list[Option]:
    return _base.options(ctx, seat, ID, usable)


@hookimpl
def darkroad_companion_use(ctx: Ctx, seat: int, option: str) -> bool | None:
    return _base.use(ctx, seat, option, ID, resolve)
