"""Plugin failures during a game (issue 12): every plugin answer goes through the checked
caller, so a failure names its plugin."""

from __future__ import annotations

from typing import Any

import pytest

from darkroad.core import Ctx, PluginError, hookimpl
from darkroad.testing import Table


class BadBonus:
    """Answers the travel-die bonus hook with something that is not a list of ints."""

    @hookimpl
    def darkroad_travel_die_bonus(self, ctx: Ctx, seat: int) -> Any:
        return "lots"


def test_threy_cat_asks_the_other_bonuses_through_the_checked_caller() -> None:
    """The cat's +1/+2 stacks on the other plugins' bonuses; it asks them with
    ``ctx.call_others``, so a wrong answer is a PluginError naming that plugin (pluggy's own
    caller, which it used before, passed it through unchecked)."""
    t = Table.new(players=2, seed=1, plugins=[("bad-bonus", BadBonus())])
    t.setup_wagon(0, steeds=[])  # no Whisper
    ctx = t.ctx()
    assert ctx.call("darkroad_travel_die_bonus", None, seat=0) == ["lots"]  # the cat is not asked yet
    ctx.game.turn["threy_cat_bonus"] = 0  # seat 0 triggered the cat's +1/+2 for its travel die
    with pytest.raises(PluginError, match="plugin 'bad-bonus' returned 'lots' from darkroad_travel_die_bonus") as exc:
        ctx.call("darkroad_travel_die_bonus", None, seat=0)
    assert exc.value.plugin == "bad-bonus"


def test_call_others_leaves_out_the_caller() -> None:
    class Stacking:
        @hookimpl
        def darkroad_travel_die_bonus(self, ctx: Ctx, seat: int) -> list[int]:
            others = ctx.call_others(self.darkroad_travel_die_bonus, "darkroad_travel_die_bonus", None, seat=seat)
            return [1 + sum(b for bonuses in others for b in bonuses)]

    class One:
        @hookimpl
        def darkroad_travel_die_bonus(self, ctx: Ctx, seat: int) -> list[int]:
            return [1]

    t = Table.new(players=2, seed=1, plugins=[("stacking", Stacking()), ("one", One())])
    t.setup_wagon(0, steeds=[])  # no Whisper
    got = t.ctx().call("darkroad_travel_die_bonus", None, seat=0)
    assert sorted(got) == [[1], [2]]
