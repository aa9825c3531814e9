"""The 6 wagon upgrades (rulebook p. 19, "Wagon Upgrades"), gained and used through the engine."""

from __future__ import annotations

import pytest

from darkroad.core import Engine
from darkroad.core.rulebook.good_fortune import gain_upgrade
from darkroad.core.testing import Table

UPGRADES = ["artisans_bench", "lamplighters_post", "merchants_ledger", "secret_compartment", "ruins_lantern",
            "spare_harness"]
BUILDINGS = ["blazing_quartz_mine", "oracle_of_lumi", "othos_lanternworks", "yedls_workshop"]


# The engine is the session fixture of tests/conftest.py (every installed plugin, strict).



def new_table(engine: Engine, upgrade: str | None = None, seed: int = 1) -> Table:
    """A 2-player game at seat 0's first Plan decision, seat 0 holding ``upgrade``."""
    t = Table.new(players=2, seed=seed, engine=engine, buildings=BUILDINGS)
    assert t.decision == "plan" and t.awaiting == [0]
    t.setup_wagon(0, coins=0, prestige=0, lanterns=0, quartz=0, horseshoes=0, goods=[], heroes=[], special=[],
                  reserve=[0, 2, 4, 5])
    if upgrade:
        t.run(lambda ctx: gain_upgrade(ctx, 0, upgrade))
    return t


def test_upgrades_in_the_catalogue(engine: Engine) -> None:
    """Rulebook p. 19, Wagon Upgrades: 6 tiles, stacked on the good fortune track at setup."""
    comps = engine.content.components
    assert {c.id for c in engine.content.of_kind("upgrade")} >= set(UPGRADES)
    assert all(comps[u].text for u in UPGRADES)
    t = Table.new(players=2, seed=1, engine=engine, buildings=BUILDINGS)
    assert set(UPGRADES) <= set(t.game.board.upgrades)


def test_gained_as_a_good_fortune(engine: Engine) -> None:
    """Rulebook p. 13, Step 4 good fortune D: gain 1 available wagon upgrade (only without one)."""
    t = new_table(engine)
    t.push("good_fortune", 0, left=1)
    t.choose("good_fortune", "upgrade")
    assert sorted(t.options(0)) == sorted(f"upgrade:{u}" for u in t.game.board.upgrades)
    t.choose("choose_upgrade", "upgrade:merchants_ledger")
    assert t.game.players[0].upgrades == ["merchants_ledger"]
    assert "merchants_ledger" not in t.game.board.upgrades
    t.push("good_fortune", 0, left=1)
    assert "upgrade" not in t.options(0)


# -- slot replacements ----------------------------------------------------------------------


def test_artisans_bench_crafts_an_upgraded_good(engine: Engine) -> None:
    """Rulebook p. 19, Wagon Upgrades: the slot #1 tile — craft an upgraded good instead of a
    basic good (crafting chart, die newly locked in slot #1, p. 6)."""
    t = new_table(engine, "artisans_bench")
    t.choose("plan", "bump:1:4")
    craft = engine.content.crafting_chart[4]
    assert t.game.players[0].goods == [f"{craft}+"]
    assert [e.data["good"] for e in t.events_of("gained") if e.data.get("source") == "artisans_bench"] == [f"{craft}+"]


def test_artisans_bench_last_rounds_upgraded_good_of_choice(engine: Engine) -> None:
    """Rulebook p. 19 slot #1 tile with p. 6 (last 3 rounds: a good of your choice) — an
    upgraded good of your choice."""
    t = new_table(engine, "artisans_bench")
    t.setup_wagon(0, reserve=[], removed=4)
    t.choose("plan", "take:1")
    assert sorted(t.options(0)) == sorted(f"good:{g}+" for g in engine.content.good_ids)
    t.choose("choose_effect", "good:weapon+")
    assert t.game.players[0].goods == ["weapon+"]


def test_without_the_bench_slot_1_crafts_basic(engine: Engine) -> None:
    """Rulebook p. 6, Plan: slot #1 crafts a basic good (the upgrade only changes its owner)."""
    t = new_table(engine)
    t.setup_wagon(1, upgrades=["artisans_bench"])
    t.choose("plan", "bump:1:4")
    assert t.game.players[0].goods == [engine.content.crafting_chart[4]]


def test_lamplighters_post_lantern_and_illuminated_die(engine: Engine) -> None:
    """Rulebook p. 19, Wagon Upgrades: the slot #2 tile — gain 1 lantern AND you may move an
    illuminated die from your special reserve to your action pool."""
    t = new_table(engine, "lamplighters_post")
    t.setup_wagon(0, special=[3])
    t.choose("plan", "bump:2:0")
    p = t.game.players[0]
    assert p.lanterns == 1
    assert sorted(t.options(0)) == ["illuminated:3", "keep"]
    t.choose("lamplighters_post_illuminated", "illuminated:3")
    assert p.special == [] and [(d.kind, d.value) for d in p.pool] == [("night", 2), ("illuminated", 3)]
    assert p.lanterns == 1


def test_lamplighters_post_may_keep_the_die(engine: Engine) -> None:
    """Rulebook p. 19, Wagon Upgrades: the slot #2 tile — moving the illuminated die is optional."""
    t = new_table(engine, "lamplighters_post")
    t.setup_wagon(0, special=[1, 5])
    t.choose("plan", "bump:2:0")
    t.choose("lamplighters_post_illuminated", "keep")
    p = t.game.players[0]
    assert (p.lanterns, p.special, len(p.pool)) == (1, [1, 5], 1)


def test_lamplighters_post_without_illuminated_die_just_the_lantern(engine: Engine) -> None:
    """Rulebook p. 19, Wagon Upgrades: the slot #2 tile — no die to move, only the lantern."""
    t = new_table(engine, "lamplighters_post")
    t.choose("plan", "bump:2:5")
    assert t.game.players[0].lanterns == 1
    assert t.decision == "move"


@pytest.mark.parametrize(("option", "coins", "prestige"), [("coins", 3, 0), ("prestige", 0, 1)])
def test_merchants_ledger_three_coins_or_one_prestige(engine: Engine, option: str, coins: int,
                                                      prestige: int) -> None:
    """Rulebook p. 19, Wagon Upgrades: the slot #3 tile — gain 3 coins or 1 prestige (it
    replaces the whole special action: no wheel rotation)."""
    t = new_table(engine, "merchants_ledger")
    offset = t.game.board.wheel_offset
    t.choose("plan", "bump:3:2")
    assert sorted(t.options(0)) == ["coins", "prestige"]
    t.choose("merchants_ledger_reward", option)
    p = t.game.players[0]
    assert (p.coins, p.prestige) == (coins, prestige)
    assert t.game.board.wheel_offset == offset


# -- storage tile ---------------------------------------------------------------------------------


def test_secret_compartment_makes_an_overflowing_wagon_fit(engine: Engine) -> None:
    """Rulebook p. 19, Wagon Upgrades: the storage tile (our design: a 1x2 tile in the 6x5
    grid holding any 2 goods) — 8 armor overflow the bare grid and fit with it."""
    t = new_table(engine)
    eight = ["armor"] * 8
    assert not t.ctx().fits(0, eight)
    t.run(lambda ctx: gain_upgrade(ctx, 0, "secret_compartment"))
    t.setup_wagon(0, goods=eight[:7])
    t.run(lambda ctx: ctx.gain_good(0, "armor", "test"))
    assert t.decision != "discard_good"
    assert t.game.players[0].goods == eight


def test_secret_compartment_takes_two_cells_of_the_grid(engine: Engine) -> None:
    """Rulebook p. 19, Wagon Upgrades: the storage tile stays in the wagon storage — its cells
    are taken: 30 potions fit (28 cells + 2 slots), the 31st must be discarded."""
    t = new_table(engine, "secret_compartment")
    assert t.ctx().fits(0, ["potion"] * 30)
    t.setup_wagon(0, goods=["potion"] * 30)
    t.run(lambda ctx: ctx.gain_good(0, "potion", "test"))
    assert t.decision == "discard_good"
    assert t.options(0) == ["discard:potion"]  # the tile itself is never offered
    t.choose("discard_good", "discard:potion")
    assert len(t.game.players[0].goods) == 30


# -- lantern slot tile -------------------------------------------------------------------------------


def test_ruins_lantern_free_ruins_die(engine: Engine) -> None:
    """Rulebook p. 19, Wagon Upgrades: the lantern slot tile — at the Ruins of Yin the ruins
    die costs no lantern."""
    t = new_table(engine, "ruins_lantern")
    t.district(0, "yurgs_excursions")
    t.choose("yurgs_excursions", "ruins")
    t.choose("ruins_move", "move:1")
    while t.decision == "choose_effect":
        t.choose("choose_effect", t.options(0)[0])
    assert t.decision == "ruins_die_offer"
    assert "roll" in t.options(0)
    t.choose("ruins_die_offer", "roll")
    assert len(t.events_of("ruins_die_rolled")) >= 1
    assert not [e for e in t.events_of("paid") if e.data.get("resource") == "lanterns"]


def test_without_ruins_lantern_no_lantern_no_roll(engine: Engine) -> None:
    """Rulebook p. 11, the Ruins of Yin: rolling the ruins die costs 1 lantern."""
    t = new_table(engine)
    t.district(0, "yurgs_excursions")
    t.choose("yurgs_excursions", "ruins")
    t.choose("ruins_move", "move:1")
    while t.decision == "choose_effect":
        t.choose("choose_effect", t.options(0)[0])
    assert t.decision != "ruins_die_offer"
    assert not t.events_of("ruins_die_rolled")


def test_ruins_lantern_takes_a_lantern_slot(engine: Engine) -> None:
    """Rulebook p. 19, Wagon Upgrades: the lantern slot tile occupies a lantern slot for good:
    3 lanterns fit, a 4th held is discarded, a further gain is discarded (p. 18)."""
    t = new_table(engine)
    t.setup_wagon(0, lanterns=4)
    t.run(lambda ctx: gain_upgrade(ctx, 0, "ruins_lantern"))
    p = t.game.players[0]
    assert p.lanterns == 3
    assert t.ctx().capacity(0, "lanterns") == 3
    t.run(lambda ctx: ctx.add(0, "lanterns", 1, "test"))
    assert p.lanterns == 3
    assert t.ctx().capacity(1, "lanterns") == 4


# -- inventory slot tile -------------------------------------------------------------------------------


def steed_free_table(engine: Engine, steed: str) -> Table:
    """A table where no player holds ``steed``."""
    t = new_table(engine)
    others = [s.id for s in engine.content.of_kind("steed") if s.id != steed]
    t.setup_wagon(0, steeds=[others[0]])
    t.setup_wagon(1, steeds=[others[1]])
    return t


def test_spare_harness_second_steed_works(engine: Engine) -> None:
    """Rulebook p. 19, Wagon Upgrades: the inventory slot tile — immediately gain a second steed
    of your choice from the unused ones; it works (p. 17, Brembizánt: $2 off at the Bazaar)."""
    t = steed_free_table(engine, "brembizant")
    held = {s for p in t.game.players for s in p.steeds}
    t.run(lambda ctx: gain_upgrade(ctx, 0, "spare_harness"))
    assert t.decision == "spare_harness_steed"
    offered = {o.split(":", 1)[1] for o in t.options(0)}
    assert offered == {s.id for s in engine.content.of_kind("steed")} - held
    t.choose("spare_harness_steed", "steed:brembizant")
    p = t.game.players[0]
    assert p.steeds[1] == "brembizant"
    assert [e.data["steed"] for e in t.events_of("steed_gained")] == ["brembizant"]
    t.setup_wagon(0, coins=10)
    t.district(0, "great_bazaar")
    t.choose("great_bazaar", "buy")
    ctx = t.ctx()
    dearest = max((g for i, g in enumerate(engine.content.good_ids) if t.game.board.market[i]), key=ctx.value)
    t.choose("bazaar_buy", f"buy:{dearest}")
    assert ctx.value(dearest) >= 2 and p.coins == 10 - (ctx.value(dearest) - 2)


def test_spare_harness_takes_an_inventory_slot(engine: Engine) -> None:
    """Rulebook p. 19, Wagon Upgrades: the inventory slot tile stays in an inventory slot:
    3 items no longer fit, the player discards one (p. 18)."""
    t = steed_free_table(engine, "brembizant")
    t.setup_wagon(0, quartz=2, horseshoes=1)
    t.run(lambda ctx: gain_upgrade(ctx, 0, "spare_harness"))
    assert t.ctx().capacity(0, "inventory") == 2
    assert t.decision == "discard_inventory"
    t.choose("discard_inventory", "discard:horseshoes")
    assert t.decision == "spare_harness_steed"
    p = t.game.players[0]
    assert (p.quartz, p.horseshoes) == (2, 0)


def test_spare_harness_with_no_unused_steed(engine: Engine) -> None:
    """Rulebook p. 19, Wagon Upgrades: the inventory slot tile — no unused steed, no second steed."""
    t = new_table(engine)
    t.setup_wagon(0, steeds=[s.id for s in engine.content.of_kind("steed")])
    steeds = list(t.game.players[0].steeds)
    t.run(lambda ctx: gain_upgrade(ctx, 0, "spare_harness"))
    assert t.decision != "spare_harness_steed"
    assert t.game.players[0].steeds == steeds
    assert [e.data["reason"] for e in t.events_of("upgrade_unused")] == ["no unused steed left"]
