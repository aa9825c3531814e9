"""The companions' hook asked on every decision of a seat's own turn (``Kernel.companion_options``):
with no monitor watching the engine, the kernel calls the implementations directly
(``hooks.call_with``) instead of through the general hook call. The answers, the failures and the
plugins named must be the same either way."""

from __future__ import annotations

import random
from typing import Any

import pytest

from darkroad.core import CompanionCard, Component, Ctx, Engine, GameConfig, errors, hookimpl
from darkroad.core.kernel import OWN_TURN_PHASES
from darkroad.plugins.companions import kit

ID = "asked_moth"


class Moth:
    """A fan loyal companion whose options hook answers as ``mode`` says."""

    def __init__(self, mode: str) -> None:
        self.mode = mode

    @hookimpl
    def darkroad_components(self) -> list[Component]:
        return [kit.loyal(ID, "Asked Moth", ["Gain 1 coin.", "Gain 1 lantern."])]

    @hookimpl
    def darkroad_companion_options(self, seat: int, ctx: Ctx) -> Any:  # (its arguments in another order)
        if self.mode == "raises":
            raise RuntimeError("the moth flew off")
        if self.mode == "bad":
            return [("only-an-option",)]
        return [(f"{ID}-1:0", f"gain 1 coin (seat {seat})")]


def own_turn(engine: Engine, seed: int) -> tuple[Any, int]:
    """A game at a decision of its active seat's own turn, the seat holding a moth card."""
    r = random.Random(seed)
    game, _ = engine.create(GameConfig(players=2, seed=seed, companions=[ID]))
    while not (game.phase in OWN_TURN_PHASES and engine.awaiting(game) == [game.active]):
        seat = r.choice(engine.awaiting(game))
        engine.apply(game, r.choice(engine.legal_actions(game, seat)))
    game.players[game.active].companions.append(CompanionCard(card=f"{ID}-1"))
    return game, game.active


@pytest.mark.parametrize("watched", [False, True])
def test_the_companions_hook_answers_the_same_watched_or_not(watched: bool) -> None:
    answers: dict[str, Any] = {}
    for mode in ("ok", "raises", "bad"):
        engine = Engine.load(extra=[("asked-moth", Moth(mode))])
        if watched:
            engine.monitors.append(lambda name, kwargs, result: None)
        game, seat = own_turn(engine, 3)
        try:
            acts = engine.legal_actions(game, seat)
            answers[mode] = [(a.type, a.option, a.label) for a in acts if a.type == "companion"]
        except errors.PluginError as exc:
            answers[mode] = (str(exc), exc.plugin)
    assert answers["ok"] == [("companion", f"{ID}-1:0", f"gain 1 coin (seat {seat})")]
    assert answers["raises"] == ("plugin 'asked-moth' failed in darkroad_companion_options: RuntimeError: "
                                 "the moth flew off", "asked-moth")
    message, plugin = answers["bad"]
    assert plugin == "asked-moth" and "returned [('only-an-option',)] from darkroad_companion_options" in message
