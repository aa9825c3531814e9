"""The bot interface (issue 40): a bot knows what its seat knows, by construction.

``Engine.bot_choice(game, seat, bot)`` is the one way to ask a bot for a move. It hands the
bot an information state (the seat's view, its legal actions, games drawn consistent with the
view, the bot's own seeded randomness), never the real game; a bot of the first interface,
``choose(engine, game, seat, legal)``, gets a drawn game in place of the real one, with a
deprecation warning. So every installed bot answers the same in every game its seat cannot
tell from the real one.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Sequence

import pytest

from darkroad.core import Action, Bot, BotError, Engine, Game, GameConfig, IllegalAction, InfoState
from darkroad.plugins.bots.search_bot import SearchBot


def position(engine: Engine, config: GameConfig, actions: int) -> Game:
    """A game after ``actions`` random actions, stopped early at a real choice (several legal
    actions); the last real choice when the game ends before."""
    game, _ = engine.create(config)
    r = random.Random(config.seed)
    last = None
    for n in range(actions + 200):
        if game.finished:
            break
        seat = engine.awaiting(game)[0]
        legal = engine.legal_actions(game, seat)
        if len(legal) > 1:
            if n >= actions:
                return game
            last = engine.copy(game)
        engine.apply(game, r.choice(legal))
    assert last is not None, "no real choice found"
    return last


CONFIGS = [GameConfig(players=2, seed=s, random_buildings=True) for s in (1, 2, 3)] + [
    GameConfig(players=3, seed=4, random_buildings=True), GameConfig(players=4, seed=5, random_buildings=True),
    GameConfig(players=2, seed=6, random_buildings=True, options={"private_concern": True}),
    GameConfig(players=4, seed=7, random_buildings=True, variants={"advanced_deeds": True}),
]
SENSITIVE = [(CONFIGS[c], n) for c, n in ((0, 15), (0, 216), (1, 252), (2, 117), (3, 60), (3, 63), (4, 66),
                                           (4, 144), (5, 42), (5, 51))]
"""Positions (a caravan to join, deliveries, a travel die, a route, a building, an effect, the Dark
Market) where a bot that searched the real game would answer differently once the hidden
information is drawn again (:func:`test_the_positions_tell_a_peeking_bot_from_a_fair_one`)."""
POSITIONS = SENSITIVE + [(CONFIGS[6], 15), (CONFIGS[6], 90), (CONFIGS[1], 100)]


def fixed(bot: Bot) -> Bot:
    """``bot`` set to answer the same position the same way on any machine: a bot that thinks to
    a clock gets a fixed number of samples (2, to keep the test fast) when it takes one."""
    return bot.configured(samples=2) if "samples" in bot.options and "think_time" in bot.options else bot


@pytest.mark.parametrize("bot_id", ["random", "greedy", "search"])
def test_every_installed_bot_answers_from_what_its_seat_knows(engine: Engine, bot_id: str) -> None:
    """On positions from random games (2 to 4 seats, the solo game, the advanced deeds), the
    same answer on the real game and on games that differ from it only in what the seat cannot
    see: the other seats' deeds and coins, the order of the decks, the dice to come."""
    assert set(engine.bots) >= {"random", "greedy", "search"}
    bot = fixed(engine.bots[bot_id])
    for config, actions in POSITIONS:
        game = position(engine, config, actions)
        seat = engine.awaiting(game)[0]
        real = engine.bot_choice(game, seat, bot)
        assert real in engine.legal_actions(game, seat)
        for k in range(2):
            other = engine.determinize(game, seat, random.Random(k))
            assert engine.dumps(other) != engine.dumps(game)  # the hidden information differs
            assert engine.bot_choice(other, seat, bot) == real, (config, actions, k)


def test_every_other_installed_bot_too(engine: Engine) -> None:
    """A bot of a fan plugin installed with the game's gets the same check (the test plugins'
    are installed in tests/test_hooks.py's engine, not this one: here whatever is installed)."""
    for bot_id, bot in engine.bots.items():
        bot = fixed(bot)
        for config, actions in POSITIONS[::4]:
            game = position(engine, config, actions)
            seat = engine.awaiting(game)[0]
            real = engine.bot_choice(game, seat, bot)
            other = engine.determinize(game, seat, random.Random(9))
            assert engine.bot_choice(other, seat, bot) == real, bot_id


def peeking(engine: Engine, game: Game, seat: int) -> Action:
    """The search bot's rollouts run on copies of the real game (the dice to come included):
    what a bot handed the real game could do."""
    return SearchBot(samples=1).search(engine, seat, engine.legal_actions(game, seat),
                                       lambda rng: engine.copy(game), random.Random(0))


def test_the_positions_tell_a_peeking_bot_from_a_fair_one(engine: Engine) -> None:
    """The check has teeth: on some of these positions, a bot that searches the real game
    answers differently once the hidden information changes."""
    changed = 0
    for config, actions in SENSITIVE:
        game = position(engine, config, actions)
        seat = engine.awaiting(game)[0]
        real = peeking(engine, game, seat)
        changed += any(peeking(engine, engine.determinize(game, seat, random.Random(k)), seat) != real
                       for k in range(2))
    assert changed == len(SENSITIVE)


class Snoop(Bot):
    """A bot of the first interface that reads what its seat must not: it picks by the next
    die roll's state and the other seats' deeds and coins."""

    id = "snoop"
    seen: list[Game] = []

    def choose(self, engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> Action:
        Snoop.seen.append(game)
        secret = hash((repr(game.rng), tuple((p.coins, tuple(p.deeds)) for p in game.players if p.seat != seat)))
        return legal[secret % len(legal)]


def test_a_bot_of_the_first_interface_still_plays_on_a_game_drawn_from_its_view(engine: Engine) -> None:
    """``choose(engine, game, seat, legal)`` keeps working, with a DeprecationWarning, but the
    game it is handed is drawn from what its seat sees: even a bot that reads the other seats'
    secrets and the RNG answers the same whatever they really are."""
    game = position(engine, CONFIGS[0], 40)
    seat = engine.awaiting(game)[0]
    Snoop.seen.clear()
    with pytest.warns(DeprecationWarning, match="implement decide"):
        real = engine.bot_choice(game, seat, Snoop())
    assert real in engine.legal_actions(game, seat)
    handed = Snoop.seen[0]
    assert handed is not game and engine.dumps(handed) != engine.dumps(game)
    assert engine.view(handed, seat) == engine.view(game, seat)
    assert engine.legal_actions(handed, seat) == engine.legal_actions(game, seat)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for k in range(4):
            other = engine.determinize(game, seat, random.Random(k))
            assert engine.bot_choice(other, seat, Snoop()) == real


def test_asking_a_bot_of_the_new_interface_the_old_way_warns_and_asks_it_fairly(engine: Engine) -> None:
    game = position(engine, CONFIGS[1], 30)
    seat = engine.awaiting(game)[0]
    bot = engine.bots["greedy"]
    with pytest.warns(DeprecationWarning, match="engine.bot_choice"):
        old = bot.choose(engine, game, seat, engine.legal_actions(game, seat))
    assert old == engine.bot_choice(game, seat, bot)


class Recorder(Bot):
    id = "recorder"
    states: list[InfoState] = []

    def decide(self, state: InfoState) -> Action:
        Recorder.states.append(state)
        return state.legal[-1]


def test_the_information_state_is_what_the_seat_knows(engine: Engine) -> None:
    game = position(engine, CONFIGS[3], 60)
    seat = engine.awaiting(game)[0]
    before = engine.dumps(game)
    Recorder.states.clear()
    answer = engine.bot_choice(game, seat, Recorder())
    state = Recorder.states[0]
    assert answer == engine.legal_actions(game, seat)[-1]
    assert (state.seat, state.engine) == (seat, engine)
    assert state.legal == tuple(engine.legal_actions(game, seat))
    assert state.view == engine.view(game, seat)
    assert state.rng.getstate() == Recorder().random(game, seat).getstate()  # seeded by the position
    samples = state.samples(3)
    assert len({engine.dumps(s) for s in samples}) == 3
    for s in samples:
        assert engine.view(s, seat) == state.view and engine.dumps(s) != before
    assert not any(isinstance(v, Game) for v in (getattr(state, name) for name in dir(state)
                                                  if not name.startswith("__"))), "no attribute is a game"
    assert engine.dumps(game) == before


def test_a_forced_move_is_played_without_asking(engine: Engine) -> None:
    game, _ = engine.create(GameConfig(players=2, seed=1))
    r = random.Random(0)
    while True:
        seat = engine.awaiting(game)[0]
        legal = engine.legal_actions(game, seat)
        if len(legal) == 1:
            break
        engine.apply(game, r.choice(legal))
    Recorder.states.clear()
    assert engine.bot_choice(game, seat, Recorder()) == legal[0]
    assert Recorder.states == []


class Wrong(Bot):
    id = "wrong"

    def decide(self, state: InfoState) -> Action:
        return Action("plan", state.seat, "no such option")


class Silent(Bot):
    id = "silent"


def test_an_answer_that_is_not_legal_is_the_bots_error(engine: Engine) -> None:
    game = position(engine, CONFIGS[0], 10)
    seat = engine.awaiting(game)[0]
    with pytest.raises(BotError, match="'wrong' answered"):
        engine.bot_choice(game, seat, Wrong())
    with pytest.raises(NotImplementedError, match="neither decide"):
        engine.bot_choice(game, seat, Silent())
    with pytest.raises(IllegalAction, match="no decision"):
        engine.bot_choice(game, 1 - seat, engine.bots["random"])
    # The label is not part of the answer: an action naming a legal one by type, seat and option is it.
    legal = engine.legal_actions(game, seat)

    class Unlabelled(Bot):
        id = "unlabelled"

        def decide(self, state: InfoState) -> Action:
            return Action(legal[1].type, legal[1].seat, legal[1].option)

    assert engine.bot_choice(game, seat, Unlabelled()) == legal[1]


def test_greedy_takes_a_number_of_samples(engine: Engine) -> None:
    greedy = engine.bots["greedy"]
    assert greedy.configured() is greedy
    assert greedy.configured(samples=3).samples == 3  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="at least 1"):
        greedy.configured(samples=0)
    with pytest.raises(ValueError, match="takes no option"):
        greedy.configured(think_time=1)
