"""Property tests: the rules' invariants after every action of random games, and hidden
information in the views.

``test_random_games_keep_every_invariant`` plays random games of mixed configurations (2-4
players, solo, the Private Concern in a 3-4 player game, drafting, advanced deeds, random or
first-game buildings) and checks after every action every wagon limit (an overflow only
while the discard for that very gain is pending), card conservation, no negative count and
the version; then it replays each game through a store/reload round trip at every action
and compares every state (``tests/invariants.py``). CI plays 1500 games (``RANDOM_GAMES`` in
conftest.py) in chunks that pytest-xdist spreads over its workers; more in one go::

    python -m pytest tests/test_properties.py -n 2 --random-games 2000 [--random-games-seed S]

A failure names the game's config and seed: ``play_checked(engine, seed)`` replays it.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import Broken, Checker, check_replay, play_checked, play_trying_abilities

from darkroad.core import Engine, GameConfig
from darkroad.core.actions import Action

CHUNK = 20
"""Games per test: small enough for pytest-xdist to balance the workers."""
PROFILE = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "chunk" in metafunc.fixturenames:
        games = metafunc.config.getoption("random_games")
        metafunc.parametrize("chunk", [(start, min(CHUNK, games - start)) for start in range(0, games, CHUNK)],
                             ids=lambda c: f"games{c[0]}-{c[0] + c[1] - 1}")


@pytest.mark.slow
def test_random_games_keep_every_invariant(engine: Engine, chunk: tuple[int, int], request: pytest.FixtureRequest):
    """Wagon Overview limits (p. 18), card conservation, no negative count, version + 1 per
    action and replay, over random games that end after 13 rounds with a final scoring."""
    base = request.config.getoption("random_games_seed")
    start, count = chunk
    for seed in range(base + start, base + start + count):
        try:
            game, actions, states = play_checked(engine, seed)
            check_replay(engine, game.config, actions, states)
        except Broken as exc:
            raise AssertionError(f"random game with seed {seed}: {exc}") from None
        assert all(p.removed == 4 for p in game.players if p.kind == "human")


ABILITY_GAMES = 12
"""Games of the CI-sized version of the abilities test (about 0.8 s each: every ability is
tried in a branch); the slow one plays one in ten of ``--random-games``."""


def check_trying_abilities(engine: Engine, seeds: range) -> tuple[int, int]:
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
def test_every_ability_tried_at_every_decision_many_games(engine: Engine, chunk: tuple[int, int],
                                                          request: pytest.FixtureRequest):
    """The same over one in ten of ``--random-games`` (CI: 150 games, about 2 CPU minutes, in
    the chunks of the invariant suite)."""
    start, count = chunk
    base = 60_000 + request.config.getoption("random_games_seed") + start // 10
    check_trying_abilities(engine, range(base, base + (count + 9) // 10))


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
