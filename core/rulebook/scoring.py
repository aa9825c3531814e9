"""Final scoring (rulebook p. 13) and the tie-breakers.

1. Coins & prestige: add deed coins and prestige; the lower of the two is the base score.
2. Victory points: deeds that give VP, +1 per illuminated die held but not used.
3. Final score = base + VP. Ties: higher discarded value (the higher of coins and
   prestige) > more gifts on loyal companions > more commissions delivered > more heroes
   delivered > shared victory.

An automated seat may score by its seat kind's rule (:meth:`SeatKind.score`) and use fewer
tie-breakers (:attr:`SeatKind.tiebreakers`): two seats are compared by the tie-breakers both
use, so between players the full order always applies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .. import hooks
from ..context import Ctx
from ..hooks import is_score
from ..hookspecs import hookimpl
from ..seats import HUMAN, TIEBREAKERS
from ..state import FINISHED, ScoreLine, Task
from ..steps import Step
from ..wording import count, say


def score_seat(ctx: Ctx, seat: int, worded: bool = True) -> ScoreLine:
    """``seat``'s final score line if the game ended now; ``worded``: with its deeds' ``details``
    in words (a projection leaves them out: none of its fields shows them)."""
    p = ctx.player(seat)
    if p.kind != HUMAN:
        line = ctx.engine.seat_kinds[p.kind].score(ctx, seat)
        if line is not None:
            return line
    details: list[str] = []
    coins, prestige, base, vp, illuminated, total = score_totals(ctx, seat, details if worded else None)
    gifts = sum(
        len(c.gifts) for c in p.companions
        if ctx.content.companion_cards.get(c.card) in ctx.content.components
        and ctx.content.companion_of(c.card).data.get("loyalty") == "loyal"
    )
    return ScoreLine(
        seat=seat, coins=coins, prestige=prestige, base=base, deed_vp=vp, illuminated_vp=illuminated,
        total=total, discarded=max(coins, prestige), gifts=gifts,
        commissions_delivered=len(p.delivered_commissions), heroes_delivered=len(p.delivered_heroes),
        details=details,
    )


def score_totals(ctx: Ctx, seat: int, details: list[str] | None = None) -> tuple[int, int, int, int, int, int]:
    """A player's final score if the game ended now, without the tie-breakers: ``(coins,
    prestige, base, deed_vp, illuminated_vp, total)`` as :func:`score_seat`'s line of a player
    has them (an automated seat's kind may score otherwise: ask :func:`score_seat`). What a
    projection shows, without the tie-breakers it does not (the gifts counted); ``details``:
    a list the deeds' lines are added to, in English words."""
    p = ctx.player(seat)
    coins, prestige, vp = p.coins, p.prestige, 0
    for deed in p.deeds:
        got = deed_score(ctx, seat, deed)
        # Checked by is_score: "coins", "prestige" or "vp", each an int (most deeds pay one).
        for what, n in got.items():
            if what == "coins":
                coins += n
            elif what == "prestige":
                prestige += n
            else:
                vp += n
        if details is not None:
            name = ctx.content.components[deed].name if deed in ctx.content.components else deed
            details.append(f"{name}: " + (", ".join(f"+{v} {k}" for k, v in got.items() if v) or "not met"))
    base = min(coins, prestige)
    illuminated = len(p.special)
    return coins, prestige, base, vp, illuminated, base + vp + illuminated


def deed_score(ctx: Ctx, seat: int, deed: str) -> Mapping[str, int]:
    """What ``deed`` pays ``seat`` now (``darkroad_deed_score``; empty when no plugin answers),
    asked of the plugin providing the deed first (:attr:`Registry.deed_impls
    <darkroad.core.registry.Registry.deed_impls>`)."""
    impls = ctx.engine.registry.deed_impls.get(deed)
    if impls is None:  # (a deed nobody provides: every implementation)
        got = hooks.call(ctx, "darkroad_deed_score", is_score, True, {"seat": seat, "deed": deed})
    else:
        got = hooks.call_with(ctx, "darkroad_deed_score", is_score, True, _DEED_ARGS, (ctx, seat, deed), impls)
    return got[0] if got else {}


_DEED_ARGS = ("ctx", "seat", "deed")
"""``darkroad_deed_score``'s arguments, in its specification's order."""


_GOT = {"coins": "coins", "prestige": "prestige", "vp": "vp"}
"""What a deed gives -> the thing counted in words (:func:`darkroad.core.wording.count`)."""


def worded_details(ctx: Ctx, seat: int) -> list[str]:
    """The deeds' lines of ``seat``'s final score in the caller's language ("Full Wagon: +6
    coins", "Renowned: not met"), worded again from the finished game: the score line a game
    keeps has them in English, as it finished (a player reads them in their own language)."""
    words = ctx.words
    details = []
    for deed in ctx.player(seat).deeds:
        got = deed_score(ctx, seat, deed)
        gains = [say("+%(what)s", what=count(int(v), _GOT.get(k, k))) for k, v in got.items() if v]
        details.append(say("%(deed)s: %(result)s", deed=words.component(deed),
                           result=", ".join(gains) if gains else say("not met")))
    return details


Tiebreakers = Mapping[int, Sequence[str]]
"""Seat -> the tie-breakers its score line is compared by (a seat left out: all of them)."""


def tiebreak_key(s: ScoreLine, tiebreakers: Sequence[str] = TIEBREAKERS) -> tuple[int, ...]:
    """What two score lines are compared by: the final score, then ``tiebreakers`` in order."""
    return (s.total, *(getattr(s, t) for t in tiebreakers))


def shared(a: Sequence[str], b: Sequence[str]) -> Sequence[str]:
    """The tie-breakers two seats are compared by: those both use (the longest common beginning)."""
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return a[:n]


def beats(a: ScoreLine, b: ScoreLine, tiebreakers: Tiebreakers | None = None) -> bool:
    """Whether ``a`` ranks above ``b``, by the tie-breakers both seats use (the full order
    between players)."""
    tb = tiebreakers or {}
    common = shared(tb.get(a.seat, TIEBREAKERS), tb.get(b.seat, TIEBREAKERS))
    return tiebreak_key(a, common) > tiebreak_key(b, common)


def rank(lines: list[ScoreLine], tiebreakers: Tiebreakers | None = None) -> list[int]:
    """Fill ``rank`` and return the winners' seats. A seat's rank is 1 + the number of seats
    that beat it (:func:`beats`), so the winners are the seats nobody beats and equal seats
    share a rank. A seat compared by fewer tie-breakers (an automated seat's kind may use
    fewer) can tie two players that the full order separates: it then shares the victory
    with the better one only."""
    for s in lines:
        s.rank = 1 + sum(1 for o in lines if o is not s and beats(o, s, tiebreakers))
    return sorted(s.seat for s in lines if s.rank == 1)


class FinalScoring(Step):
    kind = "final_scoring"

    def run(self, ctx: Ctx, task: Task) -> None:
        g = ctx.game
        g.score = [score_seat(ctx, s) for s in range(len(g.players))]
        kinds = ctx.engine.automated(g)
        g.winners = rank(g.score, {seat: kind.tiebreakers for seat, kind in kinds.items()})
        g.phase = FINISHED
        for s in g.score:
            for deed in g.players[s.seat].deeds:
                ctx.emit("deed_revealed", s.seat, deed=deed)
        ctx.emit("game_finished", None, winners=list(g.winners),
                 scores={str(s.seat): s.total for s in g.score})
        ctx.call("darkroad_game_end")


STEPS: list[Step] = [FinalScoring()]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
