"""Stored games outlive code changes: a field removed from the state is ignored when an
older blob is read (the service never loses a stored game to an upgrade)."""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path
from typing import Any

import attrs
import msgspec
import pytest

from darkroad.core import Action, Caravan, Engine, GameConfig, Turn
from darkroad.core.serde import msgpack_encode, upgrade
from darkroad.core.state import SCHEMA_VERSION


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


# -- schema version 3: the turn and the caravan typed -------------------------------------------------

V2 = Path(__file__).parent / "data" / "stored_games_v2.json"


def _v2_positions() -> list[dict[str, Any]]:
    data: dict[str, Any] = json.loads(V2.read_text(encoding="utf-8"))
    assert data["schema_version"] == 2
    positions: list[dict[str, Any]] = data["positions"]
    return positions


@pytest.mark.parametrize("position", _v2_positions(), ids=lambda p: f"{p['feature']}-{p['format']}")
@pytest.mark.usefixtures("concern_cards_as_stored")
def test_a_game_stored_by_version_2_loads_as_the_same_game(engine: Engine, position: dict[str, Any]) -> None:
    """A game stored by darkroad c41aef6 (schema version 2: the turn and its caravan dicts, a
    plugin's keys among the engine's) loads as the game its actions reach now: the same state,
    the plugins' keys in the ``extra`` of the turn or the caravan; and it plays on alike (the
    Private Concern's cards as the games were played with them)."""
    blob: bytes | str = base64.b64decode(position["blob"]) if position["format"] == "msgpack" else position["blob"]
    stored = msgspec.msgpack.decode(blob) if isinstance(blob, bytes) else json.loads(blob)
    assert stored["schema_version"] == 2 and isinstance(stored["turn"], dict)
    game = engine.loads(blob)
    assert game.schema_version == SCHEMA_VERSION and isinstance(game.turn, Turn)
    config = engine.serde.c.structure(position["config"], GameConfig)
    again = engine.replay(config, [Action(type=t, seat=s, option=o) for t, s, o in position["actions"]])
    assert engine.dumps(game) == engine.dumps(again)
    for seat in range(len(game.players)):
        assert engine.view(game, seat) == engine.view(again, seat)
    plugin_keys = {k: v for k, v in stored["turn"].items() if k not in attrs.fields_dict(Turn)}
    assert game.turn.extra == plugin_keys
    if stored["turn"].get("caravan") is not None:
        caravan = stored["turn"]["caravan"]
        assert game.turn.caravan is not None
        assert game.turn.caravan.extra == {k: v for k, v in caravan.items() if k not in attrs.fields_dict(Caravan)}
        assert engine.view(game, None)["caravan"] == caravan  # the view's caravan: the same keys as before
    if not game.finished:
        seat = engine.awaiting(game)[0]
        action = engine.legal_actions(game, seat)[0]
        assert engine.apply(game, action) == engine.apply(again, action)
        assert engine.dumps(game) == engine.dumps(again)


def test_the_corpus_reads_through_the_upgrade_at_every_position() -> None:
    """Over every position of the recorded corpus (tests/data/recorded_games.json.gz): the
    state written in version 2's shape (the turn and its caravan as dicts holding the set
    fields and the plugins' keys) upgrades to the state itself, and loads as it."""
    from recorded_games import decode_game, load

    engine = Engine.load()
    games = load()["games"]
    positions = 0
    for record in games[::3]:
        config, actions = decode_game(engine, record)
        game, _ = engine.create(config)
        for action in actions:
            engine.apply(game, action)
            # The test's own JSON through msgspec, as the engine's: the stdlib's json is slower.
            dumped = engine.dumps(game)
            obj = msgspec.json.decode(dumped)
            old = _as_version_2(obj)
            assert upgrade(old)["turn"].get("extra", {}) == obj["turn"]["extra"]
            assert engine.dumps(engine.loads(msgspec.json.encode(old))) == dumped
            positions += 1
    assert positions > 5000


def _as_version_2(obj: dict[str, Any]) -> dict[str, Any]:
    """A version 3 state as JSON, written as version 2 wrote it: the turn a dict of the keys
    set (``horseshoe`` only once true, the caravan's fields once set) and the plugins' keys."""
    turn = {k: v for k, v in obj["turn"].items() if k != "extra" and v is not None and v is not False}
    turn.update(obj["turn"]["extra"])
    if turn.get("caravan") is not None:
        caravan = turn["caravan"]
        turn["caravan"] = {**{k: v for k, v in caravan.items() if k != "extra" and v is not None}, **caravan["extra"]}
    return {**obj, "schema_version": 2, "turn": turn}


def test_the_turn_read_by_key_is_deprecated_but_works() -> None:
    """``game.turn`` was a dict: a plugin reading or writing it by key still works, with a
    DeprecationWarning, mapping a field's key to the field and any other to ``extra``."""
    turn = Turn(seat=1, caravan=Caravan(leader=1, route="dark_road", town="farglen", members=[1], extra_die=False))
    with pytest.warns(DeprecationWarning, match="game.turn"):
        assert turn["caravan"]["members"] == [1] and turn.get("horseshoe") is False
    with pytest.warns(DeprecationWarning):
        assert "caravan" in turn and "undo" not in turn and turn.get("undo", 7) == 7
    with pytest.warns(DeprecationWarning):
        turn["my_flag"] = 2
        turn["horseshoe"] = True
        assert turn["caravan"].setdefault("taken", {}) == {} and turn.pop("my_flag") == 2
        with pytest.raises(KeyError):
            turn["event"]  # noqa: B018  # not a key of the turn
    assert turn.horseshoe and turn.extra == {} and turn.caravan is not None and turn.caravan.taken == {}
