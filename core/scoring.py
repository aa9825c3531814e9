"""Final scoring (rulebook p. 13) and the tie-breakers.

1. Coins & prestige: add deed coins and prestige; the lower of the two is the base score.
2. Victory points: deeds that give VP, +1 per illuminated die held but not used.
3. Final score = base + VP. Ties: higher discarded value (the higher of coins and
   prestige) > more gifts on loyal companions > more commissions delivered > more heroes
   delivered > shared victory.

The Private Concern scores by its own rule (:func:`private_concern.score`); in a game with
a Private Concern, ties are broken by the discarded value only, then shared (the prototype's
solo rule).
"""

from __future__ import annotations

from . import private_concern
from .context import Ctx
from .hooks import is_score
from .state import ScoreLine, Task
from .steps import Step


def score_seat(ctx: Ctx, seat: int) -> ScoreLine:
    p = ctx.player(seat)
    if p.kind == private_concern.KIND:
        return private_concern.score(ctx, seat)
    coins, prestige, vp = p.coins, p.prestige, 0
    details = []
    for deed in p.deeds:
        got = ctx.first("darkroad_deed_score", is_score, seat=seat, deed=deed) or {}
        coins += int(got.get("coins", 0))
        prestige += int(got.get("prestige", 0))
        vp += int(got.get("vp", 0))
        name = ctx.content.components[deed].name if deed in ctx.content.components else deed
        details.append(f"{name}: " + (", ".join(f"+{v} {k}" for k, v in got.items() if v) or "not met"))
    illuminated = len(p.special)
    gifts = sum(
        len(c.gifts) for c in p.companions
        if ctx.content.companion_cards.get(c.card) in ctx.content.components
        and ctx.content.companion_of(c.card).data.get("loyalty") == "loyal"
    )
    base = min(coins, prestige)
    return ScoreLine(
        seat=seat, coins=coins, prestige=prestige, base=base, deed_vp=vp, illuminated_vp=illuminated,
        total=base + vp + illuminated, discarded=max(coins, prestige), gifts=gifts,
        commissions_delivered=len(p.delivered_commissions), heroes_delivered=len(p.delivered_heroes),
        details=details,
    )


def tiebreak_key(s: ScoreLine, short: bool = False) -> tuple[int, ...]:
    if short:  # with a Private Concern at the table
        return (s.total, s.discarded)
    return (s.total, s.discarded, s.gifts, s.commissions_delivered, s.heroes_delivered)


def rank(lines: list[ScoreLine], short: bool = False) -> list[int]:
    """Fill ``rank`` (1 = winner; equal keys share a rank) and return the winners' seats."""
    ordered = sorted(lines, key=lambda s: tiebreak_key(s, short), reverse=True)
    for i, s in enumerate(ordered):
        same = i and tiebreak_key(s, short) == tiebreak_key(ordered[i - 1], short)
        s.rank = 1 if i == 0 else (ordered[i - 1].rank if same else i + 1)
    return sorted(s.seat for s in lines if s.rank == 1)


class FinalScoring(Step):
    kind = "final_scoring"

    def run(self, ctx: Ctx, task: Task) -> None:
        g = ctx.game
        g.score = [score_seat(ctx, s) for s in range(len(g.players))]
        g.winners = rank(g.score, short=g.config.private_concern)
        g.phase = "finished"
        for s in g.score:
            for deed in g.players[s.seat].deeds:
                ctx.emit("deed_revealed", s.seat, deed=deed)
        ctx.emit("game_finished", None, winners=list(g.winners),
                 scores={str(s.seat): s.total for s in g.score})
        ctx.call("darkroad_game_end")


STEPS: list[Step] = [FinalScoring()]
