"""A client that follows a game's events learns of every decision it has to make: a promise of
the core's events (``Engine.apply``, ``Engine.visible``), which the API's streams only relay.

Bots and user interfaces wait on the event stream (or the long-polled log) and look at their
legal actions when something happens. That works only if every action that hands a decision
to another seat emits at least one event that seat may see; otherwise the seat would wait
for an event that never comes. Checked over whole random games of every shape.
"""

from __future__ import annotations

import random
from collections import Counter

from darkroad.core import Engine, GameConfig

SHAPES = [(2, False), (3, False), (4, False), (2, True), (3, True), (4, True)]


def test_every_newly_awaited_seat_sees_an_event(engine: Engine) -> None:
    silent: Counter[str] = Counter()
    for seed in range(30):
        players, concern = SHAPES[seed % len(SHAPES)]
        variants = {"drafting": True} if seed % 3 == 1 else {"advanced_deeds": True} if seed % 3 == 2 else {}
        game, _ = engine.create(GameConfig(players=players, seed=seed, options={"private_concern": concern},
                                           random_buildings=seed % 2 == 0, variants=variants))
        rng = random.Random(seed)
        while not game.finished:
            before = set(engine.awaiting(game))
            seat = rng.choice(sorted(before))
            action = rng.choice(engine.legal_actions(game, seat))
            events = engine.apply(game, action)
            for other in set(engine.awaiting(game)) - before - {seat}:
                if not any(engine.visible(event, other) for event in events):
                    silent[f"{action.type}:{action.option.partition(':')[0]}"] += 1
    assert not silent, f"actions that hand a decision over without an event the next seat sees: {silent}"
