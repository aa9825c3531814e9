"""Game records and history: export, import, the view at any version, and no leak.

* every game of the recorded corpus (one of each configuration's shape in CI, every one with
  ``--full-properties``) survives export then import with the same state at every version;
* in a game played over HTTP, every seat's and the spectator's view captured live at every
  version equals ``history/{version}``'s, byte for byte;
* a seat's history does not change when only another seat's secrets or the decks' order
  change;
* refused imports (a missing plugin, another plugin version, a tampered action, a bad
  format) are 4xx problems and store nothing.
"""

from __future__ import annotations

import asyncio
import random
import zlib
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from apiutil import bearer, play_bots, problem
from litestar import Litestar
from recorded_games import decode_game, load
from redis import Redis
from typer.testing import CliRunner

from darkroad.api import cli
from darkroad.api.app import records
from darkroad.api.app.service import GameService
from darkroad.api.app.service_errors import ServiceError
from darkroad.api.app.timelines import Timeline
from darkroad.api.app.values import Caller, Seating
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.memory import MemoryStore
from darkroad.api.store.redis_store import RedisStore
from darkroad.core import Engine, GameConfig

CORPUS = load()["games"]


def service_of(engine: Engine) -> GameService:
    return GameService(engine, MemoryStore(), Settings(), Metrics())


def corpus_record(engine: Engine, index: int) -> tuple[records.GameRecord, list[bytes]]:
    """Recorded game ``index`` as a game record, and its state after every version."""
    config, actions = decode_game(engine, CORPUS[index])
    game, _ = engine.create(GameConfig(**{**engine.serde.unstructure(config), "plugins": {}}))
    states = [engine.pack(game)]
    for action in actions:
        engine.apply(game, action)
        states.append(engine.pack(game))
    record = records.build(engine, f"corpus-{index}", game, None, [engine.encode(a) for a in actions], {})
    return record, states


async def caller(service: GameService, game_id: str, token: str | None = None) -> Caller:
    return await service.reading.caller(game_id, token)


def timeline_states(timeline: Timeline) -> list[bytes]:
    return [zlib.decompress(state) for state in timeline.states]


async def export_import(engine: Engine, index: int) -> None:
    service = service_of(engine)
    record, states = corpus_record(engine, index)
    first = await service.imports.create(record)
    exported = await service.history.record(await caller(service, first.id))
    assert msgspec.json.encode(exported.config) == msgspec.json.encode(record.config)
    assert exported.plugins == record.plugins and exported.result == record.result
    assert [(a.version, a.seat, a.type, a.option) for a in exported.actions] == \
        [(a.version, a.seat, a.type, a.option) for a in record.actions]
    # Through JSON, as a client holds it.
    second = await service.imports.create(records.parse(msgspec.json.encode(exported)))
    stored = await service.games.load(second.id)
    assert stored.state == states[-1] and stored.finished
    assert timeline_states(await service.history.timeline(stored)) == states, f"corpus game {index}"


QUICK_INDICES = [0, 1, 5]
"""The corpus games of the quick test (``-m "not slow"``); the slow test leaves them out."""


@pytest.mark.parametrize("index", QUICK_INDICES)
async def test_corpus_games_survive_export_and_import(engine: Engine, index: int) -> None:
    await export_import(engine, index)


def corpus_shape(game: dict[str, Any]) -> tuple[Any, ...]:
    """What of a corpus game's configuration reaches a record's fields and its import: the seat
    count, the buildings' setup, the variants and options on (the seed aside)."""
    config = game["config"]
    return (config.get("players", 2), config.get("random_buildings", False),
            sorted(name for name, on in config.get("variants", {}).items() if on), sorted(config.get("options", {})))


def one_game_of_each_shape() -> list[int]:
    """The shortest corpus game of each :func:`corpus_shape` (41 of the 90 games, 13,000 of their
    31,000 actions): export and import ask the same of every game of a shape (the record's
    fields, its replay through the core: every corpus game's own replay is
    tests/test_recorded_games.py's)."""
    shortest: dict[str, int] = {}
    for index, game in enumerate(CORPUS):
        shape = repr(corpus_shape(game))
        if shape not in shortest or len(game["actions"]) < len(CORPUS[shortest[shape]]["actions"]):
            shortest[shape] = index
    return sorted(shortest.values())


@pytest.mark.slow
async def test_every_corpus_game_survives_export_and_import(engine: Engine, request: pytest.FixtureRequest) -> None:
    """Every shape of configuration in the corpus (:func:`one_game_of_each_shape`) in CI; every
    corpus game with ``--full-properties``. Not the games the quick test above checks (game 5 is
    the shortest of its shape: it was checked twice a run)."""
    full = request.config.getoption("full_properties")
    indices = range(len(CORPUS)) if full else one_game_of_each_shape()
    assert full or len(indices) > 40  # every shape: 2-4 players, variants, the Private Concern
    for index in indices:
        if index not in QUICK_INDICES:
            await export_import(engine, index)


async def test_import_at_a_version_is_a_running_game_to_play_on(engine: Engine) -> None:
    service = service_of(engine)
    record, states = corpus_record(engine, 2)
    created = await service.imports.create(record, at=40)
    stored = await service.games.load(created.id)
    assert (stored.version, stored.state, stored.finished) == (40, states[40], False)
    assert created.status == "active" and all(created.tokens)
    game = service.games.game(stored)
    seat = engine.awaiting(game)[0]
    action = engine.legal_actions(game, seat)[0]
    answer = await service.acting.act(created.id, created.tokens[seat] or "", action, None, None)
    assert answer.version == 41


def _view_of(history: bytes) -> bytes:
    """The ``view`` member of a ``HistoryEntry``, as sent."""
    start = history.index(b',"view":') + len(b',"view":')
    return history[start:history.rindex(b',"events":[')]


# On one Redis only: the history asks the store for a game's action list and its events
# (``Timelines._replay``), as every read does, and the stores' answers to those are
# test_api_store.py's contract on every kind; what this test checks (each version's view
# rebuilt from them, byte for byte the live one) is the app's, the same whatever the store.
@pytest.mark.stores("redis")
async def test_history_equals_the_views_seen_live_byte_for_byte(client: httpx.AsyncClient) -> None:
    # Two seats, a named one and one without a name: every kind of caller (each seat, the
    # spectator) and of seat view a third seat would add again.
    created = await client.post("/v1/games", json={
        "players": 2, "seed": 11, "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human"}]})
    assert created.status_code == 201, created.text
    body = created.json()
    url = f"/v1/games/{body['id']}"
    tokens = [seat["token"] for seat in body["seats"]]
    callers: list[str | None] = [*tokens, None]
    live: dict[tuple[int, str | None], bytes] = {}
    rnd = random.Random(3)
    while True:
        views = [await client.get(url, headers=bearer(token) if token else {}) for token in callers]
        version = int(views[0].headers["etag"].strip('"'))
        for token, view in zip(callers, views, strict=True):
            live[version, token] = view.content
        state = views[-1].json()
        if state["status"] == "finished":
            break
        seat = rnd.choice(state["awaiting"])
        actions = (await client.get(f"{url}/actions", headers=bearer(tokens[seat]))).json()["actions"]
        acted = await client.post(f"{url}/actions", json=rnd.choice(actions), headers=bearer(tokens[seat]))
        assert acted.status_code == 200, acted.text
    assert len(live) == len(callers) * (version + 1)
    for token in callers:
        headers = bearer(token) if token else {}
        events = []
        for at in range(version + 1):
            history = await client.get(f"{url}/history/{at}", headers=headers)
            assert history.status_code == 200, history.text
            assert _view_of(history.content) == live[at, token], (at, token)
            entry = history.json()
            assert (entry["version"], entry["latest"], entry["finished"]) == (at, version, True)
            events += entry["events"]
        # The events of every version, in order, are the caller's log.
        log = (await client.get(f"{url}/log", params={"limit": 500}, headers=headers)).json()
        seen = log["events"]
        while log["more"]:
            log = (await client.get(f"{url}/log", params={"limit": 500, "after": log["next"]},
                                    headers=headers)).json()
            seen += log["events"]
        assert events == seen
    problem(await client.get(f"{url}/history/{version + 1}"), 404, "unknown-version")
    problem(await client.get(f"{url}/history/0", headers=bearer("x" * 43)), 401, "invalid-token")


@pytest.mark.stores("memory", "redis")  # a store asked only what its contract asks: see test_api_store.py for the stores
async def test_a_running_game_shows_each_seat_only_its_own_past(client: httpx.AsyncClient) -> None:
    created = (await client.post("/v1/games", json={"players": 2, "seed": 4})).json()
    url = f"/v1/games/{created['id']}"
    tokens = [seat["token"] for seat in created["seats"]]
    for _ in range(6):
        view = (await client.get(url)).json()
        seat = view["awaiting"][0]
        action = (await client.get(f"{url}/actions", headers=bearer(tokens[seat]))).json()["actions"][0]
        assert (await client.post(f"{url}/actions", json=action, headers=bearer(tokens[seat]))).status_code == 200
    for seat, token in enumerate(tokens):
        entry = (await client.get(f"{url}/history/3", headers=bearer(token))).json()
        assert entry["view"]["seat"] == seat and entry["finished"] is False
    spectator = (await client.get(f"{url}/history/3")).json()["view"]
    assert spectator["seat"] is None
    assert all(player["coins"] is None for player in spectator["players"])
    problem(await client.get(f"{url}/record"), 409, "game-not-finished")


async def test_a_seats_history_does_not_show_another_seats_secrets(engine: Engine) -> None:
    """Perturb a copy: everything hidden from seat A drawn again (other seats' coins and
    deeds, every deck's order, the RNG); seat A's history and the spectator's stay the same,
    while seat B's changes (the perturbation is real)."""
    service = service_of(engine)
    record, _ = corpus_record(engine, 2)  # 4 players
    created = await service.imports.create(record)
    stored = await service.games.load(created.id)
    timeline = await service.history.timeline(stored)
    a, b = [seat for seat, token in enumerate(created.tokens) if token][:2]
    seat_a = await caller(service, created.id, created.tokens[a])
    seat_b = await caller(service, created.id, created.tokens[b])
    spectator = await caller(service, created.id)
    versions = range(0, stored.version + 1, 7)
    before = {(v, who.seat): await service.history.at(who, v) for v in versions for who in (seat_a, seat_b, spectator)}
    rnd = random.Random(0)
    for v in versions:
        copy = engine.determinize(service.history.state(timeline, v), a, rnd)
        timeline.states[v] = zlib.compress(engine.pack(copy), 1)
    changed = 0
    for v in versions:
        assert await service.history.at(seat_a, v) == before[v, a], v
        assert await service.history.at(spectator, v) == before[v, None], v
        changed += await service.history.at(seat_b, v) != before[v, b]
    assert changed > len(versions) // 2


@pytest.mark.stores("memory", "redis")
@pytest.mark.parametrize("tamper", ["missing-plugin", "other-version", "tampered-action", "bad-format",
                                    "other-format-version", "other-result", "not-json"])
async def test_refused_imports_store_nothing(app: Litestar, client: httpx.AsyncClient, engine: Engine,
                                             tamper: str) -> None:
    record, _ = corpus_record(engine, 1)
    data: Any = msgspec.to_builtins(record)
    expected = {"missing-plugin": "record-plugins", "other-version": "record-plugins",
                "tampered-action": "record-not-replayable", "bad-format": "bad-record",
                "other-format-version": "bad-record", "other-result": "record-not-replayable",
                "not-json": "bad-request"}[tamper]
    if tamper == "missing-plugin":
        data["plugins"]["fan-expansion"] = "1.0.0"
    elif tamper == "other-version":
        data["plugins"]["basegame"] = "99.0.0"
    elif tamper == "tampered-action":
        action = data["actions"][len(data["actions"]) // 2]
        action["option"] = "nowhere"
    elif tamper == "bad-format":
        data["format"] = "some-other-game"
    elif tamper == "other-format-version":
        data["format_version"] = 2
    elif tamper == "other-result":
        data["result"]["winners"] = [w + 1 for w in data["result"]["winners"]]
    before = await _game_count(app)
    if tamper == "not-json":
        answer = await client.post("/v1/games/import", content=b'{"format": ',
                                   headers={"content-type": "application/json"})
    else:
        answer = await client.post("/v1/games/import", json=data)
    status = {"bad-request": 400, "bad-record": 422, "record-plugins": 409, "record-not-replayable": 409}[expected]
    found = problem(answer, status, expected)
    if tamper in ("missing-plugin", "other-version"):
        assert ("fan-expansion" if tamper == "missing-plugin" else "basegame 99.0.0") in found["detail"]
    if tamper == "tampered-action":
        assert "nowhere" in found["detail"]
    assert await _game_count(app) == before


async def _game_count(app: Litestar) -> int:
    store = app.state.service.store
    if isinstance(store, MemoryStore):
        return len(store._games)
    settings = app.state.settings
    keys = 0
    if settings.redis_mode == "standalone":
        redis = Redis.from_url(settings.redis_url)
        keys = len(redis.keys("game:*"))
        redis.close()
    return keys


@pytest.mark.stores("memory", "redis")  # a store asked only what its contract asks: see test_api_store.py for the stores
async def test_import_then_record_over_http(client: httpx.AsyncClient, engine: Engine) -> None:
    record, _ = corpus_record(engine, 0)
    imported = await client.post("/v1/games/import", json=msgspec.to_builtins(record))
    assert imported.status_code == 201, imported.text
    game = imported.json()
    assert game["status"] == "finished" and imported.headers["location"] == f"/v1/games/{game['id']}"
    assert imported.headers["cache-control"] == "private, no-store"
    exported = await client.get(f"/v1/games/{game['id']}/record")
    assert exported.status_code == 200, exported.text
    again = exported.json()
    assert "token" not in exported.text and "hash" not in exported.text
    assert again["actions"][0]["time"] is None  # the record had no times: none is made up
    assert [a["option"] for a in again["actions"]] == [a.option for a in record.actions]
    assert again["result"] == msgspec.to_builtins(record.result)


async def test_bots_seats_are_bots_again_once_imported(engine: Engine) -> None:
    service = service_of(engine)
    created = await service.seats.create(GameConfig(players=2, seed=9),
                                         Seating(seats=[("bot", None, "random"), ("bot", "Rob", "greedy")]))
    assert await play_bots(service) > 0  # a bot worker's moves, to the end
    stored = await service.games.load(created.id)
    assert stored.finished
    record = await service.history.record(await caller(service, created.id))
    assert [(s.kind, s.bot) for s in record.seats] == [("bot", "random"), ("bot", "greedy")]
    assert all(a.time is not None for a in record.actions)
    again = await service.imports.create(record)
    assert again.tokens == [None, None]
    assert [(s["kind"], s["name"]) for s in again.seats] == [("bot", record.seats[0].name), ("bot", "Rob")]


# -- darkroad record verify / export ---------------------------------------------------------

runner = CliRunner()


def test_record_verify_prints_the_final_score_table(engine: Engine, tmp_path: Path) -> None:
    record, _ = corpus_record(engine, 2)
    good = tmp_path / "good.json"
    good.write_bytes(msgspec.json.encode(record))
    result = runner.invoke(cli.app, ["record", "verify", str(good)], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    assert "replays exactly" in result.output
    for line in record.result.score if record.result else []:
        assert str(line["total"]) in result.output
    tampered = msgspec.to_builtins(record)
    tampered["actions"][10]["option"] = "nowhere"
    bad = tmp_path / "bad.json"
    bad.write_bytes(msgspec.json.encode(tampered))
    result = runner.invoke(cli.app, ["record", "verify", str(bad)])
    assert result.exit_code == 1
    assert "record-not-replayable" in result.output and "nowhere" in result.output
    broken = tmp_path / "broken.json"
    broken.write_text("{}")
    assert runner.invoke(cli.app, ["record", "verify", str(broken)]).exit_code == 1


async def test_record_export_writes_the_games_record(engine: Engine, redis_url: str, tmp_path: Path) -> None:
    store = RedisStore.from_url(redis_url)
    async with store:
        service = GameService(engine, store, Settings(redis_url=redis_url), Metrics())
        created = await service.seats.create(GameConfig(players=2, seed=6),
                                             Seating(seats=[("bot", "Ann", "greedy"), ("bot", None, "random")]))
        await play_bots(service)
        running = await service.seats.create(GameConfig(players=2, seed=6))
        service.close()
        want = msgspec.json.encode(await service.history.record(await caller(service, created.id)))
    target = tmp_path / "game.json"
    # A game id may begin with "-" (URL-safe base64): after "--", never read as an option.
    result = await asyncio.to_thread(runner.invoke, cli.app, ["record", "export", "--redis-url", redis_url,
                                                              "--output", str(target), "--", created.id])
    assert result.exit_code == 0, result.output
    assert msgspec.json.decode(target.read_bytes()) == msgspec.json.decode(want)
    assert runner.invoke(cli.app, ["record", "verify", str(target)]).exit_code == 0
    refused = await asyncio.to_thread(runner.invoke, cli.app, ["record", "export", "--redis-url", redis_url,
                                                               "--output", str(tmp_path / "r.json"), "--", running.id])
    assert refused.exit_code == 1 and "still being played" in refused.output


async def test_changes_of_seats_survive_export_and_import(engine: Engine) -> None:
    """A join is a version of its own in the record (`seat_change`, with its events): the
    imported game has the same state at every version, and its history reads (the log lacks
    the lobby's events, which the record does not carry)."""
    service = service_of(engine)
    created = await service.seats.create(GameConfig(players=2, seed=21), Seating(seats=[("human", "Ann", None),
                                                                                        ("open", None, None)]))
    joined = await service.seats.join(created.id, 1, "Bo")
    tokens = [created.tokens[0] or "", joined.token]
    rnd = random.Random(21)
    while True:
        stored = await service.games.load(created.id)
        if stored.finished:
            break
        game = service.games.game(stored)
        seat = rnd.choice(engine.awaiting(game))
        action = rnd.choice(engine.legal_actions(game, seat))
        await service.acting.act(created.id, tokens[seat], action, None, None)
    record = await service.history.record(await caller(service, created.id))
    changes = [a for a in record.actions if a.type == records.SEAT_CHANGE]
    assert [(a.version, a.seat, a.option, a.events) for a in changes] == [(1, 1, "joined", 2)]
    assert [(s.kind, s.name) for s in record.seats] == [("human", "Ann"), ("human", "Bo")]
    again = await service.imports.create(records.parse(msgspec.json.encode(record)))
    original = await service.history.timeline(await service.games.load(created.id))
    imported = await service.history.timeline(await service.games.load(again.id))
    assert timeline_states(imported) == timeline_states(original)
    for version in (0, 1, 2, stored.version):
        entry = msgspec.json.decode(await service.history.at(await caller(service, again.id, again.tokens[1]), version))
        assert entry["view"]["version"] == version and entry["view"]["seat"] == 1
    # Before the join, the original game was waiting, its seat 1 open.
    before = msgspec.json.decode(await service.history.at(await caller(service, created.id), 0))["view"]
    assert before["status"] == "waiting" and before["seats"][1]["kind"] == "open"


UNDOS_FROM = 60
"""Actions before its end at which the game with undos is imported (its undos are among them)."""


async def test_a_game_with_undos_has_its_history_and_its_record_replays(engine: Engine) -> None:
    """Undos are versions of the action list like any action: the history replays them (each
    version's state is the one the game had then), and a record with undos exports, imports
    and ends in the same state. The game is a corpus game's, imported :data:`UNDOS_FROM`
    actions before its end and played on from there with undos (an undo is the same version of
    the list wherever it falls in a game)."""
    service = service_of(engine)
    record, _ = corpus_record(engine, 0)  # 2 players
    created = await service.imports.create(record, at=len(record.actions) - UNDOS_FROM)
    first = (await service.games.load(created.id)).version
    tokens = [token or "" for token in created.tokens]
    rnd = random.Random(12)
    states = []  # the stored state after every version from the import on, as the game had it
    undos = 0
    while True:
        stored = await service.games.load(created.id)
        states.append(stored.state)
        game = engine.loads(stored.state)
        if game.finished:
            break
        seat = engine.awaiting(game)[0]
        if engine.undo_refusal(game, seat) is None and rnd.random() < 0.3:
            await service.acting.undo(created.id, tokens[seat], None, None)
            undos += 1
            continue
        action = rnd.choice(engine.legal_actions(game, seat))
        await service.acting.act(created.id, tokens[seat], action, None, None)
    assert undos > 5, undos
    spectator = await caller(service, created.id)
    await service.history.at(spectator, 0)
    timeline = service.history.timelines[created.id]
    replayed = timeline_states(timeline)[first:]
    assert [engine.position(engine.loads(s)) for s in replayed] == [engine.position(engine.loads(s)) for s in states]
    record = await service.history.record(spectator)
    assert sum(action.type == "undo" for action in record.actions) == undos
    again = await service.imports.create(records.parse(msgspec.json.encode(record)))
    imported = await service.games.load(again.id)
    assert engine.position(engine.loads(imported.state)) == engine.position(engine.loads(states[-1]))


async def test_an_undo_to_another_version_is_refused_naming_it(engine: Engine) -> None:
    """A record's undo that returns to a version other than the one its seat's undo returns to
    is ``record-not-replayable``, naming the undo and the version the replay never kept (the
    core's replay loop keeps only the positions the record's undos name)."""
    service = service_of(engine)
    record, _ = corpus_record(engine, 0)
    created = await service.imports.create(record, at=20)
    tokens = [token or "" for token in created.tokens]
    for _ in range(40):  # the first action its seat may undo, undone
        game = engine.loads((await service.games.load(created.id)).state)
        seat = engine.awaiting(game)[0]
        if game.version > 20 and engine.undo_refusal(game, seat) is None:
            await service.acting.undo(created.id, tokens[seat], None, None)
            break
        await service.acting.act(created.id, tokens[seat], engine.legal_actions(game, seat)[0], None, None)
    stored = await service.games.load(created.id)
    raw = (await service.games.store.actions(created.id))[: stored.version]
    undone = records.build(engine, created.id, engine.loads(stored.state), None, raw, {})
    undo = undone.actions[-1]
    assert undo.type == "undo", [a.type for a in undone.actions[20:]]
    assert records.replay(engine, undone).game.version == undo.version  # as it is, it replays
    undo.option = "1"
    with pytest.raises(ServiceError) as refused:
        records.replay(engine, undone)
    assert refused.value.code == "record-not-replayable"
    assert f"The action at version {undo.version} (undo '1' of seat {undo.seat}) does not replay: " in refused.value.detail
    assert "which this action list never reached" in refused.value.detail
