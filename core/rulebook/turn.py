"""A turn and the rounds ("Playing the Game", p. 6; "Game End", p. 13).

"On your turn, you will complete the following steps in order: 1. Plan 2. Move 3. Act
4. Rest" (p. 6). The game lasts 13 rounds; after the last one every player makes a final
travel, then final scoring (p. 13).
"""

from __future__ import annotations

from ..context import Ctx
from ..hookspecs import hookimpl
from ..i18n import N_
from ..seats import HUMAN
from ..state import Task
from ..state import Turn as TurnState
from ..steps import Choice, Option, Step
from ..wording import say
from .rest import upkeep

ROUNDS = 13


class Turn(Step):
    """Start ``seat``'s turn: Plan, Move, Activate, Rest, (companion moment), next turn."""

    kind = "turn"

    def run(self, ctx: Ctx, task: Task) -> None:
        g = ctx.game
        if g.round == 0:
            g.round = 1
        g.active = task.seat
        g.turn = TurnState(seat=task.seat)
        ctx.emit("turn_started", task.seat, round=g.round)
        kind = g.players[task.seat].kind
        if kind != HUMAN:  # an automated seat: its seat kind's steps, then Rest
            steps = ctx.engine.seat_kinds[kind].turn(ctx, task.seat)
            ctx.push_many(task.seat, [*steps, ("rest", {}), ("end_turn", {})])
            return
        ctx.push_many(task.seat, [("plan", {}), ("move", {}), ("activate", {}), ("rest", {}),
                                  ("finish_turn", {}), ("end_turn", {})])


class FinishTurn(Choice):
    """A last moment of the turn, after Rest, for companion abilities ("You may only trigger
    companion abilities on your own turn, but may do so at any time", p. 16; Rest is the
    turn's fourth step); a decision only when an ability is usable."""

    kind = "finish_turn"
    prompt = N_("end your turn (or trigger a companion ability first)")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        if not ctx.engine.companion_options(ctx, seat):
            return []
        return [("end", say("end your turn"))]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        return None


class EndTurn(Step):
    """Pass the turn clockwise; after round 13, the final travel and final scoring."""

    kind = "end_turn"

    def run(self, ctx: Ctx, task: Task) -> None:
        g = ctx.game
        # A companion ability used after Rest may have taken a card or a market die: the
        # upkeep covers it before the turn passes (nothing to do, and no die rolled, otherwise).
        upkeep(ctx, task.seat)
        nxt = (task.seat + 1) % len(g.players)
        if nxt == g.start_seat:
            ctx.emit("round_ended", None, round=g.round)
            if g.round >= ROUNDS:
                # "When the end of the game occurs, all players get to travel one last time. Each
                # player may visit the outlying town of their choice ... However, nothing else
                # happens during this final travel" (p. 13).
                g.phase = "final_travel"
                g.turn = TurnState()
                ctx.push("final_scoring")
                ctx.push("deliveries", -1, final=True, pending=list(range(len(g.players))), town={})
                return
            g.round += 1
        ctx.push("turn", nxt)


STEPS: list[Step] = [Turn(), FinishTurn(), EndTurn()]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
