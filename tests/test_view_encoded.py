"""Views built to be encoded at once (``encoded=EncodedPlayers``, as the API builds every view it
answers: structs, shared lists, blocks encoded already): byte for byte the JSON of the view
built as a dict, whatever changed in between."""

from __future__ import annotations

import random

import msgspec
import pytest

from darkroad.core import Engine, GameConfig
from darkroad.core.seats import HUMAN
from darkroad.core.storage import StorageSpec
from darkroad.core.view import EncodedPlayers

encode = msgspec.json.encode


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load()


CONFIGS = [
    GameConfig(players=2, seed=11),
    GameConfig(players=3, seed=12, random_buildings=True),
    GameConfig(players=4, seed=13, random_buildings=True),
    GameConfig(players=2, seed=14, options={"private_concern": True}),  # an automated seat, 2 seats
    GameConfig(players=3, seed=15, options={"private_concern": True}),  # an automated seat's block
]


def test_encoded_views_are_the_views_byte_for_byte(engine: Engine) -> None:
    encoded = EncodedPlayers(engine)  # one for every game
    for config in CONFIGS:
        game, _ = engine.create(config)
        r = random.Random(config.seed)
        seats = len(game.players)
        names: list[str | None] = [f"player {n}" for n in range(seats - 1)] + [None]
        viewers = [None, *range(seats)]
        while not game.finished:
            for viewer in viewers:
                for named in (None, names):
                    plain = engine.view(game, viewer, names=named)
                    assert encode(engine.view(game, viewer, names=named, encoded=encoded)) == encode(plain)
                    if named is not None:
                        assert [list(p)[-1] for p in plain["players"]] == ["name"] * seats
                        assert [p["name"] for p in plain["players"]] == names
            # A copy (another object, the same state) shows the same.
            twin = engine.copy(game)
            assert encode(engine.view(twin, 0, encoded=encoded)) == encode(engine.view(game, 0))
            seat = r.choice(engine.awaiting(game))
            engine.apply(game, r.choice(engine.legal_actions(game, seat)))
        for viewer in viewers:  # the end: every seat's coins and deeds shown
            assert encode(engine.view(game, viewer, encoded=encoded)) == encode(engine.view(game, viewer))


def test_a_config_changed_by_hand_shows_in_the_next_view(engine: Engine) -> None:
    """The ``config`` block is built from the game as it is: a seat's kind changed by hand (no
    rule does it) shows at once, in a view to encode as in any other."""
    encoded = EncodedPlayers(engine)
    game, _ = engine.create(GameConfig(players=2, seed=9, options={"private_concern": True}))
    plain = encode(engine.view(game, 0))
    assert encode(engine.view(game, 0, encoded=encoded)) == plain
    game.players[1].kind = HUMAN
    assert encode(engine.view(game, 0, encoded=encoded)) == encode(engine.view(game, 0)) != plain


def test_a_block_changes_with_the_storage_its_seat_has(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """The storage spec comes from plugins' hooks, which may read anything: a wagon whose storage
    changed while the player did not is shown with the new storage."""
    encoded = EncodedPlayers(engine)
    game, _ = engine.create(GameConfig(players=3, seed=5))
    before = encode(engine.view(game, 0, encoded=encoded))
    assert before == encode(engine.view(game, 0))
    slots = StorageSpec(any_slots=2)
    monkeypatch.setattr(engine, "storage_spec", lambda ctx, seat: slots)
    after = engine.view(game, 0)
    assert [p["storage"]["slots"] for p in after["players"]] == [2, 2, 2]
    assert encode(engine.view(game, 0, encoded=encoded)) == encode(after) != before


def test_a_player_state_msgpack_refuses_is_shown(engine: Engine) -> None:
    encoded = EncodedPlayers(engine)
    game, _ = engine.create(GameConfig(players=3, seed=6))
    game.players[1].extra["huge"] = 2**70  # JSON takes it (as the stored blob does), msgpack not
    assert encode(engine.view(game, 0, encoded=encoded)) == encode(engine.view(game, 0))


def test_encoded_players_are_one_engine_s(engine: Engine) -> None:
    other = Engine.load()
    game, _ = engine.create(GameConfig(players=2, seed=7))
    with pytest.raises(ValueError, match="another engine"):
        engine.view(game, 0, encoded=EncodedPlayers(other))


def _containers(obj: object, found: dict[int, object]) -> dict[int, object]:
    """Every list and dict reachable from ``obj`` (attrs instances' fields too), by id."""
    if isinstance(obj, (list, dict)):
        if id(obj) in found:
            return found
        found[id(obj)] = obj
        for item in obj.values() if isinstance(obj, dict) else obj:
            _containers(item, found)
    elif isinstance(obj, tuple):
        for item in obj:
            _containers(item, found)
    elif hasattr(obj, "__attrs_attrs__"):
        for field in obj.__attrs_attrs__:  # type: ignore[attr-defined]
            _containers(getattr(obj, field.name), found)
    return found


def test_a_view_to_keep_shares_nothing_with_the_game(engine: Engine) -> None:
    """A view built without ``encoded`` is the caller's to keep and change: no list or dict of
    it is the game's (a view to be encoded at once shares the game's lists instead of copying
    them), at every step of a game."""
    game, _ = engine.create(GameConfig(players=3, seed=21, random_buildings=True))
    r = random.Random(21)
    shared_when_encoded = 0
    while not game.finished:
        state = _containers(game, {})
        for seat in (*range(3), None):
            assert not set(_containers(engine.view(game, seat), {})) & set(state)
        shared_when_encoded += bool(set(_containers(engine.view(game, 0, encoded=EncodedPlayers(engine)), {}))
                                    & set(state))
        seat = r.choice(engine.awaiting(game))
        engine.apply(game, r.choice(engine.legal_actions(game, seat)))
    assert shared_when_encoded  # what the test looks for is there to find


def test_an_encoded_view_is_made_of_the_position_as_it_is_now(engine: Engine) -> None:
    """Nothing of a view to encode outlives it: a wagon changed by hand between two views (goods,
    coins, a hero, the plugins' seat state) shows at once, as in a view built afresh."""
    encoded = EncodedPlayers(engine)
    game, _ = engine.create(GameConfig(players=2, seed=8))
    first = encode(engine.view(game, 0, encoded=encoded))
    p = game.players[1]
    p.goods = [*p.goods, "potion"]
    p.coins += 3
    p.heroes = [*p.heroes, "baldur-harrowfield"]
    for viewer in (0, 1, None):
        assert encode(engine.view(game, viewer, encoded=encoded)) == encode(engine.view(game, viewer))
    assert encode(engine.view(game, 0, encoded=encoded)) != first
