"""Whole games played over HTTP by independent clients, one per seat."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from apiutil import NewGame, create_game, play_seat, read_log
from litestar import Litestar

from darkroad.api.app.records import entries_of
from darkroad.core import Engine


async def follow(client: httpx.AsyncClient, game: NewGame) -> list[int]:
    """The event numbers a spectator's event stream delivers until the game ends."""
    response = await client.get(f"{game.url}/stream")
    assert response.status_code == 200
    return [int(line[4:]) for line in response.text.splitlines() if line.startswith("id: ")]


# Each seat count once: 2 and 3 in memory, 4 on one Redis. The store is asked the same things
# whatever the count (its contract is test_api_store.py's, on every kind), and the layers above
# it the same whatever the store: the 4-player game in memory too (before) played the same
# seed by the same clients again.
@pytest.mark.parametrize(("store_kind", "players"), [("memory", 2), ("memory", 3), ("redis", 4)],
                         indirect=["store_kind"])
async def test_full_game(client: httpx.AsyncClient, app: Litestar, engine: Engine, players: int) -> None:
    game = await create_game(client, players=players, seed=100 + players)
    spectator = asyncio.create_task(follow(client, game))
    applied = await asyncio.gather(*(play_seat(client, game, seat, seed=seat) for seat in range(players)))

    view = (await client.get(game.url)).json()
    assert view["status"] == "finished"
    assert view["version"] == game.version + sum(applied)
    score = (await client.get(f"{game.url}/score")).json()
    assert sorted(line["seat"] for line in score["score"]) == list(range(players))
    assert score["winners"]

    log = [event["n"] for event in await read_log(client, game)]
    assert await asyncio.wait_for(spectator, 30) == log
    ended = await client.get(f"{game.url}/stream", params={"after": log[-1]})
    assert ended.status_code == 204  # finished and fully seen: EventSource stops reconnecting
    assert ended.content == b""

    store = app.state.service.store
    stored = await store.load(game.id)
    actions = entries_of(await store.actions(game.id))  # without their commit times
    assert len(actions) == sum(applied)
    replayed = engine.replay(engine.loads(stored.state).config, actions)
    assert engine.pack(replayed) == stored.state


# In memory: the Private Concern plays in the core, and its seat is stored as every seat kind
# is (test_api_store.py; whole games on Redis: test_full_game).
@pytest.mark.stores("memory")
@pytest.mark.parametrize(("players", "humans"), [(1, 1), (3, 2), (4, 3)])
async def test_games_with_the_private_concern(
    client: httpx.AsyncClient, app: Litestar, engine: Engine, players: int, humans: int
) -> None:
    """Issue 6: ``players: 1`` is solo against the Private Concern, which can also fill the
    last seat of a 3-4 player game; its seat has no token and it plays itself."""
    body = {"players": players, "seed": 7} | ({} if players == 1 else {"private_concern": True})
    created = await client.post("/v1/games", json=body)
    assert created.status_code == 201, created.text
    seats = created.json()["seats"]
    assert [s["kind"] for s in seats] == ["human"] * humans + ["private_concern"]
    assert seats[-1]["token"] is None and all(s["token"] for s in seats[:-1])
    game = NewGame({**created.json(), "seats": seats[:-1]})
    await asyncio.gather(*(play_seat(client, game, seat, seed=seat) for seat in range(humans)))
    view = (await client.get(game.url)).json()
    assert view["status"] == "finished"
    assert view["players"][-1]["kind"] == "private_concern"
    score = (await client.get(f"{game.url}/score")).json()
    assert len(score["score"]) == humans + 1


@pytest.mark.stores("memory", "redis")  # refused before any store is asked: see test_api_store.py for the stores
@pytest.mark.parametrize("body", [{"players": 2, "private_concern": True}, {"players": 1, "private_concern": False}])
async def test_bad_private_concern_configs(client: httpx.AsyncClient, body: dict[str, object]) -> None:
    response = await client.post("/v1/games", json=body)
    # Refused by the document's schema (``NewGame.not``): a 400 listing the field, as every
    # other schema violation.
    assert response.status_code == 400, response.text
    assert response.json()["type"] == "bad-request"
    assert [error["key"] for error in response.json()["errors"]] == ["private_concern"]
