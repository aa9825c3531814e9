"""Any base-game module is a template (issue 12: "one pattern per component kind; a plugin
author should be able to copy any base-game module as a template").

For one module of each component kind, its text is copied unchanged into a fan package of
its own (a folder under ``tmp_path``, not ``darkroad.plugins``), only its id and display name
rewritten as a fan would, registered through the ``darkroad`` entry points, and loaded
strictly next to the base game: a module importing its kit relatively (``from . import
kit``) or privately fails to import there, and one with a step kind or a key not derived from
its ``ID`` clashes with the original. Then a seeded game is played in which the copy is in
play, and its events show it was used: activated with its own decision, scored, triggered.
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from darkroad.core import Action, Engine, Event
from darkroad.testing import Table

PLUGINS = Path(__file__).resolve().parents[1] / "plugins"
PACKAGE = "fan_templates"
OTHER_BUILDINGS = ["blazing_quartz_mine", "oracle_of_lumi", "yedls_workshop"]
SEEDS = range(12)
"""The seeds tried, in order, until the copy is used in a game (the first one usually is)."""
DELIVERY_SEEDS = range(40)
"""The seeds tried, in order, until a random game delivers a commission with all its goods
(rarer: one game in ten or so)."""


@dataclass(frozen=True)
class Template:
    kind: str
    module: str
    name: str
    """The display name as the module spells it (rewritten to "Fan <name>")."""
    used: Callable[[Table, str], bool]
    """Whether the finished game on the table used the copy (its id given)."""

    @property
    def fan_id(self) -> str:
        return f"fan_{self.module}"


def events(t: Table, type: str, **data: str) -> list[Event]:
    return [e for e in t.events_of(type) if all(e.data.get(k) == v for k, v in data.items())]


def building_used(t: Table, fid: str) -> bool:
    """Activated, its own spend-to-gain decision answered, paid and gained as the building."""
    return bool(events(t, "activated", target=fid) and events(t, "answered", decision=f"{fid}_pay")
                and events(t, "paid", source=fid) and events(t, "gained", source=fid))


def deed_used(t: Table, fid: str) -> bool:
    """Revealed at the end, and met: the score line of seat 0 (who holds it) shows its reward."""
    return bool(events(t, "deed_revealed", deed=fid)) and "Fan Balanced Ledger: +4 vp" in t.game.score[0].details


def companion_used(t: Table, fid: str) -> bool:
    """Triggered, its own gift decision answered (a basic or an upgraded potion), the deed gained."""
    return bool(events(t, "companion_used", companion=fid) and events(t, "answered", decision=f"{fid}_gift")
                and events(t, "companion_passed", card=f"{fid}-1"))


def steed_used(t: Table, fid: str) -> bool:
    """Its 2 prestige on gaining an upgrade."""
    return any(e.data.get("source") == fid and e.seat == 0 for e in t.events_of("gained"))


def upgrade_used(t: Table, fid: str) -> bool:
    """Gained, then its own decision answered: a second steed."""
    return bool(events(t, "upgrade_gained", upgrade=fid) and events(t, "answered", decision=f"{fid}_steed")
                and events(t, "steed_gained", source=fid))


TEMPLATES = [
    Template("buildings", "merchants_guildhall", "Merchant's Guildhall", building_used),
    Template("deeds", "balanced_ledger", "Balanced Ledger", deed_used),
    Template("companions", "grace", "Grace", companion_used),
    Template("steeds", "velvet", "Velvet", steed_used),
    Template("upgrades", "spare_harness", "Spare Harness", upgrade_used),
]


def copy_as_a_fan(template: Template, folder: Path) -> str:
    """Copy the base-game module into package ``folder``, rewriting only its ``ID`` and its
    display name; the copy's module name."""
    source = (PLUGINS / template.kind / f"{template.module}.py").read_text(encoding="utf-8")
    source, ids = re.subn(rf'^ID = "{template.module}"$', f'ID = "{template.fan_id}"', source, flags=re.M)
    assert ids == 1, f"{template.module}: no ID constant to rewrite"
    name = f'"{template.name}"'
    assert source.count(name) == 1, f"{template.module}: its name {name} is not written once"
    source = source.replace(name, f'"Fan {template.name}"')
    (folder / f"{template.module}.py").write_text(source, encoding="utf-8")
    return f"{PACKAGE}.{template.module}"


@pytest.fixture
def fan_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty importable package of a fan's own (forgotten again after the test)."""
    folder = tmp_path / PACKAGE
    folder.mkdir()
    (folder / "__init__.py").write_text('"""A fan\'s package."""\n', encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield folder
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]


def prefer(fid: str) -> Callable[[list[Action], random.Random], Action]:
    """Random play that takes an answer naming the copy whenever there is one."""

    def policy(legal: list[Action], r: random.Random) -> Action:
        return r.choice([a for a in legal if fid in a.option] or legal)

    return policy


def new_game(engine: Engine, template: Template, seed: int) -> Table:
    """A 3-player game with the copy in play (seat 0 holds it, where a seat holds one)."""
    fid = template.fan_id
    buildings = [fid, *OTHER_BUILDINGS] if template.kind == "buildings" else OTHER_BUILDINGS + ["othos_lanternworks"]
    t = Table.new(players=3, seed=seed, engine=engine, buildings=buildings,
                  companions=[fid] if template.kind == "companions" else [])
    p = t.game.players[0]
    if template.kind == "deeds":
        t.setup_wagon(0, deeds=[*p.deeds, fid])
    elif template.kind == "companions":
        t.give_companion(0, f"{fid}-1")
        t.setup_wagon(0, goods=[*p.goods, "potion", "potion+"])  # two gifts to choose from: its decision
    elif template.kind == "steeds":
        t.setup_wagon(0, steeds=[fid])
    return t


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda t: f"{t.kind}/{t.module}")
def test_a_copied_base_game_module_plays_in_a_fan_package(
        template: Template, fan_package: Path, add_entry_point: Callable[[str, str], None]) -> None:
    module = copy_as_a_fan(template, fan_package)
    plugin = f"fan-{template.module.replace('_', '-')}"
    add_entry_point(plugin, module)
    engine = Engine.load(strict=True)  # an import error or a clash with the original raises here
    loaded = engine.plugins.plugins[plugin]
    assert (loaded.module, loaded.builtin) == (module, False)
    fid = template.fan_id
    component = engine.content.components[fid]
    assert (component.plugin, component.name) == (plugin, f"Fan {template.name}")
    assert engine.content.components[template.module].plugin != plugin  # the original is still the base game's

    for seed in SEEDS:
        t = new_game(engine, template, seed)
        t.play(seed=seed, policy=prefer(fid))
        assert t.game.finished
        if template.used(t, fid):
            break
    else:
        pytest.fail(f"the copy {fid!r} was never used in games of seeds {SEEDS}")
    assert t.game.config.plugins[plugin] == loaded.version  # the game records the fan plugin it uses


def test_a_copied_counting_deed_counts_each_delivery_once(
        fan_package: Path, add_entry_point: Callable[[str, str], None]) -> None:
    """Perfect Delivery reads a count the game state does not keep; the count is kept once
    (deeds/history.py), so the original and a copy of it, both installed, do not count a
    full delivery twice."""
    template = Template("deeds", "perfect_delivery", "Perfect Delivery", deed_used)
    add_entry_point("fan-perfect-delivery", copy_as_a_fan(template, fan_package))
    engine = Engine.load(strict=True)
    for seed in DELIVERY_SEEDS:
        t = new_game(engine, template, seed)  # seat 0 holds the copy
        t.play(seed=seed)
        full = [e for e in t.events_of("commission_delivered")
                if len(e.data["goods"]) == len(engine.content.commissions[e.data["commission"]].requests)]
        if full:
            break
    else:
        pytest.fail(f"no commission delivered with all its goods in games of seeds {DELIVERY_SEEDS}")
    counted = t.game.board.extra["_deeds"]["full_deliveries"]
    assert counted == [sum(e.seat == seat for e in full) for seat in range(3)]
