"""The 7 steeds (rulebook p. 17, "Steeds"), each ability through the engine."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from darkroad.core import Component, Engine, GameConfig, hookimpl
from darkroad.core.rulebook.activate import connected_building
from darkroad.core.state import PoolDie
from darkroad.core.testing import Table

STEEDS = ("brembizant", "longshadow", "lovebug", "sugarfoot", "velvet", "whisper", "woolsworth")
UPGRADES = ("test_upgrade_0", "test_upgrade_1")
"""Plain wagon upgrades (no effect of their own) to watch Velvet's."""


class PlainUpgrades:
    """Wagon upgrades with no effect of their own, to watch Velvet's."""

    @hookimpl
    def darkroad_components(self) -> list[Component]:
        return [Component("upgrade", u, f"Test upgrade {u[-1]}") for u in UPGRADES]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load(extra=[("test-upgrades", PlainUpgrades())])


def in_play(engine: Engine) -> list[str]:
    """Four buildings, one side per double-sided tile, the Blazing Quartz Mine first."""
    chosen: list[str] = []
    tiles: set[object] = set()
    for b in sorted(engine.content.of_kind("building"), key=lambda b: b.id != "blazing_quartz_mine"):
        tile = b.data.get("tile")
        if tile is not None and tile in tiles:
            continue
        chosen.append(b.id)
        if tile is not None:
            tiles.add(tile)
    return chosen[:4]


def new_table(engine: Engine, steeds: Iterable[str] = (), players: int = 2, seed: int = 1,
              record: bool = False) -> Table:
    """A fresh game waiting for seat 0's plan decision; every wagon emptied (no steed,
    hero, good or resource), then seat 0 gets ``steeds``. ``record``: record hook calls
    (give the table an engine of its own)."""
    game, events = engine.create(GameConfig(players=players, seed=seed, buildings=in_play(engine)))
    t = Table(engine, game, events, record=record)
    for seat in range(players):
        t.setup_wagon(seat, coins=0, prestige=0, lanterns=0, quartz=0, horseshoes=0, goods=[], heroes=[],
                      commissions=[], steeds=[], deeds=[], special=[])
    t.setup_wagon(0, steeds=list(steeds))
    return t


def answers(t: Table, type: str, seat: int = 0) -> list[str]:
    """The options of the pending decision ``type`` (without companion abilities)."""
    return [a.option for a in t.legal(seat) if a.type == type]


def quiet_event(t: Table, route: str) -> tuple[str, int]:
    """An event of ``route`` and a travel die face of it that does nothing."""
    for ev in sorted(t.engine.content.events.values(), key=lambda e: e.id):
        if ev.route == route:
            for v in range(1, 6):
                if ev.faces[v] == ("nothing",):
                    return ev.id, v
    raise AssertionError(f"no {route} event with a 'nothing' face")


def caravan(t: Table, seat: int = 0, route: str = "dark_road", town: str | None = None,
            dice: list[int] | None = None, join: Iterable[int] = ()) -> int:
    """``seat`` leads a caravan from Yurg's Excursions through the real decisions, up to
    the travel dice, with an event whose rolled faces do nothing (``dice`` replace them
    when given). Returns the quiet face."""
    event, quiet = quiet_event(t, route)
    t.district(seat, "yurgs_excursions")
    t.choose("yurgs_excursions", "caravan", seat=seat)
    t.choose("caravan_companion", startswith="row:", seat=seat)
    deck = t.game.board.events[route]
    deck.remove(event)
    deck.insert(0, event)
    t.choose("caravan_route", f"{route}:{town}" if town else None, seat=seat, startswith=f"{route}:")
    n = len(t.game.players)
    for other in ((seat + k) % n for k in range(1, n)):
        t.choose("caravan_join", "yes" if other in join else "no", seat=other)
    c = t.game.turn.caravan
    assert c is not None and c.dice is not None
    c.dice = sorted(dice) if dice is not None else [quiet] * len(c.dice)
    c.rolled = list(c.dice)
    return quiet


def taken(t: Table) -> list[tuple[int, int]]:
    return [(e.data["die"], e.data["face"]) for e in t.events_of("travel_die_taken")]


@pytest.mark.parametrize("steed", STEEDS)
def test_steed_components(engine: Engine, steed: str) -> None:
    """Rulebook p. 17, Steeds: seven steeds, each with a permanent ability."""
    comp = engine.content.components[steed]
    assert comp.kind == "steed" and comp.text


# -- Brembizánt ---------------------------------------------------------------------------------


def bazaar_goods(t: Table) -> dict[int, str]:
    """Value -> a good type with a market die in that section."""
    ctx = t.ctx()
    return {ctx.value(g): g for i, g in enumerate(t.engine.content.good_ids) if t.game.board.market[i]}


@pytest.mark.parametrize("steed,paid", [("brembizant", 1), (None, 3)])
def test_brembizant_discount_off_the_total(engine: Engine, steed: str | None, paid: int) -> None:
    """Rulebook p. 17, Brembizánt: a $2 discount off the total cost at the Great Bazaar; the
    cost cannot go below zero (a $1 good is free and the rest comes off the next good)."""
    t = new_table(engine, [steed] if steed else [])
    t.setup_wagon(0, coins=5)
    by_value = bazaar_goods(t)
    t.district(0, "great_bazaar")
    t.choose("great_bazaar", "buy")
    t.choose("bazaar_buy", f"buy:{by_value[1]}")
    t.choose("bazaar_buy", f"buy:{by_value[2]}")
    assert t.game.players[0].coins == 5 - paid
    assert sorted(t.game.players[0].goods) == sorted([by_value[1], by_value[2]])


# -- Longshadow --------------------------------------------------------------------------------------


def test_longshadow_offers_every_building(engine: Engine) -> None:
    """Rulebook p. 17, Longshadow: with an illuminated die, any 1 of the 4 buildings may be
    activated, not just the connected one (even from the start space, which has none)."""
    t = new_table(engine, ["longshadow"])
    t.setup_wagon(0, position=0, pool=[PoolDie(kind="night", value=1), PoolDie(kind="illuminated", value=2)])
    t.game.active = 0
    t.push("activate", 0)
    assert sorted(o for o in answers(t, "activate") if o.startswith("building:")) == sorted(
        f"building:{b}" for b in t.game.board.buildings)


def test_without_longshadow_only_the_connected_building(engine: Engine) -> None:
    """Rulebook p. 7, Step 3: the illuminated die activates the connected building."""
    t = new_table(engine)
    t.setup_wagon(0, position=2, pool=[PoolDie(kind="night", value=1), PoolDie(kind="illuminated", value=2)])
    t.game.active = 0
    t.push("activate", 0)
    assert [o for o in answers(t, "activate") if o.startswith("building:")] == [
        f"building:{connected_building(t.ctx(), 2)}"]


@pytest.mark.parametrize("space", [1, 2, 3, 4])
def test_longshadow_with_any_building(space: int) -> None:
    """Issue 3 interaction, rulebook p. 17 (Longshadow): each building in play can be
    activated from a wagon connected to another one, and resolves its own action."""
    t = new_table(Engine.load(extra=[("test-upgrades", PlainUpgrades())]), ["longshadow"], record=True)
    target = t.game.board.buildings[space - 1]
    here = space % 4 + 1
    assert connected_building(t.ctx(), here) != target
    t.setup_wagon(0, position=here, coins=6, quartz=1, lanterns=1, goods=["potion", "book"],
                  pool=[PoolDie(kind="night", value=1), PoolDie(kind="illuminated", value=2)],
                  reserve=t.game.players[0].reserve[1:])
    t.game.active = 0
    t.push("activate", 0)
    t.choose("activate", f"building:{target}")
    assert t.events_of("activated")[-1].data == {"target": target, "what": "building"}
    resolved = [c for c in t.calls("darkroad_activate_building") if c.kwargs["building"] == target]
    assert [c.result for c in resolved] == [True]
    if target == "blazing_quartz_mine":
        assert t.game.players[0].quartz == 2


# -- Lovebug -----------------------------------------------------------------------------------------


def lovebug_lanterns(t: Table, seat: int) -> list[int]:
    return [e.data["amount"] for e in t.events_of("gained")
            if e.seat == seat and e.data.get("source") == "lovebug"]


def test_lovebug_lantern_when_leading_a_caravan(engine: Engine) -> None:
    """Rulebook p. 17, Lovebug, as the published Hungarian/English rulebook's note narrows it: gain 1
    lantern when you lead a caravan from Yurg's Excursions."""
    t = new_table(engine, ["lovebug"])
    t.district(0, "yurgs_excursions")
    t.choose("yurgs_excursions", "caravan")
    assert t.game.players[0].lanterns == 1
    assert lovebug_lanterns(t, 0) == [1]


def test_lovebug_no_lantern_when_joining(engine: Engine) -> None:
    """The published rulebook's Lovebug note: no lantern for joining another's caravan."""
    t = new_table(engine)
    t.setup_wagon(1, steeds=["lovebug"])
    caravan(t, seat=0, join=[1])
    t.choose("travel_die", startswith="take:", seat=0)
    t.choose("travel_die", startswith="take:", seat=1)
    assert t.game.turn.caravan is not None and 1 in t.game.turn.caravan.members
    assert t.game.players[1].lanterns == 0
    assert lovebug_lanterns(t, 1) == []


def test_lovebug_no_lantern_for_the_ruins(engine: Engine) -> None:
    """The published rulebook's Lovebug note: no lantern for the Ruins of Yin."""
    t = new_table(engine, ["lovebug"])
    t.district(0, "yurgs_excursions")
    t.choose("yurgs_excursions", "ruins")
    assert t.game.players[0].lanterns == 0
    assert lovebug_lanterns(t, 0) == []


# -- Sugarfoot ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("steed,moves", [("sugarfoot", ["move:1", "move:3"]), (None, ["move:1"])])
def test_sugarfoot_moves_exactly_three(engine: Engine, steed: str | None, moves: list[str]) -> None:
    """Rulebook p. 17, Sugarfoot: you may move exactly 3 spaces, regardless of your dice."""
    t = new_table(engine, [steed] if steed else [])
    t.setup_wagon(0, position=0, pool=[PoolDie(kind="night", value=1)], reserve=t.game.players[0].reserve[1:])
    t.game.active = 0
    t.push("move", 0)
    assert answers(t, "move") == moves
    t.choose("move", moves[-1])
    assert t.game.players[0].position == int(moves[-1][-1])


SEVEN_ARMORS = ["armor"] * 7
"""28 cells: at most 6 2x2 tiles fit the 6x5 grid; the seventh fits the 2x2 saddle bag."""


def test_sugarfoot_saddle_bag_in_the_packing_check(engine: Engine) -> None:
    """Issue 3 interaction, rulebook p. 17 (Sugarfoot: a 2x2 extension to your wagon storage)
    with the 6x5 storage grid (docs/content.md): goods that do not fit the grid alone fit with the bag."""
    assert {g.id: g.footprint for g in engine.content.goods}["armor"] == ((0, 0), (0, 1), (1, 0), (1, 1))
    without = new_table(engine)
    with_bag = new_table(engine, ["sugarfoot"])
    assert not without.ctx().fits(0, SEVEN_ARMORS)
    assert with_bag.ctx().fits(0, SEVEN_ARMORS)
    for t in (without, with_bag):
        t.setup_wagon(0, goods=SEVEN_ARMORS[:6])
        t.run(lambda ctx: ctx.gain_good(0, "armor"))
    assert without.decision == "discard_good"
    assert with_bag.decision == "plan" and with_bag.game.players[0].goods == SEVEN_ARMORS


# -- Velvet ------------------------------------------------------------------------------------------


def shortcut_with_two_good_fortunes(t: Table) -> None:
    """Seat 0 leads a shortcut caravan alone, takes its (quiet) die and visits no town: its
    two good fortunes are pending."""
    t.setup_wagon(0, lanterns=3)
    t.game.board.upgrades = list(UPGRADES)
    caravan(t, route="shortcut")
    t.choose("travel_die", startswith="take:")
    t.choose("deliveries", "pass")
    assert t.decision == "good_fortune"


def test_velvet_with_two_upgrades(engine: Engine) -> None:
    """Issue 3 interaction, rulebook p. 17 (Velvet: unlimited upgrades, 2 prestige each) with
    p. 13 (a shortcut gives 2 good fortunes, the same one twice allowed)."""
    t = new_table(engine, ["velvet"])
    shortcut_with_two_good_fortunes(t)
    for upgrade in UPGRADES:
        t.choose("good_fortune", "upgrade")
        t.choose("choose_upgrade", f"upgrade:{upgrade}")
    p = t.game.players[0]
    assert p.upgrades == list(UPGRADES)
    assert p.prestige == 4
    assert [e.data["amount"] for e in t.events_of("gained") if e.data.get("source") == "velvet"] == [2, 2]


def test_without_velvet_one_upgrade(engine: Engine) -> None:
    """Rulebook p. 19, Wagon Upgrades: only 1 wagon upgrade per game (no prestige for it)."""
    t = new_table(engine)
    shortcut_with_two_good_fortunes(t)
    t.choose("good_fortune", "upgrade")
    t.choose("choose_upgrade", f"upgrade:{UPGRADES[0]}")
    assert "upgrade" not in answers(t, "good_fortune")
    assert t.game.players[0].prestige == 0


# -- Whisper -----------------------------------------------------------------------------------------


def test_whisper_adds_one(engine: Engine) -> None:
    """Rulebook p. 17, Whisper: when you choose a travel die, you may add +1 to the face value."""
    t = new_table(engine, ["whisper"])
    caravan(t, dice=[4])
    assert answers(t, "travel_die") == ["take:4", "take:4:+1"]
    t.choose("travel_die", "take:4:+1")
    assert taken(t) == [(4, 5)]


def test_whisper_capped_at_six(engine: Engine) -> None:
    """Rulebook p. 17, Whisper, with docs/content.md "Dice faces" (travel die 1–6, bonuses cap at 6): a
    rolled 6 stays a 6."""
    t = new_table(engine, ["whisper"])
    caravan(t, dice=[6])
    assert answers(t, "travel_die") == ["take:6"]  # no "+1" that would change nothing
    t.choose("travel_die", "take:6")
    assert taken(t) == [(6, 6)]


def test_no_bonus_without_whisper(engine: Engine) -> None:
    """Rulebook p. 12, Step 2: the travel die's face as rolled."""
    t = new_table(engine)
    caravan(t, dice=[4])
    assert answers(t, "travel_die") == ["take:4"]


# -- Woolsworth --------------------------------------------------------------------------------------


@pytest.mark.parametrize("steed,quartz", [("woolsworth", 2), (None, 0)])
def test_woolsworth_quartz_per_upgraded_good(engine: Engine, steed: str | None, quartz: int) -> None:
    """Rulebook p. 17, Woolsworth: delivering a commission, gain 1 blazing quartz per upgraded
    good delivered for it (p. 12: 6 prestige for 3 goods, +1 per upgraded good)."""
    t = new_table(engine, [steed] if steed else [])
    c = t.engine.content
    m = next(m for m in sorted(c.commissions) if len(set(c.commissions[m].requests)) == 3)
    r0, r1, r2 = c.commissions[m].requests
    town = c.commissions[m].town
    t.game.board.commission_stacks[town].remove(m)
    goods = [f"{r0}+", f"{r1}+", r2]
    t.setup_wagon(0, commissions=[m], goods=goods)
    caravan(t, town=town)
    t.choose("travel_die", startswith="take:")
    t.choose("deliveries", f"town:{town}")
    t.choose("deliveries", f"commission:{m}:{','.join(goods)}")
    p = t.game.players[0]
    assert p.delivered_commissions == [m]
    assert p.prestige == 8
    assert p.quartz == quartz
