"""Queries have no side effects: ``legal_actions``, ``awaiting``, ``decision`` and ``view``
leave a game byte-identical (the API's cache hands the same game object to concurrent
readers as read-only), and they do not even assign a field of the game.

Over random games of mixed configurations (tests/invariants.py's ``random_config``: 2-4
players, solo, the Private Concern, drafting, advanced deeds), every state is queried for
every seat and the spectator.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from invariants import random_config

from darkroad.core import Engine, Game
from darkroad.core.state import Board, Player

GAMES = 10


@contextmanager
def no_assignment() -> Iterator[list[str]]:
    """Record every attribute assigned on a Game, Board or Player meanwhile (an assignment of
    the value a field already holds leaves the bytes alone, but writes to a read-only game)."""
    written: list[str] = []
    saved = {cls: cls.__setattr__ for cls in (Game, Board, Player)}

    def guard(cls: type) -> Any:
        def setattr_(self: object, name: str, value: object) -> None:
            written.append(f"{cls.__name__}.{name} = {value!r}")
            saved[cls](self, name, value)
        return setattr_

    for cls in saved:
        cls.__setattr__ = guard(cls)  # type: ignore[method-assign,assignment]
    try:
        yield written
    finally:
        for cls, fn in saved.items():
            cls.__setattr__ = fn  # type: ignore[method-assign]


def query_everything(engine: Engine, game: Game) -> None:
    engine.awaiting(game)
    engine.decision(game)
    for seat in [None, *range(len(game.players))]:
        engine.view(game, seat)
        if seat is not None:
            engine.legal_actions(game, seat)


@pytest.mark.parametrize("seed", range(GAMES))
def test_queries_leave_the_game_byte_identical(engine: Engine, seed: int):
    """At every state of a random game: the queries change no byte of the game and assign
    no field (Plan, Move and Activate once set ``game.phase`` in their options)."""
    r = random.Random(seed)
    game, _ = engine.create(random_config(r, 9100 + seed))
    states = 0
    while not game.finished:
        before = engine.dumps(game)
        with no_assignment() as written:
            query_everything(engine, game)
        assert written == [], f"a query assigned {written[:3]} (stack {[t.kind for t in game.stack][-4:]})"
        assert engine.dumps(game) == before, f"a query changed the game (stack {[t.kind for t in game.stack][-4:]})"
        states += 1
        seat = r.choice(engine.awaiting(game))
        engine.apply(game, r.choice(engine.legal_actions(game, seat)))
    before = engine.dumps(game)
    query_everything(engine, game)
    assert engine.dumps(game) == before and states > 100


def test_the_guard_sees_an_assignment(engine: Engine):
    """The check itself: assigning a field (even to the value it holds) is seen."""
    game, _ = engine.create(random_config(random.Random(0), 1))
    with no_assignment() as written:
        game.phase = game.phase
    assert written == [f"Game.phase = {game.phase!r}"]
