"""How to test a fan plugin: only ``darkroad.testing``, everything through the real engine.

Run from this folder, with the package installed (``pip install -e .``): ``pytest``.
darkroad's own suite tests this pack in depth (``tests/test_fan_pack.py`` of darkroad).
"""

from __future__ import annotations

from darkroad.testing import Table

# Choose the fan buildings for the game: 4 buildings, ours and two of the base game.
BUILDINGS = ["lamplighters_guild", "frost_orchard", "blazing_quartz_mine", "oracle_of_lumi"]


def test_lamplighters_guild() -> None:
    t = Table.new(players=2, seed=1, buildings=BUILDINGS)
    t.setup_wagon(0, lanterns=2, prestige=0)  # arrange the wagon
    t.activate_building(0, "lamplighters_guild")  # seat 0 is activating the guild now
    assert t.game.players[0].lanterns == 3
    assert t.options(0) == ["light:1", "light:2", "done"]  # our own decision waits
    t.choose("lamplighters_guild_light", "light:2")  # answer it, as a client would
    assert (t.game.players[0].lanterns, t.game.players[0].prestige) == (1, 4)
    # Every rule-point hook call is recorded, with its result.
    assert t.calls("darkroad_activate_building")[-1].result is True


def test_a_complete_game_with_the_fan_pack() -> None:
    t = Table.new(players=3, seed=2, buildings=BUILDINGS, companions=["snow_owl"])
    t.play(seed=2)  # random legal actions until the game ends
    assert t.game.finished
    assert t.game.config.plugins["fan-pack-snow-owl"] == "0.1.0"
