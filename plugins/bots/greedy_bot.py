"""The ``greedy`` bot: one decision of lookahead with a heuristic value of the position.

It plays on games drawn from what its seat sees (:meth:`InfoState.sample`: the other seats'
deeds and coins, the order of the decks and the dice to come drawn again; ``samples`` of
them, 1 by default), never on the real game. It applies each legal action to a copy of each
sample and keeps the one whose resulting position it values most on average for its own
seat (:func:`estimate`: what the wagon would be worth
at final scoring, rulebook p. 13). When the next decision is again its own (a district's
follow-up choice), the best continuation is searched too, up to ``depth`` decisions deep.
Ties are broken at random (so it still explores), except that stopping a repeatable choice
(the Guildmaster's Mansion's trades) wins a tie: trading back and forth gains nothing.

A repeatable choice asks the same decision again after each answer. Most of them only go
forward (a purchase at the Great Bazaar spends coins, a delivery gives a good up): their
answers are valued with the lookahead like any other, so the bot sees what two answers
are worth together (a second good of a section bought for free, the goods a commission
needs delivered one by one). A choice whose answers can be undone (the Guildmaster's
Mansion's trades: an answer and a second one can bring the position back, see
:func:`can_cycle`) is different: a turn under way is worth more to :func:`estimate` than a
finished one (the illuminated die still in the pool), so comparing "one more trade" with
"stop" would trade back and forth forever. There each answer is valued as if it were the
last one (the bot stops the choice on the copy before valuing it); every trade it makes
must then beat stopping, so the value of the stopped position rises with every trade and
it never trades in circles. The bot keeps no memory between calls: whether a choice can
cycle is read from the position itself.

:func:`estimate` and the handling of repeatable choices live in the bots' kit
(``darkroad.plugins.bots.kit``), shared with the ``search`` bot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from darkroad.core import Action, Bot, Engine, Game, InfoState, hookimpl
from darkroad.plugins.bots.kit import EPSILON, STOP_OPTIONS, can_cycle, estimate, stop_repeat

FAILED = float("-inf")
"""The value of an action that fails in a sample (a plugin could not resolve it there)."""


class GreedyBot(Bot):
    """Lookahead with :func:`estimate`, ``depth`` decisions deep along its own decisions, on
    ``samples`` games drawn from what its seat sees."""

    id = "greedy"
    name = "Greedy"
    text = ("Tries every legal action in a game drawn from what it can see (never peeking at hidden cards or "
            "dice) and keeps the one that leaves its wagon worth the most at final scoring (looking one "
            "follow-up decision ahead).")
    options: ClassVar[Mapping[str, str]] = {
        "samples": "games drawn from what the seat sees, each action tried in every one (default 1)",
    }

    def __init__(self, depth: int = 2, samples: int = 1) -> None:
        if samples < 1:
            raise ValueError(f"samples must be at least 1, got {samples}")
        self.depth = depth
        self.samples = samples

    def configured(self, **options: Any) -> Bot:
        super().configured(**options)  # refuses unknown names
        if not options:
            return self
        return GreedyBot(depth=self.depth, samples=int(options.get("samples", self.samples)))

    def _value(self, engine: Engine, game: Game, seat: int, depth: int) -> float:
        if depth <= 0 or game.finished or engine.awaiting(game) != [seat]:
            return estimate(engine, game, seat)
        best = float("-inf")
        for action in engine.legal_actions(game, seat):
            if action.type == "companion":
                continue
            trial = engine.copy(game)
            engine.apply(trial, action, track_undo=False)
            best = max(best, self._value(engine, trial, seat, depth - 1))
        return best if best > float("-inf") else estimate(engine, game, seat)

    def values(self, engine: Engine, world: Game, seat: int, legal: Sequence[Action], cyclic: bool) -> list[float]:
        """Each legal action's value in ``world`` (:data:`FAILED` where it cannot be resolved)."""
        out = []
        for action in legal:
            trial = engine.copy(world)
            try:
                engine.apply(trial, action, track_undo=False)
                if cyclic and action.type != "companion":
                    stop_repeat(engine, trial, seat, action.type)
                out.append(self._value(engine, trial, seat, self.depth - 1))
            except Exception:  # an action a plugin cannot resolve is simply not chosen
                out.append(FAILED)
        return out

    def decide(self, state: InfoState) -> Action:
        engine, seat, legal = state.engine, state.seat, state.legal
        totals = [0.0] * len(legal)
        cyclic: bool | None = None
        for _ in range(self.samples):
            world = state.sample()
            if cyclic is None:
                cyclic = can_cycle(engine, world, seat, legal)
            for i, value in enumerate(self.values(engine, world, seat, legal, cyclic)):
                totals[i] += value
        best_value = max(totals)
        if best_value == FAILED:
            return legal[0]
        best = [a for a, v in zip(legal, totals, strict=True) if v >= best_value - EPSILON * self.samples]
        # On a tie, stop a repeatable choice (trading back and forth gains nothing).
        stop = [a for a in best if a.option in STOP_OPTIONS]
        return stop[0] if stop else state.rng.choice(best)


@hookimpl
def darkroad_bots() -> list[Bot]:
    return [GreedyBot()]
