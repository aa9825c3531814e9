"""Lamplighter's Post, a wagon upgrade (rulebook p. 19, "Wagon Upgrades").

"Goes in locked slot #2 and replaces that special action. When you use that special
action, gain 1 lantern from the supply -AND- you may move an illuminated die from your
special reserve to your action pool."

The rulebook names no upgrade tile; the name is ours. The lantern comes first, then the
optional move is a decision (offered only with an illuminated die in the special reserve).
"""

from __future__ import annotations

from darkroad.core import (
    Choice,
    Component,
    Ctx,
    Option,
    Step,
    Task,
    hookimpl,
    i18n,
    move_illuminated,
    wording,
)

ID = "lamplighters_post"
SLOT = 2
KEEP = "keep"
say = wording.speaker(__name__)


class MoveIlluminated(Choice):
    """Optionally move an illuminated die from the special reserve to the action pool."""

    kind = f"{ID}_illuminated"
    prompt = i18n.N_("Lamplighter's Post: move an illuminated die to your action pool?")

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        special = ctx.player(seat).special
        if not special:
            return []
        return [*((f"illuminated:{v}", say("move your illuminated %(value)s to your action pool", value=v))
                  for v in sorted(set(special))),
                (KEEP, say("keep your illuminated dice in your special reserve"))]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option != KEEP:
            move_illuminated(ctx, seat, int(option.split(":")[1]))


MOVE = MoveIlluminated()


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("upgrade", ID, "Lamplighter's Post",
                      "Goes in locked slot #2 and replaces that special action. When you use that special action, "
                      "gain 1 lantern from the supply -AND- you may move an illuminated die from your special "
                      "reserve to your action pool.", {"goes_in": "locked slot #2"})]


@hookimpl
def darkroad_steps() -> list[Step]:
    return [MOVE]


@hookimpl
def darkroad_slot_action(ctx: Ctx, seat: int, slot: int, last_rounds: bool) -> bool | None:
    if slot != SLOT or not ctx.owns(seat, ID):
        return None
    ctx.push(MOVE.kind, seat)
    ctx.add(seat, "lanterns", 1, ID)
    return True
