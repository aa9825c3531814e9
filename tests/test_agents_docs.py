"""docs/agents.md and examples/agents/ keep in step with darkroad.env (issue 40): every feature
of the observation's layout is documented with its width, and both examples run."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("pettingzoo")

import darkroad.env as denv
from darkroad.core import Engine

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "agents.md"


def test_every_observation_feature_is_documented_with_its_width(engine: Engine) -> None:
    layout = denv.raw_env(players=2, engine=engine).match.layout
    rows = dict(re.findall(r"^\| `([\w.]+)` \| (\d+) \|", DOC.read_text(encoding="utf-8"), re.M))
    assert {name: int(rows.get(name, -1)) for name, _, _ in layout.fields} == {n: w for n, _, w in layout.fields}
    text = DOC.read_text(encoding="utf-8")
    assert f"{layout.size:,} values" in text and f"{layout.seat_width} |" in text


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / "agents" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_masked_random_example_plays_a_game() -> None:
    totals = load("masked_random").play(players=3, seed=7)
    assert set(totals) == {"seat_0", "seat_1", "seat_2"}
    assert sum(totals.values()) == pytest.approx(0.0) and max(totals.values()) > 0


def test_the_self_play_example_learns_and_plays(capsys: pytest.CaptureFixture[str]) -> None:
    example = load("self_play")
    probe = denv.raw_env(players=2)
    policy = example.LinearPolicy(probe.match.catalogue.size, probe.match.layout.size, 0)
    example.self_play(policy, players=2, episodes=2, seed=0, lr=0.01)
    assert policy.w.any(), "the policy learnt from the games"
    assert -1.0 <= example.evaluate(policy, games=1, seed=1) <= 1.0
    assert "episode 2" in capsys.readouterr().out
