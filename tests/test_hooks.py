"""One test per hookspec: the engine calls each hook at the documented moment, with the
documented arguments, and honours the documented return.

Every test plays through the real engine with the test plugin ``tests/plugins/recorder_plugin.py``
(which implements every hook and logs each call of its implementations, arguments and
return value) registered on an engine of the test's own. The plugin's rule-point hooks
answer only when a test asks them to (``recorder.ask(game, hook)``); merged hooks are
checked together with a base game plugin answering the same hook, firstresult hooks with
the rulebook's default (or another plugin's answer) when the plugin returns ``None``.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from darkroad.core import (
    Caravan,
    Component,
    Ctx,
    Engine,
    GameConfig,
    Task,
    errors,
    hookimpl,
    make_plugin_manager,
)
from darkroad.core.context import BASE_CAPACITY
from darkroad.core.hookspecs import spec_names
from darkroad.core.rulebook.activate import connected_building
from darkroad.core.state import CompanionCard, PoolDie
from darkroad.core.steps import Choice, Option
from darkroad.core.testing import HookRecorder, Table

PLUGIN_FILE = Path(__file__).parent / "plugins" / "recorder_plugin.py"
PLUGIN_MODULE = "darkroad_tests_recorder_plugin"
# The folder ``tests/plugins`` would clash with the repository's ``plugins`` package on
# sys.path: load the test plugin from its file, under a name of its own.


def load_recorder() -> ModuleType:
    if PLUGIN_MODULE in sys.modules:
        return sys.modules[PLUGIN_MODULE]
    spec = importlib.util.spec_from_file_location(PLUGIN_MODULE, PLUGIN_FILE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[PLUGIN_MODULE] = module
    spec.loader.exec_module(module)
    return module


recorder = load_recorder()
RECORDER = ("recorder", recorder)
WITH_TOWER = ["test_tower", "blazing_quartz_mine", "oracle_of_lumi", "othos_lanternworks"]
"""Buildings in play when a test needs the plugin's building (one side of each tile)."""
EMPTY_WAGON: dict[str, Any] = dict(coins=0, prestige=0, lanterns=0, quartz=0, horseshoes=0, goods=[], heroes=[],
                                   commissions=[], steeds=[], deeds=[], special=[], upgrades=[], companions=[])


NIGHT_DICE = 7


_WITH_RECORDER: dict[str, Engine] = {}
"""The module's engine with the recorder plugin alone (``"engine"``), for :func:`new_table`."""


@pytest.fixture(scope="module")
def recorder_engine() -> Engine:
    """One engine with the recorder plugin for the module's tables without other plugins: a
    load is ~45 ms of CPU, and about 60 tables were an engine each. Their games tell their calls
    apart (the tests read the recorder's calls of their own game, and the hook calls a
    :class:`HookRecorder` attached to the table saw); tests of what a load calls load their own."""
    return Engine.load(extra=[RECORDER])


@pytest.fixture(autouse=True)
def fresh_log(recorder_engine: Engine) -> Iterator[None]:
    recorder.CALLS.clear()
    _WITH_RECORDER["engine"] = recorder_engine
    yield
    recorder_engine.monitors.clear()  # the tables' hook recorders, which would watch every later game


def new_table(*hooks: str, buildings: Iterable[str] = (), extra: Iterable[tuple[str, Any]] = (),
              players: int = 2, seed: int = 1, **wagon: Any) -> Table:
    """A new game with the recorder plugin (on the module's engine; with ``extra`` plugins, on an
    engine of its own), its hook calls recorded (``t.calls``), waiting for seat 0's plan
    decision; every wagon emptied, then seat 0 gets ``wagon`` (night dice put in its pool come
    out of its main reserve: 7 night dice in all). The recorder's rule-point ``hooks`` answer in
    this game."""
    extra = list(extra)
    if extra:
        t = Table.new(players=players, seed=seed, buildings=buildings, plugins=[RECORDER, *extra])
    else:
        engine = _WITH_RECORDER["engine"]
        calls = HookRecorder(engine)  # attached before the game is made, as to an engine of its own
        t = Table.new(players=players, seed=seed, buildings=buildings, engine=engine)
        t.recorder = calls
    for seat in range(players):
        t.setup_wagon(seat, **EMPTY_WAGON)
    t.setup_wagon(0, **wagon)
    keep_night_dice(t, 0)
    recorder.ask(t.game, *hooks)
    assert t.awaiting == [0] and t.decision == "plan"
    return t


def keep_night_dice(t: Table, seat: int) -> None:
    """Take night dice out of the main reserve, then the spent pile, or add spent dice, so
    that ``seat`` has its 7 night dice (the engine checks it after every action)."""
    p = t.game.players[seat]
    held = sum(v is not None for v in p.locked) + len(p.reserve) + p.spent + p.removed
    held += sum(d.kind == "night" for d in p.pool)
    extra = held - NIGHT_DICE
    while extra > 0 and p.reserve:
        p.reserve.pop()
        extra -= 1
    assert p.spent >= extra, "more night dice than a wagon holds"
    p.spent -= extra


def log(t: Table, hook: str) -> list[recorder.Call]:
    """The calls of the recorder's implementation of ``hook`` about ``t``'s game."""
    return recorder.calls(hook, t.game)


def answers(t: Table, type: str, seat: int = 0) -> list[str]:
    """The options of the pending decision ``type`` (without companion abilities)."""
    return [a.option for a in t.legal(seat) if a.type == type]


def only(calls: list[recorder.Call]) -> recorder.Call:
    assert len(calls) == 1, calls
    return calls[0]


def check_ctx(t: Table, call: recorder.Call) -> None:
    """The hook got a ``Ctx`` on the table's game."""
    assert isinstance(call.kwargs["ctx"], Ctx)
    assert call.kwargs["ctx"].game is t.game


def answered(t: Table, hook: str) -> list[Any]:
    """The answers of all plugins to the last call of a merged ``hook``, as the testing
    kit recorded them (sorted: never depend on the order of plugins)."""
    return sorted(t.calls(hook)[-1].result, key=repr)


def gained(t: Table, source: str, seat: int = 0) -> list[tuple[str, int]]:
    return [(e.data["resource"], e.data["amount"]) for e in t.events_of("gained")
            if e.seat == seat and e.data.get("source") == source and "resource" in e.data]


class Provides:
    """A second plugin contributing whatever a test gives it (duplicates, orphans)."""

    def __init__(self, content: dict[str, Any] | None = None, components: list[Component] | None = None,
                 steps: list[Any] | None = None) -> None:
        self.content, self.components, self.steps = content, components, steps

    @hookimpl
    def darkroad_content(self) -> dict[str, Any] | None:
        return self.content

    @hookimpl
    def darkroad_components(self) -> list[Component] | None:
        return self.components

    @hookimpl
    def darkroad_steps(self) -> list[Any] | None:
        return self.steps


# -- the meta tests ---------------------------------------------------------------------------


def test_every_hookspec_has_a_test() -> None:
    """Issue 3: a test fails when a hookspec lacks a test of its own (and a test named
    after a hook that no longer exists is stale)."""
    tests = {n.removeprefix("test_hook_") for n, f in globals().items() if n.startswith("test_hook_") and callable(f)}
    specs = set(spec_names())
    assert sorted(specs - tests) == [], "hookspecs without a test_hook_<name> test"
    assert sorted(n for n in tests - specs if not any(n.startswith(f"{s}_") for s in specs)) == [], \
        "test_hook_<name> tests of hooks that do not exist"


def test_recorder_plugin_implements_every_hook() -> None:
    """The test plugin implements every hookspec (and no other), accepting every argument."""
    pm = make_plugin_manager(entry_points=False, extra=[RECORDER]).pm
    implemented = {}
    for name in spec_names():
        impls = [i for i in getattr(pm.hook, name).get_hookimpls() if i.plugin_name == "recorder"]
        if impls:
            implemented[name] = impls[0]
    assert sorted(set(spec_names()) - set(implemented)) == []
    marked = sorted(n for n, f in vars(recorder).items() if hasattr(f, "darkroad_impl"))
    assert marked == sorted(spec_names())
    for name, impl in implemented.items():
        assert impl.argnames == getattr(pm.hook, name).spec.argnames, name


def test_table_records_the_hook_calls() -> None:
    """The testing kit (issue 5: "record every hook call"): a Table with an engine of its
    own records every rule-point hook call the engine makes, with its arguments."""
    t = new_table("darkroad_bazaar_discount", coins=10)
    t.district(0, "great_bazaar")
    t.choose("great_bazaar", "buy")
    assert only(log(t, "darkroad_bazaar_discount")).result == recorder.BAZAAR_DISCOUNT
    recorded = t.calls("darkroad_bazaar_discount")
    assert len(recorded) == 1, "Table.calls() did not record the engine's call of darkroad_bazaar_discount"
    assert recorded[0].kwargs["seat"] == 0
    assert recorder.BAZAAR_DISCOUNT in recorded[0].result
    seen_hooks = {c.hook for c in recorder.CALLS if "ctx" in c.kwargs and c.kwargs["ctx"].game is t.game}
    assert sorted(h for h in seen_hooks if not t.calls(h)) == []


# -- registration ------------------------------------------------------------------------------


def test_hook_darkroad_content() -> None:
    """Called once when the engine is built; packs of all plugins are merged; a duplicate
    id skips the later plugin, naming both (a strict load fails); ``None`` contributes nothing."""
    base = Engine.load()
    engine = Engine.load(extra=[RECORDER])
    call = only(recorder.calls("darkroad_content"))
    assert call.kwargs == {}
    test_commission = engine.content.commissions[recorder.COMMISSION]
    assert (test_commission.town, test_commission.requests) == ("northbreak", ("potion", "book", "staff"))
    assert set(engine.content.commissions) == set(base.content.commissions) | {recorder.COMMISSION}
    assert engine.content.good_ids == base.content.good_ids  # the base pack is still there
    t = new_table()
    assert recorder.COMMISSION in t.game.board.commission_stacks["northbreak"]
    assert "recorder" in t.game.config.plugins

    nothing = Engine.load(extra=[("nothing", Provides(content=None))])
    assert set(nothing.content.commissions) == set(base.content.commissions)

    dup = Provides(content={"commissions": [{"id": recorder.COMMISSION, "town": "farglen",
                                              "requests": ["potion"]}]})
    skipped = Engine.load(extra=[RECORDER, ("dup", dup)])
    assert skipped.content.commissions[recorder.COMMISSION].town == "northbreak"  # the first one's
    assert "dup" not in skipped.plugins.plugins and skipped.pm.get_plugin("dup") is None
    reason = skipped.plugins.failed["dup"]
    assert recorder.COMMISSION in reason and "'recorder'" in reason and "'dup'" in reason
    with pytest.raises(errors.PluginError) as exc:
        Engine.load(extra=[RECORDER, ("dup", dup)], strict=True)
    assert recorder.COMMISSION in str(exc.value)
    assert "'recorder'" in str(exc.value) and "'dup'" in str(exc.value)


def test_hook_darkroad_components() -> None:
    """Called once when the engine is built; the engine fills in ``plugin``; a duplicate
    component id fails the load, naming both plugins."""
    engine = Engine.load(extra=[RECORDER])
    assert only(recorder.calls("darkroad_components")).kwargs == {}
    comps = engine.content.components
    assert {c: (comps[c].kind, comps[c].plugin) for c in ("test_tower", "test_familiar", "test_deed")} == {
        "test_tower": ("building", "recorder"), "test_familiar": ("companion", "recorder"),
        "test_deed": ("deed", "recorder")}
    assert engine.content.companion_cards[recorder.FAMILIAR_CARD] == "test_familiar"
    catalog = {c["id"]: c for c in engine.catalog()}
    assert (catalog["test_tower"]["plugin"], catalog["test_tower"]["version"]) == ("recorder", recorder.__version__)
    assert catalog["brembizant"]["plugin"] == "steed-brembizant"

    # Playable: a fan building and a fan companion chosen for a game, the deed dealt.
    game, _ = engine.create(GameConfig(players=2, seed=1, buildings=WITH_TOWER, companions=["test_familiar"]))
    b = game.board
    assert sorted(b.buildings) == sorted(WITH_TOWER)
    assert recorder.FAMILIAR_CARD in [*b.companion_deck, *b.companion_row]
    assert "test_deed" in [*b.deed_deck, *b.courtyard, *(d for p in game.players for d in p.deeds)]
    assert game.config.plugins["recorder"] == recorder.__version__

    # A duplicate id names both plugins: the later one is skipped (or the load fails, strict).
    dup = Provides(components=[Component("building", "test_tower", "Another Tower")])
    with pytest.raises(errors.PluginError) as exc:
        Engine.load(extra=[RECORDER, ("dup", dup)], strict=True)
    assert "test_tower" in str(exc.value)
    assert "'recorder'" in str(exc.value) and "'dup'" in str(exc.value)
    skipped = Engine.load(extra=[RECORDER, ("dup", dup)])
    assert "'recorder'" in skipped.plugins.failed["dup"] and "dup" not in skipped.plugins.plugins
    assert skipped.content.components["test_tower"].plugin == "recorder"


def test_hook_darkroad_steps() -> None:
    """Called once when the engine is built; each step kind unique; a component pushes its
    step with ``ctx.push(kind, seat, **data)``."""
    engine = Engine.load(extra=[RECORDER])
    assert only(recorder.calls("darkroad_steps")).kwargs == {}
    assert isinstance(engine.steps[recorder.BELL], recorder.TowerBell)

    t = new_table()
    t.push(recorder.BELL, 0)
    assert t.decision == recorder.BELL and t.awaiting == [0]
    assert answers(t, recorder.BELL) == ["ring", "leave"]
    assert t.engine.decision(t.game)["prompt"] == "Test Tower: ring the bell?"
    t.choose(recorder.BELL, "ring")
    assert t.game.players[0].coins == 1 and t.decision == "plan"

    class Clash(Choice):
        kind = recorder.BELL

        def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
            return []

    with pytest.raises(errors.PluginError) as exc:
        Engine.load(extra=[RECORDER, ("clash", Provides(steps=[Clash()]))], strict=True)
    assert recorder.BELL in str(exc.value)
    skipped = Engine.load(extra=[RECORDER, ("clash", Provides(steps=[Clash()]))])
    assert recorder.BELL in skipped.plugins.failed["clash"]
    assert isinstance(skipped.steps[recorder.BELL], recorder.TowerBell)

    class CoreClash(Clash):
        kind = "plan"

    with pytest.raises(errors.PluginError):
        Engine.load(extra=[("clash", Provides(steps=[CoreClash()]))], strict=True)
    # The rulebook's steps are an essential plugin's: a clash names it as any plugin.
    assert Engine.load(extra=[("clash", Provides(steps=[CoreClash()]))]).plugins.failed["clash"] == \
        "step kind 'plan' is already defined by 'rulebook.plan'"


# -- setup ---------------------------------------------------------------------------------------


def test_hook_darkroad_bots() -> None:
    """Called once when the engine is built; the bots are listed by id with their plugin;
    ``darkroad simulate`` seats them; a duplicate id or a non-Bot skips the later plugin
    (a strict load fails)."""
    from darkroad.api.tools.simulation import simulate

    engine = Engine.load(extra=[RECORDER])
    assert only(recorder.calls("darkroad_bots")).kwargs == {}
    assert isinstance(engine.bots["test_first"], recorder.FirstBot)
    assert engine.bot_plugins["test_first"] == "recorder"
    assert {"random", "greedy"} <= set(engine.bots)  # the base game's, from their own plugins

    t = new_table()
    legal = t.legal(0)
    with pytest.warns(DeprecationWarning, match=r"Bot\.choose"):  # a fan bot's old entry point still answers
        assert t.engine.bots["test_first"].choose(t.engine, t.game, 0, legal) == legal[0]
    out = simulate(engine, 1, 2, seed=5, bots=["test_first", "random"])
    assert out["completed"] == 1 and set(out["win_rate_by_bot"]) == {"test_first", "random"}

    class Again(recorder.FirstBot):
        pass

    with pytest.raises(errors.PluginError, match="test_first"):
        Engine.load(extra=[RECORDER, ("again", SimpleNamespace(darkroad_bots=hookimpl(lambda: [Again()])))],
                    strict=True)
    skipped = Engine.load(extra=[RECORDER, ("again", SimpleNamespace(darkroad_bots=hookimpl(lambda: [Again()])))])
    assert "'recorder'" in skipped.plugins.failed["again"] and type(skipped.bots["test_first"]) is recorder.FirstBot
    nonsense = Engine.load(extra=[("nonsense", SimpleNamespace(darkroad_bots=hookimpl(lambda: ["greedy"])))])
    assert "not a Bot" in nonsense.plugins.failed["nonsense"]


def test_hook_darkroad_seat_kinds() -> None:
    """Called once when the engine is built; a seat kind takes the seats its game options
    ask for: the engine never awaits them, the kind's steps make their turns, the kind
    answers their decisions, shows their public state and scores them. A duplicate id, a
    game option another plugin reads, or something that is not a SeatKind skips the later
    plugin (a strict load fails)."""
    engine = Engine.load(extra=[RECORDER])
    assert only(recorder.calls("darkroad_seat_kinds")).kwargs == {}
    assert isinstance(engine.seat_kinds["test_peddler"], recorder.Peddler)
    assert engine.seat_kind_plugins["test_peddler"] == "recorder"
    assert engine.seat_kind_plugins["private_concern"] == "private-concern"  # the base game's, a plugin too

    t = Table.new(players=3, seed=4, engine=engine, test_peddler=True)  # its seat: the last one by default
    assert t.game.config.options == {"test_peddler": True}
    assert [p.kind for p in t.game.players] == ["human", "human", "test_peddler"]
    assert "recorder" in t.game.config.plugins
    assert t.engine.view(t.game, 0)["config"]["test_peddler"] == 2
    seen_seats: set[int] = set()
    t.play(until=lambda t: bool(seen_seats.update(t.awaiting)) or t.game.finished, seed=4)
    assert t.game.finished and 2 not in seen_seats and t.legal(2) == []
    sold = t.events_of(recorder.PEDDLER_SOLD)
    assert len(sold) == 13 and {e.seat for e in sold} == {2}  # one turn per round
    peddler = t.game.players[2]
    assert peddler.extra["test_peddler"] == {"turns": 13} and peddler.steeds == []
    view = t.engine.view(t.game, 0)["players"][2]
    assert view["peddler"] == {"turns": 13} and view["kind"] == "test_peddler" and view["storage"] is None
    line = next(s for s in t.game.score if s.seat == 2)
    assert line.total == peddler.coins and line.details == [f"{peddler.coins} coins"]

    with pytest.raises(errors.BadConfig, match="test_peddler_seat needs test_peddler"):
        engine.create(GameConfig(players=3, options={"test_peddler_seat": 1}))
    with pytest.raises(errors.BadConfig, match="unknown option"):
        engine.create(GameConfig(players=3, options={"test_pedler": True}))
    with pytest.raises(errors.BadConfig, match="cannot be both"):
        engine.create(GameConfig(players=3, options={"test_peddler": True, "private_concern": True}))

    class Again(recorder.Peddler):
        pass

    again = ("again", SimpleNamespace(darkroad_seat_kinds=hookimpl(lambda: [Again()])))
    with pytest.raises(errors.PluginError, match="test_peddler"):
        Engine.load(extra=[RECORDER, again], strict=True)
    skipped = Engine.load(extra=[RECORDER, again])
    assert "'recorder'" in skipped.plugins.failed["again"] and type(skipped.seat_kinds["test_peddler"]) is recorder.Peddler

    class Players(recorder.Peddler):
        id = "players"  # its game option would be GameConfig.players

    clash = Engine.load(extra=[("clash", SimpleNamespace(darkroad_seat_kinds=hookimpl(lambda: [Players()])))])
    assert "game option 'players'" in clash.plugins.failed["clash"] and "players" not in clash.seat_kinds
    nonsense = Engine.load(extra=[("nonsense", SimpleNamespace(darkroad_seat_kinds=hookimpl(lambda: ["pc"])))])
    assert "not a SeatKind" in nonsense.plugins.failed["nonsense"]


def test_hook_darkroad_event_types() -> None:
    """Called once when the engine is built; the event types are listed with their plugin.
    The base game's plugins' events are typed one by one in the event schema, a fan
    plugin's share its open variant (the document does not change with the plugins a
    server installs). An event type the core or another plugin documents, or a value that
    is not an EventType, skips the later plugin."""
    engine = Engine.load(extra=[RECORDER])
    assert only(recorder.calls("darkroad_event_types")).kwargs == {}
    plugin, spec = engine.event_types[recorder.PEDDLER_SOLD]
    assert plugin == "recorder" and spec.fields() == {"coins": {"type": "integer"}}
    assert engine.event_types["concern_card"][0] == "private-concern"
    typed = {v["properties"]["type"].get("const") for v in engine.event_schema()["oneOf"]}
    assert "concern_card" in typed and recorder.PEDDLER_SOLD not in typed and "moved" in typed

    def documenting(event: str, spec: Any) -> tuple[str, Any]:
        return ("doc", SimpleNamespace(darkroad_event_types=hookimpl(lambda: {event: spec})))

    core = Engine.load(extra=[documenting("moved", recorder.EventType("Moved again."))])
    assert "'moved' is already documented" in core.plugins.failed["doc"]
    twice = Engine.load(extra=[RECORDER, documenting(recorder.PEDDLER_SOLD, recorder.EventType("Again."))])
    assert "'recorder'" in twice.plugins.failed["doc"] and twice.event_types[recorder.PEDDLER_SOLD][0] == "recorder"
    bad = Engine.load(extra=[documenting("doc_event", "a description")])
    assert "not an event type -> EventType" in bad.plugins.failed["doc"]


def test_hook_darkroad_setup() -> None:
    """Called once at the end of game setup (board and wagons ready), before the first
    decision; it may keep plugin state in ``board.extra``."""
    t = Table.new(players=3, seed=4, plugins=[RECORDER])
    call = only(log(t, "darkroad_setup"))
    check_ctx(t, call)
    assert set(call.kwargs) == {"ctx"}
    [seen] = recorder.seen_in(t.game, "darkroad_setup")
    assert seen["players"] == 3
    assert seen["buildings"] == t.game.board.buildings and len(seen["buildings"]) == 4
    assert all(len(d) == 1 for d in seen["deeds"])  # wagons dealt
    assert seen["round"] == 0 and seen["stack"][0] == "turn"  # the first turn has not started
    assert not seen["started"]
    assert t.game.round == 1 and t.decision == "plan"  # the first decision came after it
    assert [e.type for e in t.events].count("game_started") == 1


# -- plan / move / activate --------------------------------------------------------------------------


def test_hook_darkroad_slot_action() -> None:
    """Called after a die left a locked slot during Plan with ``slot`` and ``last_rounds``;
    ``True`` replaces the rulebook's action, ``None`` leaves it. Stops at first non-None."""
    t = new_table("darkroad_slot_action")
    v = t.game.players[0].reserve[0]
    t.choose("plan", f"bump:2:{v}")
    call = only(log(t, "darkroad_slot_action"))
    check_ctx(t, call)
    assert {k: call.kwargs[k] for k in ("seat", "slot", "last_rounds")} == {"seat": 0, "slot": 2, "last_rounds": False}
    assert call.result is True
    assert gained(t, recorder.SOURCE) == [("coins", recorder.SLOT_ACTION_COINS)]
    assert t.decision != "slot2"  # the rulebook's slot #2 action was replaced

    # The last 3 rounds: the main reserve is empty, a locked die is taken.
    t = new_table("darkroad_slot_action", reserve=[], spent=4)
    t.choose("plan", "take:3")
    call = only(log(t, "darkroad_slot_action"))
    assert (call.kwargs["slot"], call.kwargs["last_rounds"]) == (3, True)
    assert t.decision != "slot3"

    # Not answering: the rulebook's action.
    t = new_table()
    t.choose("plan", f"bump:2:{t.game.players[0].reserve[0]}")
    assert only(log(t, "darkroad_slot_action")).result is None
    assert t.decision == "slot2"

    # The recorder's None leaves another plugin's True (the Merchant's Ledger in slot #3).
    t = new_table(upgrades=["merchants_ledger"])
    t.choose("plan", f"bump:3:{t.game.players[0].reserve[0]}")
    assert only(log(t, "darkroad_slot_action")).result is None
    assert t.decision == "merchants_ledger_reward"


def test_hook_darkroad_movement_options() -> None:
    """Called when the Move decision is enumerated; the distances of all plugins are merged
    with the action-pool dice."""
    t = new_table("darkroad_movement_options", steeds=["sugarfoot"], position=0,
                  pool=[PoolDie(kind="night", value=1)])
    t.game.active = 0
    t.push("move", 0)
    # The pool's 1, Sugarfoot's 3 and the recorder's 4.
    assert answers(t, "move") == ["move:1", "move:3", f"move:{recorder.MOVEMENT}"]
    call = log(t, "darkroad_movement_options")[-1]
    check_ctx(t, call)
    assert (call.kwargs["seat"], call.result) == (0, [recorder.MOVEMENT])
    assert answered(t, "darkroad_movement_options") == [[3], [recorder.MOVEMENT]]
    t.choose("move", f"move:{recorder.MOVEMENT}")
    assert t.game.players[0].position == recorder.MOVEMENT

    t = new_table(position=0, pool=[PoolDie(kind="night", value=1)])
    t.game.active = 0
    t.push("move", 0)
    assert answers(t, "move") == ["move:1"]


def test_hook_darkroad_building_targets() -> None:
    """Called when the Activate decision is enumerated with an illuminated die in the pool,
    with the ``connected`` building (``None`` at the start space); the ids of all plugins
    are merged (buildings in play only)."""
    dice = [PoolDie(kind="night", value=1), PoolDie(kind="illuminated", value=2)]
    t = new_table("darkroad_building_targets", buildings=WITH_TOWER, position=0, pool=list(dice))
    t.game.active = 0
    t.push("activate", 0)
    call = log(t, "darkroad_building_targets")[-1]
    check_ctx(t, call)
    assert (call.kwargs["seat"], call.kwargs["connected"]) == (0, None)
    assert [o for o in answers(t, "activate") if o.startswith("building:")] == ["building:test_tower"]
    t.choose("activate", "building:test_tower")
    assert log(t, "darkroad_activate_building")[-1].kwargs["building"] == "test_tower"
    assert t.decision == recorder.BELL

    # Next to another building: the connected one, the recorder's, and Longshadow's (merged, no repeats).
    t = new_table("darkroad_building_targets", buildings=WITH_TOWER, steeds=["longshadow"], pool=list(dice))
    here = next(s for s in range(1, 5) if connected_building(t.ctx(), s) != "test_tower")
    t.setup_wagon(0, position=here)
    t.game.active = 0
    t.push("activate", 0)
    call = log(t, "darkroad_building_targets")[-1]
    assert call.kwargs["connected"] == connected_building(t.ctx(), here)
    assert answered(t, "darkroad_building_targets") == sorted([list(t.game.board.buildings), ["test_tower"]],
                                                                key=repr)
    targets = [o for o in answers(t, "activate") if o.startswith("building:")]
    assert targets[0] == f"building:{connected_building(t.ctx(), here)}"
    assert sorted(targets) == sorted(f"building:{b}" for b in t.game.board.buildings)

    t = new_table("darkroad_building_targets", buildings=WITH_TOWER, pool=list(dice))
    t.setup_wagon(0, position=here)
    t.game.active = 0
    t.push("activate", 0)
    assert [o for o in answers(t, "activate") if o.startswith("building:")] == [
        f"building:{connected_building(t.ctx(), here)}", "building:test_tower"]

    # A building not in play is never offered.
    t = new_table("darkroad_building_targets", position=0, pool=list(dice))
    assert "test_tower" not in t.game.board.buildings
    t.game.active = 0
    t.push("activate", 0)
    assert log(t, "darkroad_building_targets")[-1].result == ["test_tower"]
    assert [o for o in answers(t, "activate") if o.startswith("building:")] == []

    # Without an illuminated die the hook is not asked.
    t = new_table("darkroad_building_targets", buildings=WITH_TOWER, position=0, pool=dice[:1])
    t.game.active = 0
    t.push("activate", 0)
    assert log(t, "darkroad_building_targets") == []


def test_hook_darkroad_activate_building() -> None:
    """Resolves an activation: the plugin providing the building pushes its steps and
    returns True; others return None. Stops at first non-None result."""
    dice = [PoolDie(kind="night", value=1), PoolDie(kind="illuminated", value=2)]
    t = new_table(buildings=WITH_TOWER, pool=list(dice))
    t.setup_wagon(0, position=t.game.board.buildings.index("test_tower") + 1)
    t.game.active = 0
    t.push("activate", 0)
    t.choose("activate", "building:test_tower")
    call = only(log(t, "darkroad_activate_building"))
    check_ctx(t, call)
    assert (call.kwargs["seat"], call.kwargs["building"], call.result) == (0, "test_tower", True)
    assert t.decision == recorder.BELL
    t.choose(recorder.BELL, "ring")
    assert t.game.players[0].coins == 1

    # A base game building: the recorder answers None, the building's own plugin resolves it.
    t = new_table(buildings=WITH_TOWER, pool=list(dice))
    t.setup_wagon(0, position=t.game.board.buildings.index("blazing_quartz_mine") + 1)
    t.game.active = 0
    t.push("activate", 0)
    t.choose("activate", "building:blazing_quartz_mine")
    assert only(log(t, "darkroad_activate_building")).result is None
    assert t.game.players[0].quartz == 1

    # No plugin resolves it: the action fails as a plugin error.
    orphan = Provides(components=[Component("building", "test_orphan", "Orphan")])
    t = new_table(buildings=["test_orphan", *WITH_TOWER[1:]], extra=[("orphan", orphan)], pool=list(dice))
    t.setup_wagon(0, position=t.game.board.buildings.index("test_orphan") + 1)
    t.game.active = 0
    t.push("activate", 0)
    with pytest.raises(errors.PluginError, match="test_orphan"):
        t.choose("activate", "building:test_orphan")
    assert only(log(t, "darkroad_activate_building")).result is None


def test_hook_darkroad_bazaar_discount() -> None:
    """Called once per visit to the Great Bazaar, before buying; the answers are added up
    and come off the visit's total cost, which never goes below zero."""
    t = new_table("darkroad_bazaar_discount", steeds=["brembizant"], coins=10)
    ctx = t.ctx()
    by_value = {ctx.value(g): g for i, g in enumerate(t.engine.content.good_ids) if t.game.board.market[i]}
    assert {2, 5} <= set(by_value)
    t.district(0, "great_bazaar")
    assert log(t, "darkroad_bazaar_discount") == []  # not before going buying
    t.choose("great_bazaar", "buy")
    call = only(log(t, "darkroad_bazaar_discount"))
    check_ctx(t, call)
    assert (call.kwargs["seat"], call.result) == (0, recorder.BAZAAR_DISCOUNT)
    assert answered(t, "darkroad_bazaar_discount") == [recorder.BAZAAR_DISCOUNT, 2]
    assert t.game.stack[-1].data["discount"] == 3  # the recorder's 1 and Brembizánt's 2
    t.choose("bazaar_buy", f"buy:{by_value[2]}")  # $2 - $3: free, not negative
    t.choose("bazaar_buy", f"buy:{by_value[5]}")  # the remaining $1 off
    assert [e.data["cost"] for e in t.events_of("bought")] == [0, 4]
    assert t.game.players[0].coins == 6
    assert len(log(t, "darkroad_bazaar_discount")) == 1  # once per visit

    t = new_table(coins=10)
    t.district(0, "great_bazaar")
    t.choose("great_bazaar", "buy")
    assert only(log(t, "darkroad_bazaar_discount")).result is None
    assert t.game.stack[-1].data["discount"] == 0


def test_hook_darkroad_excursion() -> None:
    """Called right after the choice at Yurg's Excursions, before anything else of it
    resolves; what the plugin pushes resolves first."""
    for choice, first in (("ruins", "ruins_move"), ("caravan", "caravan_companion")):
        t = new_table("darkroad_excursion")
        ruins = t.game.board.ruins
        t.district(0, "yurgs_excursions")
        assert log(t, "darkroad_excursion") == []
        t.choose("yurgs_excursions", choice)
        call = only(log(t, "darkroad_excursion"))
        check_ctx(t, call)
        assert (call.kwargs["seat"], call.kwargs["choice"]) == (0, choice)
        assert recorder.seen_in(t.game, "darkroad_excursion") == [
            {"choice": choice, "top": first, "ruins": ruins, "companions": 0, "caravan": False}]
        assert gained(t, recorder.SOURCE) == [("coins", 1)]
        assert t.decision == first


def test_hook_darkroad_ruins_die_cost() -> None:
    """The lanterns paid to roll the ruins die: the plugin's answer, else the rulebook's 1.
    Stops at first non-None result."""
    t = new_table("darkroad_ruins_die_cost", lanterns=recorder.RUINS_DIE_COST)
    t.push("ruins_die_offer", 0)
    assert answers(t, "ruins_die_offer") == ["roll", "skip"]
    call = log(t, "darkroad_ruins_die_cost")[-1]
    check_ctx(t, call)
    assert (call.kwargs["seat"], call.result) == (0, recorder.RUINS_DIE_COST)
    t.choose("ruins_die_offer", "roll")
    assert [e.data["amount"] for e in t.events_of("paid") if e.data["source"] == "ruins die"] == [2]
    assert t.events_of("ruins_die_rolled")

    t = new_table("darkroad_ruins_die_cost", lanterns=1)  # cannot pay 2: no offer
    t.push("ruins_die_offer", 0)
    assert t.decision == "plan"

    t = new_table(lanterns=1)  # the rulebook's 1
    t.push("ruins_die_offer", 0)
    assert log(t, "darkroad_ruins_die_cost")[-1].result is None
    t.choose("ruins_die_offer", "roll")
    assert [e.data["amount"] for e in t.events_of("paid") if e.data["source"] == "ruins die"] == [1]

    t = new_table(upgrades=["ruins_lantern"])  # the recorder's None leaves the tile's 0
    t.push("ruins_die_offer", 0)
    assert answers(t, "ruins_die_offer") == ["roll", "skip"]


# -- caravans ---------------------------------------------------------------------------------------


def lead_caravan(t: Table, route: str = "dark_road", town: str = "northbreak", join: bool = False) -> None:
    """Seat 0 leads a caravan from Yurg's Excursions, alone (``join``: stop when seat 1 is
    asked to join), up to its travel die."""
    t.district(0, "yurgs_excursions")
    t.choose("yurgs_excursions", "caravan")
    t.choose("caravan_companion", startswith="row:")
    t.choose("caravan_route", f"{route}:{town}")
    if join:
        return
    for other in range(1, len(t.game.players)):
        t.choose("caravan_join", "no", seat=other)
    assert t.decision == "travel_die"


def test_hook_darkroad_shortcut_cost() -> None:
    """The lanterns the caravan leader pays for a shortcut: the plugin's answer, else the
    rulebook's 3. Stops at first non-None result."""
    t = new_table("darkroad_shortcut_cost", lanterns=1)
    t.district(0, "yurgs_excursions")
    t.choose("yurgs_excursions", "caravan")
    t.choose("caravan_companion", startswith="row:")
    assert "shortcut:northbreak" in answers(t, "caravan_route")
    call = log(t, "darkroad_shortcut_cost")[-1]
    check_ctx(t, call)
    assert (call.kwargs["seat"], call.result) == (0, recorder.SHORTCUT_COST)
    t.choose("caravan_route", "shortcut:northbreak")
    assert t.game.players[0].lanterns == 0
    assert t.game.turn.caravan is not None and t.game.turn.caravan.route == "shortcut"

    for lanterns, offered in ((2, False), (3, True)):  # the rulebook's 3
        t = new_table(lanterns=lanterns)
        t.district(0, "yurgs_excursions")
        t.choose("yurgs_excursions", "caravan")
        t.choose("caravan_companion", startswith="row:")
        assert ("shortcut:northbreak" in answers(t, "caravan_route")) is offered
        assert log(t, "darkroad_shortcut_cost")[-1].result is None


def test_hook_darkroad_travel_die_bonus() -> None:
    """Called when the travel-die decision is enumerated; every bonus of every plugin is an
    extra option for every die, the face capped at 6."""
    t = new_table("darkroad_travel_die_bonus", steeds=["whisper"])
    lead_caravan(t)
    assert t.game.turn.caravan is not None
    t.game.turn.caravan.dice = [3, 5]
    # Whisper's +1 and the recorder's +2; 5 + 2 is capped at 6, which 5 + 1 already gives.
    assert answers(t, "travel_die") == ["take:3", "take:3:+1", "take:3:+2", "take:5", "take:5:+1"]
    call = log(t, "darkroad_travel_die_bonus")[-1]
    check_ctx(t, call)
    assert (call.kwargs["seat"], call.result) == (0, [recorder.TRAVEL_DIE_BONUS])
    assert answered(t, "darkroad_travel_die_bonus") == [[1], [recorder.TRAVEL_DIE_BONUS]]
    t.choose("travel_die", "take:3:+2")
    assert [(e.data["die"], e.data["face"]) for e in t.events_of("travel_die_taken")] == [(3, 5)]

    t = new_table()
    lead_caravan(t)
    assert t.game.turn.caravan is not None
    t.game.turn.caravan.dice = [3]
    assert answers(t, "travel_die") == ["take:3"]


def deliveries(t: Table, town: str) -> None:
    """Seat 0 visits ``town`` in the final travel."""
    t.push("deliveries", -1, final=True, pending=[0], town={})
    t.choose("deliveries", f"town:{town}")


def test_hook_darkroad_commission_delivered() -> None:
    """Called after the prestige of a delivered commission was gained, with the goods
    delivered (``"+"`` = upgraded); the return value is ignored."""
    t = new_table("darkroad_commission_delivered")
    c = t.engine.content
    m = next(m for m in sorted(c.commissions) if c.commissions[m].town == "northbreak")
    first, second, _ = c.commissions[m].requests
    goods = [f"{first}+", second]
    t.setup_wagon(0, commissions=[m], goods=goods)
    deliveries(t, "northbreak")
    t.choose("deliveries", f"commission:{m}:{','.join(goods)}")
    call = only(log(t, "darkroad_commission_delivered"))
    check_ctx(t, call)
    assert {k: call.kwargs[k] for k in ("seat", "commission", "goods")} == {"seat": 0, "commission": m,
                                                                            "goods": goods}
    assert recorder.seen_in(t.game, "darkroad_commission_delivered") == [
        {"prestige": 4, "goods": [], "delivered": [m], "commissions": []}]  # 3 for 2 goods, +1 upgraded
    assert t.game.players[0].prestige == 4
    assert gained(t, recorder.SOURCE) == [("coins", 1)]


def deliver_windglass_hero(t: Table) -> str:
    hero = next(h for h in sorted(t.engine.content.heroes) if t.engine.content.heroes[h].town == "windglass")
    assert t.engine.content.towns["windglass"].reward == ("prestige:2",)
    t.setup_wagon(0, heroes=[hero])
    deliveries(t, "windglass")
    t.choose("deliveries", f"hero:{hero}")
    return hero


def test_hook_darkroad_hero_delivered() -> None:
    """Called when ``seat`` delivered ``hero`` to its town; the return value is ignored.
    What the plugin pushes resolves after the region reward."""
    t = new_table("darkroad_hero_delivered")
    hero = deliver_windglass_hero(t)
    call = only(log(t, "darkroad_hero_delivered"))
    check_ctx(t, call)
    assert (call.kwargs["seat"], call.kwargs["hero"]) == (0, hero)
    [seen] = recorder.seen_in(t.game, "darkroad_hero_delivered")
    assert (seen["heroes"], seen["delivered"]) == ([], [hero])
    # Windglass rewards 2 prestige; the plugin's quartz comes after it.
    rewards = [(e.data["resource"], e.data["source"]) for e in t.events_of("gained")
               if e.data.get("source") in (f"deliver:{hero}", recorder.SOURCE)]
    assert rewards == [("prestige", f"deliver:{hero}"), ("quartz", recorder.SOURCE)]
    assert (t.game.players[0].prestige, t.game.players[0].quartz) == (2, 1)


def test_hook_darkroad_hero_delivered_after_the_region_reward() -> None:
    """hookspecs: "called once the region reward was gained": a plugin reading the wagon
    in the hook sees the reward gained."""
    t = new_table("darkroad_hero_delivered")
    deliver_windglass_hero(t)
    [seen] = recorder.seen_in(t.game, "darkroad_hero_delivered")
    assert seen["prestige"] == 2


# -- wagon -------------------------------------------------------------------------------------------


SEVEN_ARMORS = ["armor"] * 7
"""28 cells: at most 6 2x2 tiles fit the 6x5 grid."""


# -- effects and gains --------------------------------------------------------------------------------


def test_hook_darkroad_resolve_effect() -> None:
    """Called for every effect (``ctx.gain_effects``, the option of a choice of effects,
    ``ctx.resolve_effect``), split into verb and arg; a plugin's answer comes before the
    rulebook's, which answers last and knows every verb of the language; a verb nobody
    resolves is an error. Stops at first non-None result."""
    t = new_table()
    assert t.engine.hook_impls["darkroad_resolve_effect"][-1][0] == "rulebook.effects"  # the rulebook last
    t.run(lambda ctx: ctx.gain_effects(0, [f"{recorder.GLOW}:2", "coins:3", "hero"], source="test"))
    seen = [(c.kwargs["seat"], c.kwargs["verb"], c.kwargs["arg"], c.kwargs["source"], c.result)
            for c in log(t, "darkroad_resolve_effect")]
    assert seen == [(0, recorder.GLOW, "2", "test", True), (0, "coins", "3", "test", None), (0, "hero", "", "test", None)]
    check_ctx(t, log(t, "darkroad_resolve_effect")[0])
    p = t.game.players[0]
    assert (p.lanterns, p.coins) == (2, 3)  # its own verb; the rulebook's coins
    assert t.decision == "choose_effect"  # the rulebook's abstract "hero": a choice
    hero = t.game.board.inn[0]
    t.choose("choose_effect", "hero:inn:0")
    assert log(t, "darkroad_resolve_effect")[-1].kwargs["arg"] == "inn:0" and p.heroes == [hero]
    with pytest.raises(ValueError, match="unknown effect 'no_such_verb:1'"):
        t.run(lambda ctx: ctx.resolve_effect(0, "no_such_verb:1"))

    t = new_table("darkroad_resolve_effect")  # asked: its coins come as prestige, for every seat
    t.run(lambda ctx: ctx.gain_effects(0, ["coins:3", "lantern:1"], source="test"))
    p = t.game.players[0]
    assert (p.coins, p.prestige, p.lanterns) == (0, 3, 1)


def _heroes(t: Table, bonus: str | None, n: int) -> list[str]:
    heroes = t.engine.content.heroes
    return [h for h in sorted(heroes) if not heroes[h].starting and heroes[h].bonus == bonus][:n]


def test_hook_darkroad_gain_hero() -> None:
    """Called whenever a hero joins a wagon (``ctx.gain_hero``); the rulebook answers last: the
    hero joins, its bonus comes after, a fourth hero calls for a discard. A plugin's answer
    replaces it. Stops at first non-None result."""
    t = new_table()
    (lantern,) = _heroes(t, "lantern", 1)
    setup = len(log(t, "darkroad_gain_hero"))  # the starting heroes
    t.run(lambda ctx: ctx.gain_hero(0, lantern, source="test"))
    call = only(log(t, "darkroad_gain_hero")[setup:])
    check_ctx(t, call)
    assert {k: v for k, v in call.kwargs.items() if k != "ctx"} == {"seat": 0, "hero": lantern, "bonus": True,
                                                                  "source": "test"}
    assert call.result is None and t.game.players[0].heroes == [lantern] and t.game.players[0].lanterns == 1
    three = _heroes(t, None, 3)
    t.setup_wagon(0, heroes=three)
    t.run(lambda ctx: ctx.gain_hero(0, lantern, source="test"))
    assert t.decision == "discard_hero" and t.game.players[0].lanterns == 1  # no bonus before the discard

    t = new_table("darkroad_gain_hero", heroes=three)  # asked: no limit, a coin for a bonus
    t.run(lambda ctx: ctx.gain_hero(0, lantern, source="test"))
    p = t.game.players[0]
    assert p.heroes == [*three, lantern] and (p.coins, p.lanterns) == (1, 0) and t.decision == "plan"
    assert log(t, "darkroad_gain_hero")[-1].result is True


def test_hook_darkroad_limit_applies() -> None:
    """Asked when a seat goes beyond a limit, with the limit's kind; ``False`` lets it keep
    everything, ``None`` leaves the rulebook's overflow (the lantern discarded at once, the
    discard decision). Not asked within the limits. Stops at first non-None result."""
    t = new_table(lanterns=3, quartz=1)
    t.run(lambda ctx: (ctx.add(0, "lanterns", 1, "test"), ctx.add(0, "quartz", 1, "test")))
    assert log(t, "darkroad_limit_applies") == []  # within the limits
    t.run(lambda ctx: ctx.add(0, "lanterns", 1, "test"))
    call = only(log(t, "darkroad_limit_applies"))
    check_ctx(t, call)
    assert (call.kwargs["seat"], call.kwargs["kind"], call.result) == (0, "lanterns", None)
    assert t.game.players[0].lanterns == 4 and t.events_of("discarded")[-1].data["resource"] == "lanterns"

    t = new_table("darkroad_limit_applies", lanterns=4, quartz=2, horseshoes=1, commissions=[])
    three = sorted(t.engine.content.commissions)[:4]
    t.run(lambda ctx: (ctx.add(0, "lanterns", 1, "test"), ctx.add(0, "quartz", 1, "test"),
                       [ctx.gain_commission(0, m) for m in three], ctx.gain_illuminated(0), ctx.gain_illuminated(0),
                       ctx.gain_illuminated(0)))
    p = t.game.players[0]
    assert (p.lanterns, p.quartz + p.horseshoes, len(p.commissions), len(p.special)) == (5, 4, 4, 3)
    assert t.decision == "plan"  # nothing to discard
    kinds = {c.kwargs["kind"] for c in log(t, "darkroad_limit_applies")}
    assert kinds == {"lanterns", "inventory", "commissions", "illuminated"}


# -- automated seats ------------------------------------------------------------------------------------


def peddler_table(*hooks: str) -> Table:
    """Seat 0 (a player) against the recorder's test peddler (seat 1), waiting for seat 0's plan."""
    t = Table.new(players=2, seed=1, plugins=[RECORDER], test_peddler=True)
    for seat in range(2):
        t.setup_wagon(seat, **EMPTY_WAGON)
    recorder.ask(t.game, *hooks)
    assert t.awaiting == [0] and t.game.players[1].kind == recorder.PEDDLER
    return t


def test_hook_darkroad_caravan_join() -> None:
    """Called when the caravan_join decision reaches an automated seat: its answer is the
    seat's; ``None`` leaves the decision to its seat kind (the peddler joins). Stops at
    first non-None result."""
    for hooks, joins in (((), True), (("darkroad_caravan_join",), False)):
        t = peddler_table(*hooks)
        lead_caravan(t, join=True)
        call = only(log(t, "darkroad_caravan_join"))
        check_ctx(t, call)
        assert (call.kwargs["seat"], call.result) == (1, None if joins is True else False)
        assert t.events_of("caravan_answer")[-1].seat == 1 and t.events_of("caravan_answer")[-1].data == {"join": joins}
        assert t.game.turn.caravan is not None and (1 in t.game.turn.caravan.members) is joins


def test_hook_darkroad_travel_die() -> None:
    """Called when the travel_die decision reaches an automated seat: it takes the die
    answered (the recorder: the highest), its reward as a player's; ``None`` leaves it to its
    seat kind (the peddler: the first option, the lowest); a die that is not on the table is
    the plugin's error. Stops at first non-None result."""
    for hooks, taken in (((), 3), (("darkroad_travel_die",), 5)):
        t = peddler_table(*hooks)
        lead_caravan(t, join=True)  # the peddler joins: its seat kind's first option
        assert t.game.turn.caravan is not None
        t.game.turn.caravan.dice = [1, 3, 5]
        t.choose("travel_die", "take:1")  # the leader first on the dark road
        call = log(t, "darkroad_travel_die")[-1]
        check_ctx(t, call)
        assert (call.kwargs["seat"], call.result) == (1, None if taken == 3 else 5)
        assert [(e.seat, e.data["die"]) for e in t.events_of("travel_die_taken")] == [(0, 1), (1, taken)]

    bad = ("bad", SimpleNamespace(darkroad_travel_die=hookimpl(lambda: 7)))
    t = Table.new(players=2, seed=1, plugins=[RECORDER, bad], test_peddler=True)
    for seat in range(2):
        t.setup_wagon(seat, **EMPTY_WAGON)
    lead_caravan(t, join=True)
    assert t.game.turn.caravan is not None
    t.game.turn.caravan.dice = [1, 3]
    with pytest.raises(errors.PluginError, match="'bad' returned 7 from darkroad_travel_die") as failed:
        t.choose("travel_die", "take:1")
    assert failed.value.plugin == "bad"


def test_hook_darkroad_deliveries() -> None:
    """Called when the simultaneous deliveries decision reaches an automated seat, with the
    towns it may visit (a caravan member: the towns of the destination's region; the final
    travel: every town); answered, the decision waits for the other seats only. ``None``
    leaves it to its seat kind. Stops at first non-None result."""
    t = peddler_table("darkroad_deliveries")
    t.game.turn.caravan = Caravan(leader=0, route="dark_road", town="northbreak", members=[0, 1], extra_die=False)
    t.push("deliveries", -1, final=False, pending=[0, 1], town={})
    call = only(log(t, "darkroad_deliveries"))
    check_ctx(t, call)
    region = t.engine.content.region_towns("northbreak")
    assert (call.kwargs["seat"], list(call.kwargs["towns"]), call.result) == (1, list(region), True)
    assert t.awaiting == [0] and t.game.stack[-1].data["pending"] == [0]
    assert t.events_of("town_visited")[-1].seat == 1
    t.push("deliveries", -1, final=True, pending=[1, 0], town={})
    assert list(log(t, "darkroad_deliveries")[-1].kwargs["towns"]) == list(t.engine.content.towns)

    t = peddler_table()  # not asked: the peddler's seat kind answers (visits a town, finishes)
    t.push("deliveries", -1, final=True, pending=[0, 1], town={})
    assert log(t, "darkroad_deliveries")[-1].result is None and t.awaiting == [0]


def test_hook_darkroad_good_fortune() -> None:
    """Called when the good_fortune decision reaches an automated seat (a caravan's leader),
    with how many it takes; ``None`` leaves it to its seat kind. Stops at first non-None result."""
    t = peddler_table("darkroad_good_fortune")
    t.push("good_fortune", 1, left=2)
    call = only(log(t, "darkroad_good_fortune"))
    check_ctx(t, call)
    assert (call.kwargs["seat"], call.kwargs["count"], call.result) == (1, 2, True)
    assert [e.data for e in t.events_of("good_fortune")] == [{"choice": "coins"}] * 2
    assert t.game.players[1].coins == 2 and t.awaiting == [0]

    t = peddler_table()  # not asked: the peddler's first option, twice (the illuminated die)
    t.push("good_fortune", 1, left=2)
    assert [e.data for e in t.events_of("good_fortune")] == [{"choice": "illuminated"}] * 2


def test_hook_darkroad_storage_extensions() -> None:
    """Called on every storage check; the extensions of all plugins are merged into the
    storage the packing check uses."""
    t = new_table("darkroad_storage_extensions", goods=SEVEN_ARMORS[:6])
    t.run(lambda ctx: ctx.gain_good(0, "armor"))
    assert t.decision == "plan" and t.game.players[0].goods == SEVEN_ARMORS  # one any-good slot more
    call = log(t, "darkroad_storage_extensions")[-1]
    check_ctx(t, call)
    assert (call.kwargs["seat"], call.result) == (0, [{"any_slots": recorder.STORAGE_ANY_SLOTS}])

    t = new_table("darkroad_storage_extensions", steeds=["sugarfoot"])  # with the saddle bag
    spec = t.ctx().storage_spec(0)
    assert answered(t, "darkroad_storage_extensions") == [[{"any_slots": 1}], [{"extra_grid": [2, 2]}]]
    assert (spec.any_slots, spec.extra_grids) == (1, ((2, 2),))
    assert t.ctx().fits(0, ["armor"] * 8) and not t.ctx().fits(0, ["armor"] * 9)

    t = new_table(goods=SEVEN_ARMORS[:6])
    t.run(lambda ctx: ctx.gain_good(0, "armor"))
    assert t.decision == "discard_good"


def test_hook_darkroad_capacity() -> None:
    """The signed answers of all plugins are added to the rulebook's limit of ``kind``."""
    t = new_table("darkroad_capacity", lanterns=4)
    ctx = t.ctx()
    assert {k: ctx.capacity(0, k) for k in BASE_CAPACITY} == {k: v + 1 for k, v in BASE_CAPACITY.items()}
    asked = log(t, "darkroad_capacity")[-len(BASE_CAPACITY):]
    assert [(c.kwargs["seat"], c.kwargs["kind"], c.result) for c in asked] == [
        (0, k, recorder.CAPACITY) for k in BASE_CAPACITY]
    check_ctx(t, asked[0])
    t.run(lambda ctx: ctx.add(0, "lanterns", 1, "test"))
    assert t.game.players[0].lanterns == 5 and not t.events_of("discarded")

    t = new_table("darkroad_capacity", upgrades=["ruins_lantern"])  # +1 and the tile's -1
    assert t.ctx().capacity(0, "lanterns") == BASE_CAPACITY["lanterns"]
    assert answered(t, "darkroad_capacity") == [-1, recorder.CAPACITY]

    t = new_table(lanterns=4)
    t.run(lambda ctx: ctx.add(0, "lanterns", 1, "test"))
    assert t.game.players[0].lanterns == 4 and t.events_of("discarded")


def test_hook_darkroad_upgrade_limit() -> None:
    """How many wagon upgrades a seat may hold: the plugin's answer, else the rulebook's 1.
    Stops at first non-None result."""
    t = new_table("darkroad_upgrade_limit", upgrades=["merchants_ledger"])
    t.game.board.upgrades.remove("merchants_ledger")
    t.push("good_fortune", 0, left=1)
    assert "upgrade" in answers(t, "good_fortune")
    call = log(t, "darkroad_upgrade_limit")[-1]
    check_ctx(t, call)
    assert (call.kwargs["seat"], call.result) == (0, recorder.UPGRADE_LIMIT)
    t.choose("good_fortune", "upgrade")
    t.choose("choose_upgrade", "upgrade:artisans_bench")
    assert t.game.players[0].upgrades == ["merchants_ledger", "artisans_bench"]
    t.push("good_fortune", 0, left=1)
    assert "upgrade" not in answers(t, "good_fortune")  # 2 held

    t = new_table(upgrades=["merchants_ledger"])
    t.push("good_fortune", 0, left=1)
    assert "upgrade" not in answers(t, "good_fortune")
    assert log(t, "darkroad_upgrade_limit")[-1].result is None


def test_hook_darkroad_upgrade_gained() -> None:
    """Called when ``seat`` just gained wagon upgrade ``upgrade``; return value ignored."""
    t = new_table("darkroad_upgrade_gained")
    t.push("good_fortune", 0, left=1)
    t.choose("good_fortune", "upgrade")
    assert log(t, "darkroad_upgrade_gained") == []
    t.choose("choose_upgrade", "upgrade:artisans_bench")
    call = only(log(t, "darkroad_upgrade_gained"))
    check_ctx(t, call)
    assert (call.kwargs["seat"], call.kwargs["upgrade"]) == (0, "artisans_bench")
    [seen] = recorder.seen_in(t.game, "darkroad_upgrade_gained")
    assert seen["upgrades"] == ["artisans_bench"] and "artisans_bench" not in seen["stack"]
    assert gained(t, recorder.SOURCE) == [("coins", 1)]


# -- companions -----------------------------------------------------------------------------------


def familiar() -> CompanionCard:
    return CompanionCard(card=recorder.FAMILIAR_CARD)


def a_card_of(t: Table, companion: str) -> str:
    cards = t.engine.content.companion_cards
    return next(c for c in sorted(cards) if cards[c] == companion)


def companion_options(t: Table, seat: int = 0) -> list[str]:
    return sorted(a.option for a in t.legal(seat) if a.type == "companion")


def test_hook_darkroad_companion_options() -> None:
    """Called on the seat's own turn whenever a decision of the seat is enumerated, only on
    the plugins providing a companion card the seat holds; the options are merged."""
    t = new_table(companions=[familiar()], quartz=1)
    assert companion_options(t) == [f"{recorder.FAMILIAR_CARD}:0", f"{recorder.FAMILIAR_CARD}:1"]
    call = log(t, "darkroad_companion_options")[-1]
    check_ctx(t, call)
    assert call.kwargs["seat"] == 0

    # Merged with another companion's abilities; asked again at the next decisions of the turn.
    phoenix = a_card_of(t, "phoenix")
    t.setup_wagon(0, companions=[familiar(), CompanionCard(card=phoenix)])
    both = sorted([f"{recorder.FAMILIAR_CARD}:0", f"{recorder.FAMILIAR_CARD}:1", f"{phoenix}:0", f"{phoenix}:1"])
    assert companion_options(t) == both
    asked = len(log(t, "darkroad_companion_options"))
    t.choose("plan", f"bump:1:{t.game.players[0].reserve[0]}")
    while t.decision != "move":
        t.choose(t.decision, seat=0)
    assert t.game.phase == "move" and companion_options(t) == both
    assert len(log(t, "darkroad_companion_options")) > asked

    # A seat holding no card of the plugin: the plugin is not asked.
    t = new_table(companions=[CompanionCard(card=phoenix)], quartz=1)
    assert companion_options(t) == [f"{phoenix}:0", f"{phoenix}:1"]
    assert log(t, "darkroad_companion_options") == []

    # Not on another seat's turn, even when that seat has a decision.
    t = new_table()
    t.setup_wagon(1, companions=[familiar()], quartz=1)
    lead_caravan(t, join=True)
    assert t.awaiting == [1] and t.decision == "caravan_join"
    assert companion_options(t, 1) == []
    assert [c for c in log(t, "darkroad_companion_options") if c.kwargs["seat"] == 1] == []


def test_hook_darkroad_companion_use() -> None:
    """Triggers an option of ``darkroad_companion_options``: the owning plugin pays the
    gift, pushes the ability and returns True; the pending decision stays. Stops at first
    non-None result."""
    t = new_table(companions=[familiar()], quartz=1)
    t.choose("companion", f"{recorder.FAMILIAR_CARD}:0")
    call = only(log(t, "darkroad_companion_use"))
    check_ctx(t, call)
    assert (call.kwargs["seat"], call.kwargs["option"], call.result) == (0, f"{recorder.FAMILIAR_CARD}:0", True)
    p = t.game.players[0]
    assert (p.coins, p.quartz, p.companions[0].gifts) == (3, 0, [0])
    assert t.decision == "plan" and t.awaiting == [0]
    assert companion_options(t) == []  # no quartz left for the second ability

    # Another companion's option: the recorder answers None, the Phoenix's plugin resolves it.
    phoenix = a_card_of(t, "phoenix")
    t = new_table(companions=[CompanionCard(card=phoenix)], quartz=1)
    t.choose("companion", f"{phoenix}:0")
    assert only(log(t, "darkroad_companion_use")).result is None
    assert t.game.players[0].lanterns == 2


# -- any decision -------------------------------------------------------------------------------------


def test_hook_darkroad_decision_options() -> None:
    """Extra options added to the pending decision ``task`` for ``seat``, merged with the
    step's own; a decision with only extra options is not skipped."""
    t = new_table("darkroad_decision_options")
    opts = answers(t, "plan")
    assert opts[-2:] == [recorder.WAVE, recorder.SKIP]
    assert any(o.startswith("bump:") for o in opts)
    call = log(t, "darkroad_decision_options")[-1]
    check_ctx(t, call)
    assert call.kwargs["task"] is t.game.stack[-1] and call.kwargs["task"].kind == "plan"
    assert call.kwargs["seat"] == 0

    t.push("horseshoe", 0)  # no horseshoe: no option of its own
    assert t.decision == "horseshoe" and answers(t, "horseshoe") == [recorder.WAVE, recorder.SKIP]

    t = new_table()
    assert not any(o.startswith("x:") for o in answers(t, "plan"))
    t.push("horseshoe", 0)
    assert t.decision == "plan"  # skipped


def test_no_extra_option_while_an_overflow_discard_is_pending() -> None:
    """An overflow is settled at once (rulebook p. 18: a gain beyond a limit is discarded, or
    something else is discarded to make room): a plugin's extra options are not added to
    the overflow discard, which is the only thing that can be done."""
    t = new_table("darkroad_decision_options", quartz=2, horseshoes=1)
    t.run(lambda ctx: ctx.add(0, "quartz", 1))
    assert t.decision == "discard_inventory"
    assert answers(t, "discard_inventory") == ["discard:quartz", "discard:horseshoes"]
    assert not any(a.option.startswith("x:") for a in t.legal(0))
    t.choose("discard_inventory", "discard:horseshoes")
    assert t.decision == "plan" and answers(t, "plan")[-2:] == [recorder.WAVE, recorder.SKIP]


def test_hook_darkroad_decision_choose() -> None:
    """Resolves an extra option; True when handled; the decision stays pending unless the
    plugin pops it. Stops at first non-None result."""
    t = new_table("darkroad_decision_options")
    version = t.game.version
    t.choose("plan", recorder.WAVE)
    call = only(log(t, "darkroad_decision_choose"))
    check_ctx(t, call)
    assert call.kwargs["task"].kind == "plan" and call.kwargs["task"] is t.game.stack[-1]
    assert (call.kwargs["seat"], call.kwargs["option"], call.result) == (0, recorder.WAVE, True)
    assert t.decision == "plan" and t.game.version == version + 1
    assert [e.data for e in t.events_of("test_waved")] == [{"decision": "plan"}]

    t.choose("plan", recorder.SKIP)
    assert log(t, "darkroad_decision_choose")[-1].result is True
    assert t.decision == "move" and [e.data for e in t.events_of("test_skipped")] == [{"decision": "plan"}]
    assert t.game.players[0].pool == []  # the plan decision was popped, not answered


# -- game end ------------------------------------------------------------------------------------------


def test_hook_darkroad_deed_score() -> None:
    """Asked at final scoring for every deed held; the plugin providing the deed answers
    ``{"coins"|"prestige"|"vp": n}``, the others None. Stops at first non-None result. The
    plugin providing a deed is asked first, so the others are not asked once it answers."""
    t = new_table("darkroad_deed_score", deeds=["test_deed", "collector"], coins=4, prestige=4)
    t.push("final_scoring", -1)
    calls = {c.kwargs["deed"]: c for c in log(t, "darkroad_deed_score") if c.kwargs["seat"] == 0}
    assert set(calls) == {"test_deed"}  # the Collector's own plugin answers it, asked first
    check_ctx(t, calls["test_deed"])
    assert calls["test_deed"].result == {"vp": recorder.DEED_VP}
    line = t.game.score[0]
    assert (line.deed_vp, line.base, line.total) == (recorder.DEED_VP, 4, 4 + recorder.DEED_VP)
    assert line.details == [f"Test Deed: +{recorder.DEED_VP} vp", "Collector: not met"]

    t = new_table(deeds=["test_deed"])
    t.push("final_scoring", -1)
    assert t.game.score[0].deed_vp == 0 and t.game.score[0].details == ["Test Deed: not met"]


class _DeedCard:
    """Provides a deed and scores none (a content pack's deed)."""

    @hookimpl
    def darkroad_components(self) -> list[Component]:
        return [Component("deed", "borrowed_deed", "Borrowed Deed", "At the end of the game: gain 2 VP.")]


class _DeedScorer:
    """Scores the deed another plugin provides."""

    @hookimpl
    def darkroad_deed_score(self, ctx: Ctx, seat: int, deed: str) -> dict[str, int] | None:
        return {"vp": 2} if deed == "borrowed_deed" else None


def test_hook_darkroad_deed_score_asks_the_others_when_the_provider_does_not_answer() -> None:
    """The plugin providing a deed is asked first; a deed it does not score is still scored by
    the plugin that does (as when every implementation was asked in turn)."""
    t = new_table(extra=[("deed-card", _DeedCard()), ("deed-scorer", _DeedScorer())], deeds=["borrowed_deed"])
    impls = t.engine.registry.deed_impls
    assert impls["collector"][0][0] == "deed-collector"  # the provider first
    assert "deed-scorer" in [impl[0] for impl in impls["borrowed_deed"]]
    t.push("final_scoring", -1)
    assert t.game.score[0].deed_vp == 2 and t.game.score[0].details == ["Borrowed Deed: +2 vp"]


class _CollectorVariant:
    """A variant scoring a base deed its own way: it answers first by pluggy's ``tryfirst``."""

    @hookimpl(tryfirst=True)
    def darkroad_deed_score(self, ctx: Ctx, seat: int, deed: str) -> dict[str, int] | None:
        return {"vp": 9} if deed == "collector" else None


def test_hook_darkroad_deed_score_a_tryfirst_implementation_answers_before_the_provider() -> None:
    """Asking the provider first keeps pluggy's order for ``tryfirst``: a plugin that overrides
    another's deed still answers before it."""
    t = new_table(extra=[("collector-variant", _CollectorVariant())], deeds=["collector"])
    assert t.engine.registry.deed_impls["collector"][0][0] == "collector-variant"
    t.push("final_scoring", -1)
    assert t.game.score[0].deed_vp == 9 and t.game.score[0].details == ["Collector: +9 vp"]


def test_hook_darkroad_game_end() -> None:
    """Called once after final scoring, with ``ctx.game.score`` filled; return ignored."""
    t = Table.new(players=2, seed=1, plugins=[RECORDER])
    t.play(seed=1)
    call = only(log(t, "darkroad_game_end"))
    check_ctx(t, call)
    assert set(call.kwargs) == {"ctx"}
    assert recorder.seen_in(t.game, "darkroad_game_end") == [
        {"phase": "finished", "scores": [s.total for s in t.game.score], "winners": t.game.winners,
         "finished": True}]
    assert len(t.game.score) == 2 and t.game.winners
