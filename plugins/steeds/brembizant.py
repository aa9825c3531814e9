"""Brembizánt (rulebook p. 17): a $2 discount off the total cost at the Great Bazaar."""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

ID = "brembizant"
DISCOUNT = 2


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("steed", ID, "Brembizánt", "When you buy goods at the Great Bazaar, receive a $2 discount "
                      "off the total cost. The cost cannot go lower than zero.")]


@hookimpl
def darkroad_bazaar_discount(ctx: Ctx, seat: int) -> int | None:
    return DISCOUNT if ctx.owns(seat, ID) else None
