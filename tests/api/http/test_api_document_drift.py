"""The document describes what the engine really sends, down to every leaf.

Whole random games of the base installation (every seat count, the Private Concern solo and
at a table, drafting, advanced deeds, random buildings) are checked against the committed
document's schemas: every view (each seat and a spectator), every legal action, every
event, the final score and the catalogue. A member the engine sends that the document does
not name fails with where it was seen and which schema to extend; so does a documented
member no game ever sent.

Adding a member to a view: add it to the struct named in the failure (api/http/view_schemas.py),
regenerate the document (``darkroad openapi --output openapi/openapi.json``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from conformance import Conformance

from darkroad.api.app import lobby
from darkroad.api.http.catalog import catalog_body
from darkroad.core import Engine, GameConfig

DOCUMENT = json.loads((Path(__file__).parents[3] / "openapi" / "openapi.json").read_text())
CONFIGS = [
    GameConfig(players=2, seed=11),  # the first-game buildings; then the other side of each tile:
    GameConfig(players=2, seed=21, buildings=["queens_eyes_surveyor", "merchants_guildhall", "candle_and_quartz",
                                              "guildmasters_mansion"]),
    GameConfig(players=4, seed=20, buildings=["blazing_quartz_mine", "icebreaker_harbor", "oracle_of_lumi",
                                              "frosted_filigree"]),
    GameConfig(players=3, seed=12, random_buildings=True, variants={"advanced_deeds": True}),
    GameConfig(players=4, seed=13, variants={"drafting": True}),
    GameConfig(players=2, seed=14, options={"private_concern": True}, random_buildings=True),
    GameConfig(players=3, seed=15, options={"private_concern": True}, variants={"drafting": True, "advanced_deeds": True}),
    GameConfig(players=4, seed=16, options={"private_concern": True}, random_buildings=True),
    GameConfig(players=2, seed=17, random_buildings=True, variants={"drafting": True}),
    GameConfig(players=3, seed=18, random_buildings=True),
]
VIEW_EVERY = 5
"""Check the views after every 5th action (and the last): views change little per action."""

NEVER_SEEN_IN_RANDOM_GAMES = {
    # Events the base installation emits only in rare positions, with their documented
    # data; each is emitted by exactly the code that test_rules.py's emit-site checks read.
    ("Event", "upgrade_unused"): "the Spare Harness with every steed dealt",
    ("Event", "companion_returned"): "the Private Concern returning a companion it cannot keep",
    ("Event", "option_withdrawn"): "a plugin failing to resolve an answer (tests/test_plugin_failures.py, "
                                   "tests/api/app/test_api_plugins.py)",
}


@pytest.fixture(scope="module")
def base_engine() -> Engine:
    everything = Engine.load()
    return Engine.load(exclude=[name for name, p in everything.plugins.plugins.items() if not p.builtin])


LOBBY_EVENTS = set(lobby.EVENTS)
"""The lobby's events (seats joined, left, replaced, ...): games played by the engine alone have
none; tests/api/app/test_api_lobby.py checks every one of them, and the views with every kind of
seat, against the document."""


def _view(engine: Engine, game: Any, viewer: int | None) -> dict[str, Any]:
    """A view as the API sends it (the seats added to the engine's, as for a game without lobby)."""
    return lobby.game_view(engine, game, viewer, None)


def _games(engine: Engine) -> Iterator[tuple[str, str, Any]]:
    """(where, component, value) for every value a client reads over the games of CONFIGS."""
    for config in CONFIGS:
        game, events = engine.create(config)
        rng = random.Random(config.seed)
        seats = [None, *range(len(game.players))]
        label = f"game(players={config.players}, seed={config.seed})"
        step = 0
        played: list[Any] = []
        undos = random.Random(-config.seed)
        while not game.finished:
            seat = rng.choice(engine.awaiting(game))
            actions = engine.legal_actions(game, seat)
            if step % VIEW_EVERY == 0:
                for viewer in seats:
                    yield f"{label} view[{viewer}]@{game.version}", "GameView", _view(engine, game, viewer)
                yield (f"{label} actions[{seat}]@{game.version}", "ActionList",
                       {"version": game.version, "status": "active",
                        "actions": [engine.action_to_json(a) for a in actions]})
            action = rng.choice(actions)
            events += engine.apply(game, action)
            played.append(action)
            if undos.random() < 0.05 and engine.undo_refusal(game, seat) is None:
                # Now and then undone and taken again: the same game goes on, with an `undone` event.
                game, record, undone = engine.undo(game, seat, played)
                events += undone + engine.apply(game, action)
                played += [record, action]
            step += 1
        # A game of a player and a bot that thinks for a set time (a lobby: its seats' view).
        seated = lobby.Lobby(seats=[lobby.LobbySeat("bot", name="Search", bot="search", think_time=0.5),
                                    *[lobby.LobbySeat("human") for _ in game.players[1:]]], created=0.0)
        yield f"{label} view with a bot seat", "GameView", lobby.game_view(engine, game, 1, seated)
        # A game with time banks: the first seat's runs, the others' do not.
        timed = lobby.Lobby(seats=[lobby.LobbySeat("human", since=1.0e9, bank=30.0),
                                   *[lobby.LobbySeat("human") for _ in game.players[1:]]], created=0.0,
                            clock=lobby.Clock(60, 5))
        yield (f"{label} view with clocks", "GameView",
               json.loads(msgspec.json.encode(lobby.game_view(engine, game, 1, timed))))  # its times as JSON's
        for viewer in seats:
            view = _view(engine, game, viewer)
            yield f"{label} final view[{viewer}]", "GameView", view
            yield (f"{label} score[{viewer}]", "FinalScore",
                   {"version": game.version, "score": view["score"], "winners": view["winners"]})
        for event in events:
            yield f"{label} event {event.n}", "Event", engine.event_to_json(event)


def test_everything_sent_is_documented_and_everything_documented_is_sent(base_engine: Engine) -> None:
    conformance = Conformance(DOCUMENT)
    problems: list[str] = []
    event_types: set[str] = set()
    for where, component, value in _games(base_engine):
        problems += conformance.check(value, component, where)
        if component == "Event":
            event_types.add(value["type"])
        if len(problems) > 20:
            break
    problems += conformance.check(json.loads(catalog_body(base_engine)), "Catalog", "catalog")
    assert not problems, (
        "document it (the views' structs: api/http/view_schemas.py; event data: EVENTS in core/view.py), then "
        "regenerate openapi/openapi.json:\n" + "\n".join(problems[:20])
    )

    # Actions are all alike (type, seat, option, label): their variants are checked, not counted.
    documented = conformance.documented(["GameView", "FinalScore", "Catalog"])
    never = sorted(f"{owner}.{member}" for owner, member in documented - set(conformance.seen)
                   if owner != "Component")  # the catalogue's kinds are all typed: none falls back to it
    assert not never, f"documented but never sent in {len(CONFIGS)} whole games: {never}"

    known = set(DOCUMENT["components"]["schemas"]["KnownEvent"]["discriminator"]["mapping"])
    rare = {tag for (_, tag) in NEVER_SEEN_IN_RANDOM_GAMES}
    assert event_types <= known, f"events without their own schema: {sorted(event_types - known)}"
    assert known - event_types == rare | LOBBY_EVENTS, (
        f"documented events no game emitted: {sorted(known - event_types - rare - LOBBY_EVENTS)}"
    )
    # Each event's data: every documented field was sent (except in the rare events).
    data_fields = {(owner, member) for owner, member in conformance.documented(["Event"])
                   if owner.endswith("Data")}
    rare_data = {f"Event{''.join(p.title() for p in tag.split('_'))}Data" for tag in rare | LOBBY_EVENTS}
    unseen = sorted(f"{owner}.{member}" for owner, member in data_fields - set(conformance.seen)
                    if owner not in rare_data)
    assert not unseen, f"documented event fields never sent: {unseen}"


def test_the_checker_names_what_is_missing() -> None:
    """The failure says where a member was seen and which schema to extend."""
    conformance = Conformance(DOCUMENT)
    view = {"board": {"banners": ["a"]}}
    problems = conformance.check(view["board"], "Board", "view.board")
    assert "view.board.banners: sent but not documented (add `banners` to Board)" in problems
    assert "view.board.market: required by Board but missing" in problems
    assert conformance.check({"n": 0, "type": "moved", "seat": 0, "private_to": None,
                              "data": {"steps": "3", "position": 1}}, "Event", "event") == [
        "event.data.steps: '3' is not integer as EventMovedData documents it"]
