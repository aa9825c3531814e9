"""A primary, its replica and three Sentinels under two API processes: ``kill -9`` the primary
while games are played; the Sentinels promote the replica and the processes follow it
within the documented time (``down-after-milliseconds``, the Sentinels' election and
promotion, and the retry pause: here 0.5 s of the first, about 5 s in all).

The figures (failover and recovery times, acknowledged actions lost with
``DARKROAD_REDIS_WAIT_REPLICAS=0``: the replica was the only one) are printed; ``pytest -rP``
shows them.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator

import httpx
import pytest
from apiutil import ApiServer
from conftest import need_redis
from players import Table, lost_actions, replays_to_its_state
from redisnodes import SentinelGroup
from test_api_cluster_ha import UNLIMITED, until

from darkroad.api.redis_store import game_key
from darkroad.core import Engine

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("redis-sentinel-ha")]

FOLLOW_WITHIN = 10.0
"""Seconds from the kill to acknowledged actions again, at most (documented in deploy/README.md)."""


@pytest.fixture(scope="module")
def sentinel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SentinelGroup]:
    need_redis()
    group = SentinelGroup(tmp_path_factory.mktemp("ha-sentinel"))
    yield group
    group.stop()


async def test_the_api_follows_a_failover(sentinel: SentinelGroup, engine: Engine) -> None:
    args = ["--redis-mode", "sentinel", "--redis-service", sentinel.service]
    servers = [ApiServer(sentinel.url, args=args, env=UNLIMITED).start() for _ in range(2)]
    clients = [httpx.AsyncClient(base_url=server.url, timeout=30) for server in servers]
    table = Table(clients)
    try:
        for seed in range(8):
            await table.create(2, 300 + seed)
        old = sentinel.primary()
        playing = True
        players = asyncio.create_task(table.play_all(lambda: playing, seed=3))
        try:
            await until(lambda: sum(len(game.acks) for game in table.games) >= 40, 30, "load")
            killed = time.monotonic()
            old.kill()
            await until(lambda: sentinel.primary() is not old, 30, "a new primary")
            promoted = time.monotonic() - killed
            await until(
                lambda: all(game.finished or (game.acks and game.acks[-1].at > killed) for game in table.games),
                30,
                "every game acknowledged again",
            )
            recovery = max(next(ack.at for ack in game.acks if ack.at > killed) for game in table.games) - killed
            await asyncio.sleep(0.5)
        finally:
            playing = False
            await players
    finally:
        for client in clients:
            await client.aclose()
        for server in servers:
            assert "Traceback" not in server.stop()

    primary = sentinel.primary()
    lost = 0
    with contextlib.closing(primary.client()) as client:
        for game in table.games:
            key = game_key(game.id)
            state = client.hget(key, "state")
            actions = client.lrange(f"{key}:actions", 0, -1)
            assert state is not None and replays_to_its_state(engine, state, actions), game.id
            lost += len(lost_actions(game, actions))
    acked = sum(len(game.acks) for game in table.games)
    print(
        f"FIGURE sentinel failover WAIT 0: new primary {promoted:.2f}s after kill -9, every game acknowledged "
        f"again after {recovery:.2f}s; {acked} actions acknowledged, {lost} lost; documented retries "
        f"{dict(table.retried)}"
    )
    assert table.errors == {}
    assert recovery < FOLLOW_WITHIN
