"""Final scoring (rulebook p. 13) and the tie-breakers.

1. Coins & prestige: add deed coins and prestige; the lower of the two is the base score.
2. Victory points: deeds that give VP, +1 per illuminated die held but not used.
3. Final score = base + VP. Ties: higher discarded value (the higher of coins and
   prestige) > more gifts on loyal companions > more commissions delivered > more heroes
   delivered > shared victory.

The Private Concern scores by its own rule (:func:`private_concern.score`). A tie with the
Private Concern is broken by the discarded value only, then shared (the prototype's solo
rule); between human players the full order applies, Private Concern or not.
"""

from __future__ import annotations

from collections.abc import Collection

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
    """What two score lines are compared by: the final score, then the tie-breakers in order;
    ``short``: the solo rule (the discarded value only), for a comparison with the Private
    Concern."""
    if short:
        return (s.total, s.discarded)
    return (s.total, s.discarded, s.gifts, s.commissions_delivered, s.heroes_delivered)


def beats(a: ScoreLine, b: ScoreLine, concern: Collection[int] = ()) -> bool:
    """Whether ``a`` ranks above ``b``: the full order between human players, the solo rule
    where the Private Concern (a seat of ``concern``) is one of the two."""
    short = a.seat in concern or b.seat in concern
    return tiebreak_key(a, short) > tiebreak_key(b, short)


def rank(lines: list[ScoreLine], concern: Collection[int] = ()) -> list[int]:
    """Fill ``rank`` and return the winners' seats. A seat's rank is 1 + the number of seats
    that beat it (:func:`beats`), so the winners are the seats nobody beats and equal seats
    share a rank. Against the Private Concern fewer tie-breakers apply: two humans it ties
    with may still be ordered between themselves, and then it shares the victory with the
    better one only."""
    for s in lines:
        s.rank = 1 + sum(1 for o in lines if o is not s and beats(o, s, concern))
    return sorted(s.seat for s in lines if s.rank == 1)


class FinalScoring(Step):
    kind = "final_scoring"

    def run(self, ctx: Ctx, task: Task) -> None:
        g = ctx.game
        g.score = [score_seat(ctx, s) for s in range(len(g.players))]
        concern = [p.seat for p in g.players if p.kind == private_concern.KIND]
        g.winners = rank(g.score, concern)
        g.phase = "finished"
        for s in g.score:
            for deed in g.players[s.seat].deeds:
                ctx.emit("deed_revealed", s.seat, deed=deed)
        ctx.emit("game_finished", None, winners=list(g.winners),
                 scores={str(s.seat): s.total for s in g.score})
        ctx.call("darkroad_game_end")


STEPS: list[Step] = [FinalScoring()]
