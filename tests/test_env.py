"""``darkroad.env`` (issue 40): the PettingZoo AEC environment and the Gymnasium one-seat
environment pass their libraries' own conformance checks; the mask is exactly the engine's
legal actions; the observation shows what the seat's view shows and nothing else."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

import gymnasium
from gymnasium.utils.env_checker import check_env
from pettingzoo import AECEnv
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils import wrappers

import darkroad.env as denv
from darkroad.core import Action, CompanionCard, Engine, Game, GameConfig, PoolDie
from darkroad.env.catalogue import OVERFLOW, ActionCatalogue
from darkroad.env.match import Match


@pytest.fixture(scope="module")
def catalogue(engine: Engine) -> ActionCatalogue:
    return ActionCatalogue(engine)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_pettingzoos_api_test_passes(engine: Engine, players: int) -> None:
    api_test(denv.env(players=players, seed=players, engine=engine), num_cycles=300)


def test_pettingzoos_seed_test_passes(engine: Engine) -> None:
    seed_test(lambda: denv.env(players=3, engine=engine), num_cycles=100)


def test_gymnasiums_check_env_passes(engine: Engine) -> None:
    for players in (1, 2):
        env = denv.single(players=players, opponents="random", seed=3, engine=engine)
        check_env(env, skip_render_check=True)
    # The render modes are checked on the environment Gymnasium makes by its id (below).


def test_gymnasium_makes_the_registered_environment() -> None:
    """``gymnasium.make`` by id, as Gymnasium's users make environments: its checker passes, with
    every render mode tried (the spec makes them), and the id names the single-seat game."""
    made = gymnasium.make(f"darkroad.env:{denv.ENV_ID}", players=2, opponents="greedy", seed=3, render_mode="ansi")
    assert made.spec is not None and made.spec.id == denv.ENV_ID
    assert isinstance(made.unwrapped, denv.SingleSeatEnv)
    check_env(made.unwrapped)
    observation, _ = made.reset(seed=4)
    mask = made.unwrapped.action_masks()
    _, _, terminated, truncated, _ = made.step(int(np.flatnonzero(mask)[0]))
    assert made.observation_space.contains(observation) and not truncated
    made.close()


def random_games(engine: Engine, n: int, start: int = 0) -> Iterator[Game]:
    """Random games ``start`` to ``n - 1`` of mixed configurations: 2-4 seats, the solo game,
    the variants, random buildings; each yielded at every step until it ends (game ``i`` is
    the same whatever the range it is played in)."""
    solo = {"private_concern": True}
    for i in range(start, n):
        variants = [{}, {"advanced_deeds": True}, {"drafting": True}][i % 3]
        config = GameConfig(players=2 + i % 3, seed=1000 + i, random_buildings=True, variants=variants,
                            options=solo if i % 7 == 0 else {})
        if i % 7 == 0:
            config = GameConfig(players=2, seed=1000 + i, random_buildings=True, options=solo)
        game, _ = engine.create(config)
        r = random.Random(i)
        while not game.finished:
            yield game
            seat = engine.awaiting(game)[0]
            engine.apply(game, r.choice(engine.legal_actions(game, seat)), track_undo=False)


@dataclass
class Walked:
    """What the checks of :func:`walk` found in one random game: its steps, the observations
    compared, and the first failure of each check (none: it held at every step)."""

    steps: int = 0
    observations: int = 0
    failed: dict[str, str] = field(default_factory=dict)


_WALKED: list[Walked] = []
"""This process's walk so far: one entry a game, in order (module state, not a fixture: the
tests asking for fewer games read the first ones of a longer walk)."""


def walk(engine: Engine, catalogue: ActionCatalogue, games: int) -> list[Walked]:
    """The mask and the kept blocks checked at every step of the first ``games`` random games,
    played once in this process: each property is checked at every position of one set of
    games rather than each test playing its own (a test asking for fewer games reads the
    first ones of a longer walk; one asking for more plays on from where it ended).

    At every step, for every awaited seat (``mask``): each legal action has a catalogued index
    (none overflows with the base game's content), the indices of two legal actions differ,
    the mask is exactly those indices, and each index maps back to its action. For every seat
    (``blocks``): the observation assembled from kept blocks (one encoder for all the games)
    is the one encoded afresh."""
    match = Match(2, None, "win", engine, 10)
    encoder = match.encoder
    walked, current = Walked(), None
    for game in random_games(engine, games, start=len(_WALKED)):
        if game is not current:  # the next game (each step of a game yields the same object)
            if current is not None:
                _WALKED.append(walked)
            walked, current = Walked(), game
        walked.steps += 1
        match.game = game
        if "mask" not in walked.failed:
            try:
                for seat in engine.awaiting(game):
                    legal = engine.legal_actions(game, seat)
                    indices = catalogue.indices(legal)
                    assert all(i < len(catalogue.entries) for i in indices), \
                        [a for a, i in zip(legal, indices, strict=True) if i >= len(catalogue.entries)]
                    assert len(set(indices)) == len(legal), legal
                    mask = match.mask(seat)
                    assert sorted(np.flatnonzero(mask).tolist()) == sorted(indices), legal
                    for action, i in zip(legal, indices, strict=True):
                        assert match.action_of(seat, i) == action and match.index_of(action) == i, action
            except AssertionError as exc:
                walked.failed["mask"] = f"{game.config} at version {game.version}: {exc}"
        if "blocks" not in walked.failed:
            try:
                for seat in range(len(game.players)):
                    kept = encoder.encode(game, seat)
                    assert kept.dtype == np.float32 and kept.shape == (match.layout.size,) and kept.flags.writeable
                    assert np.array_equal(kept, encoder.encode_full(game, seat)), seat
                    walked.observations += 1
            except AssertionError as exc:
                walked.failed["blocks"] = f"{game.config} at version {game.version}: {exc}"
    if current is not None:
        _WALKED.append(walked)
    return _WALKED[:games]


def held(walked: list[Walked], check: str) -> None:
    """Fail with the first failure of ``check`` in ``walked``."""
    failures = [w.failed[check] for w in walked if check in w.failed]
    assert not failures, failures[0]


WALKED_GAMES = 30
"""The random games CI's walk checks (:func:`walk`): a regression net over every step of 2-4
seats, the solo game and the variants (about 100 steps a game); ``--full-properties`` walks 200."""

WALK_GROUP = pytest.mark.xdist_group("env-random-games")
"""The tests reading :func:`walk` run on one worker under ``--dist loadgroup`` (CI), so that
the games are played and checked once for all of them (the slow ones first: the others then
read the first games of their walk)."""


@pytest.mark.slow
@WALK_GROUP
def test_the_mask_is_the_legal_actions_over_many_random_games(engine: Engine, catalogue: ActionCatalogue,
                                                              full_size: Callable[[int, int], int]) -> None:
    """At every step of random games (30 in CI, 200 with ``--full-properties``), for every
    awaited seat: each legal action has a catalogued index (none overflows with the base
    game's content), the indices of two legal actions differ, and each index maps back to its
    action."""
    games = full_size(WALKED_GAMES, 200)
    walked = walk(engine, catalogue, games)
    held(walked, "mask")
    assert sum(w.steps for w in walked) > games * 100


@WALK_GROUP
def test_the_mask_is_the_legal_actions(engine: Engine, catalogue: ActionCatalogue) -> None:
    """The fast subset's share of the check above: 12 games."""
    held(walk(engine, catalogue, 12), "mask")


def test_no_index_names_two_actions(catalogue: ActionCatalogue) -> None:
    assert len(set(catalogue.entries)) == len(catalogue.entries)
    assert catalogue.size == len(catalogue.entries) + OVERFLOW
    assert catalogue.uncatalogued == ["lamplighters_guild_light", "snow_owl_scout"]  # the example fan pack's
    assert ActionCatalogue(Engine.load()).entries == catalogue.entries  # the same plugins, the same indices


def test_an_action_no_form_names_takes_an_overflow_slot(engine: Engine, catalogue: ActionCatalogue) -> None:
    """The fan pack's Lamplighters' Guild asks a decision of its own: its options take the
    overflow slots, in the engine's order, and the mask is still exactly the legal actions."""
    legal = [Action("lamplighters_guild_light", 0, "light:1"), Action("lamplighters_guild_light", 0, "done"),
             Action("companion", 0, "raven-1:0")]
    indices = catalogue.indices(legal)
    n = len(catalogue.entries)
    assert indices[:2] == [n, n + 1] and indices[2] == catalogue.index(legal[2]) < n
    with pytest.raises(OverflowError, match="catalogue"):
        catalogue.indices([Action("x", 0, str(k)) for k in range(OVERFLOW + 1)])


def test_a_masks_bytes_are_the_indices_of_the_groups_given(catalogue: ActionCatalogue) -> None:
    """ActionCatalogue.mask sets the places group_indices finds: catalogued options where they
    are catalogued, and, when a group holds an option no form names (even after catalogued
    ones were set), the overflow slots in the order given."""
    n = len(catalogue.entries)
    catalogued = [("companion", ["raven-1:0"])]
    mixed = [("companion", ["raven-1:0"]), ("lamplighters_guild_light", ["light:1", "done"])]
    for groups in (catalogued, mixed, [("no_such_decision", ["a"])], []):
        mask = catalogue.mask(groups, 0)
        assert len(mask) == catalogue.size
        assert [i for i, b in enumerate(mask) if b] == sorted(catalogue.group_indices(groups, 0))
    assert [i for i, b in enumerate(catalogue.mask(mixed, 0)) if b] == sorted([catalogue.index(Action("companion", 0, "raven-1:0")), n, n + 1])


@pytest.mark.parametrize("players", [1, 2, 4])
def test_a_seats_observation_is_unchanged_when_determinize_redraws_what_it_cannot_see(
        engine: Engine, players: int) -> None:
    env = denv.raw_env(players=players, seed=7, engine=engine, options={"random_buildings": True})
    env.reset()
    r = random.Random(players)
    checked = 0
    for step in range(400):
        game = env.game
        if game.finished:
            break
        if step % 9 == 0:
            for agent in env.agents:
                seat = int(agent.removeprefix("seat_"))
                mine = env.match.encoder.encode(game, seat)
                for k in range(2):
                    other = engine.determinize(game, seat, random.Random(k))
                    assert engine.dumps(other) != engine.dumps(game)
                    assert np.array_equal(env.match.encoder.encode(other, seat), mine), (step, agent)
                checked += 1
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(r.choice(np.flatnonzero(mask).tolist()))
    assert checked >= 10


@WALK_GROUP
def test_the_kept_blocks_encode_what_encoding_from_scratch_does(engine: Engine, catalogue: ActionCatalogue) -> None:
    """The observation assembled from kept blocks is the one encoded afresh: 6 random games of
    2-4 seats, the solo game and the variants, every seat at every step (:func:`walk`)."""
    walked = walk(engine, catalogue, 6)
    held(walked, "blocks")
    assert sum(w.observations for w in walked) > 1500


@pytest.mark.slow
@WALK_GROUP
def test_the_kept_blocks_encode_what_encoding_from_scratch_does_over_many_games(
        engine: Engine, catalogue: ActionCatalogue, full_size: Callable[[int, int], int]) -> None:
    """The same over the walk's random games (200 with ``--full-properties``)."""
    games = full_size(WALKED_GAMES, 200)
    walked = walk(engine, catalogue, games)
    held(walked, "blocks")
    assert sum(w.observations for w in walked) > games * 500


def test_a_kept_block_is_made_again_when_the_game_is_changed_by_hand(engine: Engine) -> None:
    """The blocks are kept by what they are made of, not by the game's version: a game changed
    in place without an action (a test, a tool) is encoded as it is now."""
    match = Match(3, None, "win", engine, 100)
    game = match.new_game(5)
    encoder = match.encoder
    encoder.encode(game, 0)
    town = next(t for t, stack in game.board.commission_stacks.items() if stack)
    companion = min(engine.content.companion_cards)
    changes = [lambda: game.players[1].goods.append("potion"), lambda: game.players[0].deeds.append("d"),
               lambda: game.players[2].locked.__setitem__(0, None), lambda: game.board.market.__setitem__(2, 2),
               lambda: game.board.inn.__setitem__(1, None), lambda: setattr(game, "round", 3),
               lambda: game.board.commission_stacks[town].pop(0), lambda: game.players[0].__setattr__("coins", 9),
               lambda: game.players[1].pool.append(PoolDie(kind="night", value=3)),
               lambda: setattr(game.players[1].pool[0], "value", 5),  # a record changed in place
               lambda: game.players[2].companions.append(CompanionCard(card=companion)),
               lambda: game.players[2].companions[0].gifts.append(0)]
    for change in changes:
        before = encoder.encode(game, 0)
        change()
        after = encoder.encode(game, 0)
        assert np.array_equal(after, encoder.encode_full(game, 0))
        assert not np.array_equal(before, after)


def test_the_observation_shows_what_changes_in_the_view(engine: Engine) -> None:
    """Not a constant: the seat's own coins, its goods and the round show."""
    match = Match(2, None, "win", engine, 100)
    game = match.new_game(4)
    lay = match.layout
    before = match.observation(0)
    game.players[0].coins += 3
    game.players[0].goods.append("potion")
    after = match.observation(0)
    coins = lay.seat_offset + next(o for n, o, _ in lay.fields if n == "seat.coins") - lay.seat_offset
    assert after[coins] - before[coins] == pytest.approx(0.3)
    assert not np.array_equal(before, after)
    hidden = match.observation(1)
    game.players[0].coins += 5  # seat 0's coins are behind its screen for seat 1
    assert np.array_equal(hidden, match.observation(1))


def test_rewards_are_zero_sum_and_the_winners(engine: Engine) -> None:
    for players, reward in ((3, "win"), (1, "win"), (2, "score")):
        env = denv.raw_env(players=players, seed=11, engine=engine, reward=reward)
        env.reset()
        total = dict.fromkeys(env.possible_agents, 0.0)
        r = random.Random(0)
        for agent in env.agent_iter():
            _, rew, term, trunc, _ = env.last()
            total[agent] += rew
            if term or trunc:
                env.step(None)
                continue
            env.step(r.choice(np.flatnonzero(env.observe(agent)["action_mask"]).tolist()))
        game = env.game
        assert game.finished
        if reward == "score":
            scores = {s.seat: s.total for s in game.score}
            for agent, got in total.items():
                seat = int(agent.removeprefix("seat_"))
                assert got == pytest.approx(scores[seat] - max(v for t, v in scores.items() if t != seat))
        elif players > 1:
            assert sum(total.values()) == pytest.approx(0.0)
            for agent, got in total.items():
                assert (got > 0) == (int(agent.removeprefix("seat_")) in game.winners)
        else:
            assert env.possible_agents == ["seat_0"]
            assert total["seat_0"] == (1.0 / len(game.winners) if 0 in game.winners else -1.0)


def test_the_environments_expose_the_engine_and_the_game_and_render_text(engine: Engine) -> None:
    env = denv.env(players=2, seed=5, engine=engine, render_mode="ansi")
    env.reset()
    raw = env.unwrapped
    assert raw.engine is engine and raw.game.config.seed == raw.game.config.seed
    text = env.render()
    assert isinstance(text, str) and "round" in text and "seat" in text
    assert "?" in text  # coins behind the screens: a spectator's view
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    index = int(np.flatnonzero(mask)[0])
    action = raw.action_of(agent, index)
    assert action in engine.legal_actions(raw.game, int(agent.removeprefix("seat_")))
    assert raw.index_of(action) == index


def pettingzoos_wrapping(engine: Engine, players: int, seed: int) -> AECEnv[str, Any, int]:
    """raw_env in the three wrappers of PettingZoo's classic games, nested as they nest them."""
    raw = denv.raw_env(players=players, seed=seed, engine=engine)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(wrappers.TerminateIllegalWrapper(raw, -1)))


@pytest.mark.parametrize("players", [1, 2, 4])
def test_the_wrapped_env_answers_as_pettingzoos_three_wrappers(engine: Engine, players: int) -> None:
    """env() does in one layer what PettingZoo's OrderEnforcingWrapper, AssertOutOfBoundsWrapper
    and TerminateIllegalWrapper do: the same games, an illegal action in every other one,
    give the same agents, observations, rewards and ends at every step."""
    ours, theirs = denv.env(players=players, seed=players, engine=engine), pettingzoos_wrapping(engine, players, players)
    for env in (ours, theirs):
        with pytest.raises(AttributeError):
            env.agent_selection  # noqa: B018
        with pytest.raises(AssertionError):
            env.step(0)
    for game in range(4):
        ours.reset(seed=game)
        theirs.reset(seed=game)
        r = random.Random(game)
        illegal_at = r.randrange(20, 200) if game % 2 else -1
        size = ours.action_space(ours.agent_selection).n
        with pytest.raises(AssertionError):
            ours.step(size)
        with pytest.raises(AssertionError):
            theirs.step(size)
        for k, (agent, other) in enumerate(zip(ours.agent_iter(), theirs.agent_iter(), strict=False)):
            assert agent == other
            mine, expected = ours.last(), theirs.last()
            assert np.array_equal(mine[0]["observation"], expected[0]["observation"])
            assert np.array_equal(mine[0]["action_mask"], expected[0]["action_mask"])
            assert mine[1:] == expected[1:]
            if mine[2] or mine[3]:
                action = None
            elif k == illegal_at:
                action = int(np.flatnonzero(mine[0]["action_mask"] == 0)[0])
            else:
                action = r.choice(np.flatnonzero(mine[0]["action_mask"]).tolist())
            ours.step(action)
            theirs.step(action)
            assert (ours.rewards, ours._cumulative_rewards, ours.terminations, ours.truncations) == \
                (theirs.rewards, theirs._cumulative_rewards, theirs.terminations, theirs.truncations)
        assert ours.agents == theirs.agents == []
        if game % 2:
            assert ours.unwrapped.game.finished is False  # ended by the illegal action


def test_an_illegal_action_is_refused_by_the_raw_env_and_ends_the_wrapped_one(engine: Engine) -> None:
    raw = denv.raw_env(players=2, seed=5, engine=engine)
    raw.reset()
    mask = raw.observe(raw.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = engine.dumps(raw.game)
    with pytest.raises(ValueError, match="not legal"):
        raw.step(illegal)
    assert engine.dumps(raw.game) == before
    wrapped = denv.env(players=2, seed=5, engine=engine)
    wrapped.reset()
    agent = wrapped.agent_selection
    wrapped.step(illegal)  # PettingZoo's TerminateIllegalWrapper: the game ends, the agent loses
    assert wrapped.terminations[agent] and wrapped.rewards[agent] == -1


def test_the_one_seat_environment_plays_the_others_with_bots(engine: Engine) -> None:
    env = denv.single(players=3, opponents=["greedy", "random"], seed=2, engine=engine)
    obs, info = env.reset()
    assert obs.shape == env.observation_space.shape
    assert np.array_equal(info["action_mask"].astype(bool), env.action_masks())
    assert env.bots[1].id == "greedy" and env.bots[2].id == "random"
    done = False
    r = random.Random(1)
    while not done:
        assert env.seat in engine.awaiting(env.game)
        obs, reward, done, truncated, info = env.step(r.choice(np.flatnonzero(env.action_masks()).tolist()))
        assert not truncated
    assert reward == env.match.outcome()[0]
    with pytest.raises(ValueError, match="unknown bot"):
        denv.single(players=2, opponents="nobody", engine=engine)
    with pytest.raises(ValueError, match="one for each"):
        denv.single(players=3, opponents=["random"], engine=engine)


def test_bad_settings_are_refused(engine: Engine) -> None:
    with pytest.raises(ValueError, match="players must be 1 to 4"):
        denv.env(players=5, engine=engine)
    with pytest.raises(ValueError, match="reward"):
        denv.env(reward="money", engine=engine)
    with pytest.raises(ValueError, match="not game settings"):
        denv.env(options={"seed": 3}, engine=engine)


def test_a_fan_decision_plays_through_the_overflow_slots(engine: Engine) -> None:
    """A game with the fan pack's Lamplighters' Guild: its decision's options take overflow
    slots, and at every step the mask is still exactly the legal actions."""
    buildings = ["lamplighters_guild", "blazing_quartz_mine", "oracle_of_lumi", "yedls_workshop"]
    overflowed = 0
    for seed in range(6):
        env = denv.raw_env(players=2, seed=seed, engine=engine, options={"buildings": buildings})
        env.reset()
        r = random.Random(seed)
        n = len(env.match.catalogue.entries)
        while not env.game.finished:
            agent = env.agent_selection
            seat = int(agent.removeprefix("seat_"))
            legal = engine.legal_actions(env.game, seat)
            mask = env.observe(agent)["action_mask"]
            chosen = np.flatnonzero(mask).tolist()
            assert len(chosen) == len(legal) and {env.action_of(agent, i) for i in chosen} == set(legal)
            overflowed += any(i >= n for i in chosen)
            guild = [i for i in chosen if env.action_of(agent, i).option == "building:lamplighters_guild"]
            env.step(guild[0] if guild else r.choice(chosen))  # to the Guild whenever it may
        if overflowed:
            break
    assert overflowed, "no game reached the Guild's decision"


def test_a_fan_step_that_lists_its_options_gets_fixed_indices() -> None:
    """A plugin's decision with a ``catalogue(content)`` method: its options are catalogued
    (sorted, after the kinds before its name), so its indices are the same in every episode."""
    from types import SimpleNamespace

    from darkroad.core import Choice, Content, hookimpl

    class Bell(Choice):
        kind = "test_bell_ring"

        def options(self, ctx: object, task: object, seat: int) -> list[tuple[str, str]]:
            return [("ring:1", "ring once"), ("done", "stop")]

        def choose(self, ctx: object, task: object, seat: int, option: str) -> None:
            return None

        def catalogue(self, content: Content) -> list[str]:
            return ["ring:1", "ring:2", "done"]

    plugin = SimpleNamespace(darkroad_steps=hookimpl(lambda: [Bell()]))
    engine = Engine.load(extra=[("bell", plugin)])
    catalogue = ActionCatalogue(engine)
    bell = [entry for entry in catalogue.entries if entry[0] == "test_bell_ring"]
    assert bell == [("test_bell_ring", "done"), ("test_bell_ring", "ring:1"), ("test_bell_ring", "ring:2")]
    assert "test_bell_ring" not in catalogue.uncatalogued
    assert catalogue.index(Action("test_bell_ring", 0, "ring:2")) == catalogue.entries.index(bell[2])


def _mask_of_engine(raw: Any, agent: str) -> np.ndarray:
    """The mask the engine's legal actions make for ``agent`` now (the reference)."""
    legal = raw.engine.legal_actions(raw.game, raw._seat[agent])
    mask = np.zeros(raw.match.catalogue.size, np.int8)
    mask[raw.match.catalogue.indices(legal)] = 1
    return mask


def _at_a_move(raw: Any, seed: int) -> tuple[str, PoolDie]:
    """Play ``raw`` (reset with ``seed``) at random to a ``move`` decision: the agent and the
    night die that sets how far it moves."""
    raw.reset(seed=seed)
    r = random.Random(seed)
    while raw.game.stack[-1].kind != "move":
        agent = raw.agent_selection
        raw.step(r.choice(np.flatnonzero(raw.observe(agent)["action_mask"]).tolist()))
    agent = raw.agent_selection
    die = next(d for d in raw.game.players[raw._seat[agent]].pool if d.kind == "night")
    return agent, die


def test_a_game_edited_by_hand_between_observe_and_step_is_read_as_it_is(engine: Engine) -> None:
    """Nothing is kept by the game's version: a die's value changed by hand after the agent's
    observation (the version unchanged) changes the mask, and the step plays the game as it is
    now: the old distance is refused, the new one moves."""
    raw = denv.raw_env(players=2, engine=engine)
    agent, die = _at_a_move(raw, 3)
    seat = raw._seat[agent]
    game = raw.game
    before = raw.observe(agent)["action_mask"]
    assert np.array_equal(before, _mask_of_engine(raw, agent))
    old = raw.index_of(Action("move", seat, f"move:{die.value}"))
    assert before[old] == 1
    version = game.version
    die.value = die.value % 6 + 1  # by hand: the game's version stays
    assert game.version == version
    new = raw.index_of(Action("move", seat, f"move:{die.value}"))
    after = raw.observe(agent)["action_mask"]
    assert np.array_equal(after, _mask_of_engine(raw, agent))
    assert after[new] == 1 and after[old] == 0
    frozen = engine.dumps(game)
    with pytest.raises(ValueError, match="not legal"):
        raw.step(old)  # what the first observation offered: no longer legal
    assert engine.dumps(game) == frozen
    raw.step(new)
    assert game.players[seat].position != engine.loads(frozen).players[seat].position


def test_a_game_put_in_place_of_the_game_under_way_is_played(engine: Engine) -> None:
    """``env.unwrapped.game = other``: another game at the same version, whose legal actions
    differ, gets its own mask at once, the agent it awaits acts, and the walk of random play
    goes on in it with every mask the engine's legal actions."""
    env = denv.env(players=2, engine=engine)
    env.reset(seed=11)
    raw = env.unwrapped
    other = denv.raw_env(players=2, engine=engine)
    agent, die = _at_a_move(other, 3)
    replacement = engine.loads(engine.dumps(other.game))
    replacement.players[other._seat[agent]].pool[0].value = die.value % 6 + 1  # unlike any game's own
    first, _, _, _, _ = env.last()
    while raw.game.version < replacement.version:
        env.step(random.Random(raw.game.version).choice(np.flatnonzero(env.last()[0]["action_mask"]).tolist()))
    assert raw.game.version == replacement.version
    env.last()  # an observation of the old game, as an agent would have made
    raw.game = replacement
    assert raw.game is replacement and env.agent_selection == agent
    r = random.Random(5)
    for _ in range(60):
        if raw.game.finished:
            break
        obs, _, _, _, _ = env.last()
        assert np.array_equal(obs["action_mask"], _mask_of_engine(raw, env.agent_selection))
        env.step(r.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    with pytest.raises(ValueError, match="seats"):
        raw.game = engine.create(GameConfig(players=3, seed=1))[0]


def test_a_game_put_in_place_of_the_one_seat_environments(engine: Engine) -> None:
    env = denv.single(players=2, opponents="random", seed=2, engine=engine)
    env.reset()
    other = denv.raw_env(players=2, engine=engine)
    _at_a_move(other, 3)
    env.unwrapped.game = engine.loads(engine.dumps(other.game))  # type: ignore[attr-defined]
    assert env.seat in engine.awaiting(env.game)
    legal = engine.legal_actions(env.game, env.seat)
    expected = np.zeros(env.action_space.n, bool)
    expected[env.match.catalogue.indices(legal)] = True
    assert np.array_equal(env.action_masks(), expected)
    env.step(int(np.flatnonzero(expected)[0]))


def _grouped(legal: list[Action]) -> list[tuple[str, list[str]]]:
    """``legal``'s options grouped by type, in order."""
    groups: list[tuple[str, list[str]]] = []
    for action in legal:
        if not groups or groups[-1][0] != action.type:
            groups.append((action.type, []))
        groups[-1][1].append(action.option)
    return groups


def test_legal_options_are_the_legal_actions_grouped_by_type(engine: Engine) -> None:
    """``Engine.legal_options`` (what the mask reads) lists the answers of
    ``legal_actions(words=False)``, in their order, grouped by type: at every step of random
    games, for every seat (the seats not awaited have none), companion abilities included, and
    in a position edited by hand (a die's value changed: the moves it allows change)."""
    seen: set[str] = set()
    for seed in range(8):
        r = random.Random(seed)
        game, _ = engine.create(GameConfig(players=2 + seed % 3, seed=seed))
        while not game.finished:
            for seat in range(len(game.players)):
                legal = engine.legal_actions(game, seat, words=False)
                assert engine.legal_options(game, seat) == _grouped(legal)
                seen.update(a.type for a in legal)
            seat = engine.awaiting(game)[0]
            engine.apply(game, r.choice(engine.legal_actions(game, seat)), track_undo=False)
    assert "companion" in seen and len(seen) > 10, seen
    raw = denv.raw_env(players=2, engine=engine)
    agent, die = _at_a_move(raw, 3)
    seat = raw._seat[agent]
    before = engine.legal_options(raw.game, seat)
    die.value = die.value % 6 + 1  # by hand
    after = engine.legal_options(raw.game, seat)
    assert after != before and after == _grouped(engine.legal_actions(raw.game, seat, words=False))
    assert f"move:{die.value}" in after[0][1]
