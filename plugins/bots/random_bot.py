"""The ``random`` bot: uniform over the legal actions (random play reaches the odd corners
of the rules; ``darkroad simulate`` plays it by default)."""

from __future__ import annotations

from darkroad.core import Action, Bot, InfoState, hookimpl


class RandomBot(Bot):
    id = "random"
    name = "Random"
    text = "Picks one of the legal actions at random."

    def decide(self, state: InfoState) -> Action:
        return state.legal[state.rng.randrange(len(state.legal))]


@hookimpl
def darkroad_bots() -> list[Bot]:
    return [RandomBot()]
