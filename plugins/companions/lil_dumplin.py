"""Li'l Dumplin', a stray companion (rulebook p. 17, "Companions"): for a horseshoe
(returned to the supply), roll the ruins die and gain the reward shown; then Li'l
Dumplin' passes to the player on the left."""

from __future__ import annotations

from darkroad.core import Component, Ctx, Option, hookimpl

from . import _base

ID = "lil_dumplin"


@hookimpl
def darkroad_components() -> list[Component]:
    return [_base.stray(ID, "Li'l Dumplin'", "Roll the ruins die and gain the reward shown.", _base.HORSESHOE)]


def usable(ctx: Ctx, seat: int, ability: int) -> bool:
    return bool(ctx.content.ruins_die)


def resolve(ctx: Ctx, seat: int, card: str, ability: int) -> None:
    ctx.gain_effects(seat, ["ruins_die"], source=f"companion:{card}")


@hookimpl
def darkroad_companion_options(ctx: Ctx, seat: int) -> list[Option]:
    return _base.options(ctx, seat, ID, usable)


@hookimpl
def darkroad_companion_use(ctx: Ctx, seat: int, option: str) -> bool | None:
    return _base.use(ctx, seat, option, ID, resolve)
