"""The 19 deeds (plugins/deeds) through the real engine.

Rulebook p. 17, "Deeds" (gaining a deed, its banner bonus, keeping it hidden) and p. 13,
"Final Scoring" (deed coins and prestige added before the lower of the two is taken,
deed VP added to the total). The deed faces are a reconstruction: docs/deeds.md, which
these tests also hold to the components' data.

Each deed is scored met and unmet through ``darkroad.core.rulebook.scoring.score_seat`` after
arranging the wagon; the two deeds that need game history are fed by real deliveries
and real caravans. Other component groups may not be installed yet: a small filler
plugin supplies buildings, steeds, companions and a lantern-covering wagon upgrade
under ids of its own, so the tests pass with or without them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from darkroad.core import Component, Ctx, Engine, hookimpl
from darkroad.core.rulebook.scoring import score_seat
from darkroad.core.state import CompanionCard, ScoreLine
from darkroad.core.testing import Table

DEED_IDS = (
    "master_courier", "hero_escort", "northern_patron", "western_patron", "eastern_patron", "grand_tour",
    "quartz_hoarder", "lamplighter", "full_wagon", "fine_goods", "collector", "companion_friend",
    "generous_patron", "heavy_purse", "renowned", "balanced_ledger", "illuminated_scholar",
    "perfect_delivery", "road_warden",
)
DOC = Path(__file__).parents[2] / "docs" / "deeds.md"

BUILDINGS = [f"deedtest_building_{i}" for i in range(4)]
STEEDS = [f"deedtest_steed_{i}" for i in range(4)]
LOYAL, STRAY = "deedtest_loyal", "deedtest_stray"
TILES = {"lanterns": "deedtest_lantern_tile", "inventory": "deedtest_inventory_tile"}


class Fillers:
    """Components a game needs, under test-only ids: 4 buildings (gain 1 coin), 4 steeds
    without effect, a loyal and a stray companion without abilities, and two wagon upgrades
    covering a lantern slot and an inventory slot."""

    @hookimpl
    def darkroad_components(self) -> list[Component]:
        return [
            *(Component("building", b, b, "Gain 1 coin.") for b in BUILDINGS),
            *(Component("steed", s, s, "No effect.") for s in STEEDS),
            Component("companion", LOYAL, "Loyal test companion", "", {"loyalty": "loyal", "copies": 3}),
            Component("companion", STRAY, "Stray test companion", "", {"loyalty": "stray", "copies": 1}),
            *(Component("upgrade", tile, tile, f"Covers one {kind} slot.") for kind, tile in TILES.items()),
        ]

    @hookimpl
    def darkroad_activate_building(self, ctx: Ctx, seat: int, building: str) -> bool | None:
        if building not in BUILDINGS:
            return None
        ctx.gain_effects(seat, ["coins:1"], source=building)
        return True

    @hookimpl
    def darkroad_capacity(self, ctx: Ctx, seat: int, kind: str) -> int | None:
        return -1 if TILES.get(kind) in ctx.player(seat).upgrades else None


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load(extra=[("deedtest-fillers", Fillers())])


@pytest.fixture
def new(engine: Engine):
    def make(players: int = 2, seed: int = 1, **variants: Any) -> Table:
        return Table.new(players=players, seed=seed, buildings=BUILDINGS, engine=engine, **variants)

    return make


# -- arranging and reading -----------------------------------------------------------------


def blank(t: Table, seat: int = 0) -> None:
    """An empty wagon with 10 coins and 10 prestige, no deeds, no steed, no upgrade."""
    t.setup_wagon(seat, coins=10, prestige=10, goods=[], heroes=[], commissions=[], special=[], pool=[],
                  lanterns=0, quartz=0, horseshoes=0, companions=[], deeds=[], steeds=[], upgrades=[],
                  delivered_commissions=[], delivered_heroes=[])


def deed_gain(t: Table, seat: int = 0) -> dict[str, int]:
    """What ``seat``'s deeds add at final scoring, by the real scoring path."""
    p = t.game.players[seat]
    line: ScoreLine = score_seat(t.ctx(), seat)
    return {"coins": line.coins - p.coins, "prestige": line.prestige - p.prestige, "vp": line.deed_vp}


def scored(t: Table, deed: str, seat: int = 0, **wagon: Any) -> dict[str, int]:
    blank(t, seat)
    t.setup_wagon(seat, deeds=[deed], **wagon)
    return deed_gain(t, seat)


NOTHING = {"coins": 0, "prestige": 0, "vp": 0}


def reward(engine: Engine, deed: str) -> dict[str, int]:
    """The gain the deed's card promises when met (its printed amount)."""
    data = engine.content.components[deed].data
    return {**NOTHING, data["reward"]: data["amount"]}


def heroes_of(engine: Engine, town: str, n: int) -> list[str]:
    return sorted(h.id for h in engine.content.heroes.values() if h.town == town)[:n]


def commissions_of(engine: Engine, town: str, n: int) -> list[str]:
    return sorted(m.id for m in engine.content.commissions.values() if m.town == town)[:n]


def counter(t: Table, name: str, seat: int) -> int:
    counts = t.game.board.extra.get("_deeds", {}).get(name)
    return counts[seat] if counts else 0


# -- the catalogue ---------------------------------------------------------------------------


def test_the_nineteen_deeds_are_components():
    """Rulebook p. 2, components: 19 deed cards, each paying coins, prestige or VP (p. 17);
    each is a plugin of the installed ``darkroad`` entry points."""
    deeds = Engine.load().content.of_kind("deed")
    assert [d.id for d in deeds] == sorted(DEED_IDS)
    for d in deeds:
        assert d.data["reward"] in ("coins", "prestige", "vp")
        assert d.data["amount"] > 0 and d.data["criterion"] in d.text
        assert d.plugin == "deed-" + d.id.replace("_", "-")


def test_docs_table_matches_the_cards(engine):
    """Rulebook p. 17, Deeds: the reconstructed faces in docs/deeds.md are the ones played."""
    rows = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"`[a-z_]+`", cells[0]):
            rows[cells[0].strip("`")] = cells[1:]
    assert sorted(rows) == sorted(DEED_IDS)
    for d in engine.content.of_kind("deed"):
        data = d.data
        unit = {"coins": "coins", "prestige": "prestige", "vp": "VP"}[data["reward"]]
        pays = f"{data['amount']} {unit}"
        if "per_extra" in data:
            pays += f", +{data['per_extra']} per {data['unit']} beyond {data['need']} (at most {data['max']})"
        assert rows[d.id] == [d.name, data["criterion"], pays]


def test_each_deed_is_scored_by_its_own_plugin_only(new, engine):
    """Rulebook p. 13: each completed deed is revealed and scored by its own card: exactly one
    plugin answers ``darkroad_deed_score`` for a deed, and none for an unknown id."""
    t = new()
    ctx = t.ctx()
    impls = engine.pm.hook.darkroad_deed_score.get_hookimpls()
    for deed in [*DEED_IDS, "no_such_deed"]:
        answering = [i.plugin_name for i in impls if i.function(ctx=ctx, seat=0, deed=deed) is not None]
        assert answering == ([] if deed == "no_such_deed" else ["deed-" + deed.replace("_", "-")])


# -- every deed, met and unmet, through final scoring --------------------------------------


def region_cases(engine: Engine) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Two deliveries to a region (plus others elsewhere) vs three, commissions and heroes mixed."""
    towns = {"northern_patron": ("northbreak", "scorchborn", "windglass"),
             "western_patron": ("windglass", "farglen", "cursecairn"),
             "eastern_patron": ("cursecairn", "nightpoem", "northbreak")}
    out = {}
    for deed, (a, b, elsewhere) in towns.items():
        two = commissions_of(engine, a, 1) + commissions_of(engine, b, 1)
        unmet = {"delivered_commissions": two + commissions_of(engine, elsewhere, 3),
                 "delivered_heroes": heroes_of(engine, elsewhere, 2)}
        met = {"delivered_commissions": two, "delivered_heroes": heroes_of(engine, b, 1)}
        out[deed] = (unmet, met)
    return out


def cases(engine: Engine) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Deed -> (a wagon just short of the criterion, a wagon meeting it exactly)."""
    c = engine.content
    commissions = sorted(c.commissions)
    three_towns = [commissions_of(engine, t, 2)[1] for t in ("northbreak", "scorchborn", "windglass")]
    three_towns += commissions_of(engine, "northbreak", 1)
    one_each = [CompanionCard(card=f"{LOYAL}-1"), CompanionCard(card=f"{STRAY}-1")]
    return {
        "master_courier": ({"delivered_commissions": commissions[:4]},
                           {"delivered_commissions": commissions[:5]}),
        "hero_escort": ({"delivered_heroes": heroes_of(engine, "farglen", 2)},
                        {"delivered_heroes": heroes_of(engine, "farglen", 3)}),
        **region_cases(engine),
        "grand_tour": ({"delivered_commissions": three_towns},
                       {"delivered_commissions": three_towns,
                        "delivered_heroes": heroes_of(engine, "nightpoem", 1)}),
        "quartz_hoarder": ({"quartz": 2, "horseshoes": 1}, {"quartz": 3}),
        "lamplighter": ({"lanterns": 3}, {"lanterns": 4}),
        "full_wagon": ({"heroes": heroes_of(engine, "farglen", 2)},
                       {"heroes": heroes_of(engine, "farglen", 3)}),
        "fine_goods": ({"goods": ["potion+", "book+", "staff"]}, {"goods": ["potion+", "book+", "staff+"]}),
        "collector": ({"goods": ["potion", "staff+", "armor", "book", "weapon+", "potion+"]},
                      {"goods": ["potion", "staff+", "armor", "book", "weapon+", "instrument"]}),
        "companion_friend": ({"companions": one_each},
                             {"companions": [*one_each, CompanionCard(card=f"{LOYAL}-2")]}),
        "generous_patron": ({"companions": [CompanionCard(card=f"{LOYAL}-1", gifts=[0, 1]),
                                            CompanionCard(card=f"{STRAY}-1", gifts=[0])]},
                            {"companions": [CompanionCard(card=f"{LOYAL}-1", gifts=[0, 1]),
                                            CompanionCard(card=f"{LOYAL}-2", gifts=[1])]}),
        "heavy_purse": ({"coins": 19}, {"coins": 20}),
        "renowned": ({"prestige": 19}, {"prestige": 20}),
        "balanced_ledger": ({"coins": 10, "prestige": 14}, {"coins": 10, "prestige": 13}),
        "illuminated_scholar": ({"special": [4]}, {"special": [4, 0]}),
    }


STATE_DEEDS = [d for d in DEED_IDS if d not in ("perfect_delivery", "road_warden")]


@pytest.mark.parametrize("deed", STATE_DEEDS)
def test_deed_met_and_unmet_at_final_scoring(new, engine, deed):
    """Rulebook p. 13, Final Scoring, and p. 17, Deeds: a completed deed adds its coins and
    prestige before the lower of the two is taken, or its VP to the total; an incomplete
    one adds nothing. Criteria per docs/deeds.md."""
    unmet, met = cases(engine)[deed]
    t = new()
    assert scored(t, deed, **unmet) == NOTHING
    assert scored(t, deed, **met) == reward(engine, deed)


def test_deed_rewards_change_the_final_minimum(new, engine):
    """Rulebook p. 13, step 1: deed coins are added before comparing coins and prestige, so
    Renowned lifts a short purse into the base score; step 3: VP are added on top."""
    t = new()
    blank(t)
    t.setup_wagon(0, coins=14, prestige=22, special=[3, 5], deeds=["renowned", "illuminated_scholar"])
    line = score_seat(t.ctx(), 0)
    assert (line.coins, line.prestige, line.base) == (19, 22, 19)
    assert (line.deed_vp, line.illuminated_vp, line.total) == (3, 2, 24)
    assert line.details == ["Renowned: +5 coins", "Illuminated Scholar: +3 vp"]


def test_heavy_purse_and_renowned_read_totals_before_deeds(new, engine):
    """Rulebook p. 13, step 1: Western Patron's coins do not count towards Heavy Purse's 20
    coins (deeds are revealed together; thresholds read the totals before any deed)."""
    t = new()
    west = region_cases(engine)["western_patron"][1]
    gain = scored(t, "heavy_purse", coins=15, **west)
    assert gain == NOTHING
    t.setup_wagon(0, deeds=["heavy_purse", "western_patron"])
    assert deed_gain(t) == {"coins": 6, "prestige": 0, "vp": 0}


@pytest.mark.parametrize(("deed", "kind", "field"), [("lamplighter", "lanterns", "lanterns"),
                                                     ("quartz_hoarder", "inventory", "quartz")])
def test_slot_deeds_count_the_slots_the_wagon_has(new, engine, deed, kind, field):
    """Rulebook p. 19, Wagon Upgrades: a tile that goes in a lantern (inventory) slot leaves
    3 (2) slots; Lamplighter and Quartz Hoarder ask for a lantern (quartz) in each slot the
    wagon has."""
    t = new()
    blank(t)
    slots = t.ctx().capacity(0, kind)
    assert scored(t, deed, **{field: slots - 1}) == NOTHING
    assert scored(t, deed, **{field: slots - 1}, upgrades=[TILES[kind]]) == reward(engine, deed)


def test_hero_escort_slides(new, engine):
    """Rulebook p. 17, Deeds (reconstructed face): 3 VP for 3 delivered heroes, +1 VP per
    further hero, at most 6 VP."""
    t = new()
    heroes = heroes_of(engine, "windglass", 7)
    got = [scored(t, "hero_escort", delivered_heroes=heroes[:n])["vp"] for n in (2, 3, 4, 6, 7)]
    assert got == [0, 3, 4, 6, 6]


def test_fine_goods_slides(new, engine):
    """Rulebook p. 17, Deeds (reconstructed face): 4 coins for 3 upgraded goods held, +2 coins
    per further upgraded good, at most 8 coins; basic goods do not count."""
    t = new()
    goods = ["potion+", "book+", "staff+", "armor+", "weapon+", "instrument+"]
    got = [scored(t, "fine_goods", goods=goods[:n] + ["potion"] * 2)["coins"] for n in (2, 3, 4, 5, 6)]
    assert got == [0, 4, 6, 8, 8]


# -- history tracked through real deliveries and caravans ----------------------------------


def deliver(t: Table, seat: int, town: str, deliveries: list[str]) -> None:
    """The final travel's delivery step (p. 13) for ``seat`` alone: visit ``town``, make
    ``deliveries`` (delivery option ids), finish."""
    t.push("deliveries", -1, final=True, pending=[seat], town={})
    t.choose("deliveries", f"town:{town}", seat=seat)
    for option in deliveries:
        t.choose("deliveries", option, seat=seat)
    t.choose("deliveries", "done", seat=seat)


def test_perfect_delivery_counts_full_commissions(new, engine):
    """Rulebook p. 12, Deliveries: a commission takes 1 to 3 of its requested goods;
    Perfect Delivery (reconstructed face) counts those delivered with all 3."""
    t = new()
    blank(t)
    north = commissions_of(engine, "northbreak", 3)
    reqs = [engine.content.commissions[m].requests for m in north]
    t.setup_wagon(0, commissions=list(north), goods=[g for r in reqs for g in r], deeds=["perfect_delivery"])
    full = [f"commission:{m}:{','.join(r)}" for m, r in zip(north, reqs, strict=True)]
    partial = f"commission:{north[2]}:{','.join(reqs[2][:2])}"
    deliver(t, 0, "northbreak", [full[0], partial])
    assert counter(t, "full_deliveries", 0) == 1
    assert deed_gain(t) == NOTHING
    deliver(t, 0, "northbreak", [full[1]])
    assert counter(t, "full_deliveries", 0) == 2 and counter(t, "full_deliveries", 1) == 0
    assert len(t.game.players[0].delivered_commissions) == 3
    assert deed_gain(t) == reward(engine, "perfect_delivery")


def lead_caravan(t: Table, seat: int, town: str = "northbreak") -> None:
    """``seat`` activates Yurg's Excursions and leads a dark-road caravan to ``town``; nobody
    joins, nothing is delivered, the good fortune is coins."""
    depth = len(t.game.stack)
    t.district(seat, "yurgs_excursions")
    t.choose("yurgs_excursions", "caravan", seat=seat)
    preferred = ("no", "pass", "done", "coins", f"dark_road:{town}")
    while len(t.game.stack) > depth:
        who = t.awaiting[0]
        legal = t.legal(who)
        pick = next((a for a in legal if a.option in preferred), None)
        pick = pick or next((a for a in legal if a.option.startswith("take:")), legal[0])
        t.apply(pick)


def test_road_warden_counts_caravans_led(new, engine):
    """Rulebook p. 11, Yurg's Excursions: the player choosing a caravan leads it; the Ruins of
    Yin are no caravan, joining one is not leading it. Road Warden (reconstructed face):
    3 VP for 3 caravans led, +1 VP per further caravan, at most 5 VP."""
    t = new(players=3)
    blank(t)
    t.setup_wagon(0, deeds=["road_warden"])
    got = []
    for n in range(1, 7):
        lead_caravan(t, 0)
        t.setup_wagon(0, deeds=["road_warden"])  # an event may have dealt seat 0 another deed
        got.append(deed_gain(t)["vp"])
        assert counter(t, "caravans_led", 0) == n
    assert got == [0, 0, 3, 4, 5, 5]
    lead_caravan(t, 1)
    t.district(2, "yurgs_excursions")
    t.choose("yurgs_excursions", "ruins", seat=2)
    assert [counter(t, "caravans_led", s) for s in range(3)] == [6, 1, 0]


def test_tracked_history_stays_out_of_views_and_survives_a_reload(new, engine):
    """Rulebook p. 17: deeds are personal objectives; the bookkeeping behind them is not part
    of any player's view, and it is part of the saved game."""
    t = new()
    lead_caravan(t, 1)
    assert t.game.board.extra["_deeds"] == {"caravans_led": [0, 1]}
    for seat in (0, 1, None):
        assert "_deeds" not in engine.view(t.game, seat)["board"]["extra"]
    again = engine.loads(engine.dumps(t.game))
    assert again.board.extra["_deeds"] == {"caravans_led": [0, 1]}


def test_tracking_follows_whole_random_games(new, engine):
    """Rulebook pp. 11-13: over whole games (caravans, deliveries, the final travel) the
    counts kept for Perfect Delivery and Road Warden equal what the events show. Random
    play seldom delivers a full commission: games are played until one did."""
    seen = {"caravans_led": 0, "full_deliveries": 0}
    for seed in range(40):
        t = new(players=4, seed=seed)
        t.play(seed=seed)
        for seat in range(4):
            led = sum(1 for e in t.events_of("excursion") if e.seat == seat and e.data["choice"] == "caravan")
            full = sum(1 for e in t.events_of("commission_delivered")
                       if e.seat == seat and len(e.data["goods"]) == 3)
            assert (counter(t, "caravans_led", seat), counter(t, "full_deliveries", seat)) == (led, full)
            seen["caravans_led"] += led
            seen["full_deliveries"] += full
        if seen["full_deliveries"]:
            break
    assert seen["caravans_led"] and seen["full_deliveries"]


# -- the core's deed handling, with real deeds ------------------------------------------------


def good_fortune_deed(t: Table, seat: int, option: str) -> str:
    """``seat`` takes the deed good fortune (p. 13, step 4) and picks ``option``; returns the deed."""
    b = t.game.board
    expected = b.deed_deck[0] if option == "deed:deck" else b.courtyard[int(option.rsplit(":", 1)[1])]
    t.push("good_fortune", seat, left=1)
    t.choose("good_fortune", "deed", seat=seat)
    t.choose("choose_effect", option, seat=seat)
    assert expected in DEED_IDS
    return expected


def test_deed_from_courtyard_slot_one_gives_two_prestige(new):
    """Rulebook p. 17, Deeds: choose an available deed and gain the banner bonus next to its
    slot; the first slot's banner is 2 prestige (docs/content.md, "Courtyard banners")."""
    t = new()
    blank(t)
    deed = good_fortune_deed(t, 0, "deed:courtyard:0")
    p = t.game.players[0]
    assert p.deeds == [deed] and p.prestige == 12 and p.goods == []
    assert t.game.board.courtyard[0] is None
    public = t.events_of("deed_gained")[-1]
    private = t.events_of("deed_gained_private")[-1]
    assert "deed" not in public.data and private.private_to == 0 and private.data["deed"] == deed


def test_deed_from_courtyard_slot_two_gives_a_basic_good_and_a_horseshoe(new):
    """Rulebook p. 17, Deeds: "Gain the bonus listed in the banner next to that deed slot.
    Note that this is one way to gain horseshoes" (published rulebook, Hungarian-English
    edition); the prototype lists the banners as "two prestige or any basic good + 1
    horseshoe". The second slot's banner is 1 basic good of your choice and 1 horseshoe."""
    t = new()
    blank(t)
    horseshoes = t.game.players[0].horseshoes
    deed = good_fortune_deed(t, 0, "deed:courtyard:1")
    assert t.decision == "choose_effect"
    assert sorted(t.options(0)) == sorted(f"good:{g}" for g in t.engine.content.good_ids)
    t.choose("choose_effect", "good:book", seat=0)
    p = t.game.players[0]
    assert p.deeds == [deed] and p.goods == ["book"] and p.prestige == 10
    assert p.horseshoes == horseshoes + 1
    assert t.engine.view(t.game, 0)["board"]["courtyard_banners"] == [["prestige:2"], ["good:any", "horseshoe:1"]]


def test_deed_from_the_deck_gives_no_bonus(new):
    """Rulebook p. 17, Deeds: you may take the top card of the deed deck instead, with no bonus."""
    t = new()
    blank(t)
    courtyard = list(t.game.board.courtyard)
    deed = good_fortune_deed(t, 0, "deed:deck")
    p = t.game.players[0]
    assert p.deeds == [deed] and p.prestige == 10 and p.goods == [] and p.coins == 10
    assert t.game.board.courtyard == courtyard


def test_advanced_deeds_draw_two_keep_one(new):
    """Rulebook p. 5, Player Setup step 17: advanced players draw 2 deeds, keep 1 and return
    the other to the bottom of the deed deck."""
    t = new(players=2, seed=1, advanced_deeds=True)
    assert t.decision == "choose_starting_deed" and t.awaiting == [0]
    offered = t.options(0)
    assert len(offered) == 2 and set(offered) <= set(DEED_IDS)
    assert t.game.players[0].deeds == []
    t.choose("choose_starting_deed", offered[1], seat=0)
    assert t.game.players[0].deeds == [offered[1]]
    assert t.game.board.deed_deck[-1] == offered[0]
    assert t.decision == "choose_starting_deed" and t.awaiting == [1]
    t.choose("choose_starting_deed", t.options(1)[0], seat=1)
    b = t.game.board
    held = [d for p in t.game.players for d in p.deeds]
    assert len(held) == 2 and sorted(held + b.deed_deck + [d for d in b.courtyard if d]) == sorted(DEED_IDS)
    assert [e.private_to for e in t.events_of("deed_kept")] == [0, 1]


def test_deeds_are_hidden_until_the_end(new, engine):
    """Rulebook p. 17, Deeds: keep your deeds face down and do not reveal them until the game
    ends; p. 13: completed deeds are revealed at final scoring."""
    t = new(players=3)
    mine = engine.view(t.game, 0)["players"]
    assert mine[0]["deeds"] == t.game.players[0].deeds and mine[1]["deeds"] is None
    assert mine[1]["deed_count"] == 1
    spectator = engine.view(t.game, None)["players"]
    assert all(p["deeds"] is None for p in spectator)
    t.play(seed=3)
    assert all(p["deeds"] == t.game.players[p["seat"]].deeds for p in engine.view(t.game, None)["players"])
    revealed = {(e.seat, e.data["deed"]) for e in t.events_of("deed_revealed")}
    assert revealed == {(p.seat, d) for p in t.game.players for d in p.deeds}


def test_final_score_includes_deed_rewards(new, engine):
    """Rulebook p. 13, Final Scoring, after a real game: seat 0 ends the game holding a met
    Heavy Purse (prestige), a met Illuminated Scholar (VP) and an unmet Collector."""
    t = new(players=2, seed=5)
    t.play(until=lambda t: t.game.phase == "final_travel", seed=5)
    t.setup_wagon(0, coins=30, special=[1, 2], goods=[],
                  deeds=["heavy_purse", "illuminated_scholar", "collector"])
    t.play(seed=5)
    p, line = t.game.players[0], t.game.score[0]
    assert (line.coins, line.prestige, line.deed_vp) == (p.coins, p.prestige + 5, 3)
    assert line.total == min(p.coins, p.prestige + 5) + 3 + 2
    assert line.details == ["Heavy Purse: +5 prestige", "Illuminated Scholar: +3 vp", "Collector: not met"]
