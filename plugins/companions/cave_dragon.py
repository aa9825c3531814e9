"""Cave Dragon, a loyal companion (rulebook p. 16, "Companions"): deliver 1 hero to their
outlying town and gain the delivery reward (no travel needed) / gain 1 basic good of a
type not currently available on the market wheel."""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl
from darkroad.core.steps import Option

from . import _base

ID = "cave_dragon"
EFFECTS = ("deliver_hero", "good:not_on_wheel")


@hookimpl
def darkroad_components() -> list[Component]:
    return [_base.loyal(ID, "Cave Dragon", [
        "Deliver 1 hero to their outlying town and gain the delivery reward.",
        "Gain 1 basic good from the supply of any type that is not currently available on the market wheel.",
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
