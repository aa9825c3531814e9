"""The ``random`` bot: uniform over the legal actions (random play reaches the odd corners
of the rules; ``darkroad simulate`` plays it by default)."""

from __future__ import annotations

from collections.abc import Sequence

from darkroad.core import Action, Bot, Engine, Game, hookimpl


class RandomBot(Bot):
    id = "random"
    name = "Random"
    text = "Picks one of the legal actions at random."

    def choose(self, engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> Action:
        return legal[self.random(game, seat).randrange(len(legal))]


@hookimpl
def darkroad_bots() -> list[Bot]:
    return [RandomBot()]
