"""Property tests over random seeds and player counts (hypothesis).

Every random game ends after 13 rounds with final scoring; at every step coins and
prestige are never negative, every capacity limit holds (or its overflow decision is
pending), night and market dice are conserved and the stored goods fit; replay
reproduces the state; a seat's view does not change when only another seat's secrets do.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from darkroad.core import Engine, Game, GameConfig
from darkroad.core.context import Ctx

NIGHT_DICE = 7
MARKET_DICE = 5
PROFILE = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def pending(game: Game, kind: str, seat: int) -> bool:
    return any(t.kind == kind and t.seat == seat for t in game.stack)


def check_invariants(engine: Engine, game: Game) -> None:
    ctx = Ctx(engine, game)
    b = game.board
    assert sum(b.market) + b.set_aside == MARKET_DICE
    assert max(b.market) <= 2
    for p in game.players:
        s = p.seat
        assert p.coins >= 0 and p.prestige >= 0, (s, p.coins, p.prestige)
        locked = sum(1 for v in p.locked if v is not None)
        night_pool = sum(1 for d in p.pool if d.kind == "night")
        assert locked + len(p.reserve) + p.spent + night_pool + p.removed == NIGHT_DICE
        assert len(p.special) + sum(1 for d in p.pool if d.kind == "illuminated") <= ctx.capacity(s, "illuminated")
        assert p.lanterns <= ctx.capacity(s, "lanterns")
        assert all(0 <= v <= 5 for v in p.reserve + p.special + [v for v in p.locked if v is not None])
        if not pending(game, "discard_commission", s):
            assert len(p.commissions) <= ctx.capacity(s, "commissions")
        if not pending(game, "discard_hero", s):
            assert len(p.heroes) <= ctx.capacity(s, "heroes")
        if not pending(game, "discard_inventory", s):
            assert p.quartz + p.horseshoes <= ctx.capacity(s, "inventory")
        if not pending(game, "discard_good", s):
            assert ctx.fits(s, p.goods), (s, p.goods)


def play(engine: Engine, config: GameConfig, seed: int, check: bool = True) -> tuple[Game, list[dict]]:
    game, _ = engine.create(config)
    r = random.Random(seed)
    actions = []
    while not game.finished:
        seat = r.choice(engine.awaiting(game))
        action = r.choice(engine.legal_actions(game, seat))
        actions.append(engine.action_to_json(action))
        engine.apply(game, action)
        if check:
            check_invariants(engine, game)
    return game, actions


@PROFILE
@given(seed=st.integers(0, 2**31), players=st.integers(2, 4))
def test_random_games_keep_every_invariant_and_end_scored(engine, seed, players):
    """Game End (p. 13) and Wagon Overview limits (p. 18), over random play."""
    game, _ = play(engine, GameConfig(players=players, seed=seed, random_buildings=True), seed)
    assert game.round == 13 and game.phase == "finished"
    assert len(game.score) == players and game.winners
    assert all(p.removed == 4 for p in game.players)


@PROFILE
@given(seed=st.integers(0, 2**31), players=st.integers(2, 4), cut=st.floats(0, 1))
def test_replay_reproduces_the_state(engine, seed, players, cut):
    """Same config + same actions = the identical state (also from a mid-game prefix)."""
    config = GameConfig(players=players, seed=seed, random_buildings=True)
    game, actions = play(engine, config, seed, check=False)
    assert engine.dumps(engine.replay(config, actions)) == engine.dumps(game)
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
