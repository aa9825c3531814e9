"""Positions changed by hand between questions: the engine answers every question from the game
as it is when asked (core/kernel.py, "What the kernel remembers"), with nothing to announce.

Each test changes a game by hand between two questions about it (as a test or the testing kit
does) and checks the answer against the same question asked of a copy made afresh from the
game's stored form, by an engine that never saw the game.
"""

from __future__ import annotations

import random
import warnings

import attrs
import msgspec
import pytest

from darkroad.core import Action, Engine, Game, GameConfig, IllegalAction
from darkroad.core.kernel import WITHDRAWN_KEY
from darkroad.core.state import PluginVersions
from darkroad.core.testing import Table
from darkroad.core.view import EncodedPlayers

STORAGE_HERO = "baldur-harrowfield"
"""A hero whose bonus is a storage slot for any good."""


@pytest.fixture(scope="module")
def fresh() -> Engine:
    """An engine that answers about copies only: it never saw the games the tests change."""
    return Engine.load()


def answers(engine: Engine, game: Game) -> tuple[object, ...]:
    """Everything the engine says about ``game`` now: who it waits for, each seat's legal actions,
    storage and view."""
    seats = range(len(game.players))
    ctx = Table(engine, game, [], record=False).ctx()
    return (engine.awaiting(game), engine.decision(game), [engine.legal_actions(game, s) for s in seats],
            [engine.storage_spec(ctx, s) for s in seats], [engine.view(game, s) for s in seats])


def test_a_storage_hero_given_by_hand_stores_at_once(engine: Engine) -> None:
    """The reproduction of issue 38: a wagon set up once, then set up again with a hero whose
    bonus is a storage slot, has that slot the next time it is asked (seven armours fit: six
    on the 6x5 grid, one in the hero's slot). A table sharing an engine (no hook recorder) is
    the case an engine that kept the storage of the position it settled answered wrongly."""
    table = Table.new(players=2, seed=3, engine=engine)
    packer = table.engine.packer
    table.setup_wagon(1, heroes=[], goods=[])
    assert not packer.fits(["armor"] * 7, table.ctx().storage_spec(1))
    table.setup_wagon(1, heroes=[STORAGE_HERO])
    assert packer.fits(["armor"] * 7, table.ctx().storage_spec(1))
    assert table.engine.view(table.game, 1)["players"][1]["storage"]["slots"] == 1


def test_games_changed_by_hand_between_questions_are_answered_as_they_are(engine: Engine, fresh: Engine) -> None:
    """Random games, changed by hand between questions (coins, goods, heroes, a task's data),
    answer as a copy answers that an engine that never saw them makes afresh."""
    heroes = sorted(engine.content.heroes)
    goods = [g.id for g in engine.content.goods]
    for seed in range(3):
        r = random.Random(seed)
        game, _ = engine.create(GameConfig(players=2 + seed, seed=seed, random_buildings=True))
        while not game.finished and game.version < 150:
            answers(engine, game)  # questions about the position as it is
            p = game.players[r.randrange(len(game.players))]
            p.coins += r.randrange(3)
            if r.random() < 0.3:
                p.goods.append(r.choice(goods))
            if r.random() < 0.2 and len(p.heroes) < 3:
                p.heroes.append(r.choice(heroes))
            assert answers(engine, game) == answers(fresh, fresh.loads(engine.pack(game))), (seed, game.version)
            seat = r.choice(engine.awaiting(game))
            engine.apply(game, r.choice(engine.legal_actions(game, seat)))


def test_an_answer_withdrawn_by_hand_is_no_longer_legal(engine: Engine) -> None:
    """What ``legal_actions`` gave is legal only while the game says so: an answer taken out of
    the pending decision by hand (the same task, one answer less) is refused, the very object
    ``legal_actions`` gave as well as an equal one."""
    game, _ = engine.create(GameConfig(players=2, seed=4))
    seat = engine.awaiting(game)[0]
    first = engine.legal_actions(game, seat)[0]
    game.stack[-1].data[WITHDRAWN_KEY] = [[seat, first.type, first.option]]
    assert first not in engine.legal_actions(game, seat)
    for action in (first, Action(first.type, first.seat, first.option)):
        with pytest.raises(IllegalAction):
            engine.apply(game, action)


def test_legality_is_by_value(engine: Engine) -> None:
    """An action equal to a legal one is legal, whatever object it is (a client's, parsed from
    its JSON); an action ``legal_actions`` gave at an earlier decision is checked as any other."""
    r = random.Random(5)
    game, _ = engine.create(GameConfig(players=3, seed=5, random_buildings=True))
    refused = 0
    while not game.finished and game.version < 150:
        seat = r.choice(engine.awaiting(game))
        given = r.choice(engine.legal_actions(game, seat))
        engine.apply(game, engine.action_from_json(engine.action_to_json(given)))
        now = {a.key() for s in engine.awaiting(game) for a in engine.legal_actions(game, s)}
        if given.key() not in now and not game.finished:
            refused += 1
            before = engine.position(game)
            with pytest.raises(IllegalAction):
                engine.apply(game, given)
            assert engine.position(game) == before
    assert refused > 20


def test_edited_is_a_deprecated_no_op(engine: Engine) -> None:
    game, _ = engine.create(GameConfig(players=2, seed=1))
    before = engine.dumps(game)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        engine.edited(game)
    assert [w.category for w in caught] == [DeprecationWarning]
    assert engine.dumps(game) == before


def test_a_configs_plugins_replaced_by_hand_are_packed_and_shown_as_they_are(engine: Engine, fresh: Engine) -> None:
    """A game's plugins are an immutable value (``PluginVersions``) whose MessagePack and JSON are
    made once; replacing them by hand (a dict assigned, or a whole new config) between questions
    gives the new plugins in the stored form and in every view, as an engine that never saw the
    game reads them; changing them in place is refused."""
    game, _ = engine.create(GameConfig(players=2, seed=5))
    plugins = game.config.plugins
    assert isinstance(plugins, PluginVersions)
    with pytest.raises(TypeError):
        plugins["fan"] = "1"  # type: ignore[index]
    plain = attrs.evolve(game, config=attrs.evolve(game.config))
    object.__setattr__(plain.config, "plugins", dict(plugins))  # (past the converter) as a dict was stored
    assert engine.pack(game) == msgspec.msgpack.encode(plain) and engine.dumps(game) == msgspec.json.encode(plain)
    view = msgspec.json.decode(msgspec.json.encode(engine.view(game, 0, encoded=EncodedPlayers(engine))))
    assert view["config"]["plugins"] == dict(plugins)

    name = next(iter(plugins))
    game.config.plugins = {**plugins, name: "9.9"}  # by hand, between two questions
    assert isinstance(game.config.plugins, PluginVersions)
    copy = fresh.loads(engine.pack(game))
    assert copy.config.plugins[name] == "9.9"
    assert copy == fresh.loads(engine.dumps(game))
    for encoded in (None, EncodedPlayers(engine)):
        shown = msgspec.json.decode(msgspec.json.encode(engine.view(game, 0, encoded=encoded)))
        assert shown["config"]["plugins"][name] == "9.9"
        assert shown == msgspec.json.decode(msgspec.json.encode(fresh.view(copy, 0)))

    game.config = attrs.evolve(game.config, plugins={})  # a whole new config
    assert fresh.loads(engine.pack(game)).config.plugins == {}
    shown = msgspec.json.encode(engine.view(game, 1, encoded=EncodedPlayers(engine)))
    assert msgspec.json.decode(shown)["config"]["plugins"] == {}


def test_plugin_versions_are_a_value() -> None:
    """Equal to any mapping of the same versions, hashable, copied and pickled as one."""
    import copy
    import pickle

    versions = PluginVersions({"a": "1", "b": "2"})
    assert versions == {"a": "1", "b": "2"} and versions == PluginVersions([("b", "2"), ("a", "1")])
    assert versions != {"a": "1"} and hash(versions) == hash(PluginVersions({"b": "2", "a": "1"}))
    for again in (copy.deepcopy(versions), pickle.loads(pickle.dumps(versions))):
        assert again == versions and type(again) is PluginVersions
    assert repr(versions) == "{'a': '1', 'b': '2'}" and dict(versions) == {"a": "1", "b": "2"}
    assert GameConfig(plugins={"a": "1"}).plugins == PluginVersions({"a": "1"})
