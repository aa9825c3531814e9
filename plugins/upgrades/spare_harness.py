"""Spare Harness, a wagon upgrade (rulebook p. 19, "Wagon Upgrades").

"Goes in an inventory slot. Immediately gain a second steed of your choice from the
unused steed cards. You may not discard it to make room in inventory."

The rulebook names no upgrade tile; the name is ours. The tile takes one of the 3
inventory slots for good (blazing quartz and horseshoes share the other 2; the core
asks the player to discard one if they no longer fit). The unused steeds are the steeds
no player holds; the second steed works exactly like the first.
"""

from __future__ import annotations

from darkroad.core import Choice, Component, Ctx, Option, Step, Task, hookimpl, i18n, wording

ID = "spare_harness"
say = wording.speaker(__name__)


def unused_steeds(ctx: Ctx) -> list[str]:
    held = {s for p in ctx.game.players for s in p.steeds}
    return [s.id for s in ctx.content.of_kind("steed") if s.id not in held]


class ChooseSteed(Choice):
    """Gain a second steed of your choice from the unused steeds."""

    kind = f"{ID}_steed"
    prompt = i18n.N_("Spare Harness: choose a second steed")
    inside_gain = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        comps = ctx.content.components
        words = ctx.words
        return [(f"steed:{s}", say("gain %(steed)s: %(text)s", steed=words.component(s),
                                   text=words.component_text(s, comps[s].text)))
                for s in unused_steeds(ctx)]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        steed = option.split(":", 1)[1]
        ctx.player(seat).steeds.append(steed)
        ctx.emit("steed_gained", seat, steed=steed, source=ID)


CHOOSE = ChooseSteed()


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("upgrade", ID, "Spare Harness",
                      "Goes in an inventory slot. Immediately gain a second steed of your choice from the unused "
                      "steed cards. You may not discard it to make room in inventory.",
                      {"goes_in": "inventory slot"})]


@hookimpl
def darkroad_steps() -> list[Step]:
    return [CHOOSE]


@hookimpl
def darkroad_capacity(ctx: Ctx, seat: int, kind: str) -> int | None:
    return -1 if kind == "inventory" and ctx.owns(seat, ID) else None


@hookimpl
def darkroad_upgrade_gained(ctx: Ctx, seat: int, upgrade: str) -> None:
    if upgrade != ID:
        return
    if unused_steeds(ctx):
        ctx.push(CHOOSE.kind, seat)
    else:
        ctx.emit("upgrade_unused", seat, upgrade=ID, reason="no unused steed left")
