"""The ``search`` bot (issue 21): determinized rollouts to a think-time budget; it never
reads what its seat cannot see."""

from __future__ import annotations

import functools
import itertools
import random
import time
import types
from collections import Counter
from typing import Any

import pytest

from darkroad.core import Action, Bot, Engine, Game, GameConfig, PluginError
from darkroad.plugins.bots import search_bot
from darkroad.plugins.bots.kit import STOP_OPTIONS, estimate
from darkroad.plugins.bots.search_bot import MIN_SAMPLES, SearchBot, settled


def position(engine: Engine, players: int, seed: int, actions: int) -> Game:
    game, _ = engine.create(GameConfig(players=players, seed=seed, random_buildings=True))
    r = random.Random(seed)
    for _ in range(actions):
        seat = engine.awaiting(game)[0]
        engine.apply(game, r.choice(engine.legal_actions(game, seat)))
    return game


def decision_points(engine: Engine, count: int) -> list[tuple[Game, int]]:
    """Positions where the seat to play has a real choice (several legal actions)."""
    out = []
    for seed in range(40):
        game = position(engine, 2 + seed % 3, seed, 30 + 37 * seed % 200)
        seat = engine.awaiting(game)[0]
        if len(engine.legal_actions(game, seat)) > 2:
            out.append((game, seat))
        if len(out) == count:
            break
    return out


def test_the_search_bot_is_installed_with_a_budget_of_trials(engine: Engine) -> None:
    bot = engine.bots["search"]
    assert engine.bot_plugins["search"] == "bot-search"
    assert bot.trials == search_bot.TRIALS and bot.think_time == search_bot.THINK_TIME  # type: ignore[attr-defined]
    # A budget of trials (not of time): the replay test's games, at a smaller one, replay from their seed.
    assert isinstance(search_bot.TRIALS, int) and search_bot.TRIALS >= REPLAY_TRIALS
    fast = bot.configured(think_time=0.05)
    assert fast.id == "search" and fast.think_time == 0.05 and bot.think_time == search_bot.THINK_TIME  # type: ignore[attr-defined]
    # A think time alone is its budget, as a bot seat's think_time of the API always was.
    assert fast.trials is None  # type: ignore[attr-defined]
    both = bot.configured(think_time=0.5, trials=100)
    assert both.trials == 100 and both.think_time == 0.5  # type: ignore[attr-defined]
    unbounded = bot.configured(trials="none", think_time="none")
    assert unbounded.trials is None and unbounded.think_time is None  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="takes no option"):
        bot.configured(depth=3)
    with pytest.raises(ValueError, match="takes no option"):
        engine.bots["greedy"].configured(think_time=1)


SENSITIVE = [(3, 5, 60), (3, 4, 60), (2, 9, 120), (3, 7, 105)]
"""(players, seed, random actions) of positions whose best answer depends on hidden
information (a plan, a caravan route, the bazaar, a choice of effects): a bot searching the real
game answers differently once the hidden information is drawn again."""


def peeking_choice(engine: Engine, game: Game, seat: int) -> Action:
    """The search bot as it must not be: it searches copies of the real game (possible only by
    calling its search directly, as :meth:`Engine.bot_choice` never hands a bot the game)."""
    return SearchBot(samples=1).search(engine, seat, engine.legal_actions(game, seat),
                                       lambda rng: engine.copy(game), random.Random(0))


def test_its_choices_do_not_change_when_only_hidden_information_does(engine: Engine) -> None:
    """The real game and games that differ from it only in what the seat cannot see (the
    other seats' deeds and coins, the decks' order, the dice to come) get the same answer:
    the bot reads only what its seat sees. A bot that peeks fails this on these positions."""
    bot: Bot = engine.bots["search"].configured(samples=2)
    peeked = 0
    for players, seed, actions in SENSITIVE:
        game = position(engine, players, seed, actions)
        seat = engine.awaiting(game)[0]
        real = engine.bot_choice(game, seat, bot)
        for k in range(2):
            other = engine.determinize(game, seat, random.Random(k))
            assert engine.dumps(other) != engine.dumps(game)  # the hidden information differs
            assert engine.view(other, seat) == engine.view(game, seat)
            assert engine.bot_choice(other, seat, bot) == real
        other = engine.determinize(game, seat, random.Random(0))
        peeked += peeking_choice(engine, game, seat) != peeking_choice(engine, other, seat)
    assert peeked == len(SENSITIVE), "the positions tell a peeking bot from a fair one"


def test_its_think_time_is_a_limit(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its safety limit: the bot draws samples while the next one, as long as the mean one so
    far, would end within ``think_time`` (the CPU clock of its thread read after each one), then
    answers. On a clock that reads 0.05 s later each time it is read, a limit of 0.22 s is four
    samples (a fifth would end at 0.25 s). (A clock of the test's own, and no budget of trials.)"""
    monkeypatch.setattr(search_bot, "MIN_SAMPLES", 10**9)  # never sure enough to stop sooner
    readings = itertools.count()

    def clock() -> float:
        read = next(readings)
        assert read < 50, "the bot thinks on past its budget"
        return read * 0.05

    monkeypatch.setattr(search_bot, "time", types.SimpleNamespace(thread_time=clock))
    game, seat = decision_points(engine, 1)[0]
    legal = engine.legal_actions(game, seat)
    bot = engine.bots["search"].configured(think_time=0.22, trials="none")
    drawn = 0
    world = engine.determinize

    def counted(*args: Any) -> Game:
        nonlocal drawn
        drawn += 1
        return world(*args)

    monkeypatch.setattr(engine, "determinize", counted)
    action = engine.bot_choice(game, seat, bot)
    assert action in legal
    assert drawn == 4  # read at 0 (the deadline 0.22), then after each sample: 0.05, 0.1, 0.15, 0.2
    before = engine.dumps(game)
    engine.bot_choice(game, seat, engine.bots["search"].configured(samples=1))
    assert engine.dumps(game) == before  # it does not change the game


def test_its_budget_is_a_limit_not_a_quota(engine: Engine) -> None:
    """Once more samples could not change its answer, it answers: on these positions after its
    first ``MIN_SAMPLES`` samples (the samples are drawn from a seeded generator, so how many it
    needs does not depend on the machine), far inside a budget of a minute a decision."""
    bot = engine.bots["search"].configured(think_time=60, trials="none")
    budgeted = 0.0
    t0 = time.perf_counter()
    for game, seat in decision_points(engine, 3):
        assert engine.bot_choice(game, seat, bot) == \
            engine.bot_choice(game, seat, engine.bots["search"].configured(samples=MIN_SAMPLES))
        budgeted += 60
    assert time.perf_counter() - t0 < budgeted / 10


def test_it_stops_when_every_other_action_trails_clearly_or_never_differs() -> None:
    sure = [[5.0, 6.0, 7.0, 5.5, 6.5, 6.0, 5.0, 7.0], [1.0, 2.0, 1.5, 1.0, 2.5, 1.0, 2.0, 1.5]]
    assert settled(sure)
    same = [[3.0, -2.0, 4.0, 0.5, 1.0, 2.0, 3.0, 1.0]] * 3  # equivalent answers: the same in every world
    assert settled(same)
    offset = [[v + 0.25 for v in same[0]], same[0]]  # always ahead by the same quarter point
    assert settled(offset)
    # Ahead on average, but by less than the noise of the difference: it keeps sampling.
    close = [[5.0, 1.0, 6.0, 2.0, 5.0, 1.0, 6.0, 2.0], [2.0, 4.0, 1.0, 5.0, 2.0, 4.0, 1.0, 5.0]]
    assert not settled(close)
    # One clear runner-up is not enough: every other action must trail.
    rival = [6.0, 5.0, 7.5, 5.0, 6.0, 6.5, 4.5, 7.5]  # as good as the leader on average, not in every world
    assert not settled([*sure, rival])
    # The leader is the best mean whichever position it is given in.
    assert settled(sure[::-1])


@pytest.mark.slow
def test_a_game_of_search_bots_ends(engine: Engine) -> None:
    from darkroad.api.tools.arena import arena

    out = arena(engine, ["search", "random"], games=1, players=2, seed=3, think_time=0.01)
    assert out["arena"]["completed"] == 1, out["arena"]["error_seeds"]


def _reply_pending(engine: Engine) -> tuple[Game, int, Game, Action]:
    """A 2-player position, one of its worlds for the seat to play, and an action after which
    the rollout's own follow-ups end with the other seat to move."""
    for seed in range(20):
        game = position(engine, 2, seed, 40 + 7 * seed)
        seat = engine.awaiting(game)[0]
        world = engine.determinize(game, seat, random.Random(seed))
        for action in engine.legal_actions(world, seat):
            trial = engine.copy(world)
            engine.apply(trial, action, track_undo=False)
            if not trial.finished and engine.awaiting(trial) == [1 - seat]:
                return game, seat, world, action
    raise AssertionError("no such position")


def test_a_rollout_ends_with_the_other_seats_reply(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """After its own follow-ups, the next other seat to move answers by the one-step policy
    (the move greedy's valuation of the position one step on likes most), and the bot values
    the position after that reply: what its move leaves to the other seat counts."""
    game, seat, world, action = _reply_pending(engine)
    valued: list[Game] = []
    lead = search_bot.lead
    monkeypatch.setattr(search_bot, "lead", lambda e, g, s: valued.append(engine.copy(g)) or lead(e, g, s))
    SearchBot(samples=1, replies=0)._rollout(engine, world, seat, action, False)
    SearchBot(samples=1, replies=1)._rollout(engine, world, seat, action, False)
    without, after = valued
    assert engine.awaiting(without) == [1 - seat]
    assert after.version == without.version + 1  # one move more: the other seat's
    assert engine.dumps(after) == engine.dumps(SearchBot._step(engine, without, 1 - seat, strict=False)[0])
    # Worked out independently: the other seat's moves (companion abilities aside), each valued
    # one step on. The reply is one of the best; of tied best moves, one that stops a
    # repeatable choice when there is one (so a rollout never trades in circles).
    values = {a: estimate(engine, applied(engine, without, a), 1 - seat)
              for a in engine.legal_actions(without, 1 - seat) if a.type != "companion"}
    top = max(values.values())
    best = [a for a, v in values.items() if v >= top - 1e-6]
    stops = [a for a in best if a.option in STOP_OPTIONS]
    replies = [a for a in stops or best if engine.dumps(applied(engine, without, a)) == engine.dumps(after)]
    assert replies, f"the reply is none of the best moves {best}"


def test_a_reply_a_plugin_cannot_resolve_is_passed_over(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """The other seat's reply is a guess at its move: when its moves fail (a plugin that cannot
    resolve them), the bot values the position without it, rather than ruling its own move out."""
    game, seat, world, action = _reply_pending(engine)
    apply = engine.apply

    def failing_for_the_other_seat(g: Game, a: Action, *, track_undo: bool = True) -> object:
        if a.seat != seat:
            raise PluginError("cannot resolve")
        return apply(g, a, track_undo=track_undo)

    monkeypatch.setattr(engine, "apply", failing_for_the_other_seat)
    replied, tried = SearchBot(samples=1, replies=1)._rollout(engine, world, seat, action, False)
    assert replied == SearchBot(samples=1, replies=0)._rollout(engine, world, seat, action, False)[0]
    assert replied != search_bot.LOSS
    assert tried > 1  # the replies it tried count toward its budget, resolved or not


def applied(engine: Engine, game: Game, action: Action) -> Game:
    trial = engine.copy(game)
    engine.apply(trial, action, track_undo=False)
    return trial


def _bot_game(engine: Engine, bots: list[Bot], seed: int, decisions: int | None) -> list[Action]:
    """The actions of a game of ``bots`` (one a seat) from ``seed``: its first ``decisions``
    actions, or all of them."""
    game, _ = engine.create(GameConfig(players=len(bots), seed=seed))
    played: list[Action] = []
    while not game.finished and (decisions is None or len(played) < decisions):
        seat = engine.awaiting(game)[0]
        action = engine.bot_choice(game, seat, bots[seat])
        engine.apply(game, action)
        played.append(action)
    return played


def _slow_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot's CPU clock as on a machine many times slower: 5 ms more at every reading."""
    readings = itertools.count()
    monkeypatch.setattr(search_bot, "time", types.SimpleNamespace(thread_time=lambda: next(readings) * 0.005))


def test_its_budget_of_trials_bounds_each_decision(engine: Engine) -> None:
    """A decision tries at most ``trials`` actions (a sample more only when one sample alone
    is larger), and the same decision always draws the same samples."""
    bot = engine.bots["search"].configured(trials=120, think_time="none")
    assert isinstance(bot, SearchBot)
    for game, seat in decision_points(engine, 4):
        legal = engine.legal_actions(game, seat)
        draw = functools.partial(engine.determinize, game, seat)
        thoughts = [bot.think(engine, seat, legal, draw, random.Random(7)) for _ in range(2)]
        assert thoughts[0] == thoughts[1]
        assert thoughts[0].trials <= 120 or thoughts[0].samples == 1
        assert thoughts[0].stop in ("budget", "settled")


FOUR_PLAYER_DECISIONS = 100
"""The decisions of the 4-player game of :func:`test_a_game_of_default_bots_replays_from_its_seed`
in CI (about an eighth of the game's 775: both ways a decision stops by its budget come up in
them, 79 searches stopped on the budget and 13 settled); the whole game with
``--full-properties``. The whole 2-player game (~300 decisions) is replayed either way."""
REPLAY_TRIALS = 60
"""The budget of trials of the replayed games' bots: what makes a game replay from its seed is the
budget's kind (trials counted, not time), not its size. At 60 the decisions still stop both ways
a budget of work stops them: on the budget, and on a settled answer (the test asserts both)."""


@pytest.mark.slow
def test_a_game_of_default_bots_replays_from_its_seed(engine: Engine, monkeypatch: pytest.MonkeyPatch,
                                                      request: pytest.FixtureRequest) -> None:
    """The lobby's default bot (``search``) thinks to a budget of trials, not of time: a whole
    game at 2 players and a 4-player game (its first :data:`FOUR_PLAYER_DECISIONS` decisions in
    CI, the whole game with ``--full-properties``) make the same choices from the same seed on a
    fast machine and on a slow one (a clock 5 ms later at each reading), and no decision is cut
    short by the clock. The bots are the default's with a smaller budget of trials
    (:data:`REPLAY_TRIALS`; the default think time, the safety limit, kept): the code is the
    default's, and the default's budget is a number of trials
    (:func:`test_the_search_bot_is_installed_with_a_budget_of_trials`)."""
    four = None if request.config.getoption("full_properties") else FOUR_PLAYER_DECISIONS
    stops: list[str] = []
    think = SearchBot.think

    def noted(self: SearchBot, *args: Any) -> search_bot.Thought:
        thought = think(self, *args)
        stops.append(thought.stop)
        return thought

    monkeypatch.setattr(SearchBot, "think", noted)
    bot = engine.bots["search"].configured(trials=REPLAY_TRIALS)
    assert bot.think_time == search_bot.THINK_TIME  # type: ignore[attr-defined]
    for players, seed, decisions in ((2, 21, None), (4, 22, four)):
        bots = [bot] * players
        first = _bot_game(engine, bots, seed, decisions)
        assert decisions is None or len(first) == decisions
        with monkeypatch.context() as m:
            _slow_clock(m)
            assert _bot_game(engine, bots, seed, decisions) == first
    # Both ways a decision ends by its budget of work are replayed; the clock ended none.
    assert {"budget", "settled"} <= set(stops) and "clock" not in stops, Counter(stops)
