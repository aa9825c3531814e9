"""Isolation at load (issue 12): a plugin that cannot work as written is skipped and
reported, naming it; the rest of the installation loads; ``strict`` fails instead.

And the failure shows wherever it matters: the engine logs it, a game asking for its
component is refused naming it, a stored game that needs it says it failed to load.
"""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import pytest

from darkroad.core import (
    Component,
    Ctx,
    Engine,
    GameConfig,
    MissingPlugin,
    PluginError,
    UnknownComponent,
    hookimpl,
)
from darkroad.core.hookspecs import spec_names
from darkroad.core.plugins import did_you_mean

BUILDINGS = ["lamp_tower", "blazing_quartz_mine", "oracle_of_lumi", "yedls_workshop"]


class Tower:
    """A working fan building (gain 1 lantern)."""

    @hookimpl
    def darkroad_components(self) -> list[Component]:
        return [Component("building", "lamp_tower", "Lamp Tower", "Gain 1 lantern.")]

    @hookimpl
    def darkroad_activate_building(self, ctx: Ctx, seat: int, building: str) -> bool | None:
        if building != "lamp_tower":
            return None
        ctx.gain_effects(seat, ["lantern:1"], source="lamp_tower")
        return True


def loads_without(plugin: Any, name: str = "lamp-tower") -> tuple[Engine, str]:
    """Load with ``plugin``: it is skipped; the engine, and the reason it gives."""
    engine = Engine.load(extra=[(name, plugin)])
    assert name not in engine.plugins.plugins and engine.pm.get_plugin(name) is None
    assert "lamp_tower" not in engine.content.components
    engine.create(GameConfig(players=2, seed=1))  # the rest of the installation plays
    with pytest.raises(PluginError, match=name):
        Engine.load(extra=[(name, plugin)], strict=True)
    return engine, engine.plugins.failed[name]


def test_a_working_plugin_loads() -> None:
    engine = Engine.load(extra=[("lamp-tower", Tower())])
    assert engine.plugins.failed == {} and engine.content.components["lamp_tower"].plugin == "lamp-tower"


@pytest.mark.parametrize("marker", [{"wrapper": True}, {"hookwrapper": True}])
def test_a_wrapper_is_skipped(marker: dict[str, bool]) -> None:
    class Wrapping(Tower):
        @hookimpl(**marker)
        def darkroad_capacity(self, ctx: Ctx, seat: int, kind: str) -> Any:
            return (yield)

    _, reason = loads_without(Wrapping())
    assert "implements darkroad_capacity as a wrapper" in reason


def test_an_unknown_hook_is_skipped_with_a_did_you_mean() -> None:
    class Misspelt(Tower):
        @hookimpl
        def darkroad_activate_buildings(self, ctx: Ctx, seat: int, building: str) -> bool | None:
            return None

    _, reason = loads_without(Misspelt())
    assert "implements unknown hook darkroad_activate_buildings (did you mean darkroad_activate_building?)" in reason


def test_a_hook_without_hookimpl_is_caught() -> None:
    """Without ``@hookimpl`` pluggy never calls the function: the building would load and
    then fail at every activation. It is caught at load instead."""

    def darkroad_activate_building(ctx: Ctx, seat: int, building: str) -> bool | None:
        return True

    plugin = SimpleNamespace(darkroad_components=Tower().darkroad_components,
                             darkroad_activate_building=darkroad_activate_building)
    _, reason = loads_without(plugin)
    assert "defines darkroad_activate_building without @hookimpl" in reason

    def darkroad_activate_buildings(ctx: Ctx, seat: int, building: str) -> bool | None:
        return True

    plugin = SimpleNamespace(darkroad_components=Tower().darkroad_components,
                             darkroad_activate_buildings=darkroad_activate_buildings)
    _, reason = loads_without(plugin)
    assert "(did you mean darkroad_activate_building?)" in reason


def test_did_you_mean() -> None:
    specs = spec_names()
    assert did_you_mean("darkroad_companion_option", specs) == " (did you mean darkroad_companion_options?)"
    assert did_you_mean("darkroad_teleport", specs) == ""


def pack(**content: Any) -> Any:
    class Pack(Tower):
        @hookimpl
        def darkroad_content(self) -> dict[str, Any]:
            return content

    return Pack()


@pytest.mark.parametrize(("content", "said"), [
    ({"commissions": [{"id": "windglass-1", "town": "windglass", "requests": ["potion"]}]},
     "duplicate commission id 'windglass-1': provided by both 'basegame' and 'lamp-tower'"),
    ({"towns": [{"id": "glimmerfen", "name": "Glimmerfen"}]}, "malformed content pack: KeyError"),
    ({"commissions": [{"id": "glimmer-1", "town": "glimmerfen", "requests": ["potion"]}]},
     "commission 'glimmer-1' is for unknown town 'glimmerfen'"),
    ({"heroes": [{"id": "glimmer", "name": "G", "hero_class": "bard", "town": "windglass", "requests": ["tea"]}]},
     "hero 'glimmer' requests unknown goods ['tea']"),
    ({"goods": [{"id": "tea", "name": "Tea", "footprint": [[0, 0]]}]}, "needs exactly 6 good types, got 7"),
])
def test_a_broken_content_pack_is_skipped(content: dict[str, Any], said: str) -> None:
    engine, reason = loads_without(pack(**content))
    assert said in reason
    assert "glimmer-1" not in engine.content.commissions and len(engine.content.goods) == 6


def test_a_clashing_component_is_skipped() -> None:
    class Clash(Tower):
        @hookimpl
        def darkroad_components(self) -> list[Component]:
            return [*super().darkroad_components(), Component("steed", "velvet", "Velvet", "")]

    engine, reason = loads_without(Clash())
    assert "duplicate component id 'velvet'" in reason and "'steed-velvet'" in reason
    assert engine.content.components["velvet"].plugin == "steed-velvet"


def test_skipped_plugins_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="darkroad.core"):
        Engine.load(extra=[("lamp-tower", pack(goods=[{"id": "tea"}]))])
    assert "plugin 'lamp-tower' failed to load and is skipped: " in caplog.text


def test_a_game_asking_for_a_skipped_component_names_the_plugin() -> None:
    engine = Engine.load(extra=[("lamp-tower", pack(goods=[{"id": "tea"}])), ("other", pack(goods=[{"id": "x"}]))])
    with pytest.raises(UnknownComponent) as exc:
        engine.create(GameConfig(players=2, buildings=BUILDINGS))
    said = exc.value.reason
    assert said.startswith("unknown building 'lamp_tower'; plugin 'lamp-tower' failed to load: ")
    assert "'other'" not in said  # the plugin named like the building, when there is one
    with pytest.raises(UnknownComponent, match="unknown companion 'owl'; plugin 'lamp-tower' failed.*plugin 'other'"):
        engine.create(GameConfig(players=2, companions=["owl"]))
    with pytest.raises(UnknownComponent, match=r"^unknown building 'lamp_tower'$"):
        Engine.load().create(GameConfig(players=2, buildings=BUILDINGS))  # nothing failed: nothing to add


def test_a_stored_game_of_a_skipped_plugin_says_it_failed_to_load() -> None:
    good = Engine.load(extra=[("lamp-tower", Tower())])
    game, _ = good.create(GameConfig(players=2, seed=3, buildings=BUILDINGS))
    blob = good.dumps(game)
    broken = Engine.load(extra=[("lamp-tower", pack(goods=[{"id": "tea"}]))])
    with pytest.raises(MissingPlugin) as exc:
        broken.loads(blob)
    assert "plugin 'lamp-tower', which failed to load on this server: " in exc.value.reason
    with pytest.raises(MissingPlugin, match=r"needs plugin\(s\) \['lamp-tower'\], which are not installed"):
        Engine.load().loads(blob)


@pytest.mark.parametrize("kind", ["companion", "withdrawn"])
def test_the_engines_action_types_are_not_step_kinds(kind: str) -> None:
    """``companion`` and ``withdrawn`` actions are the engine's: no step may take the name."""
    from darkroad.core import Choice, Option, Step, Task

    class Taken(Choice):
        def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
            return []

    Taken.kind = kind

    class Steps(Tower):
        @hookimpl
        def darkroad_steps(self) -> list[Step]:
            return [Taken()]

    _, reason = loads_without(Steps())
    assert f"step kind {kind!r} is already defined by 'the engine" in reason


# -- the rulebook's essential plugins --------------------------------------------------------------


def test_the_rulebook_is_made_of_essential_plugins_registered_first() -> None:
    """As pytest's essential plugins: the rulebook's parts are plugins registered before any
    other (so pluggy asks them last), each contributing its steps through ``darkroad_steps``."""
    import darkroad.core.rulebook.plan
    from darkroad.core.plugins import ESSENTIAL_PLUGINS

    engine = Engine.load()
    names = [name for name, _ in engine.pm.list_name_plugin()]
    assert names[:len(ESSENTIAL_PLUGINS)] == list(ESSENTIAL_PLUGINS) and len(ESSENTIAL_PLUGINS) == 17
    for name in ESSENTIAL_PLUGINS:
        loaded = engine.plugins.plugins[name]
        assert (loaded.essential, loaded.builtin, loaded.kind, loaded.dist) == (True, True, "essential", "darkroad")
        assert loaded.module == f"darkroad.core.{name}"
    assert engine.pm.get_plugin("rulebook.plan") is darkroad.core.rulebook.plan
    assert {s.kind for s in darkroad.core.rulebook.plan.STEPS} == {"plan", "slot_action", "slot2", "slot3"}
    assert all(engine.steps[s.kind] is s for s in darkroad.core.rulebook.plan.STEPS)
    assert engine.step_plugin("plan") is None and engine.step_is_builtin("plan")
    assert engine.plugins.plugins["bot-greedy"].kind == "builtin"
    assert Engine.load(extra=[("lamp-tower", Tower())]).plugins.plugins["lamp-tower"].kind == "fan"


def test_the_rulebooks_decisions_declare_that_they_log_their_answers() -> None:
    """Whether an answer gets an ``answered`` event is the step's own declaration
    (``logs_answer``), whoever provides it: each of the rulebook's decisions says its events
    name the answer (``moved``, ``bought``, ...), and the base class says nothing of the kind,
    so a plugin's decision is logged unless it declares otherwise."""
    from darkroad.core import Choice
    from darkroad.core.plugins import ESSENTIAL_PLUGINS

    engine = Engine.load()
    decisions = [step for name, part in engine.pm.list_name_plugin() if name in ESSENTIAL_PLUGINS
                 for step in part.darkroad_steps() if step.decision]
    assert len(decisions) >= 26 and all(step.logs_answer for step in decisions)
    assert not Choice.logs_answer and not engine.steps["spare_harness_steed"].logs_answer


@pytest.mark.parametrize("name", ["rulebook.plan", "rulebook.scoring"])
def test_an_essential_plugin_cannot_be_blocked(name: str) -> None:
    with pytest.raises(PluginError, match=f"plugin '{name}' is essential .*: it cannot be blocked"):
        Engine.load(exclude=[name])
    assert "bot-greedy" not in Engine.load(exclude=["bot-greedy"]).plugins.plugins  # any other can


def test_an_essential_plugin_is_never_skipped() -> None:
    """Rejecting an essential plugin (a clash found against it) fails the load: the rules
    cannot be played without it."""
    from darkroad.core import make_plugin_manager

    plugins = make_plugin_manager()
    with pytest.raises(PluginError, match="rulebook.turn"):
        plugins.reject("rulebook.turn", "a reason")
    assert "rulebook.turn" in plugins.plugins and plugins.pm.get_plugin("rulebook.turn") is not None


def test_plugins_all_lists_the_rulebook_with_the_kind_essential() -> None:
    """``darkroad plugins --all`` lists the rulebook's parts, kind ``essential``; without
    ``--all``, as the base game's plugins, they are left out."""
    import json

    from typer.testing import CliRunner

    from darkroad.api import cli
    from darkroad.core.plugins import ESSENTIAL_PLUGINS

    report = json.loads(CliRunner().invoke(cli.app, ["plugins", "--all", "--json"]).stdout)
    essential = {p["name"]: p for p in report["plugins"] if p["kind"] == "essential"}
    assert sorted(essential) == sorted(ESSENTIAL_PLUGINS)
    assert all("darkroad_steps" in p["hooks"] and p["builtin"] for p in essential.values())
    assert {p["kind"] for p in report["plugins"]} <= {"essential", "builtin", "fan"}  # fan: the example pack
    shown = json.loads(CliRunner().invoke(cli.app, ["plugins", "--json"]).stdout)["plugins"]
    assert not [p for p in shown if p["kind"] != "fan"]
    # The table a person reads shows each plugin's kind as the JSON does (wide enough for one line a row).
    table = CliRunner().invoke(cli.app, ["plugins", "--all"], env={"COLUMNS": "2000"}).stdout.splitlines()
    rows = [[cell.strip() for cell in line.replace("┃", "│").split("│")[1:-1]] for line in table]
    cells = {row[0]: row[1] for row in rows if len(row) == 5}
    assert cells["plugin"] == "kind" and {cells[p["name"]] for p in report["plugins"]} == {"essential", "builtin", "fan"}
    assert all(cells[p["name"]] == p["kind"] for p in report["plugins"])


def test_the_rulebook_failing_on_a_plugins_call_blames_the_plugin() -> None:
    """The rulebook's code is a plugin's, but a failure it meets on a fan plugin's call (an
    effect nobody knows) is the fan plugin's: the innermost fan plugin's frame is blamed."""
    from darkroad.core import resolve_effect

    class BadSetup:
        @hookimpl
        def darkroad_setup(self, ctx: Ctx) -> None:
            resolve_effect(ctx, 0, "no_such_effect:1")

    with pytest.raises(PluginError) as failed:
        Engine.load(extra=[("bad-setup", BadSetup())]).create(GameConfig(players=2, seed=1))
    assert failed.value.plugin == "bad-setup" and "no_such_effect" in failed.value.reason
