"""Sugarfoot (rulebook p. 17, Steeds): when you move your wagon, you may move exactly 3
spaces, regardless of your dice values; and a 2x2 extension to your wagon storage (the
saddle bag)."""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

ID = "sugarfoot"
DISTANCE = 3
SADDLE_BAG = (2, 2)


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("steed", ID, "Sugarfoot", "When you move your wagon, you may move exactly 3 spaces, "
                      "regardless of your dice values. You have a 2x2 extension to your wagon storage.")]


@hookimpl
def darkroad_movement_options(ctx: Ctx, seat: int) -> list[int] | None:
    return [DISTANCE] if ctx.owns(seat, ID) else None


@hookimpl
def darkroad_storage_extensions(ctx: Ctx, seat: int) -> list[dict[str, list[int]]] | None:
    return [{"extra_grid": list(SADDLE_BAG)}] if ctx.owns(seat, ID) else None
