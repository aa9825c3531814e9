"""Stored games outlive code changes: a field removed from the state is ignored when an
older blob is read (the service never loses a stored game to an upgrade)."""

from __future__ import annotations

import json
import random

from darkroad.core import Engine, GameConfig
from darkroad.core.serde import msgpack_encode


def test_a_game_stored_with_a_removed_field_still_loads(engine: Engine) -> None:
    """``Player.illuminated_used`` was written but never read; issue 12 removed it."""
    game, _ = engine.create(GameConfig(players=2, seed=1))
    blob = json.loads(engine.dumps(game))
    assert "illuminated_used" not in blob["players"][0]
    blob["players"][0]["illuminated_used"] = 3
    old = engine.loads(json.dumps(blob))
    assert engine.dumps(old) == engine.dumps(game)
    assert engine.legal_actions(old, engine.awaiting(old)[0]) == engine.legal_actions(game, engine.awaiting(game)[0])


def test_a_copy_is_the_stored_game(engine: Engine) -> None:
    """``Engine.copy`` (through MessagePack) gives back the game ``dumps``/``loads`` would: the
    same blob at every step of random games, and a copy that plays on as the game does."""
    for seed in range(3):
        r = random.Random(seed)
        game, _ = engine.create(GameConfig(players=2 + seed, seed=seed, random_buildings=True))
        while not game.finished:
            twin = engine.copy(game)
            assert engine.dumps(twin) == engine.dumps(game) == engine.dumps(engine.loads(engine.dumps(game)))
            seat = r.choice(engine.awaiting(game))
            action = r.choice(engine.legal_actions(game, seat))
            assert engine.apply(twin, action) == engine.apply(game, action)
        assert engine.dumps(twin) == engine.dumps(game)


def test_a_packed_game_is_the_game(engine: Engine) -> None:
    """``Engine.pack`` (MessagePack, what the API stores) reads back with ``loads`` as the game
    itself at every step of random games; the JSON of ``dumps`` (every game stored before
    ``pack``) still loads beside it, and the packed blob is the smaller."""
    for seed in range(3):
        r = random.Random(seed)
        game, _ = engine.create(GameConfig(players=2 + seed, seed=seed, random_buildings=True))
        while not game.finished:
            packed = engine.pack(game)
            assert packed[:1] != b"{" and len(packed) < len(engine.dumps(game))
            assert engine.dumps(engine.loads(packed)) == engine.dumps(engine.loads(engine.dumps(game))) == engine.dumps(game)
            seat = r.choice(engine.awaiting(game))
            engine.apply(game, r.choice(engine.legal_actions(game, seat)))


def test_a_packed_game_is_msgspecs_own_messagepack_of_it(engine: Engine) -> None:
    """``pack`` writes the config it keeps packed in place of packing it again: the bytes are
    those msgspec writes for the game itself, at every step of random games with variants,
    and a game's config is never another's (a config the memo met under the same ``id``)."""
    for seed in range(3):
        r = random.Random(seed)
        options = {"private_concern": True} if seed == 0 else {}  # an automated seat, solo
        variants = {"drafting": True, "advanced_deeds": True} if seed == 1 else {}
        game, _ = engine.create(GameConfig(players=2 + seed, seed=seed, random_buildings=True, options=options,
                                           variants=variants))
        while not game.finished:
            assert engine.pack(game) == msgpack_encode(game)
            seat = r.choice(engine.awaiting(game))
            engine.apply(game, r.choice(engine.legal_actions(game, seat)))
        assert engine.pack(game) == msgpack_encode(game)
    for seed in range(40):  # games made and dropped: ids of configs come back
        game, _ = engine.create(GameConfig(players=2 + seed % 3, seed=seed, random_buildings=True))
        assert engine.pack(game) == msgpack_encode(game)
        del game


def test_a_state_messagepack_refuses_is_packed_as_json(engine: Engine) -> None:
    """A plugin may keep an integer MessagePack cannot hold (over 64 bits) in its state:
    ``pack`` writes such a game as JSON, which ``loads`` reads as well."""
    game, _ = engine.create(GameConfig(players=2, seed=3))
    game.players[0].extra["_huge"] = 2**70
    packed = engine.pack(game)
    assert packed == engine.dumps(game)
    assert engine.loads(packed).players[0].extra["_huge"] == 2**70


def test_a_blob_of_neither_kind_is_refused(engine: Engine) -> None:
    """A damaged stored blob is a clear ``ValueError`` whichever its kind, never half a game."""
    game, _ = engine.create(GameConfig(players=2, seed=4))
    for blob in (engine.pack(game)[:-7], engine.dumps(game)[:-7], b"\x85junk", b""):
        try:
            engine.loads(blob)
        except ValueError as exc:
            assert "schema_version" in str(exc)
        else:
            raise AssertionError(f"{blob[:20]!r}... loaded")


def test_playing_leaves_no_cyclic_garbage() -> None:
    """The engine's actions and views leave nothing for the cyclic garbage collector: every
    object they make is freed by reference counting when it is done with (a recursive closure,
    such as the storage search's, is a cycle unless it is let go). A server runs the collector
    less often, and on fewer objects, the fewer cycles its requests leave."""
    import gc

    engine = Engine.load()  # its own: the storage search runs on what its caches have not seen
    game, _ = engine.create(GameConfig(players=3, seed=5, random_buildings=True))
    r = random.Random(5)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(300):
            if game.finished:
                break
            seat = r.choice(engine.awaiting(game))
            engine.apply(game, r.choice(engine.legal_actions(game, seat)))
            engine.view(game, seat)
            engine.pack(game)
        gc.collect()
        left = [o for o in gc.garbage if str(getattr(o, "__module__", "")).startswith("darkroad")]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == [], left[:5]
