"""The 10 companions (rulebook pp. 16–17, "Companions"), each ability through the engine."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest

from darkroad.core import Component, Ctx, Engine, hookimpl
from darkroad.core.rulebook.scoring import rank, score_seat
from darkroad.core.rulebook.yurgs_excursions import RUINS_SPACES
from darkroad.core.state import CompanionCard
from darkroad.core.testing import Table

RESOURCES = {"coins": "coins", "prestige": "prestige", "lantern": "lanterns", "quartz": "quartz",
             "horseshoe": "horseshoes"}
"""Resource effect verbs -> Player fields."""


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load()


def in_play(engine: Engine, avoid: Iterable[str] = ()) -> list[str]:
    """Four buildings, one side per double-sided tile, the Blazing Quartz Mine first."""
    chosen: list[str] = []
    tiles: set[object] = set()
    for b in sorted(engine.content.of_kind("building"), key=lambda b: b.id != "blazing_quartz_mine"):
        tile = b.data.get("tile")
        if b.id in avoid or (tile is not None and tile in tiles):
            continue
        chosen.append(b.id)
        if tile is not None:
            tiles.add(tile)
    return chosen[:4]


def new_table(engine: Engine, players: int = 2, seed: int = 1) -> Table:
    """A fresh game waiting for seat 0's plan decision; every wagon emptied (no steed,
    hero, good or resource), so that only what a test arranges is in play."""
    t = Table.new(players=players, seed=seed, engine=engine, buildings=in_play(engine))
    for seat in range(players):
        t.setup_wagon(seat, coins=0, prestige=0, lanterns=0, quartz=0, horseshoes=0, goods=[], heroes=[],
                      commissions=[], steeds=[], deeds=[])
    return t


def give(t: Table, seat: int, *cards: str) -> None:
    """Put companion cards on ``seat``'s wagon (taken out of the offer or the deck)."""
    b = t.game.board
    for card in cards:
        if card in b.companion_row:
            b.companion_row[b.companion_row.index(card)] = None
        elif card in b.companion_deck:
            b.companion_deck.remove(card)
        t.game.players[seat].companions.append(CompanionCard(card=card))


def offered(t: Table, seat: int = 0, card: str = "") -> list[str]:
    """The companion abilities ``seat`` may trigger now (of ``card`` only, if given)."""
    return [a.option for a in t.legal(seat) if a.type == "companion" and a.option.startswith(card)]


def answers(t: Table, type: str, seat: int = 0) -> list[str]:
    """The options of the pending decision ``type`` (without companion abilities)."""
    return [a.option for a in t.legal(seat) if a.type == type]


def cards(t: Table, seat: int) -> list[str]:
    return [c.card for c in t.game.players[seat].companions]


def amounts(effects: Iterable[str]) -> dict[str, int]:
    """Player-field deltas of resource effects (``["coins:2", "prestige:1"]``)."""
    out = dict.fromkeys(RESOURCES.values(), 0)
    for e in effects:
        verb, _, n = e.partition(":")
        out[RESOURCES[verb]] += int(n)
    return out


def wallet(t: Table, seat: int) -> dict[str, int]:
    p = t.game.players[seat]
    return {f: getattr(p, f) for f in RESOURCES.values()}


def gained(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: after[k] - before[k] for k in before}


def is_gain(effect: str) -> bool:
    verb, _, n = effect.partition(":")
    return verb in RESOURCES and int(n) > 0


def is_loss(effect: str) -> bool:
    verb, _, n = effect.partition(":")
    return verb in RESOURCES and int(n) < 0


def event_with(t: Table, route: str, gains: int, losses: int = 0) -> tuple[str, list[int], list[int]]:
    """An event of ``route`` with at least ``gains`` faces giving only resources (coins,
    prestige, ...) and ``losses`` faces taking only resources: (event, gain faces, loss faces)."""
    for ev in sorted(t.engine.content.events.values(), key=lambda e: e.id):
        if ev.route != route:
            continue
        good = [v for v in range(1, 7) if all(is_gain(e) for e in ev.faces[v])]
        bad = [v for v in range(1, 7) if all(is_loss(e) for e in ev.faces[v])]
        if len(good) >= gains and len(bad) >= losses:
            return ev.id, good, bad
    raise AssertionError(f"no {route} event with {gains} resource rewards and {losses} resource penalties")


def caravan(t: Table, seat: int = 0, route: str = "dark_road", event: str | None = None,
            dice: list[int] | None = None, join: Iterable[int] = ()) -> None:
    """``seat`` leads a caravan from Yurg's Excursions through the real decisions, up to
    the travel dice: ``event`` is put on top of the route's deck and ``dice`` replace the
    rolled travel dice."""
    t.district(seat, "yurgs_excursions")
    t.choose("yurgs_excursions", "caravan", seat=seat)
    t.choose("caravan_companion", startswith="row:", seat=seat)
    if event is not None:
        deck = t.game.board.events[route]
        deck.remove(event)
        deck.insert(0, event)
    t.choose("caravan_route", startswith=f"{route}:", seat=seat)
    n = len(t.game.players)
    for other in ((seat + k) % n for k in range(1, n)):
        t.choose("caravan_join", "yes" if other in join else "no", seat=other)
    if dice is not None:
        c = t.game.turn.caravan
        assert c is not None
        c.dice, c.rolled = sorted(dice), list(dice)


# -- loyal companions: the gift stays on the card -----------------------------------------------


def test_loyal_gift_stays_on_the_card_and_each_ability_works_once(engine: Engine) -> None:
    """Rulebook p. 16, Companions (loyal): move the gifted blazing quartz to the ability space;
    that ability cannot be triggered again. Phoenix: gain 2 lanterns."""
    t = new_table(engine)
    give(t, 0, "phoenix-1")
    t.setup_wagon(0, quartz=2)
    assert t.decision == "plan"
    assert offered(t) == ["phoenix-1:0", "phoenix-1:1"]
    t.choose("companion", "phoenix-1:0")
    p = t.game.players[0]
    assert (p.lanterns, p.quartz) == (2, 1)
    assert p.companions == [CompanionCard(card="phoenix-1", gifts=[0])]
    used = t.events_of("companion_used")
    assert [(e.seat, e.data["card"], e.data["ability"]) for e in used] == [(0, "phoenix-1", "0")]
    assert t.decision == "plan"  # triggering a companion does not answer the pending decision
    assert offered(t) == ["phoenix-1:1"]


def test_loyal_ability_needs_a_blazing_quartz(engine: Engine) -> None:
    """Rulebook p. 16, Companions (loyal): the abilities trigger with a gift of 1 blazing quartz."""
    t = new_table(engine)
    give(t, 0, "phoenix-1")
    assert offered(t) == []
    t.setup_wagon(0, quartz=1)
    assert offered(t) == ["phoenix-1:0", "phoenix-1:1"]


def test_gifts_on_loyal_companions_break_ties(engine: Engine) -> None:
    """Rulebook p. 13, End of the Game (ties: more gifts on loyal companions) with p. 16:
    the gifted quartz stays on the card."""
    t = new_table(engine)
    give(t, 0, "phoenix-1")
    t.setup_wagon(0, quartz=2)
    t.choose("companion", "phoenix-1:0")
    t.choose("companion", "phoenix-1:1")
    t.choose("choose_effect", startswith="good:")
    for seat in (0, 1):
        t.setup_wagon(seat, coins=4, prestige=4, special=[], deeds=[], quartz=0)
    lines = [score_seat(t.ctx(), seat) for seat in (0, 1)]
    assert [line.gifts for line in lines] == [2, 0]
    assert lines[0].total == lines[1].total and lines[0].discarded == lines[1].discarded
    assert rank(lines) == [0]


def test_only_on_the_owners_own_turn(engine: Engine) -> None:
    """Rulebook p. 16, Companions: "You may only trigger companion abilities on your own
    turn, but may do so at any time"."""
    t = new_table(engine)
    give(t, 1, "phoenix-1")
    t.setup_wagon(1, quartz=1)
    t.district(0, "yurgs_excursions")
    t.choose("yurgs_excursions", "caravan")
    t.choose("caravan_companion", startswith="row:")
    t.choose("caravan_route", startswith="dark_road:")
    assert t.awaiting == [1] and answers(t, "caravan_join", 1) == ["yes", "no"]
    assert offered(t, 1) == []
    # On seat 1's own turn, in any of its decisions (here a district), it is offered.
    t.district(1, "great_bazaar")
    assert offered(t, 1) == ["phoenix-1:0", "phoenix-1:1"]


def test_offered_in_every_decision_of_the_turn(engine: Engine) -> None:
    """Rulebook p. 16, Companions: "at any time" on your turn — plan, move and activate."""
    t = new_table(engine)
    give(t, 0, "ice_mouse-1")
    t.setup_wagon(0, quartz=1)
    assert "ice_mouse-1:1" in offered(t)
    t.choose("plan", startswith="bump:3:")
    assert t.decision == "slot3"
    assert "ice_mouse-1:1" in offered(t)
    t.choose("slot3", "coins")
    assert t.decision == "move"
    assert "ice_mouse-1:1" in offered(t)


@pytest.mark.parametrize("limit,arrange,gain,discard", [
    ("heroes", {"heroes": 3}, lambda ctx, t: ctx.gain_hero(0, t.game.board.hero_deck.pop(0)), "discard_hero"),
    ("commissions", {"commissions": 3},
     lambda ctx, t: ctx.gain_commission(0, t.game.board.commission_stacks["farglen"].pop(0)), "discard_commission"),
    ("inventory", {"horseshoes": 2}, lambda ctx, t: ctx.add(0, "quartz", 1), "discard_inventory"),
    ("goods", {"goods": ["armor"] * 6}, lambda ctx, t: ctx.gain_good(0, "armor"), "discard_good"),
])
def test_no_ability_while_an_overflow_discard_is_pending(engine: Engine, limit, arrange, gain, discard) -> None:
    """Rulebook p. 18, Wagon Overview: "If you gain a hero when all slots are full, you must
    discard them unless you discard a different hero to make room" (commissions, inventory
    alike); a good "that cannot fit, you cannot keep it unless you discard other goods to
    make room". Companions may be used "at any time" on your turn (p. 16): between steps,
    not inside a gain. The overflow is settled at once, so no ability (Cave Dragon delivering
    the 4th hero, Ice Mouse gaining more) is offered while its discard is pending."""
    t = new_table(engine)
    b = t.game.board
    wagon = dict(arrange)
    if "heroes" in wagon:
        wagon["heroes"] = [b.hero_deck.pop() for _ in range(3)]
    if "commissions" in wagon:
        wagon["commissions"] = [b.commission_stacks[town].pop() for town in ("northbreak", "nightpoem", "windglass")]
    give(t, 0, "cave_dragon-1", "ice_mouse-1")
    t.setup_wagon(0, quartz=1, **wagon)  # the blazing quartz to give
    assert "ice_mouse-1:1" in offered(t)
    t.run(lambda ctx: gain(ctx, t))
    assert t.decision == discard
    assert offered(t) == []
    assert {a.type for a in t.legal(0)} == {discard}
    t.choose(discard, startswith="discard:")
    assert t.decision == "plan" and "ice_mouse-1:1" in offered(t)


def bazaar_turn(t: Table) -> None:
    """Seat 0 bumps the 0 of slot #3 (2 coins), stays, visits the Great Bazaar, buys nothing."""
    t.choose("plan", "bump:3:0")
    t.choose("slot3", "coins")
    t.choose("move", "move:0")
    t.choose("activate", "district:great_bazaar")
    t.choose("great_bazaar", "buy")
    t.choose("bazaar_buy", "done")


def test_companions_after_rest_before_the_turn_passes(engine: Engine) -> None:
    """Rulebook p. 6: "When it is your turn, you must perform these 4 steps in order: Plan,
    Move, Activate, Rest"; p. 16: "You may only trigger companion abilities on your own
    turn, but may do so at any time." After Rest (dice returned, the offers refilled) the
    abilities are offered once more before the turn passes; a card taken then is refilled
    before the next turn."""
    t = new_table(engine)
    b = t.game.board
    give(t, 0, "snow_bee-1")
    t.setup_wagon(0, quartz=1, locked=[1, 2, 0], reserve=[0, 0, 0, 0])
    bazaar_turn(t)
    assert t.decision == "finish_turn" and t.awaiting == [0]
    p = t.game.players[0]
    assert t.game.phase == "rest" and p.pool == [] and p.spent == 1  # Rest is done
    assert answers(t, "finish_turn") == ["end"] and offered(t) == ["snow_bee-1:0", "snow_bee-1:1"]
    t.choose("companion", "snow_bee-1:0")
    hero = b.inn[1]
    t.choose("choose_effect", "hero:inn:1")
    assert p.heroes == [hero]
    # No ability is usable any more (no blazing quartz left): the turn passes at once, and the
    # upkeep refills the inn before it does.
    assert t.decision == "plan" and t.awaiting == [1]
    assert all(b.inn) and hero not in b.inn


def test_no_decision_after_rest_without_a_usable_ability(engine: Engine) -> None:
    """Rulebook p. 16: the moment after Rest adds no decision when no ability is usable."""
    t = new_table(engine)
    give(t, 0, "snow_bee-1")  # no blazing quartz to give: nothing usable
    t.setup_wagon(0, locked=[1, 2, 0], reserve=[0, 0, 0, 0])
    bazaar_turn(t)
    assert t.decision == "plan" and t.awaiting == [1]


# -- the loyal abilities ----------------------------------------------------------------------------


def test_phoenix_lanterns_not_offered_with_full_lantern_slots(engine: Engine) -> None:
    """Rulebook p. 16, Phoenix: gain 2 lanterns — useless with the 4 lantern slots full."""
    t = new_table(engine)
    give(t, 0, "phoenix-1")
    t.setup_wagon(0, quartz=1, lanterns=4)
    assert offered(t) == ["phoenix-1:1"]


def test_phoenix_moves_the_ruins_marker(engine: Engine) -> None:
    """Rulebook p. 16, Phoenix: move the district marker in the ruins 1 space clockwise and
    gain the reward shown."""
    t = new_table(engine)
    give(t, 0, "phoenix-2")
    t.setup_wagon(0, quartz=1)
    t.game.board.ruins = 3
    t.choose("companion", "phoenix-2:1")
    assert t.game.board.ruins == 0
    good = t.engine.content.ruins_tablet[RUINS_SPACES[0]][0]
    t.choose("choose_effect", f"good:{good}+")
    assert t.game.players[0].goods == [f"{good}+"]
    assert t.game.players[0].companions[0].gifts == [1]


def test_cave_dragon_delivers_a_hero_anywhere(engine: Engine) -> None:
    """Rulebook p. 16, Cave Dragon: deliver 1 hero to their outlying town and gain the
    delivery reward (no travel)."""
    t = new_table(engine)
    c = t.engine.content
    hero = t.game.board.hero_deck.pop(0)
    give(t, 0, "cave_dragon-1")
    t.setup_wagon(0, quartz=1, heroes=[hero])
    before = wallet(t, 0)
    t.choose("companion", "cave_dragon-1:0")
    p = t.game.players[0]
    assert (p.heroes, p.delivered_heroes) == ([], [hero])
    reward = amounts(c.towns[c.heroes[hero].town].reward)
    assert gained(before, wallet(t, 0)) == {**reward, "quartz": reward["quartz"] - 1}


def test_cave_dragon_not_offered_without_a_hero(engine: Engine) -> None:
    """Rulebook p. 16, Cave Dragon: delivering needs a hero on the wagon."""
    t = new_table(engine)
    give(t, 0, "cave_dragon-1")
    t.setup_wagon(0, quartz=1)
    assert offered(t) == ["cave_dragon-1:1"]


def test_cave_dragon_good_not_on_the_wheel(engine: Engine) -> None:
    """Rulebook p. 16, Cave Dragon: 1 basic good of a type not currently available on the
    market wheel."""
    t = new_table(engine)
    ids = t.engine.content.good_ids
    give(t, 0, "cave_dragon-2")
    t.setup_wagon(0, quartz=1)
    t.game.board.market = [2, 0, 1, 0, 2, 0]
    t.choose("companion", "cave_dragon-2:1")
    assert sorted(a.option for a in t.legal(0) if a.type == "choose_effect") == sorted(
        f"good:{ids[i]}" for i in (1, 3, 5))
    t.choose("choose_effect", f"good:{ids[3]}")
    assert t.game.players[0].goods == [ids[3]]


def test_ice_mouse_commission(engine: Engine) -> None:
    """Rulebook p. 16, Ice Mouse: gain 1 available commission (the top of a town's stack)."""
    t = new_table(engine)
    give(t, 0, "ice_mouse-1")
    t.setup_wagon(0, quartz=1)
    t.choose("companion", "ice_mouse-1:0")
    town = next(iter(t.game.board.commission_stacks))
    top = t.game.board.commission_stacks[town][0]
    t.choose("choose_effect", f"commission:{town}")
    assert t.game.players[0].commissions == [top]


def test_ice_mouse_basic_good(engine: Engine) -> None:
    """Rulebook p. 16, Ice Mouse: gain 1 basic good from the supply (any type)."""
    t = new_table(engine)
    ids = t.engine.content.good_ids
    give(t, 0, "ice_mouse-1")
    t.setup_wagon(0, quartz=1)
    t.choose("companion", "ice_mouse-1:1")
    assert sorted(a.option for a in t.legal(0) if a.type == "choose_effect") == sorted(f"good:{g}" for g in ids)
    t.choose("choose_effect", f"good:{ids[2]}")
    assert t.game.players[0].goods == [ids[2]]


def test_raven_illuminated_die(engine: Engine) -> None:
    """Rulebook p. 16, Raven: gain 1 illuminated die, roll it, into the special reserve —
    not offered while 2 are held (p. 18, max 2)."""
    t = new_table(engine)
    give(t, 0, "raven-1")
    t.setup_wagon(0, quartz=1, special=[])
    t.choose("companion", "raven-1:0")
    assert len(t.game.players[0].special) == 1
    t2 = new_table(engine)
    give(t2, 0, "raven-1")
    t2.setup_wagon(0, quartz=1, special=[2, 5])
    assert "raven-1:0" not in offered(t2)


class FakeOracle:
    """An Oracle of Lumi whose oracle die has one face, to check that Raven reads the die."""

    @hookimpl
    def darkroad_components(self) -> list[Component]:
        return [Component("building", "oracle_of_lumi", "Oracle (test)", "", {"oracle_die": [["coins:3"]]})]

    @hookimpl
    def darkroad_activate_building(self, ctx: Ctx, seat: int, building: str) -> bool | None:
        return True if building == "oracle_of_lumi" else None


def test_raven_rolls_the_oracle_die() -> None:
    """Rulebook p. 16, Raven: roll the oracle die and gain the reward shown (the die's faces
    are the Oracle of Lumi's data, docs/content.md "Dice faces")."""
    engine = Engine.load(exclude=["building-oracle-of-lumi"], extra=[("test-oracle", FakeOracle())])
    t = Table.new(players=2, seed=1, engine=engine, buildings=in_play(engine, avoid=["oracle_of_lumi"]))
    give(t, 0, "raven-2")
    t.setup_wagon(0, quartz=1, coins=0)
    t.choose("companion", "raven-2:1")
    assert [e.data["face"] for e in t.events_of("oracle_die_rolled")] == [["coins:3"]]
    assert t.game.players[0].coins == 3


def test_raven_oracle_not_offered_without_the_oracle() -> None:
    """Rulebook p. 16, Raven: without the oracle die (the Oracle of Lumi not installed) the
    second ability cannot be triggered."""
    engine = Engine.load(exclude=["building-oracle-of-lumi"])
    t = Table.new(players=2, seed=1, engine=engine, buildings=in_play(engine))
    give(t, 0, "raven-1")
    t.setup_wagon(0, quartz=1, special=[])
    assert offered(t) == ["raven-1:0"]


def test_snow_bee_hero_without_a_sale(engine: Engine) -> None:
    """Rulebook p. 16, Snow Bee: gain 1 available hero (no goods sold)."""
    t = new_table(engine)
    give(t, 0, "snow_bee-1")
    t.setup_wagon(0, quartz=1)
    hero = t.game.board.inn[1]
    t.choose("companion", "snow_bee-1:0")
    t.choose("choose_effect", "hero:inn:1")
    assert t.game.players[0].heroes == [hero]
    assert t.game.board.inn[1] is None


def test_snow_bee_cannot_take_the_hero_being_sold_to(engine: Engine) -> None:
    """Rulebook p. 10, the Ringway Inn: "choose 1 available hero ... After selling the goods,
    take that hero and place them in one of the hero slots on your wagon"; p. 16, Snow Bee:
    "Gain 1 available hero". The hero being sold to is engaged: it is not available to Snow
    Bee (or anything else) in the middle of the sale, so it joins the wagon once, and every
    card stays in exactly one place."""
    t = new_table(engine)
    b = t.game.board
    c = engine.content
    slot, hero = next((i, h) for i, h in enumerate(b.inn) if h and len(c.heroes[h].requests) >= 2)
    first, second = c.heroes[hero].requests[:2]
    give(t, 0, "snow_bee-1")
    t.setup_wagon(0, quartz=1, goods=[first, second])
    t.district(0, "ringway_inn")
    t.choose("ringway_inn", f"hero:{slot}")
    t.choose("inn_sell", f"sell:{first}")
    assert t.decision == "inn_sell"  # the sale goes on: the second request is still to sell
    t.choose("companion", "snow_bee-1:0")
    others = [f"hero:inn:{i}" for i, h in enumerate(b.inn) if h and i != slot]
    assert sorted(answers(t, "choose_effect")) == sorted([*others, "hero:deck"])
    t.choose("choose_effect", "hero:deck")
    t.choose("inn_sell", "done")
    heroes = t.game.players[0].heroes
    assert heroes.count(hero) == 1 and b.inn[slot] is None
    assert len(heroes) == 2 and len(set(heroes)) == 2
    assert hero not in b.hero_deck


def test_snow_bee_crafts_an_upgraded_good(engine: Engine) -> None:
    """Rulebook p. 16, Snow Bee: craft an upgraded good using the die locked in slot #1."""
    t = new_table(engine)
    give(t, 0, "snow_bee-3")
    t.setup_wagon(0, quartz=1, locked=[4, 2, 3])
    t.choose("companion", "snow_bee-3:1")
    assert t.game.players[0].goods == [t.engine.content.crafting_chart[4] + "+"]


# -- Threy Cat ----------------------------------------------------------------------------------------


def test_threy_cat_only_during_the_travel_dice(engine: Engine) -> None:
    """Rulebook p. 16, Threy Cat: both abilities concern travel dice — not offered without a
    caravan resolving them."""
    t = new_table(engine)
    give(t, 0, "threy_cat-1")
    t.setup_wagon(0, quartz=2)
    assert offered(t) == []


def test_threy_cat_duplicates_a_travel_die(engine: Engine) -> None:
    """Rulebook p. 16, Threy Cat: duplicate the value of any travel die and gain the reward;
    a face with only a penalty has no reward to duplicate."""
    t = new_table(engine, players=3)
    event, good, bad = event_with(t, "dark_road", gains=2, losses=1)
    give(t, 0, "threy_cat-1")
    t.setup_wagon(0, quartz=1)
    caravan(t, event=event, dice=[good[0], good[1], bad[0]], join=[1, 2])
    assert t.decision == "travel_die" and t.awaiting == [0]
    assert offered(t, card="threy_cat-1") == ["threy_cat-1:0", "threy_cat-1:1"]
    t.choose("companion", "threy_cat-1:0")
    assert sorted(answers(t, "threy_cat_duplicate")) == sorted(f"value:{v}" for v in good[:2])
    before = wallet(t, 0)
    t.choose("threy_cat_duplicate", f"value:{good[1]}")
    assert gained(before, wallet(t, 0)) == amounts(t.engine.content.events[event].faces[good[1]])
    assert t.decision == "travel_die"
    assert offered(t, card="threy_cat-1") == ["threy_cat-1:1"]


def test_threy_cat_duplicates_a_die_another_member_took(engine: Engine) -> None:
    """Rulebook p. 16, Threy Cat ("any travel die") with p. 12: on a shortcut the leader takes
    its die last and may duplicate a die the player on its left already took."""
    t = new_table(engine)
    event, good, _ = event_with(t, "shortcut", gains=2)
    give(t, 0, "threy_cat-1")
    t.setup_wagon(0, quartz=1, lanterns=3)
    caravan(t, route="shortcut", event=event, dice=good[:2], join=[1])
    t.choose("travel_die", f"take:{good[1]}", seat=1)
    assert t.awaiting == [0]
    t.choose("companion", "threy_cat-1:0")
    before = wallet(t, 0)
    t.choose("threy_cat_duplicate", f"value:{good[1]}")
    assert gained(before, wallet(t, 0)) == amounts(t.engine.content.events[event].faces[good[1]])


def test_threy_cat_plus_one_or_two(engine: Engine) -> None:
    """Rulebook p. 16, Threy Cat: add +1 or +2 to the face value of your travel die."""
    t = new_table(engine)
    give(t, 0, "threy_cat-2")
    t.setup_wagon(0, quartz=1)
    caravan(t, dice=[2])
    assert answers(t, "travel_die") == ["take:2"]
    t.choose("companion", "threy_cat-2:1")
    assert answers(t, "travel_die") == ["take:2", "take:2:+1", "take:2:+2"]
    t.choose("travel_die", "take:2:+2")
    assert [(e.data["die"], e.data["face"]) for e in t.events_of("travel_die_taken")] == [(2, 4)]


def test_threy_cat_with_whisper(engine: Engine) -> None:
    """Issue 3 interaction, rulebook p. 16 (Threy Cat: +1 or +2) and p. 17 (Whisper: +1):
    both modify the face value, so they add up (+3), capped at 6."""
    t = new_table(engine)
    give(t, 0, "threy_cat-1")
    t.setup_wagon(0, quartz=1, steeds=["whisper"])
    caravan(t, dice=[2])
    assert answers(t, "travel_die") == ["take:2", "take:2:+1"]
    t.choose("companion", "threy_cat-1:1")
    assert answers(t, "travel_die") == ["take:2", "take:2:+1", "take:2:+2", "take:2:+3"]
    t.choose("travel_die", "take:2:+3")
    assert [(e.data["die"], e.data["face"]) for e in t.events_of("travel_die_taken")] == [(2, 5)]


def test_threy_cat_bonus_not_offered_on_a_six(engine: Engine) -> None:
    """Rulebook p. 16, Threy Cat, with docs/content.md "Dice faces" (travel die 1–6, bonuses cap at 6):
    +1/+2 cannot improve a 6."""
    t = new_table(engine)
    give(t, 0, "threy_cat-1")
    t.setup_wagon(0, quartz=1)
    caravan(t, dice=[6])
    assert "threy_cat-1:1" not in offered(t, card="threy_cat-1")


# -- stray companions: the gift returns, the card passes left -----------------------------------------


def test_grace_deed_for_a_potion_then_passes_left(engine: Engine) -> None:
    """Rulebook p. 17, Grace: for a potion (returned to the supply) gain 1 available deed and
    its bonus; then pass the card to the player on your left."""
    t = new_table(engine)
    give(t, 0, "grace-1")
    assert offered(t) == []  # no potion
    t.setup_wagon(0, goods=["potion", "potion+"])
    deed = t.game.board.courtyard[0]
    bonus = amounts(t.engine.content.courtyard_banners[0])
    t.choose("companion", "grace-1:0")
    assert t.decision == "grace_gift"
    assert answers(t, "grace_gift") == ["gift:potion", "gift:potion+"]
    t.choose("grace_gift", "gift:potion")
    assert cards(t, 0) == [] and t.game.players[1].companions == [CompanionCard(card="grace-1")]
    before = wallet(t, 0)
    t.choose("choose_effect", "deed:courtyard:0")
    p = t.game.players[0]
    assert p.goods == ["potion+"]
    assert p.deeds == [deed]
    assert gained(before, wallet(t, 0)) == bonus
    assert [(e.seat, e.data["to"]) for e in t.events_of("companion_passed")] == [(0, 1)]


def test_grace_single_potion_is_given_without_asking(engine: Engine) -> None:
    """Rulebook p. 17, Grace: the gift is a potion, basic or upgraded."""
    t = new_table(engine)
    give(t, 0, "grace-1")
    t.setup_wagon(0, goods=["potion+"])
    t.choose("companion", "grace-1:0")
    assert t.decision == "choose_effect"
    assert t.game.players[0].goods == []


def test_stray_passes_left_around_the_table(engine: Engine) -> None:
    """Rulebook p. 17, Li'l Dumplin': for a horseshoe (returned) roll the ruins die and gain
    the reward; the card passes to the player on the left (from the last seat to seat 0)."""
    t = new_table(engine, players=3)
    give(t, 2, "lil_dumplin-1")
    t.setup_wagon(2, horseshoes=1)
    t.district(2, "great_bazaar")
    assert offered(t, 2) == ["lil_dumplin-1:0"]
    t.choose("companion", "lil_dumplin-1:0", seat=2)
    assert t.game.players[2].horseshoes == 0
    rolled = t.events_of("ruins_die_rolled")
    assert len(rolled) == 1 and rolled[0].data["face"] in t.engine.content.ruins_die
    assert cards(t, 2) == [] and cards(t, 0) == ["lil_dumplin-1"]


def test_flicker_makes_the_shortcut_free(engine: Engine) -> None:
    """Rulebook p. 17, Flicker: for 1 blazing quartz, take a shortcut this turn ignoring the
    lantern cost."""
    t = new_table(engine)
    give(t, 0, "flicker-1")
    t.setup_wagon(0, quartz=1)
    t.district(0, "yurgs_excursions")
    t.choose("yurgs_excursions", "caravan")
    t.choose("caravan_companion", startswith="row:")
    assert not any(o.startswith("shortcut:") for o in answers(t, "caravan_route"))
    t.choose("companion", "flicker-1:0")
    assert "flicker-1" not in cards(t, 0) and cards(t, 1) == ["flicker-1"]
    t.choose("caravan_route", startswith="shortcut:")
    t.choose("caravan_join", "no", seat=1)
    p = t.game.players[0]
    assert (p.lanterns, p.quartz) == (0, 0)
    assert t.game.turn.caravan is not None and t.game.turn.caravan.route == "shortcut"


def test_flicker_only_before_the_route_is_declared(engine: Engine) -> None:
    """Rulebook p. 17, Flicker: "if you choose to take a shortcut while traveling this turn"
    — useless once the route is declared or no caravan can be led this turn."""
    t = new_table(engine)
    give(t, 0, "flicker-1")
    t.setup_wagon(0, quartz=1)
    assert offered(t) == ["flicker-1:0"]  # plan: Yurg's Excursions may still be reached
    caravan(t)
    assert offered(t, card="flicker-1") == []
    # Moving 1 from the start space: Yurg's Excursions is not next to the wagon.
    t2 = new_table(engine)
    give(t2, 0, "flicker-1")
    t2.setup_wagon(0, quartz=1, position=0)
    t2.choose("plan", startswith="bump:1:")
    assert t2.decision == "move" and offered(t2) == ["flicker-1:0"]
    t2.choose("move", "move:1")
    assert t2.decision == "activate"
    assert offered(t2) == []


def test_cosimo_hero_gift_then_a_wagon_upgrade(engine: Engine) -> None:
    """Rulebook p. 17, Cosimo: for a hero (placed on the bottom of the hero deck) gain 1
    available wagon upgrade or move the dark market marker; then the card passes left."""
    t = new_table(engine)
    h1, h2 = t.game.board.hero_deck[:2]
    t.game.board.hero_deck[:2] = []
    give(t, 0, "cosimo-1")
    assert offered(t) == []  # no hero to give
    t.setup_wagon(0, heroes=[h1, h2])
    t.choose("companion", "cosimo-1:0")
    assert t.decision == "cosimo_gift"
    assert sorted(answers(t, "cosimo_gift")) == sorted([f"gift:{h1}", f"gift:{h2}"])
    t.choose("cosimo_gift", f"gift:{h2}")
    assert t.game.players[0].heroes == [h1]
    assert t.game.board.hero_deck[-1] == h2
    assert cards(t, 1) == ["cosimo-1"]
    assert answers(t, "cosimo_reward") == ["upgrade", "dark_market"]
    t.choose("cosimo_reward", "upgrade")
    upgrade = t.game.board.upgrades[0]
    t.choose("choose_upgrade", f"upgrade:{upgrade}")
    assert t.game.players[0].upgrades == [upgrade]


def test_cosimo_dark_market_when_the_upgrade_limit_is_reached(engine: Engine) -> None:
    """Rulebook p. 17, Cosimo, with p. 19 (only 1 wagon upgrade per game): with an upgrade
    already, the dark market marker moves 1 space clockwise and its reward is gained."""
    t = new_table(engine)
    b = t.game.board
    hero = b.hero_deck[0]
    give(t, 0, "cosimo-1")
    t.setup_wagon(0, heroes=[hero], upgrades=[b.upgrades.pop(0)])
    b.dark_market = 2  # south; one space clockwise is west
    t.choose("companion", "cosimo-1:0")
    assert b.dark_market == 3
    assert sorted(t.game.players[0].goods) == sorted(t.engine.content.dark_market["west"])


def test_cosimo_reward_comes_after_the_discard_its_gift_causes(engine: Engine) -> None:
    """Rulebook p. 17, Cosimo: "This companion requires a hero instead of a blazing quartz.
    Place this hero card on the bottom of the hero deck." A storage hero "can store any 1
    good. This is treated as an extension of your wagon storage and all storage rules apply"
    (p. 10); "If you gain a good that cannot fit, you cannot keep it unless you discard other
    goods to make room" (p. 18). Giving away the hero that stored a good leaves goods that no
    longer fit: that overflow is settled at once, before Cosimo's reward (which could
    otherwise bring room, a storage upgrade, and make the discard disappear)."""
    t = new_table(engine)
    b = t.game.board
    hero = next(h for h, card in engine.content.heroes.items() if card.bonus == "storage" and h in b.hero_deck)
    b.hero_deck.remove(hero)
    give(t, 0, "cosimo-1")
    t.setup_wagon(0, heroes=[hero], goods=["armor"] * 7)  # 6 armors fill the grid; the 7th is on the hero
    assert t.ctx().fits(0, ["armor"] * 7)
    t.choose("companion", "cosimo-1:0")
    assert t.game.players[0].heroes == [] and b.hero_deck[-1] == hero
    assert t.decision == "discard_good"
    assert answers(t, "discard_good") == ["discard:armor"]
    t.choose("discard_good", "discard:armor")
    assert t.game.players[0].goods == ["armor"] * 6
    assert t.decision == "cosimo_reward"
    assert answers(t, "cosimo_reward") == ["upgrade", "dark_market"]


def test_triggered_stray_is_not_offered_while_its_gift_is_chosen(engine: Engine) -> None:
    """Rulebook p. 17, stray companions: one ability, once, then the card moves on."""
    t = new_table(engine)
    give(t, 0, "grace-1")
    t.setup_wagon(0, goods=["potion", "potion+"])
    t.choose("companion", "grace-1:0")
    assert t.decision == "grace_gift"
    assert offered(t) == []


@pytest.mark.parametrize("companion,abilities", [
    ("cave_dragon", 2), ("ice_mouse", 2), ("phoenix", 2), ("raven", 2), ("snow_bee", 2), ("threy_cat", 2),
    ("grace", 1), ("flicker", 1), ("cosimo", 1), ("lil_dumplin", 1),
])
def test_companion_cards(engine: Engine, companion: str, abilities: int) -> None:
    """Rulebook p. 16: 6 loyal companions (3 cards each, two abilities for 1 blazing quartz);
    4 stray companions (1 card, one ability) — the 22 companion cards of the component list."""
    comp = engine.content.components[companion]
    loyal = abilities == 2
    assert comp.kind == "companion"
    assert comp.data["loyalty"] == ("loyal" if loyal else "stray")
    assert len(comp.data["abilities"]) == abilities
    copies = [c for c, owner in engine.content.companion_cards.items() if owner == companion]
    assert len(copies) == (3 if loyal else 1)
    if loyal:
        assert all(a["gift"] == "quartz" for a in comp.data["abilities"])
    base = {c.id for c in engine.base_game("companion")}
    assert sum(owner in base for owner in engine.content.companion_cards.values()) == 22


def check_random_play(engine: Engine, seeds: range, seen: Callable[[str], None]) -> None:
    for seed in seeds:
        t = Table.new(players=4, seed=seed, engine=engine, buildings=in_play(engine))
        t.play(seed=seed)
        for e in t.events_of("companion_used"):
            seen(e.data["companion"])


def test_random_games_use_companions(engine: Engine) -> None:
    """Rulebook p. 16: companions taken with caravans are used during real play without error."""
    used: set[str] = set()
    check_random_play(engine, range(8), used.add)
    assert len(used) >= 5
