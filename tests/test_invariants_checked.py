"""Where the engine checks the invariants (core/invariants.py) in play.

After an action of a game that code the property tests do not cover can touch (a fan
plugin), the engine checks them and turns a broken one into a :class:`PluginError`, so the
action never reaches the stored game (docs/plugins.md, "During a game"). The rulebook and
darkroad's own plugins are proven by ``tests/test_properties.py`` instead (``--random-games
5000``), which checks the engine's invariants after every action of every game it plays;
``engine.check_invariants`` (``DARKROAD_CHECK_INVARIANTS=1``, ``darkroad simulate --check``)
checks every game.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from darkroad.api.cli import app
from darkroad.core import Ctx, Engine, GameConfig, PluginError, hookimpl
from darkroad.core.state import Game


class Spendthrift:
    """A fan plugin without components that leaves a seat in debt while the Move decision is
    asked (a hook answering nothing, its damage done)."""

    @hookimpl
    def darkroad_movement_options(self, ctx: Ctx, seat: int) -> None:
        ctx.game.players[seat].coins = -1


def at_move(engine: Engine) -> Game:
    game, _ = engine.create(GameConfig(players=2, seed=3))
    while not (game.stack and game.stack[-1].kind == "move"):
        seat = engine.awaiting(game)[0]
        engine.apply(game, engine.legal_actions(game, seat)[0])
    return game


def test_a_fan_plugin_breaking_an_invariant_fails_the_action() -> None:
    engine = Engine.load(extra=[("spendthrift", Spendthrift())])
    game = at_move(Engine.load())  # played to the Move without the plugin
    seat = engine.awaiting(game)[0]
    move = engine.legal_actions(game, seat)[0]
    with pytest.raises(PluginError, match=r"broke an invariant \(seat \d has coins"):
        engine.apply(game, move)


def test_the_base_game_is_checked_when_asked() -> None:
    """A game of the base game alone is not checked in play (the property tests prove it), but
    is with ``engine.check_invariants``: here a position broken by hand."""
    engine = Engine.load()
    game = at_move(engine)
    assert not engine.kernel.checks_invariants(game)
    seat = engine.awaiting(game)[0]
    game.players[1 - seat].coins = -5
    engine.apply(engine.copy(game), engine.legal_actions(game, seat)[0])  # not checked: played on
    engine.check_invariants = True
    with pytest.raises(PluginError, match="broke an invariant"):
        engine.apply(game, engine.legal_actions(game, seat)[0])


def test_the_engine_checks_a_game_that_uses_a_fan_plugin() -> None:
    engine = Engine.load()
    game, _ = engine.create(GameConfig(players=2, seed=1))
    assert not engine.kernel.checks_invariants(game)
    fan = sorted(engine.kernel._fan)
    assert fan, "the example fan pack is installed with the test extras"
    game.config.plugins = {**game.config.plugins, fan[0]: "1"}  # a config's plugins are replaced, never changed
    assert engine.kernel.checks_invariants(game)


def test_darkroad_simulate_check_checks_every_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--check`` turns a broken invariant of the base game into an error of that game."""
    from darkroad.core import invariants

    monkeypatch.setattr(invariants, "broken", lambda game, steps: "always broken")
    plain = CliRunner().invoke(app, ["simulate", "--games", "1", "--players", "2", "--json"])
    checked = CliRunner().invoke(app, ["simulate", "--games", "1", "--players", "2", "--json", "--check"])
    assert json.loads(plain.stdout)["errors"] == 0
    assert json.loads(checked.stdout)["errors"] == 1
