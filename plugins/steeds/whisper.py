"""Whisper (rulebook p. 17, Steeds): when you choose a travel die, you may add +1 to the
face value (the core caps the face at 6)."""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

ID = "whisper"
BONUS = 1


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("steed", ID, "Whisper", "When you choose a travel die, you may add +1 to the face value.")]


@hookimpl
def darkroad_travel_die_bonus(ctx: Ctx, seat: int) -> list[int] | None:
    return [BONUS] if ctx.owns(seat, ID) else None
