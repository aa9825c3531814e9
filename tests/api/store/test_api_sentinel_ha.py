"""A primary, its replica and three Sentinels under two API processes: ``kill -9`` the primary
while games are played; the Sentinels promote the replica and the processes follow it
within the documented time (``down-after-milliseconds``, the Sentinels' election and
promotion, and the retry pause: here 0.5 s of the first, about 5 s in all).

Every server and Sentinel starts as compose.yaml starts it, with the deployment's Redis
users (``deploy/redis-users.acl``, ``deploy/sentinel-users.acl``): the API logs in to the
Sentinels and to the primary as ``darkroad``, the Sentinels to the servers and to each
other as ``sentinel``, the replica to its primary as ``replica``. The service plays a lobby
game as that confined user; wrong or missing credentials stop it with one line at the
start, and a password changed under the running service is a ``503 store-unavailable``.

The figures (failover and recovery times, acknowledged actions lost with
``DARKROAD_REDIS_WAIT_REPLICAS=0``: the replica was the only one) are printed; ``pytest -rP``
shows them.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from apiutil import ApiServer, free_port, need_redis, serve_refusal
from players import Table, live_client, lobby_game, lost_actions, replays_to_its_state
from redis import exceptions as redis_errors
from redisnodes import SentinelGroup, Users
from test_api_cluster_ha import UNLIMITED, until

from darkroad.api.store.redis_store import game_key
from darkroad.core import Engine

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("redis-sentinel-ha")]

FOLLOW_WITHIN = 10.0
"""Seconds from the kill to acknowledged actions again, at most (documented in deploy/README.md)."""


@pytest.fixture(scope="module")
def sentinel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SentinelGroup]:
    need_redis()
    group = SentinelGroup(tmp_path_factory.mktemp("ha-sentinel"), Users.random())
    yield group
    group.stop()


def serve_args(sentinel: SentinelGroup) -> list[str]:
    return ["--redis-mode", "sentinel", "--redis-service", sentinel.service]


def service_env(sentinel: SentinelGroup) -> dict[str, str]:
    """The API's settings as compose.yaml gives them: one user for the Sentinels and the primary."""
    assert sentinel.users is not None
    return {**UNLIMITED, **sentinel.users.service_env(sentinels=True)}


async def test_the_service_plays_as_its_user_on_sentinels_that_require_one(sentinel: SentinelGroup, engine: Engine) -> None:
    """A lobby game as the service's user; then an operator changes that user's password under
    the running service (and drops its connections): reads and /readyz are 503
    store-unavailable, and the log says why."""
    server = ApiServer(sentinel.url, args=serve_args(sentinel), env=service_env(sentinel)).start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
            assert (await client.get("/readyz")).status_code == 200
            game = await lobby_game(client, engine, seed=11)
            played = server.log()
            await password_changed(sentinel, client, game)
    finally:
        log = server.stop()
    assert "refuses" not in played and "Traceback" not in log, log
    assert "WRONGPASS" in log or "invalid username-password" in log, log
    assert sentinel.users is not None
    for process in sentinel.sentinels + sentinel.servers:  # no password on a command line (ps)
        assert process.process is not None
        cmdline = Path(f"/proc/{process.process.pid}/cmdline").read_bytes()
        assert sentinel.users.password.encode() not in cmdline
        assert sentinel.users.admin_password.encode() not in cmdline


def test_the_sentinels_let_only_their_users_in(sentinel: SentinelGroup) -> None:
    assert sentinel.users is not None
    sentinel0 = sentinel.sentinels[0]
    anonymous = sentinel0.client(username=None, password=None)
    with contextlib.closing(anonymous), pytest.raises(redis_errors.AuthenticationError):
        anonymous.execute_command("SENTINEL", "MASTERS")
    with contextlib.closing(sentinel0.client(username="darkroad", password=sentinel.users.password)) as service:
        assert service.execute_command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", sentinel.service)
        # Whoever holds the API's password cannot point the Sentinels elsewhere.
        for forbidden in (("SENTINEL", "REMOVE", sentinel.service), ("SENTINEL", "MONITOR", "x", "127.0.0.1", "1", "2"),
                          ("SENTINEL", "SET", sentinel.service, "quorum", "1"), ("SENTINEL", "FAILOVER", sentinel.service),
                          ("SENTINEL", "CONFIG", "GET", "*"), ("ACL", "LIST"), ("SHUTDOWN",)):  # fmt: skip
            with pytest.raises(redis_errors.NoPermissionError):
                service.execute_command(*forbidden)


def refusal(sentinel: SentinelGroup, **env: str) -> str:
    """What ``darkroad serve`` on ``sentinel`` says when it refuses to start with ``env``."""
    return serve_refusal(["--port", str(free_port()), "--redis-url", sentinel.url, *serve_args(sentinel)], env)


def test_wrong_or_missing_credentials_stop_the_start_with_one_line(sentinel: SentinelGroup) -> None:
    assert sentinel.users is not None
    right = sentinel.users.service_env(sentinels=True)
    line = refusal(sentinel, **{**right, "DARKROAD_REDIS_SENTINEL_PASSWORD": "wrong"})
    assert "cannot log in to the Sentinel at 127.0.0.1:" in line and "DARKROAD_REDIS_SENTINEL_" in line, line
    line = refusal(sentinel, DARKROAD_REDIS_USERNAME="darkroad", DARKROAD_REDIS_PASSWORD=sentinel.users.password)
    assert "cannot log in to the Sentinel at 127.0.0.1:" in line, line
    line = refusal(sentinel, **{**right, "DARKROAD_REDIS_PASSWORD": "wrong"})
    assert "cannot log in to the Redis primary 'darkroad'" in line and "DARKROAD_REDIS_PASSWORD" in line, line
    assert sentinel.users.password not in line


async def password_changed(sentinel: SentinelGroup, client: httpx.AsyncClient, game: str) -> None:
    """An operator changes the API's password (and drops its connections) on every server:
    /readyz and a read of ``game`` answer 503 store-unavailable; the password is put back."""
    servers = sentinel.servers
    try:
        for process in servers:
            with contextlib.closing(process.client()) as admin:
                admin.acl_setuser("darkroad", passwords=["+other"], reset_passwords=True, enabled=True)
                admin.client_kill_filter(user="darkroad")
        ready = await client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["type"] == "store-unavailable", ready.text
        read = await client.get(f"/v1/games/{game}")
        assert read.status_code == 503 and read.json()["type"] == "store-unavailable", read.text
        assert read.headers["retry-after"]
    finally:
        assert sentinel.users is not None
        for process in servers:
            with contextlib.closing(process.client()) as admin:
                admin.acl_setuser("darkroad", passwords=[f"+{sentinel.users.password}"], reset_passwords=True,
                                  enabled=True)  # fmt: skip


async def test_the_api_follows_a_failover(sentinel: SentinelGroup, engine: Engine) -> None:
    servers = [ApiServer(sentinel.url, args=serve_args(sentinel), env=service_env(sentinel)).start() for _ in range(2)]
    clients = [live_client(server.url, timeout=30) for server in servers]
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
