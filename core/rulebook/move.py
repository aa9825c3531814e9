"""Step 2: Move (rulebook p. 7).

"Choose a die from your action pool to count as your movement ... If you have 2 dice in your
action pool, do not add their values together." "After you move your wagon pawn based on the
die value, you may spend a horseshoe to move your wagon pawn 1 space in either direction ...
You may only spend 1 horseshoe per turn."
"""

from __future__ import annotations

from ..context import Ctx
from ..hooks import is_distances
from ..hookspecs import hookimpl
from ..i18n import N_
from ..state import Task
from ..steps import Choice, Option, Step
from ..wording import count, say


class Move(Choice):
    """Step 2 (p. 7): move clockwise by one pool die's value (0 stays)."""

    kind = "move"
    prompt = N_("move: choose a die from your action pool")
    begins_phase = "move"
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        labels = {d.value: say("move %(spaces)s with your illuminated die", spaces=count(d.value, "spaces"))
                  if d.kind == "illuminated" else say("move %(spaces)s with your night die",
                                                       spaces=count(d.value, "spaces")) for d in ctx.player(seat).pool}
        return [(f"move:{v}", labels[v] if v in labels else say("move exactly %(spaces)s", spaces=count(v, "spaces")))
                for v in sorted(self._distances(ctx, seat))]

    def _distances(self, ctx: Ctx, seat: int) -> set[int]:
        dists = {d.value for d in ctx.player(seat).pool}
        for extra in ctx.call("darkroad_movement_options", is_distances, seat=seat):
            dists.update(extra)
        return dists

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return bool(self._distances(ctx, seat))

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        return any(option == f"move:{v}" for v in self._distances(ctx, seat))

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        p = ctx.player(seat)
        n = int(option.split(":")[1])
        p.position = (p.position + n) % 5
        ctx.emit("moved", seat, steps=n, position=p.position)
        if p.horseshoes:
            ctx.push("horseshoe", seat)


class Horseshoe(Choice):
    """After moving, optionally spend 1 horseshoe to move 1 space either way (max 1 per turn)."""

    kind = "horseshoe"
    prompt = N_("spend a horseshoe to move 1 space?")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        if not ctx.player(seat).horseshoes or ctx.game.turn.horseshoe:
            return []
        return [("keep", say("do not spend a horseshoe")), ("cw", say("spend a horseshoe: 1 space clockwise")),
                ("ccw", say("spend a horseshoe: 1 space counterclockwise"))]

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return bool(ctx.player(seat).horseshoes and not ctx.game.turn.horseshoe)

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        return option in ("keep", "cw", "ccw") and self.has_options(ctx, task, seat)

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == "keep":
            return
        p = ctx.player(seat)
        ctx.pay(seat, "horseshoes", 1, "horseshoe move")
        ctx.game.turn.horseshoe = True
        p.position = (p.position + (1 if option == "cw" else -1)) % 5
        ctx.emit("moved", seat, steps=1 if option == "cw" else -1, position=p.position, horseshoe=True)


STEPS: list[Step] = [Move(), Horseshoe()]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
