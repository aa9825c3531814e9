"""Each seat's projected final score, as far as a viewer may see it (issue 42).

The projection is the final score (rulebook p. 13, "Final Scoring") if the game ended now:
"Reveal and count up your coins and prestige. Reveal any completed deeds that give you coins or
prestige and add them to your totals. Then compare your coins and prestige. The lower of the two
values is your base score." Then the victory points: the deeds' and "1 victory point for each
illuminated die that you have but did not use".

A viewer knows its own seat's coins and deeds, so its projection is exact (``known``). Another
seat's coins and deeds are hidden: its base score lies between 0 (no coins) and its prestige (at
least as many coins), and its secret deeds are not counted (``secret_deeds`` says how many), so
its projection is the range ``low``-``high`` of what is public: its illuminated dice (or, for an
automated seat, the victory points its seat kind counts from what is public: the Private
Concern's goods, quartz, illuminated dice and deeds, 1 each). A finished game's projection is
its final score.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from .context import Ctx
from .rulebook.scoring import score_seat, score_totals
from .seats import HUMAN

if TYPE_CHECKING:
    from .engine import Engine
    from .state import Game, Player

FIELDS = ("seat", "known", "total", "low", "high", "coins", "prestige", "base", "vp", "secret_deeds")
"""The fields of a projection (each always present)."""


class Projected(msgspec.Struct):
    """A seat's projection (:data:`FIELDS`, in order): its JSON is the dict's a view shows."""

    seat: int
    known: bool
    total: int | None
    low: int
    high: int
    coins: int | None
    prestige: int
    base: int | None
    vp: int
    secret_deeds: int


def projected(engine: Engine, game: Game, viewer: int | None, ctx: Ctx | None = None) -> list[dict[str, Any]]:
    """Every seat's projected final score as ``viewer`` may see it (``None``: a spectator);
    ``ctx``: the game's context, when the caller has one already (a view asks the engine
    several things of the same game)."""
    return [msgspec.structs.asdict(s) for s in projections(engine, game, viewer, ctx)]


def projections(engine: Engine, game: Game, viewer: int | None, ctx: Ctx | None = None) -> list[Projected]:
    """:func:`projected` as :class:`Projected` structs: for a view encoded at once (msgspec
    writes a struct's field names encoded once, a dict's key by key)."""
    if ctx is None:
        ctx = Ctx(engine, game)
    finished = game.finished
    out = []
    # One loop over the seats, a hidden seat's projection made in it: a view asks this on every
    # request, and a call per seat is a tenth of a hidden seat's cost.
    for p in game.players:
        seat = p.seat
        if finished or seat == viewer:
            out.append(_known(ctx, p, seat, finished))
        elif p.kind == HUMAN:  # unused illuminated dice; the deeds are secret
            vp = len(p.special)
            out.append(Projected(seat, False, None, vp, p.prestige + vp, None, p.prestige, None, vp, len(p.deeds)))
        else:
            # An automated seat's kind counts its victory points from what is public (the Private
            # Concern: 1 per good, blazing quartz, illuminated die and deed); its coins stay hidden.
            line = score_seat(ctx, seat, worded=False)
            vp = line.total - line.base
            out.append(Projected(seat, False, None, vp, p.prestige + vp, None, p.prestige, None, vp, 0))
    return out


def _known(ctx: Ctx, p: Player, seat: int, finished: bool) -> Projected:
    """The projection of a seat the viewer knows (its own, or any once the game is over)."""
    g = ctx.game
    if finished and len(g.score) > seat:
        line = g.score[seat]
        coins, prestige, base, total = line.coins, line.prestige, line.base, line.total
    elif p.kind == HUMAN:  # the score line's totals, without its tie-breakers
        coins, prestige, base, _, _, total = score_totals(ctx, seat)
    else:
        line = score_seat(ctx, seat, worded=False)
        coins, prestige, base, total = line.coins, line.prestige, line.base, line.total
    return Projected(seat, True, total, total, total, coins, prestige, base, total - base, 0)
