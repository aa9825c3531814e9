"""``GET .../log?after=N&wait=S``: the plain-JSON way to follow a game (a long poll), on both stores."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import Any

import httpx
import pytest
from apiutil import awaited_seat, create_game, legal, read_log, serve

from darkroad.api.app.service import GameService
from darkroad.api.app.values import LogPage
from darkroad.api.http.params import MAX_LOG_WAIT
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.base import Commit, IdempotencyRecord, StoredEvent
from darkroad.api.store.memory import MemoryStore
from darkroad.core import Engine, GameConfig

# On memory and one Redis, as the module's docstring says, not on the Cluster and the
# Sentinels too: these
# tests ask a store only what its contract asks (test_api_store.py, on every kind), and whole
# games reach the Cluster and the Sentinels in the HA tests.
# A test's own stores(...) mark still names its kinds.
# On the worker holding the Redis Cluster under ``--dist loadgroup`` (CI), the run's lane of tests that
# mostly wait (tests/api/conftest.py's STORES): these long polls wait too, and spread over every
# worker they made all four wait at once.
pytestmark = [pytest.mark.stores("memory", "redis"), pytest.mark.xdist_group("store-cluster")]


async def test_a_waiting_read_answers_with_the_next_events(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    last = (await read_log(client, game))[-1]["n"]

    async def poll() -> tuple[dict[str, object], float]:
        started = time.monotonic()
        response = await client.get(f"{game.url}/log", params={"after": last, "wait": 10})
        assert response.status_code == 200, response.text
        return response.json(), time.monotonic() - started

    waiting = asyncio.create_task(poll())
    await asyncio.sleep(0.2)
    assert not waiting.done()  # nothing to show yet: it waits
    seat = await awaited_seat(client, game)
    action = (await legal(client, game, seat))[0]
    assert (await client.post(f"{game.url}/actions", json=action, headers=game.auth(seat))).status_code == 200
    page, took = await waiting
    assert took < 5
    new = [event for event in await read_log(client, game) if event["n"] > last]
    assert page["events"] == new and new
    assert page["next"] == new[-1]["n"] and page["finished"] is False


async def test_a_waiting_read_gives_up_after_the_wait(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    last = (await read_log(client, game))[-1]["n"]
    started = time.monotonic()
    page = (await client.get(f"{game.url}/log", params={"after": last, "wait": 0.3})).json()
    assert 0.25 <= time.monotonic() - started < 3
    assert page == {"events": [], "next": last, "more": False, "finished": False}


async def test_without_wait_or_with_events_it_answers_at_once(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    started = time.monotonic()
    page = (await client.get(f"{game.url}/log", params={"after": -1, "wait": MAX_LOG_WAIT})).json()
    assert page["events"] and time.monotonic() - started < 3


@pytest.mark.stores("memory", "redis")  # refused before any store is asked: see test_api_store.py for the stores
@pytest.mark.parametrize("query", ["wait=-1", f"wait={MAX_LOG_WAIT + 1}", "wait=soon", "wait=nan"])
async def test_bad_waits_are_refused(client: httpx.AsyncClient, query: str) -> None:
    game = await create_game(client)
    response = await client.get(f"{game.url}/log?{query}")
    assert response.status_code == 400, response.text
    assert response.json()["type"] == "bad-request"


async def test_a_finished_game_answers_at_once(engine: Engine) -> None:
    store = MemoryStore()
    service = GameService(engine, store, Settings(), Metrics())
    created = await service.seats.create(GameConfig(players=2, seed=3))
    last = (await store.events(created.id, -1, 1000))[-1].n
    end = StoredEvent(last + 1, None, b'{"type":"game_finished"}')
    stored = await store.load(created.id)
    assert stored is not None
    await store.commit(Commit(game_id=created.id, expected_version=created.version, expected_tag=stored.tag,
                              version=created.version + 1, tag="end", state=b"{}", finished=True, action=b"{}",
                              events=[end], ttl=60, idempotency=IdempotencyRecord("k", b"", 60)))
    caller = await service.reading.caller(created.id, None)
    started = time.monotonic()
    assert await service.following.log(caller, last + 1, 500, wait=MAX_LOG_WAIT) == LogPage([], last + 1, False, True)
    assert await service.following.log(caller, last, 500, wait=MAX_LOG_WAIT) == LogPage([end], last + 1, False, True)
    assert time.monotonic() - started < 3


async def test_a_waiting_read_takes_an_event_stream_slot(make_app: Any, settings: Settings) -> None:
    """A long poll holds a store connection as a stream does: it counts against the same cap."""
    one = dataclasses.replace(settings, max_event_streams=1)
    async with serve(make_app(one)) as client:
        game = await create_game(client)
        last = (await read_log(client, game))[-1]["n"]
        waiting = asyncio.create_task(client.get(f"{game.url}/log", params={"after": last, "wait": 1}))
        await asyncio.sleep(0.2)
        refused = await client.get(f"{game.url}/log", params={"after": last, "wait": 1})
        assert refused.status_code == 503 and refused.json()["type"] == "too-many-streams"
        assert refused.headers["Retry-After"]
        assert (await client.get(f"{game.url}/log", params={"after": last})).status_code == 200  # no wait
        assert (await waiting).status_code == 200
        again = await client.get(f"{game.url}/log", params={"after": last, "wait": 0.1})
        assert again.status_code == 200  # the slot was freed


async def test_the_server_caps_the_wait(make_app: Any, settings: Settings) -> None:
    """``DARKROAD_LOG_MAX_WAIT`` (a fuzzer's server, a proxy with a short read timeout)."""
    async with serve(make_app(dataclasses.replace(settings, log_max_wait=0.2))) as client:
        game = await create_game(client)
        last = (await read_log(client, game))[-1]["n"]
        started = time.monotonic()
        page = (await client.get(f"{game.url}/log", params={"after": last, "wait": MAX_LOG_WAIT})).json()
        assert 0.15 <= time.monotonic() - started < 3 and page["events"] == []
    assert Settings.from_env({"DARKROAD_LOG_MAX_WAIT": "0.5"}).log_max_wait == 0.5
