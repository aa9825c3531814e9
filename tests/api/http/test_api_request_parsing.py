"""Shortcuts of the action path's request parsing and commit, each against the general form it
stands for: the same result for any input."""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from darkroad.api.app import lobby as lobbies
from darkroad.api.app.lobby import Lobby, LobbySeat
from darkroad.api.app.reading import Reading
from darkroad.api.app.repository import GameRepository
from darkroad.api.app.values import Expected
from darkroad.api.http import bodies, guards
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.memory import MemoryStore
from darkroad.core import Engine, Event, GameConfig

TAGS = st.one_of(
    st.integers(min_value=0, max_value=10**20).map(lambda n: f'"{n}"'),
    st.integers(min_value=0, max_value=10**20).map(str),
    st.sampled_from(['"41"', 'W/"41"', "*", '"0041"', ' "7"', '"7" ', '"٣"', '"4 1"', '""', '"41",', '"1", "2"',
                     '"41-hu"', 'W/"41-hu"', '"41-de"', '"41-"', '"-hu"', '"41-hu-hu"', '"41-en"']),
    st.text(max_size=30),
)


@given(st.one_of(TAGS, st.lists(TAGS, max_size=3).map(", ".join)))
def test_if_match_reads_as_the_general_list_parser_reads_it(header: str) -> None:
    anything, tags = guards._tags(header, weak=False)  # (version, language) pairs: If-Match takes any language
    assert guards.expected_versions(header) == (None if anything else Expected(frozenset(v for v, _ in tags)))


NAMES = st.one_of(
    st.sampled_from([b"host", b"content-type", b"content-length", b"authorization", b"if-match", b"accept-language"]),
    st.sampled_from([b"X-Custom", b"Content-Type", b"AUTHORIZATION", b"if-none-match", b"ACCEPT"]),
    st.binary(min_size=1, max_size=8),
)


@given(st.lists(st.tuples(NAMES, st.binary(max_size=12)), max_size=8))
def test_headers_read_as_the_general_reader_reads_them(headers: list[tuple[bytes, bytes]]) -> None:
    """The first value of each name, names compared in any case (the fast read of lower-case names
    and the read of any other give the same)."""
    general: dict[bytes, bytes] = {}
    for name, value in headers:
        general.setdefault(name.lower(), value)
    assert bodies.raw_headers({"headers": headers}) == general  # type: ignore[typeddict-item]
    lowered = [(name.lower(), value) for name, value in headers]
    assert bodies.raw_headers({"headers": lowered}) == general  # type: ignore[typeddict-item]
    scope = {"headers": headers}
    assert bodies.raw_headers(scope) is bodies.raw_headers(scope)  # type: ignore[arg-type]  # read once


# No deadline: each example creates a game, which on a loaded 2-core machine took over 200 ms.
@settings(deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(min_value=-2, max_value=5)), max_size=6))
def test_stored_events_go_to_the_seats_the_engine_shows_them_to(private: list[int | None]) -> None:
    engine = _ENGINE
    game, _ = engine.create(GameConfig(players=3, seed=1))
    events = [Event(n=n, type="dice_reset", seat=0, private_to=to) for n, to in enumerate(private)]
    stored = _REPOSITORY.stored_events(game, events)
    for event, kept in zip(events, stored, strict=True):
        if engine.visible(event, None):
            assert kept.audience is None
        else:
            assert kept.audience == frozenset(seat for seat in range(3) if engine.visible(event, seat))


_ENGINE = Engine.load()
_REPOSITORY = GameRepository(_ENGINE, MemoryStore(), Settings(), Metrics())


@pytest.mark.parametrize("options", [{}, {"private_concern": True}])
def test_a_view_the_api_encodes_is_the_game_view(options: dict[str, bool]) -> None:
    """``Reading.view_of`` (the blocks kept encoded: players', config, the seats of a game
    without lobby) answers the JSON of ``game_view`` built afresh, at every step of a game,
    for every seat and a spectator, with a lobby and without."""
    engine = _ENGINE
    reading = Reading(GameRepository(engine, MemoryStore(), Settings(), Metrics()))
    game, _ = engine.create(GameConfig(players=3, seed=8, options=options))
    seated = Lobby([LobbySeat("human", name=f"p{n}") for n in range(3)], created=1.0)
    r = random.Random(8)
    for _ in range(60):
        for lobby in (None, seated):
            for seat in (0, 1, None):
                fresh = msgspec.json.encode(lobbies.game_view(engine, game, seat, lobby, reading.seat_names))
                assert reading.view_of(game, seat, lobby) == fresh
        awaited = engine.awaiting(game)
        if game.finished or not awaited:
            break
        seat = r.choice(awaited)
        engine.apply(game, r.choice(engine.legal_actions(game, seat)))
