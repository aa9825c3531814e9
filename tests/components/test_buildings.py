"""The 10 buildings (rulebook p. 15, "Buildings"), each activated through the engine."""

from __future__ import annotations

import pytest

from darkroad.core import Engine, GameConfig
from darkroad.core.errors import BadConfig
from darkroad.core.goods import good_type, is_upgraded
from darkroad.core.state import PoolDie
from darkroad.core.testing import Table

TILES = {
    1: ("blazing_quartz_mine", "queens_eyes_surveyor"),
    2: ("icebreaker_harbor", "merchants_guildhall"),
    3: ("oracle_of_lumi", "candle_and_quartz"),
    4: ("othos_lanternworks", "guildmasters_mansion"),
    5: ("yedls_workshop", "frosted_filigree"),
}
BUILDINGS = [b for pair in TILES.values() for b in pair]
FIRST_GAME = {"blazing_quartz_mine", "oracle_of_lumi", "othos_lanternworks", "yedls_workshop"}


# The engine is the session fixture of tests/conftest.py (every installed plugin, strict).



def new_table(engine: Engine, building: str, seed: int = 1) -> Table:
    """A 2-player game with ``building`` in play (and one building of three other tiles)."""
    tile = next(t for t, pair in TILES.items() if building in pair)
    others = [pair[0] for t, pair in TILES.items() if t != tile][:3]
    return Table.new(players=2, seed=seed, engine=engine, buildings=[building, *others])


def wagon(t: Table, **fields: object) -> None:
    """Seat 0's wagon: empty apart from ``fields``."""
    empty: dict[str, object] = {"coins": 0, "prestige": 0, "lanterns": 0, "quartz": 0, "horseshoes": 0,
                                "goods": [], "heroes": [], "commissions": [], "special": []}
    t.setup_wagon(0, **(empty | fields))


def unused(t: Table, building: str) -> list[str]:
    return [e.data["reason"] for e in t.events_of("building_unused") if e.data["building"] == building]


# -- setup ----------------------------------------------------------------------------------


def test_tiles_and_first_game_flags(engine: Engine) -> None:
    """Rulebook p. 4 step 3 and the component list (5 double-sided building tiles); the pairs:
    docs/content.md, "Double-sided building tiles"; the first-game set."""
    comps = engine.content.components
    for tile, pair in TILES.items():
        for b in pair:
            assert comps[b].kind == "building"
            assert comps[b].data["tile"] == tile
    assert {b for b in BUILDINGS if comps[b].data.get("first_game")} == FIRST_GAME


@pytest.mark.parametrize("tile", sorted(TILES))
def test_both_sides_of_a_tile_is_a_bad_config(engine: Engine, tile: int) -> None:
    """docs/content.md, "Double-sided building tiles": at most one side of each tile in a game."""
    others = [pair[0] for t, pair in TILES.items() if t != tile][:2]
    with pytest.raises(BadConfig) as exc:
        Table.new(players=2, seed=1, engine=engine, buildings=[others[0], *TILES[tile], others[1]])
    assert exc.value.reason == f"`buildings` names both sides of one tile: {', '.join(sorted(TILES[tile]))}"


@pytest.mark.parametrize(("chosen", "reason"), [
    (BUILDINGS[:3], "`buildings` names exactly 4 buildings or none, not 3"),
    (BUILDINGS[:5:2] + BUILDINGS[6:9:2], "`buildings` names exactly 4 buildings or none, not 5"),
    ([BUILDINGS[0], *BUILDINGS[2:5:2], BUILDINGS[0]], "`buildings` names each id at most once: "
                                                      f"{BUILDINGS[0]} more than once"),
])
def test_any_config_has_four_different_buildings_or_none(engine: Engine, chosen: list[str], reason: str) -> None:
    """Rulebook p. 4 step 3, "Choose 4 buildings": a config built without a setup request (a
    script's, a record's) is refused as a setup request is (darkroad.core.configs.building_problems)."""
    with pytest.raises(BadConfig) as exc:
        Table.new(players=2, seed=1, engine=engine, buildings=chosen)
    assert exc.value.reason == reason


def test_default_buildings_are_the_first_game_set(engine: Engine) -> None:
    """Rulebook p. 4, "Erect the Buildings": the suggested first game uses the Mine, the
    Oracle, the Lanternworks and the Workshop."""
    t = Table.new(players=3, seed=4, engine=engine)
    assert sorted(t.game.board.buildings) == sorted(FIRST_GAME)


def test_random_buildings_use_one_side_per_tile(engine: Engine) -> None:
    """Rulebook p. 4, "Erect the Buildings" (random selection), one side per tile (docs/content.md)."""
    comps = engine.content.components
    for seed in range(20):
        game, events = engine.create(GameConfig(players=2, seed=seed, random_buildings=True))
        t = Table(engine, game, events, record=False)  # no hook recorder left on the session engine
        tiles = [comps[b].data["tile"] for b in t.game.board.buildings]
        assert len(tiles) == 4 and len(set(tiles)) == 4


@pytest.mark.parametrize("building", BUILDINGS)
def test_illuminated_die_activates_the_connected_building(engine: Engine, building: str) -> None:
    """Rulebook p. 7, "Step 3: Act": a night die and an illuminated die activate the
    connected building; each building then resolves its own action (p. 15)."""
    t = new_table(engine, building)
    wagon(t, coins=6, lanterns=1, quartz=1, goods=["potion", "book"])
    p = t.game.players[0]
    p.position = t.game.board.buildings.index(building) + 1
    p.pool = [PoolDie(kind="night", value=1), PoolDie(kind="illuminated", value=2)]
    p.reserve = p.reserve[1:]  # the pool's night die came from the reserve
    t.game.active = 0
    t.push("activate", 0)
    before = len(t.events)
    t.choose("activate", f"building:{building}")
    caused = [e.type for e in t.events[before:]]
    assert caused[0] == "activated"
    # Something of the building happened: a gain, or a decision of its own.
    assert len(caused) > 1 or t.decision not in ("activate", None)


# -- Blazing Quartz Mine --------------------------------------------------------------------


def test_mine_gains_a_blazing_quartz(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: Blazing Quartz Mine — gain 1 blazing quartz."""
    t = new_table(engine, "blazing_quartz_mine")
    wagon(t, quartz=1)
    t.activate_building(0, "blazing_quartz_mine")
    assert t.game.players[0].quartz == 2


# -- Queen's Eyes Surveyor ------------------------------------------------------------------


def test_surveyor_choice_when_both_payable_pay_coins(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: Queen's Eyes Surveyor — spend 2 coins or 1 blazing quartz
    to gain 3 prestige (both payable: the player chooses)."""
    t = new_table(engine, "queens_eyes_surveyor")
    wagon(t, coins=3, quartz=1, prestige=1)
    t.activate_building(0, "queens_eyes_surveyor")
    assert t.decision == "queens_eyes_surveyor_pay"
    assert sorted(t.options(0)) == ["coins", "decline", "quartz"]
    t.choose("queens_eyes_surveyor_pay", "coins")
    p = t.game.players[0]
    assert (p.coins, p.quartz, p.prestige) == (1, 1, 4)


def test_surveyor_pays_with_quartz_when_coins_short(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: Queen's Eyes Surveyor — only payable costs are offered."""
    t = new_table(engine, "queens_eyes_surveyor")
    wagon(t, coins=1, quartz=1)
    t.activate_building(0, "queens_eyes_surveyor")
    assert sorted(t.options(0)) == ["decline", "quartz"]
    t.choose("queens_eyes_surveyor_pay", "quartz")
    p = t.game.players[0]
    assert (p.coins, p.quartz, p.prestige) == (1, 0, 3)


def test_surveyor_cannot_pay_does_nothing(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: Queen's Eyes Surveyor — without 2 coins or a blazing quartz
    the activation gives nothing."""
    t = new_table(engine, "queens_eyes_surveyor")
    wagon(t, coins=1)
    t.activate_building(0, "queens_eyes_surveyor")
    assert t.decision != "queens_eyes_surveyor_pay"
    assert t.game.players[0].prestige == 0 and t.game.players[0].coins == 1
    assert unused(t, "queens_eyes_surveyor") == ["cannot spend 2 coins or 1 blazing quartz"]


def test_surveyor_decline_spends_nothing(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: Queen's Eyes Surveyor — spending is the player's choice."""
    t = new_table(engine, "queens_eyes_surveyor")
    wagon(t, coins=2)
    t.activate_building(0, "queens_eyes_surveyor")
    t.choose("queens_eyes_surveyor_pay", "decline")
    p = t.game.players[0]
    assert (p.coins, p.prestige) == (2, 0)
    assert unused(t, "queens_eyes_surveyor") == ["declined"]


# -- Icebreaker Harbor ------------------------------------------------------------------------


def test_harbor_gains_the_one_type_missing_from_the_wheel(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: Icebreaker Harbor — 1 basic good of a type not on the wheel."""
    t = new_table(engine, "icebreaker_harbor")
    wagon(t)
    ids = engine.content.good_ids
    t.game.board.market = [1, 1, 1, 1, 1, 0]
    t.activate_building(0, "icebreaker_harbor")
    assert t.game.players[0].goods == [ids[5]]


def test_harbor_offers_only_missing_types(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: Icebreaker Harbor — a choice among the missing types."""
    t = new_table(engine, "icebreaker_harbor")
    wagon(t)
    ids = engine.content.good_ids
    t.game.board.market = [0, 2, 1, 0, 2, 0]
    t.activate_building(0, "icebreaker_harbor")
    assert sorted(t.options(0)) == sorted(f"good:{ids[i]}" for i in (0, 3, 5))
    t.choose("choose_effect", f"good:{ids[3]}")
    assert t.game.players[0].goods == [ids[3]]


# -- Merchant's Guildhall ------------------------------------------------------------------------


def test_guildhall_pay_lantern_then_two_goods(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: Merchant's Guildhall — spend 2 coins or 1 lantern, then gain
    1 good of any type and 1 good of a type with a current value of $1."""
    t = new_table(engine, "merchants_guildhall")
    wagon(t, coins=2, lanterns=1)
    t.activate_building(0, "merchants_guildhall")
    assert sorted(t.options(0)) == ["coins", "decline", "lantern"]
    t.choose("merchants_guildhall_pay", "lantern")
    assert len(t.options(0)) == 6  # any type
    t.choose("choose_effect", "good:armor")
    ctx = t.ctx()
    cheap = ctx.goods_of_value(1)
    assert sorted(t.options(0)) == sorted(f"good:{g}" for g in cheap)
    t.choose("choose_effect", f"good:{cheap[0]}")
    p = t.game.players[0]
    assert (p.coins, p.lanterns) == (2, 0)
    assert sorted(p.goods) == sorted(["armor", cheap[0]])


def test_guildhall_cannot_pay_does_nothing(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: Merchant's Guildhall — no 2 coins and no lantern: nothing."""
    t = new_table(engine, "merchants_guildhall")
    wagon(t, coins=1, quartz=2)
    t.activate_building(0, "merchants_guildhall")
    assert t.game.players[0].goods == []
    assert unused(t, "merchants_guildhall") == ["cannot spend 2 coins or 1 lantern"]


# -- The Oracle of Lumi ------------------------------------------------------------------------------


def resolve_any(t: Table) -> None:
    """Answer every pending choice of seat 0 raised by the activation with its first option."""
    while t.decision == "choose_effect":
        t.choose("choose_effect", t.options(0)[0])


def test_oracle_rolls_each_face_and_gains_it(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: The Oracle of Lumi — roll the oracle die, gain the reward
    shown (faces: the module's documented design, docs/content.md "Dice faces")."""
    faces = engine.content.components["oracle_of_lumi"].data["oracle_die"]
    assert len(faces) == 6
    t = new_table(engine, "oracle_of_lumi")
    seen = set()
    for _ in range(60):
        wagon(t, goods=["potion"])
        t.activate_building(0, "oracle_of_lumi")
        resolve_any(t)
        rolled = t.events_of("oracle_die_rolled")[-1].data
        assert rolled["face"] == faces[rolled["number"] - 1]
        seen.add(rolled["number"])
        p = t.game.players[0]
        gained = {
            ("coins:3",): p.coins == 3,
            ("quartz:1",): p.quartz == 1,
            ("lantern:1", "prestige:1"): (p.lanterns, p.prestige) == (1, 1),
            ("good:any",): len(p.goods) == 2,
            ("upgrade_good",): p.goods == ["potion+"],
            ("illuminated",): len(p.special) == 1,
        }
        assert gained[tuple(rolled["face"])], rolled
    assert seen == set(range(1, 7))


def test_oracle_die_faces_work_without_the_oracle_in_play(engine: Engine) -> None:
    """Rulebook, Companions: Raven ("Roll the oracle die and gain the reward shown") rolls it
    without the building — the faces are in the catalogue and each resolves through the engine."""
    t = Table.new(players=2, seed=1, engine=engine, buildings=[TILES[1][1], TILES[2][1], TILES[3][1], TILES[4][1]])
    assert "oracle_of_lumi" not in t.game.board.buildings
    faces = t.engine.content.components["oracle_of_lumi"].data["oracle_die"]
    for face in faces:
        wagon(t, goods=["book"])
        t.run(lambda ctx, face=face: ctx.gain_effects(0, face, source="test"))
        resolve_any(t)
        p = t.game.players[0]
        assert (p.coins, p.quartz, p.lanterns, p.prestige, len(p.special), p.goods) != (0, 0, 0, 0, 0, ["book"])


# -- The Candle & Quartz ------------------------------------------------------------------------------


def test_candle_pay_coins_gain_inn_hero_without_sale(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: The Candle & Quartz — spend 2 coins, then gain 1 available
    hero (no goods sold) or commission."""
    t = new_table(engine, "candle_and_quartz")
    wagon(t, coins=2, goods=["armor+"])
    hero = t.game.board.inn[0]
    t.activate_building(0, "candle_and_quartz")
    assert sorted(t.options(0)) == ["coins", "decline"]
    t.choose("candle_and_quartz_pay", "coins")
    opts = t.options(0)
    assert "hero:inn:0" in opts and any(o.startswith("commission:") for o in opts)
    t.choose("candle_and_quartz_gain", "hero:inn:0")
    p = t.game.players[0]
    assert p.heroes == [hero] and p.coins == 0 and p.goods == ["armor+"]


def test_candle_pay_with_a_basic_good_valued_1_gain_commission(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: The Candle & Quartz — 1 basic good with a current value of
    $1 pays (not an upgraded one, not a dearer one)."""
    t = new_table(engine, "candle_and_quartz")
    ctx = t.ctx()
    cheap, dear = ctx.goods_of_value(1)[0], ctx.goods_of_value(5)[0]
    wagon(t, coins=1, goods=[cheap, f"{cheap}+", dear])
    t.activate_building(0, "candle_and_quartz")
    assert sorted(t.options(0)) == ["decline", f"good:{cheap}"]
    t.choose("candle_and_quartz_pay", f"good:{cheap}")
    town, stack = next((town, s) for town, s in t.game.board.commission_stacks.items() if s)
    top = stack[0]
    t.choose("candle_and_quartz_gain", f"commission:{town}")
    p = t.game.players[0]
    assert p.commissions == [top]
    assert sorted(p.goods) == sorted([f"{cheap}+", dear])


def test_candle_cannot_pay_does_nothing(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: The Candle & Quartz — no 2 coins, no $1 basic good: nothing."""
    t = new_table(engine, "candle_and_quartz")
    ctx = t.ctx()
    wagon(t, coins=1, goods=[f"{ctx.goods_of_value(1)[0]}+", ctx.goods_of_value(3)[0]])
    t.activate_building(0, "candle_and_quartz")
    p = t.game.players[0]
    assert p.heroes == [] and p.commissions == [] and p.coins == 1
    assert unused(t, "candle_and_quartz") == ["cannot spend 2 coins or 1 basic good with a current value of $1"]


def test_candle_with_nothing_available_costs_nothing(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: The Candle & Quartz — no hero or commission left to gain."""
    t = new_table(engine, "candle_and_quartz")
    wagon(t, coins=4)
    b = t.game.board
    b.inn, b.hero_deck = [None] * 4, []
    b.commission_stacks = {town: [] for town in b.commission_stacks}
    t.activate_building(0, "candle_and_quartz")
    assert t.game.players[0].coins == 4
    assert unused(t, "candle_and_quartz") == ["no hero or commission available"]


# -- Otho's Lanternworks ------------------------------------------------------------------------------


def test_lanternworks_good_lantern_prestige(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: Otho's Lanternworks — 1 basic good valued $1, 1 lantern,
    1 prestige."""
    t = new_table(engine, "othos_lanternworks")
    wagon(t)
    t.activate_building(0, "othos_lanternworks")
    cheap = t.ctx().goods_of_value(1)
    assert sorted(t.options(0)) == sorted(f"good:{g}" for g in cheap)
    t.choose("choose_effect", f"good:{cheap[1]}")
    p = t.game.players[0]
    assert (p.goods, p.lanterns, p.prestige) == ([cheap[1]], 1, 1)


# -- Guildmaster's Mansion ------------------------------------------------------------------------------


def test_mansion_repeated_trades(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: Guildmaster's Mansion — any number of 1-to-1 trades among
    1 lantern, 1 blazing quartz and 2 coins."""
    t = new_table(engine, "guildmasters_mansion")
    wagon(t, coins=4, lanterns=1)
    t.activate_building(0, "guildmasters_mansion")
    assert sorted(t.options(0)) == ["coins>lantern", "coins>quartz", "done", "lantern>coins", "lantern>quartz"]
    t.choose("guildmasters_mansion_trade", "coins>quartz")
    t.choose("guildmasters_mansion_trade", "coins>quartz")
    assert "coins>lantern" not in t.options(0)  # 0 coins left
    t.choose("guildmasters_mansion_trade", "quartz>lantern")
    t.choose("guildmasters_mansion_trade", "lantern>coins")
    t.choose("guildmasters_mansion_trade", "done")
    p = t.game.players[0]
    assert (p.coins, p.lanterns, p.quartz) == (2, 1, 1)
    assert [(e.data["gave"], e.data["got"]) for e in t.events_of("traded")] == [
        ("coins", "quartz"), ("coins", "quartz"), ("quartz", "lantern"), ("lantern", "coins")]
    assert t.decision != "guildmasters_mansion_trade"


def test_mansion_offers_no_lantern_into_full_slots(engine: Engine) -> None:
    """Rulebook p. 15 Guildmaster's Mansion with p. 18 (an extra lantern is discarded)."""
    t = new_table(engine, "guildmasters_mansion")
    wagon(t, coins=2, lanterns=4)
    t.activate_building(0, "guildmasters_mansion")
    assert sorted(t.options(0)) == ["coins>quartz", "done", "lantern>coins", "lantern>quartz"]


def test_mansion_nothing_to_trade(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: Guildmaster's Mansion — with 1 coin and no lantern or
    quartz there is nothing to trade."""
    t = new_table(engine, "guildmasters_mansion")
    wagon(t, coins=1, horseshoes=1)
    t.activate_building(0, "guildmasters_mansion")
    assert t.decision != "guildmasters_mansion_trade"
    assert t.game.players[0].coins == 1
    assert len(unused(t, "guildmasters_mansion")) == 1


def test_mansion_quartz_into_full_inventory_asks_for_a_discard(engine: Engine) -> None:
    """Rulebook p. 15 Guildmaster's Mansion with p. 18 (inventory overflow: discard one)."""
    t = new_table(engine, "guildmasters_mansion")
    wagon(t, coins=2, horseshoes=3)
    t.activate_building(0, "guildmasters_mansion")
    t.choose("guildmasters_mansion_trade", "coins>quartz")
    assert t.decision == "discard_inventory"
    t.choose("discard_inventory", "discard:horseshoes")
    assert t.decision == "guildmasters_mansion_trade"
    p = t.game.players[0]
    assert (p.coins, p.quartz, p.horseshoes) == (0, 1, 2)


# -- Yedl's Workshop ------------------------------------------------------------------------------------


def test_workshop_upgrades_a_good_and_gains_a_lantern(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: Yedl's Workshop — flip 1 basic good to its upgraded side;
    gain 1 lantern."""
    t = new_table(engine, "yedls_workshop")
    wagon(t, goods=["potion", "book", "staff+"])
    t.activate_building(0, "yedls_workshop")
    assert sorted(t.options(0)) == ["upgrade_good:book", "upgrade_good:potion"]
    t.choose("choose_effect", "upgrade_good:book")
    p = t.game.players[0]
    assert sorted(p.goods) == ["book+", "potion", "staff+"] and p.lanterns == 1


def test_workshop_without_basic_good_still_gives_the_lantern(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: Yedl's Workshop — nothing to upgrade, the lantern remains."""
    t = new_table(engine, "yedls_workshop")
    wagon(t, goods=["armor+"])
    t.activate_building(0, "yedls_workshop")
    p = t.game.players[0]
    assert p.goods == ["armor+"] and p.lanterns == 1


# -- The Frosted Filigree ------------------------------------------------------------------------------


def test_filigree_pay_with_any_good(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: The Frosted Filigree — spend 2 coins or 1 good (any, the
    player's choice), then gain 1 upgraded good with a current value of $1."""
    t = new_table(engine, "frosted_filigree")
    wagon(t, coins=2, goods=["armor+", "potion"])
    t.activate_building(0, "frosted_filigree")
    assert sorted(t.options(0)) == ["coins", "decline", "good:armor+", "good:potion"]
    t.choose("frosted_filigree_pay", "good:armor+")
    cheap = t.ctx().goods_of_value(1)
    assert sorted(t.options(0)) == sorted(f"good:{g}+" for g in cheap)
    t.choose("choose_effect", f"good:{cheap[0]}+")
    p = t.game.players[0]
    assert sorted(p.goods) == sorted(["potion", f"{cheap[0]}+"]) and p.coins == 2
    assert all(is_upgraded(g) or good_type(g) == "potion" for g in p.goods)


def test_filigree_pay_coins(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: The Frosted Filigree — spend 2 coins."""
    t = new_table(engine, "frosted_filigree")
    wagon(t, coins=3)
    t.activate_building(0, "frosted_filigree")
    assert sorted(t.options(0)) == ["coins", "decline"]
    t.choose("frosted_filigree_pay", "coins")
    resolve_any(t)
    p = t.game.players[0]
    assert p.coins == 1 and len(p.goods) == 1 and is_upgraded(p.goods[0])
    assert t.ctx().value(good_type(p.goods[0])) == 1


def test_filigree_cannot_pay_does_nothing(engine: Engine) -> None:
    """Rulebook p. 15, Buildings: The Frosted Filigree — no 2 coins and no good: nothing."""
    t = new_table(engine, "frosted_filigree")
    wagon(t, coins=1, lanterns=2)
    t.activate_building(0, "frosted_filigree")
    assert t.game.players[0].goods == []
    assert unused(t, "frosted_filigree") == ["cannot spend 2 coins or 1 good"]
