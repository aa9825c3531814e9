"""Each seat's projected final score in every view, as far as the viewer may see (issue 42).

Rulebook p. 13, Final Scoring: "Reveal and count up your coins and prestige. Reveal any
completed deeds that give you coins or prestige and add them to your totals. Then compare your
coins and prestige. The lower of the two values is your base score." ... "Add 1 victory point
for each illuminated die that you have but did not use." ... "Add together your base score and
your victory points. The combined total is your final score."
"""

from __future__ import annotations

import random

import pytest

from darkroad.core import Engine, GameConfig
from darkroad.core.context import Ctx
from darkroad.core.projection import FIELDS
from darkroad.core.rulebook.scoring import score_seat


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load()


CONFIGS = [
    GameConfig(players=2, seed=11),
    GameConfig(players=3, seed=12, variants={"advanced_deeds": True}),
    GameConfig(players=2, seed=13, options={"private_concern": True}),
    GameConfig(players=4, seed=14, options={"private_concern": True}),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.players}p-seed{c.seed}-{sorted(c.options)}")
def test_every_view_projects_what_its_viewer_may_see(engine: Engine, config: GameConfig) -> None:
    game, _ = engine.create(config)
    rng = random.Random(config.seed)
    checked = 0
    while True:
        ctx = Ctx(engine, game)
        real = [score_seat(ctx, p.seat) for p in game.players]
        for viewer in [None, *range(len(game.players))]:
            projected = engine.view(game, viewer)["projected"]
            assert [p["seat"] for p in projected] == list(range(len(game.players)))
            for p, line in zip(projected, real, strict=True):
                assert set(p) == set(FIELDS)
                if game.finished or p["seat"] == viewer:
                    # Exact: the final score if the game ended now.
                    assert p["known"] and p["total"] == p["low"] == p["high"] == line.total
                    assert (p["coins"], p["prestige"], p["base"]) == (line.coins, line.prestige, line.base)
                    assert p["vp"] == line.total - line.base
                else:
                    # Hidden coins and deeds: nothing secret shows, and the score lies in the range
                    # but for what the secret deeds add.
                    assert not p["known"] and p["total"] is p["coins"] is p["base"] is None
                    player = game.players[p["seat"]]
                    assert p["prestige"] == player.prestige
                    without_deeds = min(player.coins, player.prestige) + len(player.special)
                    if player.kind == "human":
                        assert p["secret_deeds"] == len(player.deeds)
                        assert p["low"] <= without_deeds <= p["high"]
                        assert p["low"] <= line.total
                    else:  # the Private Concern's victory points are public
                        assert p["low"] <= line.total <= p["high"]
                checked += 1
        if game.finished:
            final = {line.seat: line.total for line in game.score}
            assert all(p["total"] == final[p["seat"]] for p in engine.view(game, None)["projected"])
            break
        seat = rng.choice(engine.awaiting(game))
        engine.apply(game, rng.choice(engine.legal_actions(game, seat)))
    assert checked > 500
