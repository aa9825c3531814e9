"""Stored games outlive code changes: a field removed from the state is ignored when an
older blob is read (the service never loses a stored game to an upgrade)."""

from __future__ import annotations

import json
import random

from darkroad.core import Engine, GameConfig


def test_a_game_stored_with_a_removed_field_still_loads(engine: Engine) -> None:
    """``Player.illuminated_used`` was written but never read; issue 12 removed it."""
    game, _ = engine.create(GameConfig(players=2, seed=1))
    blob = json.loads(engine.dumps(game))
    assert "illuminated_used" not in blob["players"][0]
    blob["players"][0]["illuminated_used"] = 3
    old = engine.loads(json.dumps(blob))
    assert engine.dumps(old) == engine.dumps(game)
    assert engine.legal_actions(old, engine.awaiting(old)[0]) == engine.legal_actions(game, engine.awaiting(game)[0])


def test_a_copy_is_the_stored_game(engine: Engine) -> None:
    """``Engine.copy`` (through MessagePack) gives back the game ``dumps``/``loads`` would: the
    same blob at every step of random games, and a copy that plays on as the game does."""
    for seed in range(3):
        r = random.Random(seed)
        game, _ = engine.create(GameConfig(players=2 + seed, seed=seed, random_buildings=True))
        while not game.finished:
            twin = engine.copy(game)
            assert engine.dumps(twin) == engine.dumps(game) == engine.dumps(engine.loads(engine.dumps(game)))
            seat = r.choice(engine.awaiting(game))
            action = r.choice(engine.legal_actions(game, seat))
            assert engine.apply(twin, action) == engine.apply(game, action)
        assert engine.dumps(twin) == engine.dumps(game)
