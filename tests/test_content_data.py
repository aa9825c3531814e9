"""The base game's card data (plugins/basegame/data/*.json): counts, shapes and design rules.

These tests read the JSON directly, so they run without the package installed. The
card faces are a reconstruction (see docs/content.md); if you replace them with the
real faces, the rulebook facts below still hold, the design rules may need loosening.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

DATA = Path(__file__).parents[1] / "plugins/basegame/data"
FILES = ("goods", "towns", "heroes", "commissions", "events", "board")
WHEEL = ("potion", "staff", "armor", "book", "weapon", "instrument")
CLASS_TOWN = {
    "knight": "northbreak",
    "skirmisher": "scorchborn",
    "alchemist": "windglass",
    "bard": "farglen",
    "wizard": "cursecairn",
    "loremaster": "nightpoem",
}

# -- effect vocabulary -------------------------------------------------------------
_GOOD = "|".join(WHEEL)
EFFECT_RE = re.compile(
    rf"""^(?:
        (?:coins|prestige|lantern|quartz|horseshoe):[+-]?\d+
      | good:(?:{_GOOD}|any|value1|value5|craft)\+?
      | good:not_on_wheel
      | upgrade_good | downgrade_good | lose_good | lose_good:most_valuable
      | hero | lose_hero | commission | deed | illuminated
      | ruins | ruins:\d+ | dark_market:\d+ | ruins_die | illuminated_reroll | nothing
    )$""",
    re.VERBOSE,
)
# milder penalties, the only ones a shortcut event may carry
MILD_PENALTY_RE = re.compile(r"^(?:(?:coins|prestige|lantern|quartz|horseshoe):-1|lose_good|downgrade_good)$")


def is_effect(s: str) -> bool:
    return isinstance(s, str) and EFFECT_RE.match(s) is not None


def is_penalty(s: str) -> bool:
    m = re.match(r"^[a-z_]+:(-?\d+)$", s)
    if m and s.split(":")[0] in ("coins", "prestige", "lantern", "quartz", "horseshoe"):
        return int(m.group(1)) < 0
    return s in ("downgrade_good", "lose_good", "lose_good:most_valuable", "lose_hero")


def load(name: str) -> dict:
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def data() -> dict[str, dict]:
    return {name: load(name) for name in FILES}


def test_validator_itself():
    for ok in (
        "coins:-2",
        "prestige:3",
        "good:book+",
        "good:any",
        "good:value5+",
        "good:not_on_wheel",
        "good:craft+",
        "lose_good:most_valuable",
        "ruins:2",
        "dark_market:1",
        "nothing",
    ):
        assert is_effect(ok), ok
    for bad in (
        "coins",
        "coin:1",
        "good:sword",
        "good:not_on_wheel+",
        "ruins:-1",
        "gold:1",
        "lose_good:any",
        "",
    ):
        assert not is_effect(bad), bad
    assert is_penalty("coins:-1") and is_penalty("lose_hero") and not is_penalty("coins:2")


# -- goods ---------------------------------------------------------------------------
def test_goods_wheel_and_footprints(data):
    goods = data["goods"]["goods"]
    assert tuple(g["id"] for g in goods) == WHEEL
    fp = {g["id"]: sorted(map(tuple, g["footprint"])) for g in goods}
    assert fp["potion"] == [(0, 0)]
    assert fp["book"] == [(0, 0), (0, 1)]
    assert fp["staff"] == [(0, 0), (0, 1), (0, 2)]
    assert fp["instrument"] == [(0, 0), (1, 0), (1, 1)]
    assert fp["weapon"] == [(0, 0), (0, 1), (0, 2), (0, 3)]
    assert fp["armor"] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    for g in goods:
        assert g["name"]
        cells = fp[g["id"]]
        assert len(set(cells)) == len(cells) and all(0 <= r < 5 and 0 <= c < 6 for r, c in cells)


def test_crafting_chart_is_a_bijection(data):
    chart = data["goods"]["crafting_chart"]
    assert sorted(chart) == [str(v) for v in range(6)]
    assert sorted(chart.values()) == sorted(WHEEL)


# -- towns ---------------------------------------------------------------------------
def test_towns_and_regions(data):
    towns = {t["id"]: t for t in data["towns"]["towns"]}
    assert set(towns) == set(CLASS_TOWN.values())
    for cls, tid in CLASS_TOWN.items():
        assert towns[tid]["hero_class"] == cls
        assert all(is_effect(e) for e in towns[tid]["reward"])
    regions: dict[str, set[str]] = {}
    for t in towns.values():
        regions.setdefault(t["region"], set()).add(t["id"])
    assert sorted(map(sorted, regions.values())) == sorted(
        [["northbreak", "scorchborn"], ["farglen", "windglass"], ["cursecairn", "nightpoem"]]
    )
    assert towns["northbreak"]["reward"] == towns["scorchborn"]["reward"] == ["coins:2"]
    assert towns["windglass"]["reward"] == towns["farglen"]["reward"] == ["prestige:2"]
    assert (
        sorted(towns["cursecairn"]["reward"])
        == sorted(towns["nightpoem"]["reward"])
        == ["coins:1", "prestige:1"]
    )


# -- heroes --------------------------------------------------------------------------
def test_hero_counts(data):
    heroes = data["heroes"]["heroes"]
    assert len(heroes) == 48
    assert len({h["id"] for h in heroes}) == 48
    starting = [h for h in heroes if h.get("starting")]
    normal = [h for h in heroes if not h.get("starting")]
    assert len(starting) == 6 and len(normal) == 42
    assert Counter(h["hero_class"] for h in starting) == Counter({c: 1 for c in CLASS_TOWN})
    assert Counter(h["hero_class"] for h in normal) == Counter({c: 7 for c in CLASS_TOWN})


def test_hero_fields(data):
    for h in data["heroes"]["heroes"]:
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", h["id"]), h["id"]
        assert h["name"]
        assert h["town"] == CLASS_TOWN[h["hero_class"]], h["id"]
        assert 1 <= len(h["requests"]) <= 3, h["id"]
        assert len(set(h["requests"])) == len(h["requests"]), h["id"]
        assert set(h["requests"]) <= set(WHEEL), h["id"]
        assert h["bonus"] in ("lantern", "horseshoe", "storage", None), h["id"]
        assert isinstance(h["starting"], bool)


def test_hero_balance(data):
    normal = [h for h in data["heroes"]["heroes"] if not h["starting"]]
    # goods spread evenly over the requests
    counts = Counter(g for h in normal for g in h["requests"])
    mean = sum(counts.values()) / 6
    assert all(abs(counts[g] - mean) <= 3 for g in WHEEL), counts
    # more requests usually come with a weaker bonus: 1-request heroes all carry a token bonus,
    # and heroes without a bonus request 3 goods
    for h in normal:
        if len(h["requests"]) == 1:
            assert h["bonus"] in ("lantern", "horseshoe"), h["id"]
        if h["bonus"] is None:
            assert len(h["requests"]) == 3, h["id"]
    # every class has the same mix of bonuses
    mixes = {cls: sorted(str(h["bonus"]) for h in normal if h["hero_class"] == cls) for cls in CLASS_TOWN}
    assert len({tuple(m) for m in mixes.values()}) == 1, mixes


def test_starting_heroes_are_even(data):
    starting = [h for h in data["heroes"]["heroes"] if h["starting"]]
    # every starting hero gives a token at setup (no storage, no blank) ...
    assert all(h["bonus"] in ("lantern", "horseshoe") for h in starting)
    # ... one of each token per region, so the two heroes of a region differ only in the token
    towns = {t["id"]: t for t in load("towns")["towns"]}
    by_region: dict[str, list[str]] = {}
    for h in starting:
        by_region.setdefault(towns[h["town"]]["region"], []).append(h["bonus"])
    assert all(sorted(b) == ["horseshoe", "lantern"] for b in by_region.values()), by_region
    # same number of requests each, every good requested equally often
    assert {len(h["requests"]) for h in starting} == {2}
    assert set(Counter(g for h in starting for g in h["requests"]).values()) == {2}


def test_atlantes(data):
    heroes = {h["id"]: h for h in data["heroes"]["heroes"]}
    a = heroes["atlantes"]
    assert a["name"] == "Atlantes"
    assert a["hero_class"] == "wizard" and a["town"] == "cursecairn"
    assert sorted(a["requests"]) == sorted(["staff", "book", "potion"])
    assert a["bonus"] == "lantern" and a["starting"] is False


# -- commissions ---------------------------------------------------------------------
def test_commissions(data):
    comms = data["commissions"]["commissions"]
    assert len(comms) == 30
    assert len({m["id"] for m in comms}) == 30
    assert Counter(m["town"] for m in comms) == Counter({t: 5 for t in CLASS_TOWN.values()})
    for m in comms:
        assert re.fullmatch(rf"{m['town']}-[1-5]", m["id"]), m["id"]
        assert len(m["requests"]) == 3 and len(set(m["requests"])) == 3, m["id"]
        assert set(m["requests"]) <= set(WHEEL), m["id"]
    counts = Counter(g for m in comms for g in m["requests"])
    assert all(abs(counts[g] - 15) <= 3 for g in WHEEL), counts
    # no town repeats the same commission
    for town in CLASS_TOWN.values():
        sets = [frozenset(m["requests"]) for m in comms if m["town"] == town]
        assert len(set(sets)) == len(sets), town


def test_commission_rulebook_examples(data):
    comms = data["commissions"]["commissions"]
    have = {(m["town"], frozenset(m["requests"])) for m in comms}
    assert ("northbreak", frozenset({"weapon", "staff", "armor"})) in have  # Griffin's
    assert ("scorchborn", frozenset({"armor", "instrument", "potion"})) in have  # Brian's


# -- events --------------------------------------------------------------------------
def test_event_shape(data):
    events = data["events"]["events"]
    assert len(events) == 26
    assert len({e["id"] for e in events}) == 26
    assert Counter(e["route"] for e in events) == Counter({"dark_road": 13, "shortcut": 13})
    for e in events:
        assert e["name"] and e["flavor"].strip(), e["id"]
        assert sorted(e["faces"]) == [str(f) for f in range(1, 7)], e["id"]
        for face, effects in e["faces"].items():
            assert isinstance(effects, list) and effects, (e["id"], face)
            bad = [x for x in effects if not is_effect(x)]
            assert not bad, (e["id"], face, bad)


def _penalty_faces(e: dict) -> list[int]:
    return [int(f) for f, effs in e["faces"].items() if any(is_penalty(x) for x in effs)]


def test_dark_road_is_harsh(data):
    for e in (e for e in data["events"]["events"] if e["route"] == "dark_road"):
        pf = _penalty_faces(e)
        assert {1, 2} <= set(pf), e["id"]  # low faces hurt
        assert not set(pf) & {4, 5, 6}, e["id"]  # high faces reward
        assert "nothing" not in e["faces"]["6"], e["id"]


def test_shortcut_is_kinder(data):
    events = data["events"]["events"]
    for e in (e for e in events if e["route"] == "shortcut"):
        pf = _penalty_faces(e)
        assert len(pf) <= 1, e["id"]
        for f in pf:
            effs = e["faces"][str(f)]
            assert len(effs) == 1 and MILD_PENALTY_RE.match(effs[0]), (e["id"], f, effs)
    dark = sum(len(_penalty_faces(e)) for e in events if e["route"] == "dark_road")
    short = sum(len(_penalty_faces(e)) for e in events if e["route"] == "shortcut")
    assert dark >= 2 * short


def test_full_travel_example_event(data):
    events = {e["id"]: e for e in data["events"]["events"]}
    e = events["shortcut-wolves-at-the-ford"]
    assert e["route"] == "shortcut"
    assert e["faces"]["6"] == ["quartz:1"]
    assert e["faces"]["5"] == ["good:instrument+"]
    assert e["faces"]["4"] == ["lose_good"]


# -- board ---------------------------------------------------------------------------
def test_board(data):
    b = data["board"]
    assert set(b["dark_market"]) == {"north", "east", "west"}
    assert b["dark_market"]["east"] == ["book", "staff"]  # Andrea's example
    for pair in b["dark_market"].values():
        assert len(pair) == 2 and set(pair) <= set(WHEEL)
    assert set(b["ruins_tablet"]) == {"top_left", "top_right", "bottom_right", "bottom_left"}
    assert b["ruins_tablet"]["bottom_left"] == ["any"]
    for space in ("top_left", "top_right", "bottom_right"):
        pair = b["ruins_tablet"][space]
        assert len(pair) == 2 and len(set(pair)) == 2 and set(pair) <= set(WHEEL)
    assert b["ruins_die"] == ["ruins", "illuminated_reroll", "good:value1", "quartz:1", "coins:2", "hero"]
    assert b["courtyard_banners"] == [["prestige:2"], ["good:any", "horseshoe:1"]]
    assert all(
        is_effect(x) for x in b["ruins_die"] + [x for banner in b["courtyard_banners"] for x in banner]
    )
    assert b["good_fortune_coins"] == [5, 3]


def test_all_ids_unique_across_files(data):
    seen: Counter[str] = Counter()
    for name, key in (
        ("heroes", "heroes"),
        ("commissions", "commissions"),
        ("events", "events"),
        ("towns", "towns"),
    ):
        seen.update(f"{key}:{x['id']}" for x in data[name][key])
    assert not [k for k, n in seen.items() if n > 1]


# -- the real loader -----------------------------------------------------------------
def test_content_builds(data):
    content = pytest.importorskip("darkroad.core.content")
    c = content.Content.build([("basegame", data[name]) for name in FILES], [])
    assert c.good_ids == WHEEL
    assert len(c.heroes) == 48 and len(c.commissions) == 30 and len(c.events) == 26
    assert set(c.crafting_chart) == set(range(6))
    assert c.dark_market["east"] == ("book", "staff")
    assert sorted(c.region_towns("cursecairn")) == ["cursecairn", "nightpoem"]
