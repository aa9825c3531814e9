"""Property tests: the rules' invariants after every action of random games, and hidden
information in the views.

``test_random_games_keep_every_invariant`` plays random games of mixed configurations (2-4
players, solo, the Private Concern in a 3-4 player game, drafting, advanced deeds, random or
first-game buildings) and checks after every action every wagon limit (an overflow only
while the discard for that very gain is pending), card conservation, no negative count and
the version; then it replays each game through a store/reload round trip at every action
and compares every state (``tests/invariants.py``). CI plays games for a budget of CPU time
(``RANDOM_GAMES_SECONDS`` in tests/invariants.py, ``--random-games-seconds``; more with
``--full-properties``) in chunks that
pytest-xdist spreads over its workers, each chunk's seeds in order from its own start; a given
number in one go (a rules change: 5000)::

    python -m pytest tests/test_properties.py -n 2 --random-games 5000 [--random-games-seed S]

A failure names the game's config and seed: ``play_checked(engine, seed)`` replays it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import (
    FULL_RANDOM_GAMES_SECONDS,
    RANDOM_GAMES_SECONDS,
    Broken,
    Checker,
    check_replay,
    play_checked,
    play_trying_abilities,
)

from darkroad.core import Engine, GameConfig
from darkroad.core.actions import Action

CHUNK = 20
"""Games per test with ``--random-games``: small enough for pytest-xdist to balance the workers."""
BUDGET_CHUNKS = 16
"""Tests the budget of CPU time is split in (each plays on until its share is spent)."""
SPAN = 100_000
"""Seeds of each budget chunk (chunk i starts at seed ``i * SPAN``): more than any budget plays."""
ABILITY_SHARE = 0.25
"""The abilities test's budget, as a share of the random games' (about one game in ten)."""
ABILITY_CHUNKS = 4
"""Tests the abilities' share of the budget is split in: few, as one of its games (~0.6 s of CPU)
costs more than a sixteenth of the share, and each test plays at least one game (split in
:data:`BUDGET_CHUNKS`, the share of 3.75 s spent 10 s in 16 games)."""
PROFILE = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@dataclass(frozen=True)
class Chunk:
    """A test's games: seeds from ``start``, ``count`` of them, or as many as ``seconds`` of CPU
    time allows (at least one)."""

    start: int
    count: int
    seconds: float | None = None

    def seeds(self, base: int, every: int = 1) -> Iterator[int]:
        """The seeds to play from ``base + start``: one in ``every`` of a counted chunk, or
        until its budget is spent."""
        first = base + self.start // every
        if self.seconds is None:
            yield from range(first, first + (self.count + every - 1) // every)
            return
        deadline = time.process_time() + self.seconds
        seed = first
        while True:
            yield seed
            seed += 1
            if time.process_time() >= deadline:
                return


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "chunk" in metafunc.fixturenames:
        games = metafunc.config.getoption("random_games")
        if games is None:
            seconds = metafunc.config.getoption("random_games_seconds")
            if seconds is None:
                full = metafunc.config.getoption("full_properties")
                seconds = FULL_RANDOM_GAMES_SECONDS if full else RANDOM_GAMES_SECONDS
            parts = BUDGET_CHUNKS
            if metafunc.definition.name == "test_every_ability_tried_at_every_decision_many_games":
                seconds, parts = seconds * ABILITY_SHARE, ABILITY_CHUNKS
            chunks = [Chunk(n * SPAN, SPAN, seconds / parts) for n in range(parts)]
            ids = [f"budget{n}" for n in range(parts)]
        else:
            chunks = [Chunk(start, min(CHUNK, games - start)) for start in range(0, games, CHUNK)]
            ids = [f"games{c.start}-{c.start + c.count - 1}" for c in chunks]
        metafunc.parametrize("chunk", chunks, ids=ids)


@pytest.mark.slow
def test_random_games_keep_every_invariant(engine: Engine, chunk: Chunk, request: pytest.FixtureRequest):
    """Wagon Overview limits (p. 18), card conservation, no negative count, version + 1 per
    action and replay, over random games that end after 13 rounds with a final scoring."""
    for seed in chunk.seeds(request.config.getoption("random_games_seed")):
        try:
            game, actions, states = play_checked(engine, seed)
            check_replay(engine, game.config, actions, states)
        except Broken as exc:
            raise AssertionError(f"random game with seed {seed}: {exc}") from None
        assert all(p.removed == 4 for p in game.players if p.kind == "human")


ABILITY_GAMES = 12
"""Games of the smaller abilities test (every ability is tried in a branch, and the engine's
invariants asked after every action: slow); the budgeted one plays a share of the random
games' budget (or one in ten of ``--random-games``)."""


def check_trying_abilities(engine: Engine, seeds: Iterable[int]) -> tuple[int, int]:
    """(abilities tried, actions checked) over the games of ``seeds``."""
    tried = checked = 0
    for seed in seeds:
        try:
            game, t, c = play_trying_abilities(engine, seed)
        except Broken as exc:
            raise AssertionError(f"random game with seed {seed}, abilities tried: {exc}") from None
        assert game.finished and game.score
        tried, checked = tried + t, checked + c
    return tried, checked


@pytest.mark.slow
def test_every_ability_tried_at_every_decision_keeps_every_invariant(engine: Engine,
                                                                      request: pytest.FixtureRequest):
    """"You may only trigger companion abilities on your own turn, but may do so at any time"
    (p. 16): at every decision of random games, each offered companion ability (and any other
    action usable at any time) is tried before the pending choice resolves, in a branch played
    on until that choice resolved; every limit holds after every action (issue 23: a wagon
    upgrade pick that resolved after Cosimo's gave two upgrades)."""
    base = 50_000 + request.config.getoption("random_games_seed")
    tried, checked = check_trying_abilities(engine, range(base, base + ABILITY_GAMES))
    assert tried > 100 and checked > 10_000


@pytest.mark.slow
def test_every_ability_tried_at_every_decision_many_games(engine: Engine, chunk: Chunk,
                                                          request: pytest.FixtureRequest):
    """The same over a quarter of the random games' budget of CPU time (in
    :data:`ABILITY_CHUNKS` chunks), or one in ten of ``--random-games`` (in its chunks)."""
    base = 60_000 + request.config.getoption("random_games_seed")
    check_trying_abilities(engine, chunk.seeds(base, every=10))


# -- the checker itself: it fails for the right reason ---------------------------------------------


def test_the_checker_sees_a_duplicated_card(engine: Engine):
    """Card conservation: the same hero on a wagon and in the inn is caught."""
    game, _ = engine.create(GameConfig(players=3, seed=5))
    checker = Checker(engine, game)
    game.players[1].heroes.append(game.board.inn[0])
    with pytest.raises(Broken, match="is in 2 places"):
        checker.check(game)


def test_the_checker_sees_a_lost_card(engine: Engine):
    game, _ = engine.create(GameConfig(players=2, seed=5, options={"private_concern": True}))
    checker = Checker(engine, game)
    game.board.commission_stacks["farglen"].pop()
    with pytest.raises(Broken, match="are nowhere"):
        checker.check(game)


def test_the_checker_sees_an_unsettled_overflow(engine: Engine):
    """An overflow only while its discard is the next decision; and then only the discard."""
    game, _ = engine.create(GameConfig(players=2, seed=5))
    checker = Checker(engine, game)
    p = game.players[0]
    extra = game.board.hero_deck.pop()
    p.heroes += [game.board.hero_deck.pop(), game.board.hero_deck.pop(), extra]
    with pytest.raises(Broken, match="over its heroes limit"):
        checker.check(game)
    game.stack.append(type(game.stack[-1])(kind="discard_hero", seat=0))
    checker.check(game)
    with pytest.raises(Broken, match="while an overflow discard is pending"):
        checker.before(game, Action("companion", 0, "ice_mouse-1:1"))
    checker.before(game, Action("discard_hero", 0, f"discard:{extra}"))


def test_the_checker_sees_a_negative_count_and_a_skipped_version(engine: Engine):
    game, _ = engine.create(GameConfig(players=2, seed=5))
    checker = Checker(engine, game)
    game.players[1].lanterns = -1
    with pytest.raises(Broken, match="negative"):
        checker.check(game)
    game.players[1].lanterns = 0
    game.version += 2
    with pytest.raises(Broken, match="version went from"):
        checker.after(game)


def test_replay_sees_a_different_state(engine: Engine):
    game, actions, states = play_checked(engine, 3, GameConfig(players=2, seed=3))
    check_replay(engine, game.config, actions, states)
    states[len(states) // 2] = states[0]
    with pytest.raises(Broken, match="replay differs"):
        check_replay(engine, game.config, actions, states)


# -- replay and hidden information (hypothesis) ---------------------------------------------------


@PROFILE
@given(seed=st.integers(0, 2**31), players=st.integers(2, 4), cut=st.floats(0, 1))
def test_a_stored_prefix_reloads_identically(engine, seed, players, cut):
    """A game stored mid-way (any prefix of its actions) reloads into the identical state."""
    config = GameConfig(players=players, seed=seed, random_buildings=True)
    _, actions, _ = play_checked(engine, seed, config)
    prefix = actions[: int(len(actions) * cut)]
    a = engine.replay(config, prefix)
    assert engine.dumps(engine.loads(engine.dumps(a))) == engine.dumps(a)


@PROFILE
@given(seed=st.integers(0, 2**31), steps=st.integers(0, 300))
def test_view_hides_other_seats_secrets(engine, seed, steps):
    """Hidden information: a view is unchanged when only another seat's secrets (coins,
    deeds), the deck orders or the RNG change."""
    game, _ = engine.create(GameConfig(players=3, seed=seed))
    r = random.Random(seed)
    for _ in range(steps):
        if game.finished:
            break
        seat = r.choice(engine.awaiting(game))
        engine.apply(game, r.choice(engine.legal_actions(game, seat)))
    before0 = engine.view(game, 0)
    spectator = engine.view(game, None)
    other = engine.copy(game)
    other.players[1].coins += 7
    other.players[2].deeds = ["another_deed"] * len(other.players[2].deeds)  # how many is public
    other.rng = [1, 2, 3, 4]
    r.shuffle(other.board.hero_deck)
    r.shuffle(other.board.deed_deck)
    for stack in other.board.commission_stacks.values():
        if len(stack) > 2:
            stack[1:] = list(reversed(stack[1:]))
    if not game.finished:
        assert engine.view(other, 0) == before0
        assert engine.view(other, None) == spectator
    assert before0["players"][0]["coins"] == game.players[0].coins
