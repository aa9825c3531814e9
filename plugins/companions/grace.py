"""Grace, a stray companion (rulebook p. 17, "Companions"): for a potion (basic or
upgraded, returned to the supply), gain 1 available deed and its bonus; then Grace
passes to the player on the left."""

from __future__ import annotations

from darkroad.core import Component, Ctx, Option, Step, hookimpl

from . import _base

ID = "grace"
GIFT = "potion"


@hookimpl
def darkroad_components() -> list[Component]:
    return [_base.stray(ID, "Grace", "Gain 1 available deed and its bonus.", GIFT)]


def usable(ctx: Ctx, seat: int, ability: int) -> bool:
    return _base.can_gain(ctx, seat, "deed")


def resolve(ctx: Ctx, seat: int, card: str, ability: int) -> None:
    ctx.gain_effects(seat, ["deed"], source=f"companion:{card}")


class GraceGift(_base.GiftChoice):
    """A basic or an upgraded potion for Grace."""

    kind = "grace_gift"
    prompt = "Grace: give a basic or an upgraded potion"

    def resolve(self, ctx: Ctx, seat: int, card: str, ability: int) -> None:
        resolve(ctx, seat, card, ability)


@hookimpl
def darkroad_steps() -> list[Step]:
    return [GraceGift()]


@hookimpl
def darkroad_companion_options(ctx: Ctx, seat: int) -> list[Option]:
    return _base.options(ctx, seat, ID, usable)


@hookimpl
def darkroad_companion_use(ctx: Ctx, seat: int, option: str) -> bool | None:
    return _base.use(ctx, seat, option, ID, resolve, gift_step=GraceGift.kind)
