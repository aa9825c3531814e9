"""The registry (``core/registry.py``): what the loaded plugins register, merged without an engine."""

from __future__ import annotations

from darkroad.core import Engine, make_plugin_manager
from darkroad.core.registry import RESERVED_STEP_KINDS, Registry


def test_a_registry_merges_an_installation_without_an_engine() -> None:
    registry = Registry(make_plugin_manager())
    assert {"turn", "plan", "discard_good", "final_scoring"} <= set(registry.steps)
    assert not set(RESERVED_STEP_KINDS) & set(registry.steps)
    assert registry.step_plugin("turn") is None and registry.step_is_builtin("turn")
    assert "greedy" in registry.bots and registry.bot_plugins["greedy"] == "bot-greedy"
    assert {c.id for c in registry.base_game("building")} <= set(registry.content.components)


def test_the_engine_reads_its_registry() -> None:
    engine = Engine.load()
    registry = engine.registry
    assert engine.steps is registry.steps and engine.content is registry.content
    assert engine.bots is registry.bots and engine.seat_kinds is registry.seat_kinds
    assert engine.hook_impls is registry.hook_impls
