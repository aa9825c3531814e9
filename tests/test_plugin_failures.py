"""Plugin failures during a game (issue 12): every plugin answer goes through the checked
caller, so a failure names its plugin."""

from __future__ import annotations

from typing import Any

import pytest

from darkroad.core import (
    Action,
    Choice,
    Ctx,
    GameConfig,
    IllegalAction,
    Option,
    PluginError,
    Step,
    Task,
    hookimpl,
)
from darkroad.core.engine import WITHDRAWN
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
    ctx.game.turn.extra["threy_cat_bonus"] = 0  # seat 0 triggered the cat's +1/+2 for its travel die
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


# -- a way out of a stuck game ------------------------------------------------------------------


class Boom(Choice):
    """A decision for seat 0 at setup whose answers fail, but for ``"fine"`` when offered."""

    kind = "boom_ask"
    prompt = "Boom: answer"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        return [(o, o) for o in task.data["options"]]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option != "fine":
            raise RuntimeError(f"{option} is broken")
        ctx.gain_effects(seat, ["coins:1"], source="boom")


class BoomPlugin:
    def __init__(self, *options: str) -> None:
        self.options = list(options)

    @hookimpl
    def darkroad_steps(self) -> list[Step]:
        return [Boom()]

    @hookimpl
    def darkroad_setup(self, ctx: Ctx) -> None:
        ctx.push(Boom.kind, 0, options=self.options)


def test_a_failing_only_answer_is_withdrawn_and_the_game_goes_on() -> None:
    """A plugin step that raises on the seat's only legal answer would leave the game stuck
    for good: the failing answer is withdrawn (on the game as it was before the failed
    action), the seat is told why, and the decision, left without answers, is skipped."""
    t = Table.new(players=2, seed=1, plugins=[("boom", BoomPlugin("explode"))])
    engine = t.engine
    assert t.decision == "boom_ask" and t.options(0) == ["explode"]
    stored = engine.copy(t.game)  # what a store holds: the failed apply spoils its own game
    with pytest.raises(PluginError, match="explode is broken") as exc:
        t.choose("boom_ask", "explode")
    game = stored
    record, events = engine.withdraw(game, Action("boom_ask", 0, "explode"), exc.value.reason, exc.value.plugin)
    assert record == Action(WITHDRAWN, 0, "boom_ask:explode")
    [told] = [e for e in events if e.type == "option_withdrawn"]
    assert (told.seat, told.private_to) == (0, 0)
    assert told.data == {"decision": "boom_ask", "option": "explode", "reason": exc.value.reason, "plugin": "boom"}
    assert game.version == 1  # the withdrawal is a version of its own
    assert engine.decision(game)["type"] == "plan" and engine.awaiting(game) == [0]  # skipped: the game goes on
    # The withdrawal is in the action list: a replay ends in the same state.
    assert engine.dumps(engine.replay(game.config, [record])) == engine.dumps(game)
    # No client may send one.
    other, _ = engine.create(GameConfig(players=2, seed=1))
    with pytest.raises(IllegalAction):
        engine.apply(other, record)


def test_a_withdrawn_answer_leaves_the_others() -> None:
    t = Table.new(players=2, seed=1, plugins=[("boom", BoomPlugin("explode", "fine"))])
    engine, game = t.engine, t.game
    engine.withdraw(game, Action("boom_ask", 0, "explode"), "explode is broken", "boom")
    assert engine.decision(game)["type"] == "boom_ask" and t.options(0) == ["fine"]
    t.refuses("boom_ask", "explode")
    coins = game.players[0].coins
    t.choose("boom_ask", "fine")
    assert game.players[0].coins == coins + 1 and t.decision == "plan"
    with pytest.raises(IllegalAction):  # only a legal answer can be withdrawn
        engine.withdraw(game, Action("boom_ask", 0, "explode"))
