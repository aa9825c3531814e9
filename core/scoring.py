"""Final scoring (rulebook p. 13) and the tie-breakers.

1. Coins & prestige: add deed coins and prestige; the lower of the two is the base score.
2. Victory points: deeds that give VP, +1 per illuminated die held but not used.
3. Final score = base + VP. Ties: higher discarded value (the higher of coins and
   prestige) > more gifts on loyal companions > more commissions delivered > more heroes
   delivered > shared victory.
"""

from __future__ import annotations

from .context import Ctx
from .hooks import is_score
from .state import ScoreLine, Task
from .steps import Step


def score_seat(ctx: Ctx, seat: int) -> ScoreLine:
    p = ctx.player(seat)
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


def tiebreak_key(s: ScoreLine) -> tuple[int, ...]:
    return (s.total, s.discarded, s.gifts, s.commissions_delivered, s.heroes_delivered)


def rank(lines: list[ScoreLine]) -> list[int]:
    """Fill ``rank`` (1 = winner; equal keys share a rank) and return the winners' seats."""
    ordered = sorted(lines, key=tiebreak_key, reverse=True)
    for i, s in enumerate(ordered):
        s.rank = 1 if i == 0 else (ordered[i - 1].rank if tiebreak_key(s) == tiebreak_key(ordered[i - 1]) else i + 1)
    return sorted(s.seat for s in lines if s.rank == 1)


class FinalScoring(Step):
    kind = "final_scoring"

    def run(self, ctx: Ctx, task: Task) -> None:
        g = ctx.game
        g.score = [score_seat(ctx, s) for s in range(len(g.players))]
        g.winners = rank(g.score)
        g.phase = "finished"
        for s in g.score:
            for deed in g.players[s.seat].deeds:
                ctx.emit("deed_revealed", s.seat, deed=deed)
        ctx.emit("game_finished", None, winners=list(g.winners),
                 scores={str(s.seat): s.total for s in g.score})
        ctx.call("darkroad_game_end")


STEPS: list[Step] = [FinalScoring()]
