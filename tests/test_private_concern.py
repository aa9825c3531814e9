"""The Private Concern: solo play and the automated seat of 3–4 player games.

The rules are the prototype rulebook's "SOLO PLAY" section (the Trader; the prototype
rulebook with solo rules, English edition), renamed; the final rulebook's
"Private Concern Variant" (p. 14) puts it in 3–4 player games. docs/private-concern.md
documents the rulings and the 10 action cards. Every test drives the real engine.
"""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest

from darkroad.core import Action, Engine, GameConfig, PluginError, errors, hookimpl
from darkroad.core.content import EventCard
from darkroad.core.state import CompanionCard, Turn
from darkroad.core.testing import Table
from darkroad.plugins.private_concern import rules as private_concern
from darkroad.plugins.private_concern.rules import concern_of

KIND = "private_concern"
TOWNS = ("northbreak", "scorchborn", "windglass", "farglen", "cursecairn", "nightpoem")


@pytest.fixture
def solo(engine):
    """A factory of tables with a Private Concern (solo by default: 2 seats, the last one)."""

    def make(players: int = 2, seed: int = 1, drafting: bool = False, advanced_deeds: bool = False,
             **kw: Any) -> Table:
        variants = {k: True for k, on in (("drafting", drafting), ("advanced_deeds", advanced_deeds)) if on}
        game, events = engine.create(GameConfig(players=players, seed=seed, options={"private_concern": True, **kw},
                                                variants=variants))
        return Table(engine, game, events, record=False)

    return make


@pytest.fixture
def card(engine, monkeypatch):
    """Register a test action card ``test-card`` (restored after the test)."""

    def make(*actions: dict[str, Any], space: int = 0, reward: list[str] | None = None,
             illuminated: list[str] | None = None, cid: str = "test-card") -> str:
        planning: dict[str, Any] = {"space": space, "reward": reward or ["nothing"]}
        if illuminated:
            planning["illuminated"] = illuminated
        monkeypatch.setitem(engine.content.extra["private_concern_cards"], cid,
                            {"id": cid, "name": "Test Card", "planning": planning, "actions": list(actions)})
        return cid

    return make


@pytest.fixture
def quiet_roads(engine, monkeypatch):
    """An event card whose faces do nothing, on top of both event decks of a table."""
    ev = EventCard("test-quiet", "A Quiet Road", "dark_road", {f: ("nothing",) for f in range(1, 7)})
    monkeypatch.setitem(engine.content.events, "test-quiet", ev)

    def put(t: Table) -> None:
        for deck in t.game.board.events.values():
            deck.insert(0, "test-quiet")

    return put


def pc_of(t: Table) -> int:
    return next(p.seat for p in t.game.players if p.kind == KIND)


def neutral_pc(t: Table, goods: int = 0, **fields: Any) -> int:
    """An empty Private Concern wagon (plus ``fields``); returns its seat."""
    pc = pc_of(t)
    base = {"heroes": [], "commissions": [], "lanterns": 0, "quartz": 0, "horseshoes": 0, "coins": 5,
            "prestige": 0, "special": [], "deeds": []}
    t.setup_wagon(pc, **{**base, **fields})
    concern_of(t.game.players[pc])["goods"] = goods
    return pc


def pc_turn(t: Table, *cards: str) -> None:
    """Play the Private Concern's turn now with ``cards`` on top of its deck."""
    pc = pc_of(t)
    concern_of(t.game.players[pc])["deck"] = list(cards)
    t.game.active, t.game.turn = pc, Turn(seat=pc)
    t.push("concern_turn", pc)


def performed(t: Table) -> dict[str, Any]:
    return t.events_of("concern_action")[-1].data


def heroes_for(engine, town: str, n: int = 1) -> list[str]:
    return [h for h, c in sorted(engine.content.heroes.items()) if c.town == town and not c.starting][:n]


def commissions_for(engine, town: str, n: int = 1) -> list[str]:
    return sorted(m for m, c in engine.content.commissions.items() if c.town == town)[:n]


def take_from_stacks(t: Table, *commissions: str) -> None:
    for m in commissions:
        for stack in t.game.board.commission_stacks.values():
            if m in stack:
                stack.remove(m)


# -- config and setup ---------------------------------------------------------------------------------


def test_config_accepts_solo_and_one_concern_seat(engine):
    """Private Concern Variant (p. 14): it counts as a player: solo (2 seats) or 3–4 seats."""
    for players in (2, 3, 4):
        game, _ = engine.create(GameConfig(players=players, seed=1, options={"private_concern": True}))
        assert [p.kind for p in game.players] == ["human"] * (players - 1) + [KIND]
    with pytest.raises(errors.BadConfig):
        engine.create(GameConfig(players=1, options={"private_concern": True}))  # the API's players: 1 is players=2 here
    with pytest.raises(errors.BadConfig):
        engine.create(GameConfig(players=3, options={"private_concern": True, "private_concern_seat": 3}))
    with pytest.raises(errors.BadConfig):
        engine.create(GameConfig(players=3, options={"private_concern_seat": 1}))  # a seat without a Private Concern
    with pytest.raises(errors.BadConfig):
        engine.create(GameConfig(players=3, options={"private_concern": "yes"}))


def test_solo_setup(solo):
    """SOLO PLAY, Setup Changes and The Trader Setup: one random wagon upgrade on the track;
    the Private Concern takes 5 coins, a deed, an illuminated die, the shuffled deck of 10
    action cards, its starting good and coins by seat, a starting hero and its bonus, and no
    steed (nor night dice: it has no player board)."""
    t = solo(seed=3)
    g = t.game
    human, pc = g.players
    assert human.kind == "human" and pc.kind == KIND
    assert len(g.board.upgrades) == 1
    assert pc.coins == 6  # 5 + the second seat's extra coin
    assert concern_of(pc)["goods"] == 1 and pc.goods == []
    assert len(pc.special) == 1 and len(pc.deeds) == 1 and len(pc.heroes) == 1
    assert pc.steeds == [] and pc.reserve == [] and pc.locked == [None, None, None]
    bonus = t.engine.content.heroes[pc.heroes[0]].bonus
    assert pc.horseshoes == (bonus == "horseshoe") and pc.lanterns == (bonus == "lantern")
    assert sorted(concern_of(pc)["deck"]) == sorted(private_concern.cards(t.engine.content))
    assert len(human.steeds) == 1 and len(human.heroes) == 1
    assert t.awaiting == [0]


def test_concern_seat_in_three_and_four_player_games(solo):
    """Private Concern Variant (p. 14): one seat of a 3- or 4-player game, taking its turns in
    the normal order; the full stack of wagon upgrades stays in play."""
    for players in (3, 4):
        t = solo(players=players, seed=5)
        assert pc_of(t) == players - 1 and len(t.game.board.upgrades) == 6
        starting = [p.heroes[0] for p in t.game.players]
        assert len(set(starting)) == players
    # A configured seat: the Private Concern starts, then the humans' turns follow.
    t = solo(players=3, seed=5, private_concern_seat=0)
    assert pc_of(t) == 0 and t.game.players[0].steeds == []
    assert t.events_of("concern_card") and t.awaiting == [1]


def test_drafting_and_advanced_deeds_skip_the_concern(solo):
    """Drafting Variant (p. 14) and advanced deeds: the humans draft humans + 1 stacks; the
    Private Concern takes a starting hero that is not in the draft, no steed, and the top deed."""
    t = solo(players=3, seed=4, drafting=True, advanced_deeds=True)
    assert t.decision == "choose_starting_deed"
    for seat in (0, 1):
        t.choose("choose_starting_deed", t.options(seat)[0], seat=seat)
    pc = t.game.players[2]
    assert len(pc.deeds) == 1 and pc.steeds == [] and len(pc.heroes) == 1
    assert len(t.game.board.extra["draft"]) == 3
    assert pc.heroes[0] not in {h for _, h in t.game.board.extra["draft"]}
    for seat in (0, 1):
        t.choose("draft", t.options(seat)[0], seat=seat)
    assert "draft" not in t.game.board.extra and t.decision == "plan"


# -- the turn ---------------------------------------------------------------------------------------------


def test_turn_planning_section_and_discard(solo, card):
    """The Trader's Turn: draw the top card, move the wagon to its space, gain the planning
    reward, perform a district action, discard the card."""
    t = solo()
    pc = neutral_pc(t, goods=0)
    cid = card({"action": "ruins", "move": 1}, space=3, reward=["coins:2", "prestige:1"])
    discard = list(concern_of(t.game.players[pc])["discard"])
    pc_turn(t, cid)
    p = t.game.players[pc]
    assert p.position == 3 and p.coins == 7 and p.prestige == 1
    assert concern_of(p)["deck"] == [] and concern_of(p)["discard"] == discard + [cid]
    assert t.events_of("concern_card")[-1].data["card"] == cid
    assert performed(t)["action"] == "ruins" and t.awaiting == [0]


def test_planning_illuminated_option(solo, card):
    """Planning Section: with an illuminated die it must return one and gain the noted
    rewards; without one, the other reward."""
    t = solo()
    pc = neutral_pc(t, special=[4])
    cid = card({"action": "ruins", "move": 1}, reward=["coins:1"], illuminated=["prestige:3"])
    pc_turn(t, cid)
    p = t.game.players[pc]
    assert p.special == [] and p.prestige == 3 and p.coins == 5
    pc_turn(t, cid)
    assert p.prestige == 3 and p.coins == 6


def test_deck_reshuffles_when_it_runs_out(solo):
    """General Solo Rules: when the deck runs out, shuffle the discards into a new deck."""
    t = solo()
    pc = neutral_pc(t)
    concern = concern_of(t.game.players[pc])
    concern["discard"], concern["deck"] = list(concern["deck"]), []
    pc_turn(t)
    assert len(concern["deck"]) == 9 and len(concern["discard"]) == 1
    assert t.events_of("concern_deck_shuffled")


def test_first_district_action_whose_requirement_is_met(solo, card):
    """The Trader's Turn: check the district actions top to bottom; perform the first whose
    requirement (the red ones) the Private Concern meets."""
    t = solo()
    pc = neutral_pc(t, goods=2, commissions=commissions_for(t.engine, "farglen"))
    take_from_stacks(t, *t.game.players[pc].commissions)
    cid = card({"action": "inn", "min_goods": 3, "hero": 0, "sell": 1},
               {"action": "commission", "max_commissions": 0, "town": "windglass"},
               {"action": "bazaar", "max_goods": 1, "goods": ["potion", "staff", "armor"]},
               {"action": "ruins", "max_goods": 2, "move": 1})
    pc_turn(t, cid)
    assert performed(t)["index"] == 3 and performed(t)["action"] == "ruins"


def test_stray_companion_passed_to_it_is_returned(solo, card):
    """It does not collect companion cards: one passed to it goes under the companion deck."""
    t = solo()
    pc = neutral_pc(t, companions=[CompanionCard(card="cosimo-1")])
    pc_turn(t, card({"action": "ruins", "move": 1}))
    assert t.game.players[pc].companions == [] and t.game.board.companion_deck[-1] == "cosimo-1"


# -- the districts ------------------------------------------------------------------------------------------


def test_bazaar_takes_every_die_of_its_three_goods_for_free(solo, card):
    """Bazaar: rotate the wheel, remove the market dice matching the 3 good icons, 1 good
    per die, never paying; the dice are rerolled in Rest."""
    t = solo()
    pc = neutral_pc(t, goods=1)
    b = t.game.board
    ids = t.engine.content.good_ids
    b.market = [0] * 6
    b.market[ids.index("potion")], b.market[ids.index("armor")], b.market[ids.index("book")] = 2, 1, 2
    offset = b.wheel_offset
    pc_turn(t, card({"action": "bazaar", "max_goods": 1, "goods": ["potion", "armor", "weapon"]}))
    assert concern_of(t.game.players[pc])["goods"] == 4 and t.game.players[pc].coins == 5
    assert b.market[ids.index("potion")] == 0 and b.market[ids.index("armor")] == 0
    assert b.market[ids.index("book")] == 2 and b.set_aside == 3
    assert b.wheel_offset == (offset - 1) % 6


def test_bazaar_without_matching_dice_gives_one_good(solo, card):
    """Bazaar: in the rare case no dice are removed, the Trader gains 1 good."""
    t = solo()
    pc = neutral_pc(t, goods=0)
    ids = t.engine.content.good_ids
    t.game.board.market = [0, 0, 0, 0, 0, 0]
    t.game.board.market[ids.index("book")] = 2
    pc_turn(t, card({"action": "bazaar", "goods": ["potion", "armor", "weapon"]}))
    assert concern_of(t.game.players[pc])["goods"] == 1 and t.game.board.set_aside == 0


def test_commission_goes_to_its_best_town(solo, card):
    """Commissions: the town it has the most heroes + commissions for; a tie or none: the
    card's noted town (a tie: the first tied town from the noted one on)."""
    t = solo()
    e = t.engine
    cid = card({"action": "commission", "max_commissions": 3, "town": "northbreak"})
    pc = neutral_pc(t, heroes=heroes_for(e, "farglen"))
    pc_turn(t, cid)
    town = lambda m: e.content.commissions[m].town  # noqa: E731
    assert [town(m) for m in t.game.players[pc].commissions] == ["farglen"]
    # No heroes or commissions: the noted town.
    pc = neutral_pc(t)
    pc_turn(t, cid)
    assert [town(m) for m in t.game.players[pc].commissions] == ["northbreak"]
    # A tie between Windglass and Farglen: from Northbreak on, Windglass comes first.
    pc = neutral_pc(t, heroes=heroes_for(e, "farglen") + heroes_for(e, "windglass"))
    pc_turn(t, cid)
    assert [town(m) for m in t.game.players[pc].commissions] == ["windglass"]
    # The noted town has no commission left: the next town on.
    pc = neutral_pc(t)
    t.game.board.commission_stacks["northbreak"] = []
    pc_turn(t, cid)
    assert [town(m) for m in t.game.players[pc].commissions] == ["scorchborn"]


def test_travel_leads_a_caravan(solo, card, quiet_roads):
    """Travel: discard the noted companion (the farthest brings its travel die), go where it
    has most heroes + commissions, dark road without 3 lanterns; it takes the highest die,
    delivers its commission with goods by count (3 goods: 6 prestige) and gets the card's
    first good fortune."""
    t = solo()
    e = t.engine
    quiet_roads(t)
    comm = commissions_for(e, "farglen")
    take_from_stacks(t, *comm)
    pc = neutral_pc(t, goods=4, commissions=comm)
    companion = t.game.board.companion_row[2]
    pc_turn(t, card({"action": "travel", "companion": 2, "good_fortune": ["coins", "illuminated"]}))
    caravan = t.game.turn.caravan
    assert caravan is not None
    assert caravan.leader == pc and caravan.town == "farglen" and caravan.route == "dark_road"
    assert t.game.board.companion_row[2] is None and t.game.board.companion_deck[-1] == companion
    assert t.game.players[pc].companions == []
    assert t.decision == "caravan_join" and t.awaiting == [0]
    t.choose("caravan_join", "no", seat=0)
    p = t.game.players[pc]
    assert caravan.taken is not None and caravan.rolled is not None
    assert caravan.taken[str(pc)] == max(caravan.rolled[:2])  # its die + the companion's
    assert p.prestige == 6 and concern_of(p)["goods"] == 1 and p.delivered_commissions == comm
    assert p.coins == 10 and not t.game.board.five_coins and p.special == []


def test_travel_shortcut_with_three_lanterns_gives_both_fortunes(solo, card, quiet_roads):
    """Travel: with 3 lanterns it always takes the shortcut (returning them) and receives
    both good fortunes of the card."""
    t = solo()
    quiet_roads(t)
    heroes = heroes_for(t.engine, "northbreak", 2)
    pc = neutral_pc(t, lanterns=3, heroes=heroes)
    t.game.board.five_coins = False
    pc_turn(t, card({"action": "travel", "companion": 0, "good_fortune": ["coins", "illuminated"]}))
    assert t.game.turn.caravan is not None and t.game.turn.caravan.route == "shortcut"
    assert t.game.players[pc].lanterns == 0
    t.choose("caravan_join", "no", seat=0)
    p = t.game.players[pc]
    assert p.delivered_heroes == heroes and p.coins == 5 + 2 * 2 + 3 and len(p.special) == 1


def test_travel_needs_a_commission_or_two_heroes_for_one_town(solo, card):
    """Travel requires at least 1 commission, or 2 heroes for the same town."""
    t = solo()
    e = t.engine
    cid = card({"action": "travel", "companion": 0, "good_fortune": ["coins", "illuminated"]},
               {"action": "ruins", "move": 1})
    neutral_pc(t, heroes=heroes_for(e, "farglen") + heroes_for(e, "windglass"))
    pc_turn(t, cid)
    assert performed(t)["action"] == "ruins"
    neutral_pc(t, heroes=heroes_for(e, "farglen", 2))
    pc_turn(t, cid)
    assert performed(t)["action"] == "travel"


def test_travel_destination_tie_is_the_creators_choice(solo, card):
    """Travel, destination: most heroes + commissions, then most commissions, then the
    player's choice: the creator's seat answers a normal decision for it."""
    t = solo()
    e = t.engine
    comms = commissions_for(e, "windglass") + commissions_for(e, "cursecairn")
    take_from_stacks(t, *comms)
    pc = neutral_pc(t, goods=2, commissions=comms, heroes=heroes_for(e, "farglen"))
    pc_turn(t, card({"action": "travel", "companion": 1, "good_fortune": ["coins", "illuminated"]}))
    assert t.decision == "concern_choice" and t.awaiting == [0] and t.game.turn.caravan is None
    assert sorted(t.options(0)) == ["town:cursecairn", "town:windglass"]
    assert all("Private Concern" in a.label for a in t.legal(0))
    assert t.engine.legal_actions(t.game, pc) == []
    t.choose("concern_choice", "town:cursecairn", seat=0)
    assert t.game.turn.caravan is not None
    assert t.game.turn.caravan.town == "cursecairn" and t.game.turn.caravan.leader == pc


def test_ruins(solo, card):
    """Ruins: move the marker the card's spaces; 1 good and 1 blazing quartz (an upgraded
    good); then with a lantern, return it and roll the ruins die."""
    t = solo()
    pc = neutral_pc(t, goods=1)
    ruins = t.game.board.ruins
    cid = card({"action": "ruins", "max_goods": 1, "move": 2})
    pc_turn(t, cid)
    p = t.game.players[pc]
    assert t.game.board.ruins == (ruins + 2) % 4 and concern_of(p)["goods"] == 2 and p.quartz == 1
    assert not t.events_of("ruins_die_rolled")
    neutral_pc(t, goods=0, lanterns=2)
    pc_turn(t, cid)
    assert p.lanterns == 1 and t.events_of("ruins_die_rolled")


def test_dark_market(solo, card):
    """Dark market: pay the card's move in coins, move the marker; north, east, west give 2
    goods; south gives the card's noted commission or deed (with the courtyard bonus)."""
    t = solo()
    pc = neutral_pc(t, goods=0, coins=5)
    b = t.game.board
    b.dark_market = 2  # south
    pc_turn(t, card({"action": "dark_market", "move": 1, "south": "deed:courtyard:0"}))
    p = t.game.players[pc]
    assert b.dark_market == 3 and p.coins == 4 and concern_of(p)["goods"] == 2
    deed = b.courtyard[0]
    pc_turn(t, card({"action": "dark_market", "move": 3, "south": "deed:courtyard:0"}))
    assert b.dark_market == 2 and p.coins == 1 and p.deeds == [deed] and p.prestige == 2
    # Not enough coins: the requirement fails, the next action is taken.
    pc_turn(t, card({"action": "dark_market", "move": 2, "south": "deed:courtyard:0"},
                    {"action": "ruins", "move": 1}))
    assert performed(t)["action"] == "ruins"


def test_inn_sells_to_the_matching_hero(solo, card):
    """Inn: it sells to the hero matching its heroes or commissions (else the noted slot);
    the card's number of goods, one per request, at market prices; the hero joins with its
    lantern."""
    t = solo()
    e = t.engine
    b = t.game.board
    inn = [h for h, c in sorted(e.content.heroes.items()) if not c.starting and len(c.requests) >= 2]
    b.inn = [inn[0], inn[1], inn[2], inn[3]]
    target = e.content.heroes[inn[2]]
    pc = neutral_pc(t, goods=5, heroes=heroes_for(e, target.town))
    pc_turn(t, card({"action": "inn", "min_goods": 2, "hero": 0, "sell": 2}))
    p = t.game.players[pc]
    values = sorted((t.ctx().value(r) for r in target.requests), reverse=True)
    assert b.inn[2] is None and inn[2] in p.heroes
    assert concern_of(p)["goods"] == 3 and p.coins == 5 + values[0] + values[1]
    assert p.lanterns == (target.bonus == "lantern")
    # No match: the noted slot.
    t2 = solo()
    t2.game.board.inn = [inn[0], inn[1], inn[2], inn[3]]
    pc2 = neutral_pc(t2, goods=5)
    pc_turn(t2, card({"action": "inn", "min_goods": 2, "hero": 1, "sell": 3}))
    assert t2.game.players[pc2].heroes == [inn[1]]


# -- other players' caravans --------------------------------------------------------------------------------


def lead_caravan(t: Table, town: str) -> None:
    t.district(0, "yurgs_excursions")
    t.choose("yurgs_excursions", "caravan", seat=0)
    t.choose("caravan_companion", "deck", seat=0)
    t.choose("caravan_route", f"dark_road:{town}", seat=0)


def test_follows_with_deliveries_in_the_region_and_takes_the_highest_die(solo, quiet_roads):
    """General Solo Rules: it follows when it has heroes or commissions for the caravan's
    region (or a lantern); it takes the highest die and never rerolls; as a follower it
    delivers in the region's town where it has most."""
    t = solo()
    quiet_roads(t)
    hero = heroes_for(t.engine, "farglen")
    pc = neutral_pc(t, heroes=hero)
    t.setup_wagon(0, lanterns=0, steeds=[])
    lead_caravan(t, "windglass")
    assert t.events_of("caravan_answer")[-1].data == {"join": True}
    caravan = t.game.turn.caravan
    assert caravan is not None and caravan.members == [0, pc]
    caravan.dice = [2, 5]
    t.choose("travel_die", "take:2", seat=0)  # leader first on the dark road
    assert caravan.taken is not None and caravan.taken[str(pc)] == 5
    p = t.game.players[pc]
    assert p.delivered_heroes == hero and p.prestige == 2
    assert pc not in t.awaiting


def test_follow_rule_lantern_or_nothing(solo):
    """It follows with at least 1 lantern; without a lantern or anything for the region, it
    stays home."""
    t = solo()
    pc = neutral_pc(t, heroes=heroes_for(t.engine, "northbreak"))
    lead_caravan(t, "windglass")
    assert t.events_of("caravan_answer")[-1].data == {"join": False}
    assert t.game.turn.caravan is not None and t.game.turn.caravan.members == [0]
    t2 = solo()
    pc = neutral_pc(t2, lanterns=1)
    lead_caravan(t2, "cursecairn")
    assert t2.game.turn.caravan is not None and t2.game.turn.caravan.members == [0, pc]


# -- deliveries, the final travel, scoring ---------------------------------------------------------------


def test_deliveries_by_goods_count(solo):
    """Travel, step 7, the prototype's example: 5 goods and 2 commissions to Farglen: the goods
    marker drops to 0, one commission for 6 prestige (3 goods), the other for 3 (2 goods)."""
    t = solo()
    comms = commissions_for(t.engine, "farglen", 2)
    pc = neutral_pc(t, goods=5, commissions=comms)
    t.run(lambda ctx: private_concern.deliver_at(ctx, pc, "farglen"))
    p = t.game.players[pc]
    assert p.prestige == 9 and concern_of(p)["goods"] == 0 and p.delivered_commissions == comms
    # No goods left: a commission cannot be delivered.
    t2 = solo()
    pc = neutral_pc(t2, goods=0, commissions=comms[:1])
    t2.run(lambda ctx: private_concern.deliver_at(ctx, pc, "farglen"))
    assert t2.game.players[pc].commissions == comms[:1] and t2.game.players[pc].prestige == 0


def test_its_deliveries_fire_the_delivery_hooks_as_a_players():
    """One delivery path (docs/private-concern.md, "Deliveries"): the Private Concern delivers
    through the core's delivery, so a plugin listening for deliveries (the recorder plugin of
    tests/plugins) hears of its deliveries as of a player's: ``darkroad_hero_delivered`` once
    the region reward was gained, ``darkroad_commission_delivered`` after the prestige, with
    the goods it handed over: basic goods of the requested types, as many as it delivered."""
    from test_hooks import RECORDER, recorder

    recorder.CALLS.clear()
    t = Table.new(players=2, seed=1, plugins=[RECORDER], private_concern=True)
    e = t.engine
    recorder.ask(t.game, "darkroad_hero_delivered", "darkroad_commission_delivered")
    comms = commissions_for(e, "farglen", 2)
    hero = heroes_for(e, "farglen")[0]
    take_from_stacks(t, *comms)
    t.game.board.hero_deck.remove(hero)
    pc = neutral_pc(t, goods=4, heroes=[hero], commissions=comms)
    requests = [e.content.commissions[m].requests for m in comms]
    t.run(lambda ctx: private_concern.deliver_at(ctx, pc, "farglen"))
    p = t.game.players[pc]
    [hero_call] = recorder.calls("darkroad_hero_delivered", t.game)
    assert (hero_call.kwargs["seat"], hero_call.kwargs["hero"]) == (pc, hero)
    calls = recorder.calls("darkroad_commission_delivered", t.game)
    assert [(c.kwargs["seat"], c.kwargs["commission"], list(c.kwargs["goods"])) for c in calls] == [
        (pc, comms[0], list(requests[0][:3])), (pc, comms[1], list(requests[1][:1]))]
    # What the hooks saw: the prestige already gained, the commission in the merchant's log.
    seen = recorder.seen_in(t.game, "darkroad_commission_delivered")
    assert [s["prestige"] for s in seen] == [6, 6 + 1] and seen[0]["delivered"] == comms[:1]
    [hero_seen] = recorder.seen_in(t.game, "darkroad_hero_delivered")
    assert hero_seen["delivered"] == [hero] and hero_seen["heroes"] == []
    # Its goods are a count (4 - 3 - 1); the events say how many and which.
    assert concern_of(p)["goods"] == 0 and p.goods == [] and p.delivered_commissions == comms
    delivered = [ev.data for ev in t.events_of("commission_delivered")]
    assert [(d["goods_count"], d["goods"], d["prestige"]) for d in delivered] == [
        (3, list(requests[0][:3]), 6), (1, list(requests[1][:1]), 1)]
    # The recorder's answers (1 coin per commission, 1 blazing quartz per hero) reached it too.
    assert p.quartz == 1 and p.coins == 5 + 2


def test_final_travel_town_rule(solo):
    """Final Travel: the town with most heroes + commissions; a tie: commissions before
    heroes; still tied: the player chooses."""
    e = None
    t = solo()
    e = t.engine
    comm = commissions_for(e, "farglen")
    pc = neutral_pc(t, goods=3, heroes=heroes_for(e, "northbreak", 2) + heroes_for(e, "farglen"), commissions=comm)
    t.push("deliveries", -1, final=True, pending=[0, pc], town={})
    p = t.game.players[pc]
    assert p.delivered_commissions == comm and p.prestige == 6 + 2 and len(p.heroes) == 2
    assert t.awaiting == [0] and t.decision == "deliveries"
    # Still tied: the creator's seat decides, then its own deliveries wait.
    t2 = solo()
    pc = neutral_pc(t2, heroes=heroes_for(e, "northbreak") + heroes_for(e, "scorchborn"))
    t2.push("deliveries", -1, final=True, pending=[0, pc], town={})
    assert t2.decision == "concern_choice" and sorted(t2.options(0)) == ["town:northbreak", "town:scorchborn"]
    t2.choose("concern_choice", "town:scorchborn", seat=0)
    assert t2.game.players[pc].delivered_heroes == heroes_for(e, "scorchborn")
    assert t2.decision == "deliveries" and t2.awaiting == [0]


def test_scoring(solo):
    """Trader Scoring: min(coins, prestige) + 1 VP per good, illuminated die, blazing quartz
    and deed (deeds are not scored by their criteria). Ties: the higher discarded value."""
    from darkroad.core.rulebook.scoring import rank, score_seat

    t = solo()
    pc = neutral_pc(t, goods=4, coins=12, prestige=9, quartz=2, special=[3], deeds=t.game.board.deed_deck[:2])
    line = score_seat(t.ctx(), pc)
    assert (line.base, line.goods_vp, line.quartz_vp, line.illuminated_vp, line.deed_vp) == (9, 4, 2, 1, 2)
    assert line.total == 18 and line.discarded == 12
    human = score_seat(t.ctx(), 0)
    human.total, human.discarded, human.commissions_delivered = 18, 12, 5
    assert rank([human, line], {pc: private_concern.TIEBREAKERS}) == [0, 1]  # no further tie-breakers against it
    human.discarded = 13
    assert rank([human, line], {pc: private_concern.TIEBREAKERS}) == [0]


def test_full_game_scores_and_log(solo):
    """A whole solo game: the Private Concern acts on its own with its events in the log,
    is never awaited, and is scored by its rule."""
    t = solo(seed=8)
    pc = pc_of(t)
    r = random.Random(8)
    while not t.game.finished:
        assert pc not in t.awaiting and t.engine.legal_actions(t.game, pc) == []
        t.apply(r.choice(t.legal(r.choice(t.awaiting))))
    assert len(t.events_of("concern_card")) == 13 and len(t.events_of("concern_action")) == 13
    line = next(s for s in t.game.score if s.seat == pc)
    p = t.game.players[pc]
    assert line.total == min(p.coins, p.prestige) + concern_of(p)["goods"] + p.quartz + len(p.special) + len(p.deeds)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_complete(solo, players):
    """Full random games with a Private Concern seat complete (solo, 3 and 4 players)."""
    for seed in range(3):
        t = solo(players=players, seed=100 + seed)
        t.play(seed=seed)
        assert t.game.finished and len(t.game.score) == players


def test_variants_with_the_concern_complete(solo):
    t = solo(players=3, seed=9, drafting=True, advanced_deeds=True)
    t.play(seed=9)
    assert t.game.finished


def test_replay_is_deterministic(engine):
    """Same config + same actions = the same game, the Private Concern's turns included."""
    config = GameConfig(players=2, seed=31, options={"private_concern": True})
    game, _ = engine.create(config)
    actions: list[Action] = []
    r = random.Random(31)
    while not game.finished:
        a = r.choice(engine.legal_actions(game, engine.awaiting(game)[0]))
        actions.append(a)
        engine.apply(game, a)
    again = engine.replay(config, actions)
    assert engine.dumps(again) == engine.dumps(game)
    assert concern_of(engine.loads(engine.dumps(game)).players[1]) == concern_of(game.players[1])


# -- effects ------------------------------------------------------------------------------------------------------


def test_effects_on_the_concern(solo):
    """General Solo Rules: goods are a count (an upgraded good also gives a blazing quartz);
    no limit on heroes, commissions, illuminated dice or lanterns."""
    t = solo()
    pc = neutral_pc(t, goods=1)
    ctx_effects = ["good:book+", "good:any", "lose_good", "lantern:6", "illuminated", "illuminated",
                   "illuminated", "upgrade_good"]
    t.run(lambda ctx: ctx.gain_effects(pc, ctx_effects, source="test"))
    p = t.game.players[pc]
    assert concern_of(p)["goods"] == 2 and p.quartz == 2 and p.lanterns == 6 and len(p.special) == 3
    assert t.awaiting == [0]
    heroes = heroes_for(t.engine, "farglen", 4)
    for h in heroes:
        t.run(lambda ctx, h=h: ctx.gain_hero(pc, h))
    assert len(p.heroes) == 4 and t.decision == "plan"


def test_abstract_rewards_follow_its_rules_or_the_creators_choice(solo):
    """General Solo Rules: a hero or commission reward follows its card rules (the town it
    has most for); where no rule applies, the player chooses."""
    t = solo()
    e = t.engine
    pc = neutral_pc(t, heroes=heroes_for(e, "nightpoem"))
    t.run(lambda ctx: ctx.gain_effects(pc, ["commission"], source="test"))
    assert [e.content.commissions[m].town for m in t.game.players[pc].commissions] == ["nightpoem"]
    t.run(lambda ctx: ctx.gain_effects(pc, ["deed"], source="test"))
    assert t.decision == "concern_choice" and t.awaiting == [0]
    assert set(t.options(0)) == {"deed:courtyard:0", "deed:courtyard:1", "deed:deck"}
    t.choose("concern_choice", "deed:deck", seat=0)
    assert len(t.game.players[pc].deeds) == 1


# -- views and content ----------------------------------------------------------------------------------------------


def test_view_shows_its_public_state(solo):
    """Views show its goods count, deck size and discard pile; its coins, deeds and the
    order of its deck stay secret."""
    t = solo()
    pc = pc_of(t)
    v = t.engine.view(t.game, 0)
    them = v["players"][pc]
    assert them["kind"] == KIND and them["coins"] is None and them["deeds"] is None
    assert them["concern"] == {"goods": 1, "deck": 10, "discard": []}
    assert v["config"]["private_concern"] == pc
    concern_of(t.game.players[pc])["deck"].reverse()
    assert t.engine.view(t.game, 0) == v


def test_the_ten_cards_are_valid_content(engine):
    """The 10 action cards load and validate; each ends with an action without a requirement
    it can always do, so every turn performs a district action."""
    cards = private_concern.cards(engine.content)
    assert len(cards) == 10
    for c in cards.values():
        last = c["actions"][-1]
        assert last["action"] in ("bazaar", "ruins") and not set(last) & set(private_concern.REQUIREMENTS)


def test_broken_card_fails_at_load():
    from darkroad.plugins.basegame import pack

    good = pack()["private_concern_cards"][0]
    for broken in ({**good, "actions": [{"action": "fly"}]},
                   {**good, "planning": {"space": 9, "reward": ["coins:1"]}},
                   {**good, "actions": [{"action": "commission", "town": "atlantis"}]},
                   {**good, "actions": [{"action": "bazaar", "goods": ["potion"]}]}):
        data = {**pack(), "private_concern_cards": [broken]}
        plugin = SimpleNamespace(darkroad_content=hookimpl(lambda data=data: data))
        with pytest.raises(PluginError, match="private concern card"):
            Engine.load(exclude=["basegame"], extra=[("broken-pack", plugin)], strict=True)
        skipped = Engine.load(exclude=["basegame"], extra=[("broken-pack", plugin)])
        assert "private concern card" in skipped.plugins.failed["broken-pack"]


def test_simulate_solo(engine):
    """``simulate`` with players=1 plays solo games against the Private Concern."""
    from darkroad.api.tools.simulation import simulate

    out = simulate(engine, 2, 1, seed=3, bots=["random"])
    assert out["completed"] == 2 and 0 <= out["private_concern_win_rate"] <= 1
    assert out["private_concern"]["games"] == 2 and KIND in out["win_rate_by_bot"]
    out = simulate(engine, 1, 3, seed=3, bots=["random"], seat_kind=KIND)
    assert out["completed"] == 1 and "private_concern_win_rate" in out


def test_docs_describe_every_card(engine):
    """docs/private-concern.md has a table for every card of the data."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "private-concern.md").read_text(encoding="utf-8")
    for cid, c in private_concern.cards(engine.content).items():
        section = doc.split(f"### `{cid}` {c['name']}\n", 1)[1].split("###", 1)[0]
        assert section.count("\n| ") == len(c["actions"]) + 1, cid  # header + one row per action


def test_a_choice_of_effects_for_it_is_the_creators_and_resolves_by_its_rules(solo):
    """A decision a plugin pushes for its seat is relayed to the creator; a choice of effects
    then resolves by its rules (a good is a count, never a tile)."""
    t = solo()
    pc = neutral_pc(t, goods=0)
    t.push("choose_effect", pc, opts=["good:potion+", "good:book"], effect="choice", source="test")
    assert t.decision == "concern_choice" and t.awaiting == [0]
    assert set(t.options(0)) == {"good:potion+", "good:book"}
    t.choose("concern_choice", "good:potion+", seat=0)
    p = t.game.players[pc]
    assert p.goods == [] and concern_of(p)["goods"] == 1 and p.quartz == 1


def test_any_other_decision_for_it_is_relayed_to_the_creator(solo):
    t = solo()
    pc = neutral_pc(t, lanterns=2)
    t.push("ruins_die_offer", pc)
    assert t.decision == "concern_choice" and set(t.options(0)) == {"roll", "skip"}
    t.choose("concern_choice", "roll", seat=0)
    assert t.game.players[pc].lanterns == 1 and t.events_of("ruins_die_rolled")


def test_a_game_stored_before_the_seat_kind_plugin_loads_and_plays_on(engine, concern_cards_as_stored):
    """A game stored by the version that kept the Private Concern in the core (schema_version
    1: ``config.private_concern``, ``config.private_concern_seat``, ``players[i].concern``)
    loads as the same game: equal to the same seed and actions replayed now (but the plugins
    it records; its cards as it was played with them), and it plays on."""
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).parent / "data" / "stored_game_v1_private_concern.json").read_text())
    stored = json.loads(data["stored"])
    assert stored["schema_version"] == 1 and stored["config"]["private_concern_seat"] == 1
    assert stored["players"][1]["concern"]["deck"]  # the old shape
    game = engine.loads(data["stored"])
    config = engine.serde.c.structure(data["config"], GameConfig)  # the old config's fields are options
    assert config.options == {"private_concern": True, "private_concern_seat": 1}
    again = engine.replay(config, [Action(type=t, seat=s, option=o) for t, s, o in data["actions"]])

    def state(g: Any) -> dict[str, Any]:
        out = json.loads(engine.dumps(g))
        del out["config"]["plugins"]
        return out

    stored_state, replayed = state(game), state(again)
    # Its deliveries go through the core's since issue 23 and fire darkroad_commission_delivered,
    # so the deeds' history (Perfect Delivery) now counts its full deliveries: the stored game,
    # played before, has no count for it; the replay counts its one, and nobody else's.
    counts = replayed["board"]["extra"]["_deeds"].pop("full_deliveries")
    assert counts == [0, 1, 0] and "full_deliveries" not in stored_state["board"]["extra"]["_deeds"]
    # Since issue 22 the engine keeps the undo chain in the turn's bookkeeping (core/undo.py).
    assert stored_state["turn"].pop("undo") is None and replayed["turn"].pop("undo")["at"] == again.version
    assert stored_state == replayed
    assert concern_of(game.players[1]) == stored["players"][1]["concern"] and game.players[1].kind == KIND
    assert engine.view(game, 0)["config"]["private_concern"] == 1
    t = Table(engine, game, [], record=False)
    t.play(seed=1)
    assert t.game.finished


def test_plugins_lists_the_seat_kind(engine):
    """``darkroad plugins --all --json`` lists the Private Concern as a seat kind of its own
    plugin."""
    import json

    from typer.testing import CliRunner

    from darkroad.api import cli

    report = json.loads(CliRunner().invoke(cli.app, ["plugins", "--all", "--json"]).stdout)
    kinds = [c for c in report["components"] if c["kind"] == "seat_kind"]
    assert kinds == [{"kind": "seat_kind", "id": KIND, "name": "Private Concern", "plugin": "private-concern",
                      "version": engine.plugins.plugins["private-concern"].version}]
    plugin = next(p for p in report["plugins"] if p["name"] == "private-concern")
    assert "darkroad_seat_kinds" in plugin["hooks"] and plugin["builtin"]


def test_it_overrides_only_the_rule_points_where_it_differs(solo):
    """Its module copies no rule: it answers the rulebook's hooks for its seat only, and only
    for the effects it resolves otherwise; every other effect, and every seat of a player,
    is the rulebook's (docs/plugins.md, "Overriding the rulebook")."""
    from darkroad.core import EFFECT_VERBS
    from darkroad.plugins.private_concern import overrides

    assert set(overrides.EFFECTS) < EFFECT_VERBS
    t = solo()
    pc = pc_of(t)
    ctx = t.ctx()
    for verb in sorted(EFFECT_VERBS - set(overrides.EFFECTS)):  # coins, lanterns, an illuminated die, ...
        assert overrides.darkroad_resolve_effect(ctx, pc, verb, "1", "test") is None
    for verb in overrides.EFFECTS:  # a player's seat: the rulebook's
        assert overrides.darkroad_resolve_effect(ctx, 0, verb, "", "test") is None
    assert overrides.darkroad_limit_applies(ctx, 0, "heroes") is None
    assert overrides.darkroad_limit_applies(ctx, pc, "heroes") is False
    for hook in ("darkroad_caravan_join", "darkroad_travel_die"):
        assert getattr(overrides, hook)(ctx, 0) is None
    assert overrides.darkroad_deliveries(ctx, 0, ["farglen"]) is None
    assert overrides.darkroad_good_fortune(ctx, 0, 1) is None
    assert overrides.darkroad_gain_hero(ctx, 0, "atlantes", True, "test") is None
