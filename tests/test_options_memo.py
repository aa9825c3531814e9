"""The engine's memo of the options of the pending decision (``core/engine.py``,
``_OptionsMemo``): what it answers must be what working the options out again answers."""

from __future__ import annotations

import random
import threading

from darkroad.core import Engine, GameConfig
from darkroad.core.state import Game


def fresh_legal(engine: Engine, game: Game, seat: int) -> list[tuple[str, int, str]]:
    engine.edited(game)  # forget: work everything out again
    return [a.key() for a in engine.legal_actions(game, seat)]


def test_memo_answers_what_working_out_again_answers(engine: Engine) -> None:
    for seed in range(6):
        r = random.Random(seed)
        game, _ = engine.create(GameConfig(players=2 + seed % 3, seed=seed, random_buildings=True))
        steps = 0
        while not game.finished and steps < 400:
            awaiting = engine.awaiting(game)
            # Every seat's storage (asked for by views) at rest, memoised: as worked out again.
            views = [engine.view(game, seat) for seat in range(len(game.players))]
            assert steps == 0 or engine._memo.of(game) is not None  # the views used it
            engine.edited(game)
            assert views == [engine.view(game, seat) for seat in range(len(game.players))], (seed, steps)
            for seat in range(len(game.players)):
                memoised = [a.key() for a in engine.legal_actions(game, seat)]
                assert memoised == fresh_legal(engine, game, seat), (seed, steps, seat)
            engine.edited(game)
            assert awaiting == engine.awaiting(game)
            seat = r.choice(awaiting)
            engine.apply(game, r.choice(engine.legal_actions(game, seat)))
            steps += 1


def test_a_game_changed_by_hand_is_worked_out_again_once_announced(engine: Engine) -> None:
    game, _ = engine.create(GameConfig(players=2, seed=4))
    seat = engine.awaiting(game)[0]
    engine.legal_actions(game, seat)
    # A change the memo's key (version, stack depth, top task) cannot see: announced, the
    # options are worked out again.
    game.players[seat].companions.clear()
    game.players[seat].coins = 0
    engine.edited(game)
    assert [a.key() for a in engine.legal_actions(game, seat)] == fresh_legal(engine, game, seat)


def test_copies_and_threads_never_share_a_memo(engine: Engine) -> None:
    game, _ = engine.create(GameConfig(players=2, seed=8))
    seat = engine.awaiting(game)[0]
    engine.legal_actions(game, seat)
    copy = engine.copy(game)
    copy.stack.clear()  # a copy is another object: nothing worked out for game applies to it
    assert engine.legal_actions(copy, seat) == []
    seen: list[list[object]] = []
    thread = threading.Thread(target=lambda: seen.append(engine.legal_actions(game, seat)))
    thread.start()
    thread.join()
    assert seen == [engine.legal_actions(game, seat)]


def test_a_copy_shares_what_was_worked_out_until_it_changes(engine: Engine) -> None:
    """``Engine.copy`` hands the memo on (a bot's trials validate their actions without working
    the options out again); the copy's own changes, and ``edited``, end it for the copy only."""
    game, _ = engine.create(GameConfig(players=3, seed=2, random_buildings=True))
    r = random.Random(2)
    while not game.finished and game.version < 120:
        seat = r.choice(engine.awaiting(game))
        legal = engine.legal_actions(game, seat)
        twin = engine.copy(game)
        assert engine._memo.of(twin) is not None
        assert [a.key() for a in engine.legal_actions(twin, seat)] == fresh_legal(engine, twin, seat)
        engine.apply(twin, r.choice(legal))  # the copy moves on; the game's memo still holds
        assert engine._memo.of(game) is not None
        engine.apply(game, r.choice(legal))
    sample = engine.determinize(game, 0, random.Random(0))
    assert engine._memo.of(sample) is None  # drawn again: worked out afresh


def test_an_action_legal_actions_gave_is_legal_only_where_it_was_given(engine: Engine) -> None:
    """``apply`` takes one of the very actions ``legal_actions`` gave for the decision the game
    waits for without working that decision out again; the same object at any other decision
    (an earlier action's, another game's, the game changed by hand) is checked in full."""
    import pytest

    from darkroad.core import IllegalAction
    from darkroad.core.engine import WITHDRAWN_KEY

    game, _ = engine.create(GameConfig(players=2, seed=5, random_buildings=True))
    r = random.Random(5)
    refused = 0
    while not game.finished and game.version < 150:
        seat = r.choice(engine.awaiting(game))
        legal = engine.legal_actions(game, seat)
        if not engine.monitors:  # a hook recorder (another test's) turns the memo off
            assert engine._memo.of(game).legal[seat] == tuple(legal)  # type: ignore[union-attr]
        twin = engine.copy(game)  # a copy at the same decision: the same answers are legal
        engine.apply(twin, legal[-1])
        action = r.choice(legal)
        engine.apply(game, action)
        if game.finished:
            break
        # The action just taken, again: legal only if the decision now has the same answer.
        now = {a.key() for s in engine.awaiting(game) for a in engine.legal_actions(game, s)}
        if action.key() not in now:
            refused += 1
            before = engine.position(game)
            with pytest.raises(IllegalAction):
                engine.apply(game, action)
            assert engine.position(game) == before
    assert refused > 20
    # Changed by hand and announced: what legal_actions gave before is checked in full.
    game, _ = engine.create(GameConfig(players=2, seed=4))
    seat = engine.awaiting(game)[0]
    legal = engine.legal_actions(game, seat)
    first = legal[0]
    game.stack[-1].data[WITHDRAWN_KEY] = [[seat, first.type, first.option]]  # the same task, one answer less
    engine.edited(game)
    with pytest.raises(IllegalAction):
        engine.apply(game, first)
