"""The greedy bot's strength (issue 21): it must not fall back by more than 10%.

The stateless rewrite (commit 28b99e5) stopped every repeated choice after one answer when
valuing it, and the bot's mean score in solo games against the Private Concern fell from
23.3 to 15.7 over ``darkroad simulate --bot greedy --players 1 --games 100 --seed 3``. The
bot is a function of the game state, so the same seeds give the same games: the mean over a
fixed set of seeds is exact, and this test guards it.
"""

from __future__ import annotations

import pytest

from darkroad.api.tools.simulation import play_game, solo_kind
from darkroad.core import Engine, GameConfig

SEEDS = range(3, 11)
BASELINE = 22.50
"""The greedy player's mean score over SEEDS in solo games since it plays on a game drawn from
what its seat sees (issue 40: one sample a decision). Looking ahead on copies of the real game,
which showed it the dice to come, it scored 26.88 (issue 21)."""


@pytest.mark.slow
def test_greedy_bots_mean_solo_score_holds(engine: Engine) -> None:
    kind = engine.seat_kinds[solo_kind(engine)]
    scores = []
    for seed in SEEDS:
        config = GameConfig(players=2, seed=seed, random_buildings=True, options=kind.game_options())
        automated = engine.seat_assignment(config)
        bots = [None if s in automated else engine.bots["greedy"] for s in range(2)]
        result = play_game(engine, config, bots)
        assert result.completed, result.error
        scores += [score for s, score in enumerate(result.scores) if s not in automated]
    mean = sum(scores) / len(scores)
    assert mean >= 0.9 * BASELINE, f"the greedy bot's mean solo score fell to {mean:.2f} (baseline {BASELINE})"
