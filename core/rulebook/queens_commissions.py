"""The Queen's Commissions (rulebook p. 8): "gain the top commission from the stack of your
choice ... You are not allowed to look through the commission stacks. Only the top commission
in each stack should ever be visible."
"""

from __future__ import annotations

from ..context import Ctx
from ..hookspecs import hookimpl
from ..state import Task
from ..steps import Step


class QueensCommissions(Step):
    """Gain the top commission of the stack of your choice (only tops are visible)."""

    kind = "queens_commissions"

    def run(self, ctx: Ctx, task: Task) -> None:
        ctx.gain_effects(task.seat, ["commission"], source="queen's commissions")


STEPS: list[Step] = [QueensCommissions()]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
