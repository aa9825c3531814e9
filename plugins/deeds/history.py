"""The game history that deeds read and the game state does not keep (rulebook p. 17, "Deeds").

Counted once, here, for every deed that reads it: how many commissions each player delivered
with all their goods (Perfect Delivery) and how many caravans each player led (Road Warden).
Deed modules only read these counts (``tracked(...)`` in the kit), so a deed module copied into
a fan package as a template never counts a delivery twice. Counting happens whether or not
anyone holds such a deed yet, since deeds are gained late.
"""

from __future__ import annotations

from darkroad.core import Ctx, hookimpl
from darkroad.plugins.deeds.kit import count_caravan_led, count_full_delivery


@hookimpl
def darkroad_commission_delivered(ctx: Ctx, seat: int, commission: str, goods: list[str]) -> None:
    count_full_delivery(ctx, seat, commission, goods)


@hookimpl
def darkroad_excursion(ctx: Ctx, seat: int, choice: str) -> None:
    count_caravan_led(ctx, seat, choice)
