"""Undo (core/undo.py): a seat takes back its own actions of the turn, back to the last checkpoint.

The rule is Board Game Arena's: an undo never changes who is to act, never takes back another
seat's action, and never goes back across hidden information revealed or a random event seen.
These tests check it from outside the engine's own bookkeeping: the position and the views
before and after, and the views in games a seat cannot tell from the real one
(``Engine.determinize``), which differ exactly when an action told that seat something.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from darkroad.core import Action, Choice, Ctx, Engine, Game, GameConfig, Task, errors, hookimpl
from darkroad.core.testing import Table
from darkroad.core.undo import UNDO


class Played:
    """A game and its action list, as the service keeps them."""

    def __init__(self, engine: Engine, config: GameConfig) -> None:
        self.engine = engine
        self.config = config
        self.game, _ = engine.create(config)
        self.actions: list[Action] = []

    def apply(self, action: Action) -> None:
        self.engine.apply(self.game, action)
        self.actions.append(action)

    def undo(self, seat: int, earlier: Callable[[int], Game] | None = None) -> list[Any]:
        game, record, events = self.engine.undo(self.game, seat, earlier or self.actions)
        self.game = game
        self.actions.append(record)
        return events

    def play_until(self, done: Callable[[Game], bool], rng: random.Random, limit: int = 2000) -> None:
        for _ in range(limit):
            if done(self.game):
                return
            seat = rng.choice(self.engine.awaiting(self.game))
            self.apply(rng.choice(self.engine.legal_actions(self.game, seat)))
        raise AssertionError("the position was not reached")


def seen(engine: Engine, game: Game, seat: int | None) -> dict[str, Any]:
    """``seat``'s view but its version (an undo is a version of its own)."""
    view = engine.view(game, seat)
    del view["version"]
    return view


def at_bazaar(game: Game) -> bool:
    return bool(game.stack) and game.stack[-1].kind == "great_bazaar" and game.stack[-1].data == {}


def test_the_great_bazaar_undone_step_by_step(engine: Engine) -> None:
    """Rulebook p. 8, the Great Bazaar: "When you activate this district, first you may perform
    the following two actions in either order. - Rotate the market wheel 1 space clockwise. -
    Change 1 market die on the market wheel to any face [...] Then choose which of the
    available goods you wish to buy." Each is a decision of its own, none reveals anything:
    each can be taken back, most recent first, down to the first."""
    played = Played(engine, GameConfig(players=3, seed=4))
    played.play_until(at_bazaar, random.Random(4))
    seat = played.game.active
    positions = [(engine.position(played.game), seen(engine, played.game, seat))]
    for option in ("rotate", None, "buy"):
        legal = [a for a in engine.legal_actions(played.game, seat) if a.type == "great_bazaar"
                 and (a.option == option if option else a.option.startswith("change:"))]
        played.apply(legal[0])
        assert engine.undo_refusal(played.game, seat) is None
        assert engine.view(played.game, seat)["undo_available"] is True
        positions.append((engine.position(played.game), seen(engine, played.game, seat)))
    others = [s for s in range(3) if s != seat]
    assert all(engine.view(played.game, s)["undo_available"] is False for s in others)
    assert "seat" in engine.undo_refusal(played.game, others[0])  # only the seat's own actions
    version = played.game.version
    for back in (2, 1, 0):
        events = played.undo(seat)
        assert [e.type for e in events] == ["undone"] and events[0].private_to is None
        assert events[0].data == {"versions": list(range(version - 2 + back, played.game.version)),
                                  "restored": version - 3 + back}
        assert (engine.position(played.game), seen(engine, played.game, seat)) == positions[back]
    assert played.game.version == version + 3
    # Further back (activating the Bazaar, the move there) until the turn's last checkpoint.
    while engine.undo_refusal(played.game, seat) is None:
        played.undo(seat)
        assert played.game.active == seat and engine.awaiting(played.game) == [seat]
    with pytest.raises(errors.CannotUndo, match="checkpoint"):
        played.undo(seat)
    assert engine.dumps(engine.replay(played.config, played.actions)) == engine.dumps(played.game)


def test_undo_then_the_same_action_again_is_the_same_game(engine: Engine) -> None:
    """Undoing an action and taking it again gives the position, RNG included, that taking it
    once gives, and the game goes on the same: same dice, same draws."""
    rng = random.Random(9)
    once = Played(engine, GameConfig(players=2, seed=9))
    once.play_until(at_bazaar, rng)
    twice = Played(engine, once.config)
    for a in once.actions:
        twice.apply(a)
    seat = once.game.active
    action = next(a for a in engine.legal_actions(once.game, seat) if a.option == "rotate")
    once.apply(action)
    twice.apply(action)
    twice.undo(seat)
    twice.apply(action)
    assert engine.position(twice.game) == engine.position(once.game)
    assert twice.game.rng == once.game.rng
    follow = random.Random(1)
    for _ in range(60):  # the same choices from here draw the same dice and cards
        seat = engine.awaiting(once.game)[0]
        choice = follow.choice(engine.legal_actions(once.game, seat))
        once.apply(choice)
        twice.apply(choice)
    assert engine.position(twice.game) == engine.position(once.game)
    assert engine.dumps(engine.replay(twice.config, twice.actions)) == engine.dumps(twice.game)


def revealed_to(engine: Engine, before: Game, after: Game, action: Action, seat: int, rng: random.Random,
                samples: int) -> bool:
    """Whether ``action`` (from ``before`` to ``after``) told ``seat`` anything: in a game ``seat``
    cannot tell from ``before`` (everything hidden from it drawn again), the same action
    leaves ``seat`` a different view.

    The acting seat's own coins are kept as they are: what its action shows of them is its
    own to give away (activating the Dark Market asks only a seat that has coins to pay), and
    taking that back lets nobody peek. (A sample where the action is not legal says nothing.)"""
    real = seen(engine, after, seat)
    for _ in range(samples):
        other = engine.determinize(before, seat, rng)
        other.players[action.seat].coins = before.players[action.seat].coins
        try:
            engine.apply(other, action)
        except errors.DarkroadError:
            continue
        if seen(engine, other, seat) != real:
            return True
    return False


def check_random_game(engine: Engine, config: GameConfig, seed: int, samples: int = 2) -> dict[str, int]:
    """Play a random game, undoing at random; at every action check the rule (see the asserts).
    Returns how many actions were undoable, checkpoints, and undone."""
    rng = random.Random(seed)
    played = Played(engine, config)
    kept: dict[int, Game] = {}  # the game at each version, for undos without a replay each time
    counts = {"undoable": 0, "checkpoints": 0, "undone": 0, "leaks_checked": 0}
    while not played.game.finished:
        game = played.game
        kept[game.version] = engine.copy(game)
        seat = rng.choice(engine.awaiting(game))
        action = rng.choice(engine.legal_actions(game, seat))
        before = kept[game.version]
        views = {s: seen(engine, before, s) for s in range(config.players)}
        played.apply(action)
        refusal = engine.undo_refusal(played.game, seat)
        if refusal is not None:
            counts["checkpoints"] += 1
            assert engine.view(played.game, seat)["undo_available"] is False
            with pytest.raises(errors.CannotUndo):
                engine.undo(played.game, seat, lambda k: engine.copy(kept[k]))
            continue
        counts["undoable"] += 1
        assert engine.view(played.game, seat)["undo_available"] is True
        # An undoable action never changes who is to act, and it is the active seat's own.
        assert seat == before.active == played.game.active and engine.awaiting(played.game) == [seat]
        # No leak: the action told no seat anything it could not work out from its own view.
        for s in range(config.players):
            counts["leaks_checked"] += 1
            assert not revealed_to(engine, before, played.game, action, s, rng, samples), (
                f"seed {seed}: {action} at version {before.version} is undoable, but told seat {s} something")
        # Nobody else may undo it.
        for s in range(config.players):
            if s != seat:
                assert engine.undo_refusal(played.game, s) is not None
        if rng.random() < 0.4:
            replayed = rng.random() < 0.05  # now and then by a replay of the whole list
            played.undo(seat, None if replayed else (lambda k: engine.copy(kept[k])))
            counts["undone"] += 1
            # Exactly the game before the action (RNG included), and every seat sees what it saw.
            assert engine.position(played.game) == engine.position(before)
            assert {s: seen(engine, played.game, s) for s in range(config.players)} == views
    # The action list, undos included, replays to the same game, byte for byte.
    assert engine.dumps(engine.replay(config, played.actions)) == engine.dumps(played.game)
    return counts


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2)])
def test_undo_over_random_games(engine: Engine, players: int, seed: int) -> None:
    """Over random games: wherever undo is available it gives exactly the game before the
    action; at every checkpoint it is refused; no undoable action told anyone anything."""
    counts = check_random_game(engine, GameConfig(players=players, seed=seed, random_buildings=True), seed, samples=1)
    assert counts["undoable"] > 50 and counts["checkpoints"] > 20 and counts["undone"] > 10


MORE_GAMES = range(10, 15)
"""The seeds of :func:`test_undo_over_more_random_games` with ``--full-properties``. CI plays the
first: 4 players, the Private Concern, drafting and advanced deeds (every variant and option at
once, 3.1 s of CPU of the five games' 11.7 in a profiled run at load 15); the others are 2-3
players with fewer of them, beside the fast test's plain 2- and 3-player games."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.name == "test_undo_over_more_random_games":
        full = metafunc.config.getoption("full_properties")
        metafunc.parametrize("seed", MORE_GAMES if full else MORE_GAMES[:1])


@pytest.mark.slow
def test_undo_over_more_random_games(engine: Engine, seed: int) -> None:
    """The same over more games, variants and a Private Concern, with more samples per check
    (:data:`MORE_GAMES`)."""
    rng = random.Random(seed)
    players = rng.choice([2, 3, 4])
    options = {"private_concern": True} if rng.random() < 0.3 else {}
    variants = {"drafting": rng.random() < 0.5, "advanced_deeds": rng.random() < 0.5}
    config = GameConfig(players=players, seed=seed, random_buildings=True, variants=variants, options=options)
    check_random_game(engine, config, seed, samples=3)


def test_a_revealed_commission_is_a_checkpoint(engine: Engine) -> None:
    """Rulebook p. 8, the Queen's Commissions: only the top commission of each stack is visible.
    Taking one turns up the one below: undo is refused, so no player can peek and take back."""
    played = Played(engine, GameConfig(players=2, seed=3))

    def choosing_a_commission(g: Game) -> bool:
        return any(a.option.startswith("commission:") and len(g.board.commission_stacks[a.option[11:]]) > 1
                   for s in engine.awaiting(g) if s == g.active for a in engine.legal_actions(g, s))

    played.play_until(choosing_a_commission, random.Random(3))
    seat = played.game.active
    choice = next(a for a in engine.legal_actions(played.game, seat) if a.option.startswith("commission:")
                  and len(played.game.board.commission_stacks[a.option[11:]]) > 1)
    played.apply(choice)
    reason = engine.undo_refusal(played.game, seat)
    assert reason is not None and "revealed hidden information" in reason
    assert engine.view(played.game, seat)["undo_available"] is False


def test_a_die_roll_and_the_end_of_a_turn_are_checkpoints(engine: Engine) -> None:
    """Rulebook p. 7, Rest: "If any market dice were set aside this turn, reroll them" and
    "Reroll your night dice if your main reserve is now empty": the end of a turn rolls dice
    and passes the turn; it is never undone."""
    played = Played(engine, GameConfig(players=2, seed=5))
    rng = random.Random(5)
    played.play_until(lambda g: g.round == 2, rng)
    turn_start = played.actions[-1]
    assert engine.undo_refusal(played.game, turn_start.seat) is not None
    rolled = [s for s in range(2) if engine.undo_refusal(played.game, s) is not None]
    assert rolled == [0, 1]


def test_a_caravan_members_answer_is_a_checkpoint(engine: Engine) -> None:
    """A caravan member answers on the leader's turn: another seat's decision, a checkpoint for
    both (an undo never takes back another seat's action, nor changes who is to act)."""
    played = Played(engine, GameConfig(players=3, seed=2))
    played.play_until(lambda g: bool(g.stack) and g.stack[-1].kind == "caravan_join"
                      and engine.awaiting(g) != [g.active], random.Random(2))
    member = engine.awaiting(played.game)[0]
    played.apply(engine.legal_actions(played.game, member)[0])
    reason = engine.undo_refusal(played.game, member)
    assert reason is not None and "another seat's turn" in reason
    assert engine.undo_refusal(played.game, played.game.active) is not None


class Peek(Choice):
    """A fan decision that shows the seat a secret the engine does not know of."""

    kind = "undo_test_peek"
    checkpoint = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[tuple[str, str]]:
        return [("look", "look at the secret")]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        pass


class Harmless(Choice):
    kind = "undo_test_harmless"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[tuple[str, str]]:
        return [("nod", "nod")]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if ctx.game.board.extra.get("undo_test_declare"):
            ctx.checkpoint("the test says so")


class Retype(Choice):
    """A fan decision that keeps the face-down hero deck and another seat's deeds as tuples:
    the same cards, or the deck's order reversed, as ``board.extra["undo_test_retype"]`` says."""

    kind = "undo_test_retype"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[tuple[str, str]]:
        return [("retype", "retype")]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        board, other = ctx.game.board, ctx.game.players[(seat + 1) % len(ctx.game.players)]
        deck = board.hero_deck[::-1] if board.extra["undo_test_retype"] == "reversed" else board.hero_deck
        board.hero_deck = tuple(deck)  # type: ignore[assignment]  # a plugin's choice of sequence
        other.deeds = tuple(other.deeds)  # type: ignore[assignment]


class PeekPlugin:
    @hookimpl
    def darkroad_steps(self) -> list[Any]:
        return [Peek(), Harmless(), Retype()]


def test_a_plugin_step_may_declare_itself_a_checkpoint() -> None:
    """A step class with ``checkpoint = True``, or ``ctx.checkpoint(why)`` from a hook or step,
    makes the action a checkpoint; an ordinary plugin decision stays undoable."""
    table = Table.new(players=2, seed=1, plugins=[("undo-test", PeekPlugin())])
    engine, game = table.engine, table.game
    table.play(until=lambda t: t.decision == "great_bazaar")
    seat = game.active
    for kind, declared in (("undo_test_harmless", False), ("undo_test_peek", True), ("undo_test_harmless", True)):
        game.board.extra["undo_test_declare"] = declared
        table.push(kind, seat)
        table.apply(engine.legal_actions(game, seat)[0])
        reason = engine.undo_refusal(game, seat)
        assert (reason is not None) == declared and (not declared or "a rule of the game" in reason)


def test_hidden_cards_kept_in_another_sequence_type_are_the_same_cards() -> None:
    """What is hidden is compared by its contents: a plugin keeping a face-down deck and another
    seat's deeds as tuples holding the same cards revealed nothing (undoable); reversing the
    deck's order did (a checkpoint)."""
    table = Table.new(players=2, seed=1, plugins=[("undo-test", PeekPlugin())])
    engine, game = table.engine, table.game
    table.play(until=lambda t: t.decision == "great_bazaar")
    seat = game.active
    for how, revealed in (("same", False), ("reversed", True)):
        game.board.extra["undo_test_retype"] = how
        game.board.hero_deck = list(game.board.hero_deck)
        table.push("undo_test_retype", seat)
        table.apply(engine.legal_actions(game, seat)[0])
        reason = engine.undo_refusal(game, seat)
        assert (reason is not None) == revealed and (not revealed or "revealed hidden information" in reason)


def test_nothing_to_undo_and_no_client_undo_action(engine: Engine) -> None:
    """A new game has nothing to undo; an ``undo`` is not an answer a client may submit to
    ``apply`` (it is recorded by ``Engine.undo``), and no plugin may take the name."""
    game, _ = engine.create(GameConfig(players=2, seed=1))
    assert engine.undo_refusal(game, 0) is not None and engine.view(game, 0)["undo_available"] is False
    assert engine.view(game, None)["undo_available"] is False
    with pytest.raises(errors.IllegalAction):
        engine.apply(game, Action(UNDO, engine.awaiting(game)[0], "0"))
    with pytest.raises(errors.CannotUndo):
        engine.undo(game, 0, [])


def test_a_version_made_outside_apply_ends_the_chain(engine: Engine) -> None:
    """A change of seats, a withdrawn answer or a bot's move recorded by the service makes a
    version of its own: nothing before it can be undone (a seat handed to a bot and reclaimed
    cannot undo the bot's moves)."""
    played = Played(engine, GameConfig(players=2, seed=4))
    played.play_until(at_bazaar, random.Random(4))
    seat = played.game.active
    played.apply(next(a for a in engine.legal_actions(played.game, seat) if a.option == "rotate"))
    assert engine.undo_refusal(played.game, seat) is None
    played.game.version += 1  # what a change of seats does to the game
    assert engine.undo_refusal(played.game, seat) is not None


def test_a_trial_without_undo_tracking_is_the_same_game_but_its_chain(engine: Engine) -> None:
    """``Engine.apply(..., track_undo=False)`` (a bot's what-if copies): the same position as a
    tracked apply, only the undo chain left behind, so nothing can be undone on the copy."""
    for seed in range(4):
        r = random.Random(seed)
        game, _ = engine.create(GameConfig(players=2 + seed % 3, seed=seed, random_buildings=True))
        undoable = 0
        while not game.finished and game.version < 150:
            seat = r.choice(engine.awaiting(game))
            action = r.choice(engine.legal_actions(game, seat))
            trial = engine.copy(game)
            events = engine.apply(trial, action, track_undo=False)
            assert events == engine.apply(game, action)
            if game.finished:
                break
            assert engine.position(trial) == engine.position(game)
            assert trial.turn.undo != game.turn.undo  # the chain is where tracking left it
            assert engine.undo_refusal(trial, seat) is not None
            undoable += engine.undo_refusal(game, seat) is None
        assert undoable > 0


def test_a_change_by_hand_between_two_actions_is_not_the_second_action_s(engine: Engine) -> None:
    """Undo tracking compares what is hidden from the acting seat before and after its action,
    both read from the game as it is: a change made by hand between two actions (a test
    setting up a position, with nothing announced) is not taken for the second action's doing.
    (An engine that kept what was hidden after the first action would find the second one
    "revealed" something.)"""
    for seed in range(30, 60):
        rng = random.Random(seed)
        played = Played(engine, GameConfig(players=3, seed=seed))
        played.play_until(lambda g: engine.awaiting(g) == [g.active] and engine.undo_refusal(g, g.active) is None,
                          rng)
        game, seat = played.game, played.game.active
        unedited = engine.copy(game)
        undoable = []
        for action in engine.legal_actions(game, seat):
            twin = engine.copy(unedited)
            engine.apply(twin, action)
            if engine.undo_refusal(twin, seat) is None:
                undoable.append(action)
        if undoable:
            break
    else:
        raise AssertionError("no undoable action found after an undoable one")
    game.board.hero_deck.reverse()  # by hand: the order of a face-down deck, hidden from the seat
    game.players[(seat + 1) % 3].coins += 3  # and another seat's coins
    engine.apply(game, undoable[0])
    assert engine.undo_refusal(game, seat) is None
