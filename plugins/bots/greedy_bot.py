"""The ``greedy`` bot: one decision of lookahead with a heuristic value of the position.

It applies each legal action to a copy of the game and keeps the one whose resulting
position it values most for its own seat (:func:`estimate`: what the wagon would be worth
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

from collections.abc import Sequence

from darkroad.core import Action, Bot, Engine, Game, hookimpl
from darkroad.plugins.bots.kit import EPSILON, STOP_OPTIONS, can_cycle, estimate, stop_repeat


class GreedyBot(Bot):
    """Lookahead with :func:`estimate`, ``depth`` decisions deep along its own decisions."""

    id = "greedy"
    name = "Greedy"
    text = ("Tries every legal action on a copy of the game and keeps the one that leaves its wagon worth "
            "the most at final scoring (looking one follow-up decision ahead).")

    def __init__(self, depth: int = 2) -> None:
        self.depth = depth

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

    def choose(self, engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        best: list[Action] = []
        best_value = float("-inf")
        cyclic = can_cycle(engine, game, seat, legal)
        for action in legal:
            trial = engine.copy(game)
            try:
                engine.apply(trial, action, track_undo=False)
                if cyclic and action.type != "companion":
                    stop_repeat(engine, trial, seat, action.type)
                value = self._value(engine, trial, seat, self.depth - 1)
            except Exception:  # an action a plugin cannot resolve is simply not chosen
                continue
            if value > best_value + EPSILON:
                best, best_value = [action], value
            elif abs(value - best_value) <= EPSILON:
                best.append(action)
        if not best:
            return legal[0]
        # On a tie, stop a repeatable choice (trading back and forth gains nothing).
        stop = [a for a in best if a.option in STOP_OPTIONS]
        return stop[0] if stop else self.random(game, seat).choice(best)


@hookimpl
def darkroad_bots() -> list[Bot]:
    return [GreedyBot()]
