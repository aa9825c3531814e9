"""``POST /v1/games/{id}/undo``: the caller's last undoable action taken back, as a commit.

The rule itself (which actions are checkpoints) is the engine's (tests/test_undo.py); these
tests check the service around it: a version of its own recorded in the action list, the
``undone`` event, ``If-Match`` and ``Idempotency-Key``, ``409 cannot-undo`` changing nothing,
races, and seats handed to a bot.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import httpx
import pytest
from apiutil import NewGame, bearer, create_game, problem, read_log
from litestar import Litestar

from darkroad.api.app import lobby as lobbies
from darkroad.api.app.records import entries_of
from darkroad.core import Engine

# On memory and one Redis, not on the Cluster and the Sentinels too: an undo is a commit, and its races are If-Match's and the idempotency records', which the
# stores' contract checks on every kind (test_api_store.py).
pytestmark = pytest.mark.stores("memory", "redis")


async def play_to_undoable(client: httpx.AsyncClient, game: NewGame, rng: random.Random) -> tuple[int, dict, dict]:
    """Play random actions until one can be undone: its seat, the seat's view before it and the
    answer's view after it."""
    for _ in range(500):
        view = (await client.get(game.url)).json()
        seat = rng.choice(view["awaiting"])
        before = (await client.get(game.url, headers=game.auth(seat))).json()
        actions = (await client.get(f"{game.url}/actions", headers=game.auth(seat))).json()["actions"]
        answer = await client.post(f"{game.url}/actions", json=rng.choice(actions), headers=game.auth(seat))
        assert answer.status_code == 200, answer.text
        after = answer.json()
        if after["undo_available"]:
            return seat, before, after
    raise AssertionError("no undoable action in 500")


def same_but_version(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return {**a, "version": 0} == {**b, "version": 0}


async def stored_replays(app: Litestar, engine: Engine, game: NewGame) -> list[dict[str, Any]]:
    """The stored action list (without the entries' commit times), after checking it replays to
    the stored state byte for byte."""
    store = app.state.service.store
    stored = await store.load(game.id)
    records = entries_of(await store.actions(game.id))
    replayed = lobbies.replay(engine, engine.loads(stored.state).config, records)
    assert engine.pack(replayed) == stored.state
    return records


async def test_an_undo_is_a_commit_that_gives_back_the_view_before(
    client: httpx.AsyncClient, app: Litestar, engine: Engine
) -> None:
    game = await create_game(client, players=3, seed=4)
    seat, before, after = await play_to_undoable(client, game, random.Random(4))
    version = after["version"]
    others = [s for s in range(3) if s != seat]
    spectator_before = (await client.get(game.url)).json()
    assert spectator_before["undo_available"] is False
    for other in others:  # only the seat's own action, and only by that seat
        assert (await client.get(game.url, headers=game.auth(other))).json()["undo_available"] is False
        refused = problem(await client.post(f"{game.url}/undo", headers=game.auth(other)), 409, "cannot-undo")
        assert "not yours" in refused["detail"]
    problem(await client.post(f"{game.url}/undo", headers={"If-Match": f'"{version - 1}"', **game.auth(seat)}),
            409, "stale-version")
    problem(await client.post(f"{game.url}/undo"), 401, "missing-token")
    assert (await client.get(game.url)).json()["version"] == version  # nothing changed

    headers = {"If-Match": f'"{version}"', "Idempotency-Key": "undo-1", **game.auth(seat)}
    undone = await client.post(f"{game.url}/undo", headers=headers)
    assert undone.status_code == 200, undone.text
    assert undone.headers["etag"] == f'"{version + 1}"'
    assert undone.headers["cache-control"] == "private, no-store"
    view = undone.json()
    assert view["version"] == version + 1
    # The seat sees what it saw before its action (whether it may undo further included).
    assert same_but_version(view, before)
    again = await client.post(f"{game.url}/undo", headers=headers)  # a retry: the first answer
    assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
    assert again.content == undone.content
    assert (await client.get(game.url)).json()["version"] == version + 1

    log = await read_log(client, game)  # a spectator's: the undone event is public
    assert [e["data"] for e in log if e["type"] == "undone"] == [{"versions": [version], "restored": version - 1}]
    records = await stored_replays(app, engine, game)
    assert records[-1] == {"type": "undo", "seat": seat, "option": str(version - 1), "label": ""}


async def test_nothing_to_undo_changes_nothing(client: httpx.AsyncClient) -> None:
    game = await create_game(client, players=2, seed=1)
    seat = (await client.get(game.url)).json()["awaiting"][0]
    refused = problem(await client.post(f"{game.url}/undo", headers=game.auth(seat)), 409, "cannot-undo")
    assert "nothing to undo" in refused["detail"]
    # The action list's record of an undo is no action a client may submit.
    record = {"type": "undo", "seat": seat, "option": "0"}
    problem(await client.post(f"{game.url}/actions", json=record, headers=game.auth(seat)), 409, "illegal-action")
    assert (await client.get(game.url)).json()["version"] == game.version


async def test_an_undo_racing_the_seats_next_action(client: httpx.AsyncClient, app: Litestar, engine: Engine) -> None:
    """Two requests on one version (two tabs of one player: the next action and an undo): one
    wins, the other is a 409, and the game is what the winner made of it."""
    game = await create_game(client, players=2, seed=7)
    rng = random.Random(7)
    for _ in range(6):
        seat, _, after = await play_to_undoable(client, game, rng)
        version = after["version"]
        actions = (await client.get(f"{game.url}/actions", headers=game.auth(seat))).json()["actions"]
        if_match = {"If-Match": f'"{version}"', **game.auth(seat)}
        undo, act = await asyncio.gather(
            client.post(f"{game.url}/undo", headers=if_match),
            client.post(f"{game.url}/actions", json=rng.choice(actions), headers=if_match),
        )
        assert sorted([undo.status_code, act.status_code]) == [200, 409], (undo.text, act.text)
        loser = undo if undo.status_code == 409 else act
        assert loser.json()["type"] == "stale-version"
        assert (await client.get(game.url)).json()["version"] == version + 1
    await stored_replays(app, engine, game)


async def test_undo_retries_and_another_seats_action_race(
    client: httpx.AsyncClient, app: Litestar, engine: Engine
) -> None:
    """Retries of one undo with one key, sent at once, with another seat acting out of turn
    meanwhile: one undo applied, the retries answered alike, the other seat refused."""
    game = await create_game(client, players=3, seed=5)
    seat, before, after = await play_to_undoable(client, game, random.Random(5))
    other = (seat + 1) % 3
    mine = (await client.get(f"{game.url}/actions", headers=game.auth(seat))).json()["actions"][0]
    key = {"Idempotency-Key": "once", **game.auth(seat)}
    answers = await asyncio.gather(
        *(client.post(f"{game.url}/undo", headers=key) for _ in range(4)),
        client.post(f"{game.url}/actions", json={**mine, "seat": other}, headers=game.auth(other)),
    )
    undos, intruder = answers[:4], answers[4]
    assert intruder.status_code == 409
    assert {a.status_code for a in undos} == {200}
    assert sum(a.headers.get("idempotent-replayed") != "true" for a in undos) == 1
    assert len({a.content for a in undos}) == 1
    assert (await client.get(game.url)).json()["version"] == after["version"] + 1
    assert same_but_version(undos[0].json(), before)
    await stored_replays(app, engine, game)


class Clock:
    """The server's wall clock, moved by the test."""

    def __init__(self) -> None:
        self.now = float(int(time.time()))

    def __call__(self) -> float:
        return self.now


async def test_a_seat_handed_to_a_bot_cannot_undo_its_moves(
    client: httpx.AsyncClient, app: Litestar, engine: Engine
) -> None:
    """While a bot plays a timed-out seat its player cannot undo (``seat-replaced``); once
    reclaimed, not the bot's moves either. An undo does not restart the turn clock."""
    clock = Clock()
    app.state.service.games.clock = clock
    created = await client.post("/v1/games", json={"players": 2, "seed": 4, "turn_timeout": 30, "timeout_bot": "random"})
    assert created.status_code == 201, created.text
    game = NewGame(created.json())
    rng = random.Random(4)
    seat, _, after = await play_to_undoable(client, game, rng)
    timeout_at = after["seats"][seat]["timeout_at"]
    clock.now += 10
    undone = await client.post(f"{game.url}/undo", headers=game.auth(seat))
    assert undone.status_code == 200, undone.text
    assert undone.json()["seats"][seat]["timeout_at"] == timeout_at  # the clock runs on

    clock.now += 30  # overdue: the other seat hands it to the bot, which plays it
    other = 1 - seat
    handed = await client.post(f"{game.url}/seats/{seat}/timeout", headers=game.auth(other))
    assert handed.status_code == 200, handed.text
    refused = problem(await client.post(f"{game.url}/undo", headers=game.auth(seat)), 409, "seat-replaced")
    assert "reclaim" in refused["detail"]
    reclaimed = await client.post(f"{game.url}/seats/{seat}/reclaim", headers=game.auth(seat))
    assert reclaimed.status_code == 200, reclaimed.text
    assert reclaimed.json()["undo_available"] is False
    problem(await client.post(f"{game.url}/undo", headers=bearer(game.tokens[seat])), 409, "cannot-undo")
    await stored_replays(app, engine, game)
