"""A step's shortcuts agree with its options at every position of random games.

The kernel settles a game by asking a decision whether a seat has an answer
(:meth:`Step.has_options`) and checks an answer by asking whether its id is one
(:meth:`Step.allows`), without listing and wording every option. A step may say either more
cheaply than its options do (the rulebook's hot steps do), so each must agree with
:meth:`Step.options`: here at every decision settling looks at (the ones it skips included),
with every option id of the step seen so far in the games played (answers of other
positions: mostly not answers here) and a few that never are.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

import pytest
from invariants import choose, deal_companions, random_config

from darkroad.core import Engine, GameConfig
from darkroad.core.context import Ctx
from darkroad.core.kernel import Kernel
from darkroad.core.state import Game, Task
from darkroad.core.steps import Step

NEVER = ("", ":", "done:", "buy:", "take:9", "move:-1", "hero:99", "discard:", "change:a:b")
"""Ids no step offers (or offers only where its own rules say)."""


class Watched:
    """Checks, on a kernel, that every :meth:`Step.has_options` settling asks agrees with the
    options, and collects every option id seen by step kind."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.kernel = engine.kernel
        self.seen: dict[str, set[str]] = defaultdict(set)
        self.asked = 0
        self.kernel.has_option = self.has_option  # type: ignore[method-assign]

    def has_option(self, ctx: Ctx, task: Task, step: Step, seat: int) -> bool:
        full = Kernel.options(self.kernel, ctx, task, step, seat)
        short = step.has_options(ctx, task, seat)
        assert short == bool(full), (task.kind, task.data, seat, full)
        self.asked += 1
        return short

    def check_answers(self, game: Game) -> None:
        """Every awaited seat's ids and the ones seen elsewhere, asked of :meth:`Step.allows`."""
        top = self.kernel.top(game)
        assert top is not None
        task, step = top
        ctx = Ctx(self.engine, game)
        for seat in self.engine.awaiting(game):
            ids = {o for o, _ in step.options(ctx, task, seat)}
            self.seen[task.kind] |= ids
            for option in self.seen[task.kind] | set(NEVER):
                assert step.allows(ctx, task, seat, option) == (option in ids), (task.kind, task.data, seat, option, ids)


def play(watched: Watched, seed: int, config: GameConfig, companions: bool) -> None:
    engine = watched.engine
    r = random.Random(seed)
    game, _ = engine.create(config)
    if companions:
        deal_companions(game, r)
    while not game.finished:
        watched.check_answers(game)
        seat = r.choice(engine.awaiting(game))
        engine.apply(game, choose(r, engine.legal_actions(game, seat)))


@pytest.mark.parametrize("seed", range(6))
def test_the_shortcuts_agree_with_the_options(seed: int) -> None:
    watched = Watched(Engine.load())
    config: Any = random_config(random.Random(seed), seed)
    play(watched, seed, config, companions=seed % 2 == 1)
    assert watched.asked > 100
    assert len(watched.seen) > 10


def test_a_plugin_step_without_shortcuts_answers_by_its_options() -> None:
    """A step that says nothing more cheaply is asked its options (the default), checked as a
    plugin's options are."""

    class Lone(Step):
        kind = "lone"
        decision = True

        def options(self, ctx: Ctx, task: Task, seat: int) -> list[tuple[str, str]]:
            return [("a", "answer a")] if task.data.get("open") else []

    step = Lone()
    engine = Engine.load()
    game, _ = engine.create(GameConfig(players=2, seed=1))
    ctx = Ctx(engine, game)
    shut, open_ = Task(kind="lone", seat=0, data={}), Task(kind="lone", seat=0, data={"open": True})
    assert not step.has_options(ctx, shut, 0) and step.has_options(ctx, open_, 0)
    assert step.allows(ctx, open_, 0, "a") and not step.allows(ctx, open_, 0, "b") and not step.allows(ctx, shut, 0, "a")
