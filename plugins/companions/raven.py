"""Raven, a loyal companion (rulebook p. 16, "Companions"): gain 1 illuminated die (rolled,
into the special reserve) / roll the oracle die and gain the reward shown.

The oracle die is the Oracle of Lumi's (its faces are that building's ``oracle_die``
data); without that building installed the second ability is not offered.
"""

from __future__ import annotations

from collections.abc import Sequence

from darkroad.core import Component, Ctx, Option, hookimpl

from . import _base

ID = "raven"
ORACLE = "oracle_of_lumi"
ILLUMINATED, ORACLE_DIE = 0, 1


@hookimpl
def darkroad_components() -> list[Component]:
    return [_base.loyal(ID, "Raven", [
        "Gain 1 illuminated die from the supply. Roll the die and place it in your special reserve.",
        "Roll the oracle die and gain the reward shown.",
    ])]


def oracle_faces(ctx: Ctx) -> Sequence[Sequence[str]]:
    comp = ctx.content.components.get(ORACLE)
    return comp.data.get("oracle_die", ()) if comp is not None else ()


def usable(ctx: Ctx, seat: int, ability: int) -> bool:
    if ability == ORACLE_DIE:
        return bool(oracle_faces(ctx))
    p = ctx.player(seat)
    held = len(p.special) + sum(1 for d in p.pool if d.kind == "illuminated")
    return held < ctx.capacity(seat, "illuminated")


def resolve(ctx: Ctx, seat: int, card: str, ability: int) -> None:
    source = f"companion:{card}"
    if ability == ILLUMINATED:
        ctx.gain_effects(seat, ["illuminated"], source=source)
        return
    faces = oracle_faces(ctx)
    face = list(faces[ctx.randbelow(len(faces))])
    ctx.emit("oracle_die_rolled", seat, face=face, source=source)
    ctx.gain_effects(seat, face, source=source)


@hookimpl
def darkroad_companion_options(ctx: Ctx, seat: int) -> list[Option]:
    return _base.options(ctx, seat, ID, usable)


@hookimpl
def darkroad_companion_use(ctx: Ctx, seat: int, option: str) -> bool | None:
    return _base.use(ctx, seat, option, ID, resolve)
