"""The Dark Market (rulebook p. 9): move the district marker around the dark market ring.

"You choose how many spaces to move it, spending 1 coin for each space. You must move it at
least 1 space, but you may move it up to 4 spaces." The north, east and west spaces give the
pair of basic goods shown; "The south space provides a single commission or deed ... gain 1
available commission -OR- 1 available deed and its bonus." "If you have no coins, skip this
activation entirely."
"""

from __future__ import annotations

from ..context import Ctx
from ..hookspecs import hookimpl
from ..i18n import N_
from ..state import Task
from ..steps import Choice, Option, Step
from ..wording import count, say

DARK_MARKET_SPACES = ("north", "east", "south", "west")
_MOVES = ("move:1", "move:2", "move:3", "move:4")
"""The ids of a move of 1 to 4 spaces."""


class DarkMarket(Choice):
    """Pay 1–4 coins to move the marker that many spaces clockwise (skip with no coins)."""

    kind = "dark_market"
    prompt = N_("the Dark Market: pay coins to move the marker")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        coins = ctx.player(seat).coins
        here = ctx.game.board.dark_market
        return [(f"move:{n}", say("pay %(coins)s to move the marker to %(space)s: %(reward)s",
                                  coins=count(n, "coins"), space=say(SPACE_WORDS[DARK_MARKET_SPACES[(here + n) % 4]]),
                                  reward=_reward(ctx, (here + n) % 4)))
                for n in range(1, min(4, coins) + 1)]

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return ctx.player(seat).coins >= 1

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        return option in _MOVES[:max(0, min(4, ctx.player(seat).coins))]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        n = int(option.split(":")[1])
        ctx.pay(seat, "coins", n, "dark market")
        move_dark_market(ctx, seat, n)


SPACE_WORDS = {"north": N_("the north space"), "east": N_("the east space"), "south": N_("the south space"),
               "west": N_("the west space")}
"""The dark market ring's spaces in words (messages)."""


def _reward(ctx: Ctx, space: int) -> str:
    name = DARK_MARKET_SPACES[space]
    if name == "south":
        return say("gain a commission or a deed and its bonus")
    return say("gain %(goods)s", goods=ctx.words.goods(ctx.content.dark_market[name]))


def move_dark_market(ctx: Ctx, seat: int, n: int) -> None:
    """Move the marker ``n`` spaces clockwise and gain the space's reward."""
    b = ctx.game.board
    b.dark_market = (b.dark_market + n) % 4
    name = DARK_MARKET_SPACES[b.dark_market]
    ctx.emit("dark_market_moved", seat, steps=n, space=name)
    if name == "south":
        ctx.push("choose_effect", seat, opts=["commission", "deed"], effect="commission_or_deed",
                 source="dark market")
    else:
        ctx.gain_effects(seat, [f"good:{g}" for g in ctx.content.dark_market[name]], source="dark market")


STEPS: list[Step] = [DarkMarket()]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
