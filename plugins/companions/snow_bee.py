"""Snow Bee, a loyal companion (rulebook p. 16, "Companions"): gain 1 available hero (no
sale needed; its bonus applies) / craft an upgraded good using the die locked in slot #1."""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl
from darkroad.core.steps import Option

from . import _base

ID = "snow_bee"
EFFECTS = ("hero", "good:craft+")


@hookimpl
def darkroad_components() -> list[Component]:
    return [_base.loyal(ID, "Snow Bee", [
        "Gain 1 available hero.",
        "Craft an upgraded good using the die locked in slot #1.",
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
