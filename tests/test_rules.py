"""One test per rule of the rules core, each naming the rulebook section it checks.

Page numbers refer to the published English rulebook (final edition).
"""

from __future__ import annotations

import json

import pytest

from darkroad.core import errors
from darkroad.core.state import CompanionCard, PoolDie
from darkroad.core.testing import Table

WHEEL = ("potion", "staff", "armor", "book", "weapon", "instrument")


def neutral(t: Table, *seats: int) -> None:
    """Remove steeds, so a test sees the rulebook's base rule only."""
    for s in seats or range(len(t.game.players)):
        t.setup_wagon(s, steeds=[])


def market(t: Table, offset: int = 0, **dice: int) -> None:
    b = t.game.board
    b.wheel_offset = offset
    b.market = [dice.get(g, 0) for g in WHEEL]


# -- setup (pp. 4-5) -----------------------------------------------------------------------


def test_setup_board(table):
    """Setting up the Game, steps 4-12 (pp. 4-5)."""
    t = table(players=4, seed=3)
    b = t.game.board
    assert sum(b.market) == 5 and max(b.market) == 1
    values = {g: t.ctx().value(g) for g in WHEEL}
    empty = [g for i, g in enumerate(WHEEL) if b.market[i] == 0]
    # The empty section is the $1 section next to the $5 section.
    assert len(empty) == 1 and values[empty[0]] == 1
    assert all(len(s) == 5 for s in b.commission_stacks.values()) and len(b.commission_stacks) == 6
    assert b.ruins == 3 and b.dark_market == 2 and b.five_coins
    assert all(b.inn) and len(b.inn) == 4
    assert all(b.courtyard) and len(b.courtyard) == 2
    assert all(b.companion_row) and len(b.companion_row) == 3
    assert len(b.events["dark_road"]) == 13 and len(b.events["shortcut"]) == 13
    assert len(b.upgrades) == 6 and len(b.buildings) == 4


def test_setup_players(table):
    """Player Setup, steps 13-21 (p. 5): coins, dice, deed, horseshoe, starting good by
    seating position, starting hero with its bonus, steed."""
    t = table(players=4, seed=4)
    ctx = t.ctx()
    for seat, p in enumerate(t.game.players):
        assert p.position == 0
        assert p.locked == [1, 2, 3] and len(p.reserve) == 4 and len(p.special) == 1
        assert len(p.deeds) == 1 and len(p.steeds) == 1 and len(p.heroes) == 1
        assert p.coins == 5 + seat
        assert [ctx.value(g) for g in p.goods] == [(5, 4, 3, 2)[seat]]
        bonus = t.engine.content.heroes[p.heroes[0]].bonus
        assert p.horseshoes == 1 + (bonus == "horseshoe")
        assert p.lanterns == (bonus == "lantern")


def test_setup_is_deterministic_and_seeded(table):
    """A seeded PRNG in the state: same seed, same game; another seed, another game."""
    a, b, c = table(seed=11), table(seed=11), table(seed=12)
    assert a.engine.dumps(a.game) == b.engine.dumps(b.game)
    assert a.engine.dumps(a.game) != c.engine.dumps(c.game)


def test_advanced_deeds(table):
    """Player Setup, step 17 (p. 5): advanced players draw 2 deeds and keep 1; the other
    goes to the bottom of the deed deck."""
    t = table(seed=2, advanced_deeds=True)
    assert t.decision == "choose_starting_deed"
    offered = t.options(0)
    t.choose("choose_starting_deed", offered[1], seat=0)
    assert t.game.players[0].deeds == [offered[1]]
    assert t.game.board.deed_deck[-1] == offered[0]


def test_drafting_variant(table):
    """Drafting Variant (p. 14): players+1 stacks of a steed and a starting hero, drafted
    in turn order."""
    t = table(players=3, seed=5, drafting=True)
    assert t.decision == "draft" and len(t.options(0)) == 4
    for seat in range(3):
        t.choose("draft", t.options(seat)[0], seat=seat)
        assert len(t.game.players[seat].steeds) == 1 and len(t.game.players[seat].heroes) == 1
    assert t.decision == "plan" and "draft" not in t.game.board.extra


# -- plan (p. 6) -----------------------------------------------------------------------------


def test_bump_griffin_example(table):
    """Step 1: Plan (p. 6), Griffin's example: a 1 from the main reserve bumps the 2 of
    slot #2 into the action pool; slot #2 moves the illuminated die to the pool."""
    t = table(seed=1)
    t.setup_wagon(0, reserve=[1, 4, 0, 5], special=[1])
    t.choose("plan", "bump:2:1")
    p = t.game.players[0]
    assert p.locked == [1, 1, 3] and p.reserve == [4, 0, 5]
    assert p.pool == [PoolDie(kind="night", value=2)]
    t.choose("slot2", "illuminated:1")
    assert p.pool[-1] == PoolDie(kind="illuminated", value=1) and p.special == []


def test_slot1_crafts_with_the_new_die(table):
    """Slot #1 (p. 6): craft by the crafting chart with the value of the newly locked die."""
    t = table(seed=1)
    t.setup_wagon(0, reserve=[4, 4, 4, 4], goods=[])
    t.choose("plan", "bump:1:4")
    assert t.game.players[0].goods == [t.engine.content.crafting_chart[4]]


def test_slot3_coins_or_rotate(table):
    """Slot #3 (p. 6): gain 2 coins or rotate the market wheel 1 space clockwise."""
    t = table(seed=1)
    t.setup_wagon(0, reserve=[2, 2, 2, 2], coins=5)
    t.choose("plan", "bump:3:2")
    assert {o for o in t.options()} == {"coins", "rotate"}
    before = {g: t.ctx().value(g) for g in WHEEL}
    t.choose("slot3", "rotate")
    after = {g: t.ctx().value(g) for g in WHEEL}
    # Clockwise: every good drops one position; the last $1 good comes round to $5.
    assert sorted(after.values()) == sorted(before.values())
    top = next(g for g in WHEEL if before[g] == 5)
    assert after[top] == 4
    assert t.game.players[0].coins == 5


def test_reset_when_locked_dice_match(table):
    """Resetting (p. 6): when the 3 locked dice show the same value, you may reset them to 1/2/3."""
    t = table(seed=1)
    t.setup_wagon(0, locked=[4, 4, 4], reserve=[0, 1, 2, 3])
    assert "reset" in t.options(0)
    t.choose("plan", "reset")
    assert t.game.players[0].locked == [1, 2, 3]
    assert "reset" not in t.options(0)
    t2 = table(seed=1)
    t2.setup_wagon(0, locked=[4, 4, 3])
    assert "reset" not in t2.options(0)


def test_last_three_rounds(table):
    """Final 3 rounds (p. 6): no reserve; move a locked die straight to the pool; slot #1
    then gives 1 basic good of your choice."""
    t = table(seed=1)
    t.setup_wagon(0, locked=[3, 5, 2], reserve=[], removed=4, goods=[])
    assert sorted(t.options(0)) == ["take:1", "take:2", "take:3"]
    t.choose("plan", "take:1")
    p = t.game.players[0]
    assert p.locked == [None, 5, 2] and p.pool == [PoolDie(kind="night", value=3)]
    assert sorted(t.options(0)) == sorted(f"good:{g}" for g in WHEEL)
    t.choose("choose_effect", "good:weapon")
    assert p.goods == ["weapon"]


# -- move (p. 7) ------------------------------------------------------------------------------


def test_move_by_one_die_not_the_sum(table):
    """Step 2: Move (p. 7): choose 1 pool die; 2 dice are not added; 0 stays."""
    t = table(seed=1)
    neutral(t)
    t.setup_wagon(0, reserve=[0, 0, 0, 0], special=[3], horseshoes=0)
    t.choose("plan", "bump:2:0")
    t.choose("slot2", "illuminated:3")
    assert sorted(t.options(0)) == ["move:2", "move:3"]
    t.choose("move", "move:3")
    assert t.game.players[0].position == 3


def test_zero_stays_and_one_horseshoe(table):
    """Step 2: Move (p. 7): a 0 does not move; then at most 1 horseshoe for ±1 space."""
    t = table(seed=1)
    neutral(t)
    t.setup_wagon(0, locked=[0, 2, 3], reserve=[1, 1, 1, 1], horseshoes=2, goods=[])
    t.choose("plan", "bump:1:1")
    t.choose("move", "move:0")
    assert t.game.players[0].position == 0
    assert set(t.options(0)) >= {"keep", "cw", "ccw"}
    t.choose("horseshoe", "ccw")
    p = t.game.players[0]
    assert p.position == 4 and p.horseshoes == 1
    assert t.decision == "activate"


# -- activate (p. 7) -------------------------------------------------------------------------


def test_night_die_activates_one_adjacent_district(table):
    """Step 3: Activate (p. 7): a night die alone activates one of the 2 adjacent districts."""
    t = table(seed=1)
    neutral(t)
    t.setup_wagon(0, reserve=[1, 1, 1, 1], horseshoes=0)
    t.choose("plan", "bump:3:1")
    t.choose("slot3", "coins")
    t.choose("move", "move:3")  # space 3: between Yurg's Excursions and the Dark Market
    assert sorted(t.options(0)) == ["district:dark_market", "district:yurgs_excursions"]


def test_both_dice_activate_both_districts_and_the_building(table):
    """Step 3: Activate (p. 7): night + illuminated die → both districts and the connected
    building, in any order, each fully resolved."""
    t = table(seed=1)
    neutral(t)
    t.setup_wagon(0, reserve=[1, 1, 1, 1], special=[1], horseshoes=0)
    t.choose("plan", "bump:2:1")
    t.choose("slot2", "illuminated:1")
    t.choose("move", "move:1")
    building = t.game.board.buildings[0]
    assert sorted(t.options(0)) == sorted(
        ["district:great_bazaar", "district:queens_commissions", f"building:{building}"])
    t.choose("activate", f"building:{building}")
    while t.decision != "activate":
        t.apply(t.legal(0)[0])
    assert sorted(t.options(0)) == ["district:great_bazaar", "district:queens_commissions"]


def test_start_space_has_no_building(table):
    """Step 3 (p. 7): no building space between the Ringway Inn and the Great Bazaar."""
    t = table(seed=1)
    neutral(t)
    t.setup_wagon(0, reserve=[0, 0, 0, 0], special=[5], horseshoes=0)
    t.choose("plan", "bump:2:0")
    t.choose("slot2", "illuminated:5")
    t.choose("move", "move:5")
    assert sorted(t.options(0)) == ["district:great_bazaar", "district:ringway_inn"]


# -- districts (pp. 8-11) ---------------------------------------------------------------------


def test_susie_at_the_bazaar(table):
    """The Great Bazaar (p. 8), Susie's example: no rotation; a potion die changed to armor;
    2 armor ($3, the second free) and 1 weapon ($1) for 4 coins."""
    t = table(seed=1)
    neutral(t)
    market(t, 0, potion=2, armor=1, weapon=1, book=1)
    t.setup_wagon(0, coins=4, goods=[])
    t.district(0, "great_bazaar")
    t.choose("great_bazaar", "change:potion:armor")
    assert "rotate" in t.options(0) and not any(o.startswith("change") for o in t.options(0))
    t.choose("great_bazaar", "buy")
    t.choose("bazaar_buy", "buy:armor")
    t.choose("bazaar_buy", "buy:armor")
    t.choose("bazaar_buy", "buy:weapon")
    p = t.game.players[0]
    assert p.coins == 0 and sorted(p.goods) == ["armor", "armor", "weapon"]
    assert t.game.board.set_aside == 3
    t.choose("bazaar_buy", "done")


def test_bazaar_section_limit(table):
    """The Great Bazaar (p. 8): a changed die obeys the limit of 2 dice per section."""
    t = table(seed=1)
    market(t, 0, potion=2, armor=2, weapon=1)
    t.district(0, "great_bazaar")
    assert "change:weapon:potion" not in t.options(0)
    assert "change:weapon:book" in t.options(0)


def test_market_dice_reroll_in_rest(table):
    """Step 4: Rest (p. 7): bought market dice are rerolled, never more than 2 per section."""
    t = table(seed=1)
    market(t, 0, potion=2, staff=2, armor=1)
    t.setup_wagon(0, coins=20, goods=[])
    t.district(0, "great_bazaar")
    t.choose("great_bazaar", "buy")
    t.choose("bazaar_buy", "buy:armor")
    t.choose("bazaar_buy", "done")
    t.push("rest", 0)
    b = t.game.board
    assert sum(b.market) == 5 and max(b.market) <= 2 and b.set_aside == 0


def test_queens_commissions(table):
    """The Queen's Commissions (p. 8): take the top commission of any town's stack."""
    t = table(seed=1)
    tops = {town: s[0] for town, s in t.game.board.commission_stacks.items()}
    t.setup_wagon(0, commissions=[])
    t.district(0, "queens_commissions")
    t.choose("choose_effect", "commission:farglen")
    assert t.game.players[0].commissions == [tops["farglen"]]
    assert t.game.board.commission_stacks["farglen"][0] != tops["farglen"]


def test_andrea_at_the_dark_market(table):
    """The Dark Market (p. 9), Andrea's example: from west, 2 coins move the marker to
    east: a book and a staff."""
    t = table(seed=1)
    t.game.board.dark_market = 3
    t.setup_wagon(0, coins=5, goods=[])
    t.district(0, "dark_market")
    assert t.options(0) == ["move:1", "move:2", "move:3", "move:4"]
    t.choose("dark_market", "move:2")
    p = t.game.players[0]
    assert p.coins == 3 and sorted(p.goods) == ["book", "staff"]


def test_dark_market_needs_a_coin(table):
    """The Dark Market (p. 9): at least 1 coin, no more spaces than coins; none → skip."""
    t = table(seed=1)
    t.setup_wagon(0, coins=2)
    t.district(0, "dark_market")
    assert t.options(0) == ["move:1", "move:2"]
    t2 = table(seed=1)
    t2.setup_wagon(0, coins=0)
    t2.district(0, "dark_market")
    assert t2.decision == "plan"  # skipped entirely


def test_dark_market_south(table):
    """The Dark Market (p. 9): the south space gives 1 commission OR 1 deed with its bonus."""
    t = table(seed=1)
    t.game.board.dark_market = 1
    t.setup_wagon(0, coins=1)
    t.district(0, "dark_market")
    t.choose("dark_market", "move:1")
    assert set(t.options(0)) == {"commission", "deed"}
    t.choose("choose_effect", "deed")
    t.choose("choose_effect", "deed:courtyard:0")
    assert len(t.game.players[0].deeds) == 2


def test_brian_at_the_inn(table):
    """The Ringway Inn (p. 10), Brian's example: Atlantes requests staff, book and potion;
    Brian sells the upgraded staff ($4 + $1 + 1 blazing quartz) and the potion ($5), keeps
    the book, and gains the lantern bonus."""
    t = table(seed=1)
    market(t, 0, potion=1, staff=1, armor=1, book=1, weapon=1)
    t.game.board.inn[0] = "atlantes"
    t.setup_wagon(0, coins=0, quartz=0, lanterns=0, goods=["staff+", "book", "potion"], heroes=[])
    t.district(0, "ringway_inn")
    t.choose("ringway_inn", "hero:0")
    assert "done" not in t.options(0)  # must sell at least 1 good
    t.choose("inn_sell", "sell:staff+")
    t.choose("inn_sell", "sell:potion")
    t.choose("inn_sell", "done")
    p = t.game.players[0]
    assert p.coins == 10 and p.quartz == 1 and p.lanterns == 1
    assert p.goods == ["book"] and p.heroes == ["atlantes"]
    assert t.game.board.inn[0] is None


def test_inn_needs_a_requested_good(table):
    """The Ringway Inn (p. 10): you must sell at least 1 good to the hero you choose."""
    t = table(seed=1)
    t.setup_wagon(0, goods=[])
    t.district(0, "ringway_inn")
    assert t.decision == "plan"


def test_discarding_the_new_hero_forfeits_its_bonus(table):
    """The Ringway Inn (p. 10), Important: discarding the new hero for lack of room
    forfeits its bonus; Wagon Overview (p. 18): discarded heroes go to the deck bottom."""
    t = table(seed=1)
    heroes = [h for h in t.engine.content.heroes if not t.engine.content.heroes[h].starting]
    held = [h for h in heroes if h != "atlantes"][:3]
    market(t, 0, potion=1, staff=1, armor=1, book=1, weapon=1)
    t.game.board.inn[0] = "atlantes"
    t.setup_wagon(0, goods=["potion"], heroes=held, lanterns=0)
    t.district(0, "ringway_inn")
    t.choose("ringway_inn", "hero:0")
    t.choose("inn_sell", "sell:potion")
    assert t.decision == "discard_hero"
    t.choose("discard_hero", "discard:atlantes")
    p = t.game.players[0]
    assert p.heroes == held and p.lanterns == 0
    assert t.game.board.hero_deck[-1] == "atlantes"


def test_ruins_move_and_reward(table):
    """Ruins of Yin (p. 11): move 1 + up to 1 per hero; gain an upgraded good shown;
    then optionally pay 1 lantern to roll the ruins die."""
    t = table(seed=1)
    t.setup_wagon(0, heroes=t.game.players[0].heroes[:1], lanterns=0, goods=[])
    t.district(0, "yurgs_excursions")
    t.choose("yurgs_excursions", "ruins")
    assert t.options(0) == ["move:1", "move:2"]
    t.choose("ruins_move", "move:1")  # bottom-left -> top-left: potion or weapon
    assert set(t.options(0)) == {"good:potion+", "good:weapon+"}
    t.choose("choose_effect", "good:weapon+")
    assert t.game.players[0].goods == ["weapon+"]
    assert t.decision == "plan"  # no lantern: no ruins die offer


def test_ruins_die_costs_a_lantern(table):
    """Ruins of Yin (p. 11): return 1 lantern to roll the ruins die and gain the face."""
    t = table(seed=1)
    t.setup_wagon(0, lanterns=1, goods=[])
    t.game.board.ruins = 2
    t.district(0, "yurgs_excursions")
    t.choose("yurgs_excursions", "ruins")
    t.choose("ruins_move", "move:1")  # bottom-right -> bottom-left: any upgraded good
    t.choose("choose_effect", "good:book+")
    assert t.options(0) == ["roll", "skip"]
    t.choose("ruins_die_offer", "roll")
    assert t.game.players[0].lanterns == 0
    assert t.events_of("ruins_die_rolled")


# -- caravans (pp. 11-14) ----------------------------------------------------------------------


def caravan_table(table, players: int = 4, seed: int = 1) -> Table:
    t = table(players=players, seed=seed)
    neutral(t)
    for s in range(players):
        t.setup_wagon(s, heroes=[], commissions=[], goods=[], lanterns=0, quartz=0, horseshoes=0, coins=5)
    return t


def test_griffins_full_travel(table):
    """Full Travel Example (p. 14): Griffin takes the Phoenix with the travel die, leads a
    shortcut to Northbreak (3 lanterns); Susie and Brian join, Andrea does not; 4 travel
    dice; shortcut order Susie > Brian > Griffin; Brian's lantern reroll; Whisper's +1;
    deliveries to Northbreak and Scorchborn; 2 good fortunes.

    The example says the top deed card gave 2 prestige; the rule text (p. 17, Deeds) says
    the deck top gives no bonus, and docs/content.md ("Courtyard banners") rules for the text: Griffin takes the
    courtyard deed of slot 1 (bonus: 2 prestige) to reach the same outcome.
    """
    t = caravan_table(table)
    griffin, susie, brian, andrea = 0, 1, 2, 3
    g = t.game
    g.board.companion_row[2] = "phoenix-1"
    g.board.events["shortcut"].remove("shortcut-wolves-at-the-ford")
    g.board.events["shortcut"].insert(0, "shortcut-wolves-at-the-ford")
    knights = [h for h, c in t.engine.content.heroes.items() if c.hero_class == "knight" and not c.starting][:2]
    t.setup_wagon(griffin, lanterns=3, steeds=["whisper"], heroes=list(knights), commissions=["northbreak-1"],
                  goods=["weapon", "staff", "armor"], special=[2])
    t.setup_wagon(brian, lanterns=1, commissions=["scorchborn-1"], goods=["potion"])
    t.district(griffin, "yurgs_excursions")
    t.choose("yurgs_excursions", "caravan")
    t.choose("caravan_companion", "row:2")
    t.choose("caravan_route", "shortcut:northbreak")
    assert g.players[griffin].lanterns == 0
    t.choose("caravan_join", "yes", seat=susie)
    t.choose("caravan_join", "yes", seat=brian)
    t.choose("caravan_join", "no", seat=andrea)
    caravan = g.turn.caravan
    assert caravan is not None and caravan.dice is not None
    assert caravan.members == [griffin, susie, brian]
    assert len(caravan.dice) == 4  # 3 members + the Phoenix's travel die
    caravan.dice = [1, 3, 4, 6]
    assert t.awaiting == [susie]
    t.choose("travel_die", "take:6", seat=susie)
    assert g.players[susie].quartz == 1
    assert t.awaiting == [brian]
    t.choose("travel_die", "reroll", seat=brian)
    assert g.players[brian].lanterns == 0 and len(caravan.dice) == 3
    caravan.dice = [1, 4, 5]
    t.choose("travel_die", "take:5", seat=brian)
    assert "instrument+" in g.players[brian].goods
    assert "take:4:+1" in t.options(griffin)  # Whisper
    t.choose("travel_die", "take:4:+1", seat=griffin)
    assert "instrument+" in g.players[griffin].goods
    # Deliveries happen simultaneously.
    assert sorted(t.awaiting) == [griffin, susie, brian]
    assert set(t.options(griffin)) == {"town:northbreak", "pass"}
    assert set(t.options(brian)) == {"town:northbreak", "town:scorchborn", "pass"}
    t.choose("deliveries", "pass", seat=susie)
    t.choose("deliveries", "town:scorchborn", seat=brian)
    t.choose("deliveries", "commission:scorchborn-1:instrument+,potion", seat=brian)
    assert g.players[brian].prestige == 4
    t.choose("deliveries", "done", seat=brian)
    t.choose("deliveries", "town:northbreak", seat=griffin)
    coins = g.players[griffin].coins
    for k in knights:
        t.choose("deliveries", f"hero:{k}", seat=griffin)
    assert g.players[griffin].coins == coins + 4
    t.choose("deliveries", "commission:northbreak-1:weapon,staff,armor", seat=griffin)
    assert g.players[griffin].prestige == 6
    t.choose("deliveries", "done", seat=griffin)
    # Two good fortunes for the shortcut.
    t.choose("good_fortune", "illuminated", seat=griffin)
    assert len(g.players[griffin].special) == 2
    t.choose("good_fortune", "deed", seat=griffin)
    t.choose("choose_effect", "deed:courtyard:0", seat=griffin)
    assert g.players[griffin].prestige == 8 and len(g.players[griffin].deeds) == 2
    assert g.players[griffin].delivered_heroes == knights
    assert g.players[griffin].delivered_commissions == ["northbreak-1"]


def test_dark_road_order_and_penalties_floor_at_zero(table):
    """Step 2: Resolve an Event (p. 12): on the dark road the leader takes a die first, then
    clockwise; penalties take what you can, never below zero (p. 17, Events)."""
    t = caravan_table(table, players=3)
    t.setup_wagon(0, coins=1)
    deck = t.game.board.events["dark_road"]
    deck.remove("dark-road-toll-bandits")  # face 1: lose 3 coins
    deck.insert(0, "dark-road-toll-bandits")
    t.district(1, "yurgs_excursions")
    t.choose("yurgs_excursions", "caravan", seat=1)
    t.choose("caravan_companion", "deck", seat=1)
    t.choose("caravan_route", "dark_road:windglass", seat=1)
    t.choose("caravan_join", "yes", seat=2)
    t.choose("caravan_join", "yes", seat=0)
    assert t.game.turn.caravan is not None
    t.game.turn.caravan.dice = [1, 5, 6]
    assert t.awaiting == [1]
    t.choose("travel_die", "take:6", seat=1)
    assert t.awaiting == [2]
    t.choose("travel_die", "take:5", seat=2)
    assert t.awaiting == [0]
    t.choose("travel_die", "take:1", seat=0)
    assert t.game.players[0].coins == 0  # 1 coin to lose 3: it pays what it has
    assert [e.data["amount"] for e in t.events_of("lost") if e.seat == 0] == [1]


def test_shortcut_needs_three_lanterns(table):
    """Step 1: Prepare the Caravan (p. 11): a shortcut costs 3 lanterns."""
    t = caravan_table(table, players=2)
    t.setup_wagon(0, lanterns=2)
    t.district(0, "yurgs_excursions")
    t.choose("yurgs_excursions", "caravan")
    t.choose("caravan_companion", "deck")
    assert all(o.startswith("dark_road:") for o in t.options(0))


def test_commission_prestige_1_3_6_plus_upgraded(table):
    """Delivering Commissions (p. 12): 1/3/6 prestige for 1/2/3 goods, +1 per upgraded good."""
    from darkroad.core.rulebook.deliveries import prestige_for

    assert prestige_for(["potion"]) == 1
    assert prestige_for(["potion", "book"]) == 3
    assert prestige_for(["potion", "book", "staff"]) == 6
    assert prestige_for(["potion+", "book", "staff+"]) == 8


def test_good_fortune_coins_first_takes_five(table):
    """Step 4: Receive Good Fortune (p. 13): 3 coins; the first to choose it gains 5."""
    t = caravan_table(table, players=2)
    t.push("good_fortune", 0, left=1)
    t.choose("good_fortune", "coins")
    assert t.game.players[0].coins == 10 and not t.game.board.five_coins
    t.push("good_fortune", 1, left=1)
    t.choose("good_fortune", "coins", seat=1)
    assert t.game.players[1].coins == 8


def test_wagon_upgrade_only_without_one(table):
    """Step 4 (p. 13): a wagon upgrade only if your wagon has none."""
    t = caravan_table(table, players=2)
    t.push("good_fortune", 0, left=2)
    t.choose("good_fortune", "upgrade")
    t.choose("choose_upgrade", t.options(0)[0])
    assert len(t.game.players[0].upgrades) == 1
    assert "upgrade" not in t.options(0)


# -- wagon limits (p. 18) ---------------------------------------------------------------------


def test_fourth_commission_overflow(table):
    """Wagon Overview, Commissions (p. 18): 3 slots; discard the new one or an old one to
    the bottom of its town's stack."""
    t = table(seed=1)
    held = ["northbreak-1", "farglen-1", "windglass-1"]
    t.setup_wagon(0, commissions=list(held))
    t.district(0, "queens_commissions")
    t.choose("choose_effect", "commission:cursecairn")
    assert t.decision == "discard_commission"
    t.choose("discard_commission", "discard:farglen-1")
    p = t.game.players[0]
    assert len(p.commissions) == 3 and "farglen-1" not in p.commissions
    assert t.game.board.commission_stacks["farglen"][-1] == "farglen-1"


def test_lanterns_over_four_are_discarded(table):
    """Wagon Overview, Lanterns (p. 18): 4 slots; an extra lantern is simply discarded."""
    t = table(seed=1)
    t.setup_wagon(0, lanterns=4)
    t.run(lambda ctx: ctx.add(0, "lanterns", 2))
    assert t.game.players[0].lanterns == 4


def test_inventory_overflow(table):
    """Wagon Overview, Inventory (p. 18): 3 slots for blazing quartz and horseshoes."""
    t = table(seed=1)
    t.setup_wagon(0, quartz=2, horseshoes=1)
    t.run(lambda ctx: ctx.add(0, "quartz", 1))
    assert t.decision == "discard_inventory"
    t.choose("discard_inventory", "discard:horseshoes")
    p = t.game.players[0]
    assert (p.quartz, p.horseshoes) == (3, 0)


def test_storage_overflow(table):
    """Wagon Overview, Storage (p. 18): a good that cannot fit is kept only by discarding."""
    t = table(seed=1)
    neutral(t)
    t.setup_wagon(0, heroes=[], goods=["armor"] * 6)
    t.run(lambda ctx: ctx.gain_good(0, "armor"))
    assert t.decision == "discard_good"
    t.choose("discard_good", "discard:armor")
    assert t.game.players[0].goods == ["armor"] * 6


def test_illuminated_dice_max_two(table):
    """Wagon Overview, Illuminated Dice (p. 18): at most 2 held."""
    t = table(seed=1)
    t.setup_wagon(0, special=[1, 2])
    t.run(lambda ctx: ctx.gain_illuminated(0))
    assert len(t.game.players[0].special) == 2


# -- rest and the end (pp. 7, 13) -----------------------------------------------------------------


def test_spent_pile_refresh(table):
    """Step 4: Rest (p. 7): at the end of rounds 4, 7, 9, 10 remove 1 spent die and reroll
    the rest into the main reserve."""
    t = table(seed=1)
    t.game.round = 4
    t.setup_wagon(0, reserve=[], spent=3, pool=[PoolDie(kind="night", value=2)])
    t.push("rest", 0)
    p = t.game.players[0]
    assert p.removed == 1 and p.spent == 0 and len(p.reserve) == 3


def test_companion_row_slides_and_refills(table):
    """Step 4: Rest (p. 7): slide companions toward the end of the row, refill from the deck."""
    t = table(seed=1)
    b = t.game.board
    a, m, z = b.companion_row
    b.companion_row[2] = None
    top = b.companion_deck[0]
    t.push("rest", 0)
    assert b.companion_row == [top, a, m]


def test_full_game_ends_after_13_rounds_with_final_scoring(table):
    """Game End and Final Scoring (p. 13): 13 rounds, the final travel, then scoring."""
    t = table(players=3, seed=21)
    t.play(seed=21)
    g = t.game
    assert g.finished and g.round == 13 and g.phase == "finished"
    assert [s.seat for s in g.score] == [0, 1, 2]
    for s in g.score:
        assert s.base == min(s.coins, s.prestige)
        assert s.total == s.base + s.deed_vp + s.illuminated_vp
    assert t.events_of("game_finished")
    assert all(p.removed == 4 for p in g.players)


def test_tie_breakers():
    """Breaking Ties (p. 13): discarded base > loyal gifts > commissions > heroes > shared."""
    from darkroad.core.rulebook.scoring import rank
    from darkroad.core.state import ScoreLine

    def line(seat, total=10, discarded=12, gifts=0, comm=0, heroes=0):
        return ScoreLine(seat=seat, coins=0, prestige=0, base=0, deed_vp=0, illuminated_vp=0, total=total,
                         discarded=discarded, gifts=gifts, commissions_delivered=comm, heroes_delivered=heroes)

    assert rank([line(0), line(1, discarded=13)]) == [1]
    assert rank([line(0, gifts=2), line(1, gifts=1)]) == [0]
    assert rank([line(0, comm=1), line(1, comm=2)]) == [1]
    assert rank([line(0, heroes=3), line(1, heroes=2)]) == [0]
    assert rank([line(0), line(1)]) == [0, 1]


def test_tie_breakers_between_humans_with_a_private_concern(table):
    """Breaking Ties (p. 13): "highest discarded base score > most gifts on loyal companions >
    most commissions delivered > most heroes delivered. If the tie still persists, the tied
    players share the victory." The Private Concern "functions exactly as it does in solo
    play" (p. 14), where "the tied player with the higher value of coins or prestige is the
    winner" (the prototype's solo rule). So between human players the full order applies;
    the short rule only where the Private Concern itself is tied."""
    from darkroad.core.rulebook.scoring import rank
    from darkroad.core.state import ScoreLine

    t = table(players=3, seed=2, private_concern=True)
    pc = 2
    for seat in (0, 1):
        t.setup_wagon(seat, coins=8, prestige=8, deeds=[], special=[], companions=[])
    t.setup_wagon(0, companions=[CompanionCard(card="phoenix-1", gifts=[0])])  # 1 gift on a loyal companion
    t.setup_wagon(pc, coins=1, prestige=1, deeds=[], special=[], quartz=0)
    t.game.players[pc].extra["concern"]["goods"] = 0
    t.push("final_scoring", -1)
    totals = {s.seat: (s.total, s.discarded, s.gifts) for s in t.game.score}
    assert totals[0][:2] == totals[1][:2] and totals[0][2] == 1 and totals[1][2] == 0
    assert t.game.winners == [0]
    assert [s.rank for s in sorted(t.game.score, key=lambda s: s.seat)] == [1, 2, 3]

    def line(seat, total=10, discarded=12, gifts=0, comm=0, heroes=0):
        return ScoreLine(seat=seat, coins=0, prestige=0, base=0, deed_vp=0, illuminated_vp=0, total=total,
                         discarded=discarded, gifts=gifts, commissions_delivered=comm, heroes_delivered=heroes)

    # The Private Concern tied with both humans: only the discarded value counts against it.
    concern = {pc: ("discarded",)}  # the Private Concern's tie-breakers (its seat kind's)
    assert rank([line(0, gifts=2), line(1), line(pc, discarded=11)], concern) == [0]
    assert rank([line(0, gifts=2), line(1), line(pc, discarded=13)], concern) == [pc]
    # Still tied with it: it shares the victory with the human who beats the other one.
    lines = [line(0, gifts=2), line(1), line(pc)]
    assert rank(lines, concern) == [0, pc]
    assert [s.rank for s in lines] == [1, 2, 1]


def test_loyal_gifts_count_for_the_tie_break(table):
    """Breaking Ties (p. 13) and Loyal Companions (p. 16): gifts stay on the card."""
    from darkroad.core.rulebook.scoring import score_seat

    t = table(seed=1)
    t.setup_wagon(0, companions=[CompanionCard(card="phoenix-1", gifts=[0, 1])])
    assert score_seat(t.ctx(), 0).gifts == 2


# -- errors -------------------------------------------------------------------------------------


def test_illegal_action_changes_nothing(table):
    """An illegal action raises a typed error with a reason and leaves the game as it was."""
    from darkroad.core import Action

    t = table(seed=1)
    before = t.engine.dumps(t.game)
    with pytest.raises(errors.IllegalAction, match="not a legal answer"):
        t.engine.apply(t.game, Action("plan", 0, "bump:9:9"))
    with pytest.raises(errors.NotYourDecision):
        t.engine.apply(t.game, Action("plan", 1, t.options(0)[0]))
    assert t.engine.dumps(t.game) == before


def test_bad_configs(engine):
    """Game creation refuses bad player counts, unknown components and double tiles."""
    from darkroad.core import GameConfig

    with pytest.raises(errors.BadConfig):
        engine.create(GameConfig(players=5))
    with pytest.raises(errors.UnknownComponent):
        engine.create(GameConfig(players=2, buildings=["nope", "a", "b", "c"]))
    with pytest.raises(errors.BadConfig):
        engine.create(GameConfig(players=2, variants={"bogus": True}))


def test_every_core_event_type_is_in_the_event_schema():
    """The OpenAPI event union lists every event type the core emits (the rest are
    components' events, in the open variant)."""
    import re
    from pathlib import Path

    from darkroad.core.view import EVENTS

    core = Path(__file__).parents[1] / "core"
    emitted = {m for f in core.glob("*.py") for m in re.findall(r'emit\(\s*"([a-z_]+)"', f.read_text())}
    assert emitted and emitted <= set(EVENTS), sorted(emitted - set(EVENTS))


def test_every_core_event_field_is_typed_in_the_event_schema():
    """Each keyword a core ``emit`` passes is a typed property of that event's ``data``."""
    import ast
    from pathlib import Path

    from darkroad.core.view import EVENTS

    missing = []
    for f in (Path(__file__).parents[1] / "core").glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "emit" and node.args
                    and isinstance(node.args[0], ast.Constant)):
                kind = node.args[0].value
                for k in node.keywords:
                    if k.arg not in (None, "private") and (kind not in EVENTS or k.arg not in EVENTS[kind].fields()):
                        missing.append(f"{kind}.{k.arg}")
    assert not missing, missing


def test_events_of_whole_games_match_the_event_schema(engine):
    """The OpenAPI event union is what the engine really emits (random games, with and
    without the Private Concern)."""
    import random

    from darkroad.core import GameConfig

    jsonschema_rs = pytest.importorskip("jsonschema_rs")
    validator = jsonschema_rs.validator_for(engine.event_schema())
    for seed in range(3):
        game, events = engine.create(GameConfig(players=3 + seed % 2, seed=seed, options={"private_concern": seed == 1},
                                                random_buildings=True))
        r = random.Random(seed)
        while not game.finished:
            seat = r.choice(engine.awaiting(game))
            events += engine.apply(game, r.choice(engine.legal_actions(game, seat)))
        for event in events:
            data = engine.event_to_json(event)
            assert validator.is_valid(data), (data, [str(e) for e in validator.iter_errors(data)])
            assert json.loads(engine.encode(event)) == data  # the API's fast encoding: the same event
