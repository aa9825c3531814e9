"""The invariants the engine checks after every action: what no rule, and no plugin, may break.

Cheap enough to check after every action, so that a plugin that breaks the game is caught (and
named: the plugins that answered during the action) at the action that broke it rather than
turns later: the market's dice (five, on six wheel sections of at most two, with those set
aside), every seat's counted resources (exact ints, none negative), every player's night dice
(seven: locked, reserve, spent, removed and in the pool), and no step on the stack that no
plugin provides.
"""

from __future__ import annotations

import itertools
from collections.abc import Container
from typing import TYPE_CHECKING

from .seats import HUMAN

if TYPE_CHECKING:
    from .state import Game

MARKET_DICE = 5
NIGHT_DICE = 7
_MARKET_SUMS = {dice: sum(dice) for dice in itertools.product(range(3), repeat=6)}
"""Every market of six wheel sections holding 0 to 2 dice each -> its number of dice: a market
found here is well formed, and passes when its sum does."""


def broken(game: Game, steps: Container[str]) -> str | None:
    """The first broken invariant of ``game`` (``steps``: the step kinds installed), or None."""
    b = game.board
    market = b.market
    known = _MARKET_SUMS.get(tuple(market))
    if (known is None or known + b.set_aside != MARKET_DICE) and (
            sum(market) + b.set_aside != MARKET_DICE or min(market) < 0 or max(market) > 2):
        return f"market dice {market} + {b.set_aside} set aside"
    for p in game.players:
        c, pr, la, q, h = p.coins, p.prestige, p.lanterns, p.quartz, p.horseshoes
        # Exact ints (a bool or a float would pass as one), and none negative: ints are all
        # >= 0 exactly when their bitwise or is (a negative int has the sign bit).
        if not (type(c) is type(pr) is type(la) is type(q) is type(h) is int and c | pr | la | q | h >= 0):
            return f"seat {p.seat} has coins, prestige, lanterns, quartz, horseshoes {(c, pr, la, q, h)}"
        if p.kind == HUMAN:
            night = 3 - p.locked.count(None) + len(p.reserve) + p.spent + p.removed
            for d in p.pool:
                if d.kind == "night":
                    night += 1
            if night != NIGHT_DICE:
                return f"seat {p.seat} has {night} night dice"
    for t in game.stack:
        if t.kind not in steps:
            return f"unknown step {t.kind!r} on the stack"
    return None
