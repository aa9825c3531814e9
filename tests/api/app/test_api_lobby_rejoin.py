"""A join whose answer was lost, recovered with its ``Idempotency-Key`` (issue 14), over HTTP
on every store (memory, one Redis; slow: a Redis Cluster and a Sentinel-watched primary).

The token of a join is stored only hashed, so it cannot be sent again: a retry with the same
key and name gets the seat with a fresh token, and the lost one plays nothing any more.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from apiutil import bearer, problem, serve
from litestar import Litestar
from test_api_lobby import conforms, create, snapshot

from darkroad.api.app import lobby as lobbies
from darkroad.api.app.records import entries_of
from darkroad.api.app.service import GameService
from darkroad.api.http.guards import MAX_IDEMPOTENCY_KEY
from darkroad.api.settings import Settings
from darkroad.core import Engine


async def join(client: httpx.AsyncClient, game_id: str, seat: int, name: str, key: str | None) -> httpx.Response:
    headers = {} if key is None else {"Idempotency-Key": key}
    return await client.post(f"/v1/games/{game_id}/seats/{seat}/join", json={"name": name}, headers=headers)


async def replays(app: Litestar, engine: Engine, game_id: str) -> list[dict[str, Any]]:
    """The stored action list replays to the stored game; the list."""
    service: GameService = app.state.service
    stored = await service.store.load(game_id)
    assert stored is not None
    records = entries_of(await service.store.actions(game_id))  # without their commit times
    game = lobbies.replay(engine, engine.loads(stored.state).config, records)
    assert engine.pack(game) == stored.state
    return records


async def seat_events(client: httpx.AsyncClient, game_id: str) -> list[tuple[str, int | None, dict[str, Any]]]:
    events = (await client.get(f"/v1/games/{game_id}/log")).json()["events"]
    for event in events:
        conforms(event, "Event")
    return [(e["type"], e["seat"], e["data"]) for e in events if e["type"].startswith("seat")]


async def test_a_lost_join_answer_is_recovered_with_its_key(
    client: httpx.AsyncClient, app: Litestar, engine: Engine
) -> None:
    created = await create(client, players=2, seats=[{"kind": "human", "name": "Ann"}, {"kind": "open"}],
                           turn_timeout=600)
    game_id, url = created["id"], f"/v1/games/{created['id']}"
    ann = bearer(created["seats"][0]["token"])

    lost = await join(client, game_id, 1, " Bob ", "join-1")  # the answer never reaches Bob
    assert lost.status_code == 201, lost.text
    before = (await client.get(url)).json()
    assert before["status"] == "active"

    retried = await join(client, game_id, 1, "Bob", "join-1")  # same key, same (trimmed) name
    assert retried.status_code == 201, retried.text
    body = retried.json()
    conforms(body, "JoinedSeat")
    assert body["seat"] == 1 and body["token"] != lost.json()["token"]
    assert body["version"] == lost.json()["version"] + 1  # the token's replacement is a version
    bob = bearer(body["token"])
    problem(await client.get(url, headers=bearer(lost.json()["token"])), 401, "invalid-token")
    me = (await client.get(url, headers=bob)).json()
    assert me["seat"] == 1 and me["players"][1]["name"] == "Bob"
    # The seat is as it was: same name, same turn clock (a rejoin is not an action).
    assert me["seats"] == before["seats"]
    assert await seat_events(client, game_id) == [
        ("seat_joined", 1, {"name": "Bob"}), ("seats_filled", None, {}), ("seat_rejoined", 1, {"name": "Bob"})]

    # The same key with another name, another key, no key: refused, nothing changed.
    unchanged = await snapshot(client, game_id)
    problem(await join(client, game_id, 1, "Eve", "join-1"), 422, "idempotency-key-reused")
    problem(await join(client, game_id, 1, "Bob", "join-2"), 409, "seat-taken")
    problem(await join(client, game_id, 1, "Bob", None), 409, "seat-taken")
    problem(await join(client, game_id, 0, "Bob", "join-1"), 409, "seat-taken")  # keys are per seat
    assert await snapshot(client, game_id) == unchanged

    # Both seats play with their tokens (Bob's new one); the lost token acts for nobody.
    tokens = {0: ann, 1: bob}
    acted = set()
    for _ in range(12):
        view = (await client.get(url)).json()
        if view["status"] != "active" or acted == {0, 1}:
            break
        seat = view["awaiting"][0]
        action = (await client.get(f"{url}/actions", headers=tokens[seat])).json()["actions"][0]
        if seat == 1:
            stolen = await client.post(f"{url}/actions", json=action, headers=bearer(lost.json()["token"]))
            problem(stolen, 401, "invalid-token")
        answer = await client.post(f"{url}/actions", json=action, headers=tokens[seat])
        assert answer.status_code == 200, answer.text
        acted.add(seat)
    assert 1 in acted

    records = await replays(app, engine, game_id)
    assert {"seat_change": "rejoined", "seat": 1, "events": 1} in records


async def test_a_retry_while_waiting_and_after_leaving(client: httpx.AsyncClient, app: Litestar, engine: Engine) -> None:
    created = await create(client, players=3, seats=[{"kind": "human"}, {"kind": "open"}, {"kind": "open"}])
    game_id, url = created["id"], f"/v1/games/{created['id']}"
    first = (await join(client, game_id, 2, "Cy", "k")).json()
    again = (await join(client, game_id, 2, "Cy", "k")).json()
    third = await join(client, game_id, 2, "Cy", "k")  # every retry replaces the token again
    assert third.status_code == 201
    assert len({first["token"], again["token"], third.json()["token"]}) == 3
    for token in (first["token"], again["token"]):
        problem(await client.get(url, headers=bearer(token)), 401, "invalid-token")
    view = (await client.get(url, headers=bearer(third.json()["token"]))).json()
    assert view["seat"] == 2 and view["status"] == "waiting" and view["version"] == created["version"] + 3
    assert (await client.get("/v1/games?status=waiting")).json()["games"][0]["open_seats"] == [1]

    # Left: the key's join is undone; a retry does not take the open seat back.
    assert (await client.post(f"{url}/seats/2/leave", headers=bearer(third.json()["token"]))).status_code == 204
    unchanged = await snapshot(client, game_id)
    problem(await join(client, game_id, 2, "Cy", "k"), 422, "idempotency-key-reused")
    assert await snapshot(client, game_id) == unchanged
    # Taken by another player: the old key's retry is refused as any join of a taken seat.
    dee = await join(client, game_id, 2, "Cy", "other")
    assert dee.status_code == 201
    unchanged = await snapshot(client, game_id)
    problem(await join(client, game_id, 2, "Cy", "k"), 409, "seat-taken")
    assert await snapshot(client, game_id) == unchanged
    await replays(app, engine, game_id)


async def test_retries_racing_the_first_join(client: httpx.AsyncClient, app: Litestar, engine: Engine) -> None:
    """The same join sent many times at once: every answer is the seat, one token plays it."""
    created = await create(client, players=3, seats=[{"kind": "human"}, {"kind": "open"}, {"kind": "open"}])
    game_id, url = created["id"], f"/v1/games/{created['id']}"
    answers = await asyncio.gather(*(join(client, game_id, 1, "Bob", "same") for _ in range(6)))
    assert [a.status_code for a in answers] == [201] * 6, [a.text for a in answers]
    assert {a.json()["seat"] for a in answers} == {1}
    valid = [a for a in answers if (await client.get(url, headers=bearer(a.json()["token"]))).status_code == 200]
    assert len(valid) == 1
    view = (await client.get(url)).json()
    assert view["version"] == created["version"] + 6 and view["seats"][1]["name"] == "Bob"
    assert [kind for kind, _, _ in await seat_events(client, game_id)] == ["seat_joined"] + ["seat_rejoined"] * 5
    await replays(app, engine, game_id)


@pytest.mark.parametrize("key", ["", "k" * (MAX_IDEMPOTENCY_KEY + 1)])
async def test_bad_keys_are_refused(client: httpx.AsyncClient, key: str) -> None:
    created = await create(client, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    before = await snapshot(client, created["id"])
    body = problem(await join(client, created["id"], 1, "Bob", key), 400, "bad-request")
    assert "Idempotency-Key" in json.dumps(body)
    assert await snapshot(client, created["id"]) == before
    longest = await join(client, created["id"], 1, "Bob", "k" * MAX_IDEMPOTENCY_KEY)
    assert longest.status_code == 201, longest.text


async def test_a_process_caching_the_old_token_refuses_it(make_app: Any, redis_url: str) -> None:
    """Two API processes on one Redis: the one that served the lost join still has the game
    cached with the old token's hash when the other serves the retry; the old token must not
    act through it (the rejoin is a version: the cached one is stale)."""
    shared = Settings(redis_url=redis_url)
    async with serve(make_app(shared)) as first, serve(make_app(shared)) as second:
        created = await create(first, players=2, seats=[{"kind": "human", "name": "Ann"}, {"kind": "open"}])
        game_id, url = created["id"], f"/v1/games/{created['id']}"
        ann = bearer(created["seats"][0]["token"])
        lost = bearer((await join(first, game_id, 1, "Bob", "key")).json()["token"])
        for _ in range(12):  # Ann plays (through the first process) until Bob is awaited
            view = (await first.get(url, headers=lost)).json()
            if 1 in view["awaiting"]:
                break
            action = (await first.get(f"{url}/actions", headers=ann)).json()["actions"][0]
            assert (await first.post(f"{url}/actions", json=action, headers=ann)).status_code == 200
        action = (await first.get(f"{url}/actions", headers=lost)).json()["actions"][0]

        retried = await join(second, game_id, 1, "Bob", "key")
        assert retried.status_code == 201, retried.text
        unchanged = await snapshot(second, game_id)
        problem(await first.post(f"{url}/actions", json=action, headers=lost), 401, "invalid-token")
        assert await snapshot(second, game_id) == unchanged
        bob = bearer(retried.json()["token"])
        assert (await first.post(f"{url}/actions", json=action, headers=bob)).status_code == 200
