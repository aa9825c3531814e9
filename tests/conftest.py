"""Shared fixtures: one engine per test session (plugins load once)."""

from __future__ import annotations

import importlib.metadata as md
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from invariants import FULL_RANDOM_GAMES_SECONDS, RANDOM_GAMES_SECONDS

from darkroad.api.http.app import tune_gc
from darkroad.core import Engine
from darkroad.core.testing import Table

FIRST_GAME = ["blazing_quartz_mine", "oracle_of_lumi", "othos_lanternworks", "yedls_workshop"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("darkroad")
    group.addoption("--random-games", type=int, default=None, metavar="N",
                    help="random games of mixed configurations the invariant suite plays (default: as many as "
                         "--random-games-seconds allows)")
    group.addoption("--random-games-seconds", type=float, default=None, metavar="S",
                    help=f"CPU seconds the invariant suite plays random games for, without --random-games "
                         f"(default {RANDOM_GAMES_SECONDS:g}, {FULL_RANDOM_GAMES_SECONDS:g} with --full-properties)")
    group.addoption("--random-games-seed", type=int, default=0, metavar="S",
                    help="the first game's seed (game i has seed S + i)")
    group.addoption("--full-properties", action="store_true",
                    help="the property suites sized by a count of games play their full count (a nightly run "
                         "or a change of what they check), not CI's smaller one; see full_size")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Run the tests under the garbage collector's settings a server runs under
    (``darkroad.api.http.app.tune_gc``: what was built so far frozen out of the collector's sight,
    young collections every 20,000 container allocations instead of 700): the suite's games
    through the engine and the in-process app build as many short-lived containers as a server's
    requests do, and CPython's default made each worker collect its young generation over and
    over for them. ``/usr/bin/time .venv/bin/python -m pytest -q -p no:cacheprovider
    tests/test_undo.py tests/test_view_storage.py tests/test_stored_state.py
    tests/api/app/test_api_records.py tests/test_search_bot.py``, three alternating pairs: 48.9 /
    50.0 / 46.8 s user with CPython's default, 45.7 / 45.8 / 43.9 s with these."""
    tune_gc()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Slow tests first, each part in its collected order. pytest-xdist hands tests out in
    this order (an ``xdist_group`` as a whole, the largest groups first), a few at a time: the
    long ones (a browser group, a schemathesis run, client builds, the invariant suite) start
    while the many short ones are left to fill both workers up to the end, instead of one
    long test started last keeping one worker busy alone (CI runs one worker more than cores)."""
    items[:] = sorted(items, key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def _xdist_groups_hold(request: pytest.FixtureRequest) -> None:
    """Under ``--dist loadgroup`` (CI), fail a test whose ``xdist_group`` mark does not group:
    each group's tests must run on one worker (they share module fixtures: a browser, a server,
    a Redis Cluster), and pytest-xdist does it by adding ``@group`` to their node ids, which
    some pytest versions silently ignore (pytest-dev/pytest-xdist#1386; pyproject.toml pins
    pytest below them)."""
    node = request.node
    if getattr(request.config.option, "loadgroup", False) and node.get_closest_marker("xdist_group") \
            and "@" not in node.nodeid:
        pytest.fail(f"--dist loadgroup does not group {node.nodeid}: pytest {pytest.__version__} with this "
                    "pytest-xdist ignores xdist_group (pytest-dev/pytest-xdist#1386)")


@pytest.fixture(scope="session")
def full_size(request: pytest.FixtureRequest) -> Callable[[int, int], int]:
    """``size(ci, full)``: how many games a property suite sized by a count plays: ``ci`` in
    CI and the fast loop, ``full`` with ``--full-properties``. CI's count keeps the suite's
    CPU in check (the whole suite is bounded by its CPU on 2 cores); the full one is the
    suite's reach before this option existed."""
    full = bool(request.config.getoption("full_properties"))
    return lambda ci, whole: whole if full else ci


_AS_LOADED: dict[str, Any] = {}
"""The session engine (``"engine"``) and its ``check_invariants`` as loaded
(DARKROAD_CHECK_INVARIANTS may set it), once a test of the worker asked for it."""


@pytest.fixture(scope="session")
def engine() -> Engine:
    loaded = Engine.load(strict=True)
    _AS_LOADED.update(engine=loaded, check_invariants=loaded.check_invariants)
    return loaded


@pytest.fixture(autouse=True)
def _session_engine_left_as_found(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that leaves the session engine watched: a hook monitor (a
    :class:`~darkroad.core.testing.HookRecorder`, which ``Table(engine, ...)`` attaches unless
    ``record=False``) or ``check_invariants`` makes every later action of its worker record
    every hook call and check the invariants. One test's 20 recorders left behind made the
    tests after it on the same worker 3 to 30 times slower in CPU (an arena of greedy bots
    1.1 s -> 9.9 s, a game of bots played twice 0.3 s -> 8.6 s). The engine is set right for
    the next test."""
    yield
    if "engine" not in request.fixturenames:
        return
    engine: Engine = request.getfixturevalue("engine")
    if engine is not _AS_LOADED.get("engine"):
        return  # a module's own engine (its own ``engine`` fixture) is the module's business
    left = [f"{len(engine.monitors)} hook monitor(s)"] if engine.monitors else []
    if engine.check_invariants != _AS_LOADED["check_invariants"]:
        left.append("check_invariants changed")
    if left:
        engine.monitors.clear()
        engine.check_invariants = _AS_LOADED["check_invariants"]
        pytest.fail(f"the test left the session engine watched ({', '.join(left)}): pass record=False to "
                    "Table(engine, ...) or use an engine of the test's own")


@pytest.fixture
def table(engine: Engine):
    """A factory of tables sharing the session engine."""

    def make(players: int = 2, seed: int = 1, **kw) -> Table:
        return Table.new(players=players, seed=seed, engine=engine, **kw)

    return make


@pytest.fixture
def add_entry_point(monkeypatch: pytest.MonkeyPatch) -> Callable[[str, str], None]:
    """``add(name, module)``: ``importlib.metadata`` lists one more ``darkroad`` entry point
    (a broken fan plugin, say), for the rest of the test."""
    added: list[md.EntryPoint] = []
    real = md.entry_points

    def entry_points(**kw: object) -> object:
        found = real(**kw)  # type: ignore[arg-type]
        return md.EntryPoints([*found, *added]) if kw.get("group") == "darkroad" else found

    monkeypatch.setattr(md, "entry_points", entry_points)
    return lambda name, module: added.append(md.EntryPoint(name=name, value=module, group="darkroad"))


CONCERN_PLANNING_BEFORE_ISSUE_40 = {
    "pc-01": {"space": 2, "reward": ["coins:1"], "illuminated": ["prestige:1"]},
    "pc-02": {"space": 1, "reward": ["lantern:1"]},
    "pc-03": {"space": 4, "reward": ["coins:1"]},
    "pc-04": {"space": 3, "reward": ["lantern:1"], "illuminated": ["coins:2", "prestige:1"]},
    "pc-05": {"space": 0, "reward": ["coins:1"]},
    "pc-06": {"space": 2, "reward": ["lantern:1"], "illuminated": ["prestige:1"]},
    "pc-07": {"space": 3, "reward": ["coins:1"]},
    "pc-08": {"space": 1, "reward": ["coins:1"]},
    "pc-09": {"space": 4, "reward": ["coins:1"], "illuminated": ["coins:2", "prestige:1"]},
    "pc-10": {"space": 2, "reward": ["coins:1"]},
}
"""The Private Concern's planning sections before its retune against the default bot (issue 40:
one prestige more in each): the cards the stored games of tests/data were played with."""


@pytest.fixture
def concern_cards_as_stored(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Private Concern's cards as the stored games of tests/data were played with them (for
    a test that replays their actions to compare with the stored state); restored after the test."""
    cards = engine.content.extra["private_concern_cards"]
    for cid, planning in CONCERN_PLANNING_BEFORE_ISSUE_40.items():
        monkeypatch.setitem(cards, cid, {**cards[cid], "planning": planning})
