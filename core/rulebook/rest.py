"""Step 4: Rest (rulebook p. 7): the dice used come back, and the kingdom board is kept.

"Retrieve the night die you used this turn ... placing it in the spent pile ... If you also
used an illuminated die this turn, retrieve that die too, but return it to the supply
instead." "At the end of rounds 4, 7, 9, and 10, your main reserve will be empty. In these
rounds, take 1 night die from your spent pile and remove it from the game. Then reroll the
remaining night dice in your spent pile and place them back in your main reserve."
"""

from __future__ import annotations

from ..context import MAX_PER_SECTION, Ctx
from ..hookspecs import hookimpl
from ..state import Task
from ..steps import Step

REFRESH_ROUNDS = (4, 7, 9, 10)
"""End of these rounds: remove 1 spent die, reroll the rest into the main reserve."""


class Rest(Step):
    """Step 4 (p. 7): return dice, reroll bought market dice, refill the offers; at the end
    of rounds 4, 7, 9, 10 remove 1 spent die and reroll the rest into the main reserve."""

    kind = "rest"

    def run(self, ctx: Ctx, task: Task) -> None:
        g, seat = ctx.game, task.seat
        g.phase = "rest"
        p = ctx.player(seat)
        p.spent += sum(1 for d in p.pool if d.kind == "night")
        p.pool = []
        upkeep(ctx, seat)
        if g.round in REFRESH_ROUNDS and not p.reserve and p.spent:
            p.spent -= 1
            p.removed += 1
            p.reserve = [ctx.roll() - 1 for _ in range(p.spent)]
            p.spent = 0
            ctx.emit("night_dice_refreshed", seat, removed=1, reserve=list(p.reserve))


def upkeep(ctx: Ctx, seat: int) -> None:
    """Rest's upkeep of the kingdom board: reroll the market dice bought this turn ("no more
    than 2 dice may be in any 1 section ... keep rerolling until you get a valid result"),
    refill the companion row, the inn and the courtyard."""
    b = ctx.game.board
    for _ in range(b.set_aside):
        while True:
            face = ctx.randbelow(6)
            if b.market[face] < MAX_PER_SECTION:
                b.market[face] += 1
                break
    if b.set_aside:
        ctx.emit("market_rerolled", seat, market=list(b.market))
    b.set_aside = 0
    refill_companions(ctx)
    refill_inn(ctx)
    refill_courtyard(ctx)


def refill_companions(ctx: Ctx) -> None:
    """Slide companions toward the end of the row, refill from the deck (the farthest card
    carries a travel die)."""
    b = ctx.game.board
    kept = [c for c in b.companion_row if c]
    row: list[str | None] = [None] * (3 - len(kept)) + kept
    for i in range(len(row)):
        if row[i] is None and b.companion_deck:
            row[i] = b.companion_deck.pop(0)
    b.companion_row = row


def refill_inn(ctx: Ctx) -> None:
    """Reveal heroes from the deck into the inn's empty slots."""
    b = ctx.game.board
    for i, h in enumerate(b.inn):
        if h is None and b.hero_deck:
            b.inn[i] = b.hero_deck.pop(0)


def refill_courtyard(ctx: Ctx) -> None:
    """Reveal deeds from the deck into the courtyard's empty slots."""
    b = ctx.game.board
    for i, d in enumerate(b.courtyard):
        if d is None and b.deed_deck:
            b.courtyard[i] = b.deed_deck.pop(0)


STEPS: list[Step] = [Rest()]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
