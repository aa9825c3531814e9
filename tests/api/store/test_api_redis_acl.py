"""The deployment's Redis users (``deploy/redis-users.acl``, written by
``deploy/redis-entrypoint.sh`` from the passwords in the environment): the service plays
whole games as its user ``darkroad`` and can do nothing else; the default user is off;
a replica logs in as ``replica``; no password shows on a command line.

The servers start the way compose.yaml starts them: the entrypoint, ``deploy/redis.conf``
(on a loopback port, without persistence).
"""

from __future__ import annotations

import os
import random
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from apiutil import ApiServer, free_port, wait_for_port
from players import lobby_game
from receiver import receiver
from redis import Redis
from redis import exceptions as redis_errors

from darkroad.core import Engine

pytestmark = pytest.mark.slow

DEPLOY = Path(__file__).resolve().parents[3] / "deploy"


@dataclass
class AclRedis:
    port: int
    password: str
    admin_password: str
    process: subprocess.Popen[bytes]

    def client(self, user: str | None = None) -> Redis:
        password = {"darkroad": self.password, "admin": self.admin_password, None: None}[user]
        return Redis(port=self.port, username=user, password=password)

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)


def start(directory: Path, password: str, admin_password: str, *extra: str) -> AclRedis:
    directory.mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = {
        **os.environ,
        "DARKROAD_REDIS_PASSWORD": password,
        "DARKROAD_REDIS_ADMIN_PASSWORD": admin_password,
        "DARKROAD_REDIS_ACL_TEMPLATE": str(DEPLOY / "redis-users.acl"),
        "DARKROAD_REDIS_SECRETS_DIR": str(directory),
    }
    config = directory / "redis.conf"
    config.write_text((DEPLOY / "redis.conf").read_text())
    command = ["sh", str(DEPLOY / "redis-entrypoint.sh"), str(config), "--port", str(port), "--bind", "127.0.0.1",
               "--dir", str(directory), "--save", "", "--appendonly", "no", *extra]  # fmt: skip
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_port(port)
    return AclRedis(port, password, admin_password, process)


@pytest.fixture(scope="module")
def acl_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AclRedis]:
    server = start(tmp_path_factory.mktemp("acl"), secrets.token_hex(16), secrets.token_hex(16))
    yield server
    server.stop()


def test_the_default_user_is_off_and_the_service_user_confined(acl_redis: AclRedis) -> None:
    with pytest.raises(redis_errors.AuthenticationError):
        acl_redis.client().ping()
    service = acl_redis.client("darkroad")
    assert service.ping()
    for forbidden in (("FLUSHALL",), ("CONFIG", "GET", "*"), ("KEYS", "*"), ("GET", "someone-else:key"),
                      ("SHUTDOWN",), ("EVAL", "return 1", "0"), ("SCRIPT", "FLUSH")):  # fmt: skip
        with pytest.raises(redis_errors.NoPermissionError):
            service.execute_command(*forbidden)
    cmdline = Path(f"/proc/{acl_redis.process.pid}/cmdline")
    if cmdline.exists():  # the shell exec'd redis-server: same process
        assert acl_redis.password.encode() not in cmdline.read_bytes()
        assert acl_redis.admin_password.encode() not in cmdline.read_bytes()


async def test_the_service_plays_as_its_user(acl_redis: AclRedis, engine: Engine) -> None:
    env = {"DARKROAD_REDIS_USERNAME": "darkroad", "DARKROAD_REDIS_PASSWORD": acl_redis.password,
           "DARKROAD_STREAM_MAX_DURATION": "1", "DARKROAD_STREAM_HEARTBEAT": "0.3",
           "DARKROAD_WEBHOOK_ALLOW_PRIVATE": "1"}  # fmt: skip
    server = ApiServer(f"redis://127.0.0.1:{acl_redis.port}/0", env=env).start()
    admin = acl_redis.client("admin")
    try:
        with httpx.Client(base_url=server.url, timeout=10) as client, receiver() as hook:
            assert client.get("/readyz").status_code == 200  # the write probe passes the ACL
            created = client.post("/v1/games", json={"players": 2, "seed": 5}).json()
            url = f"/v1/games/{created['id']}"
            tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
            for seat, token in tokens.items():  # webhooks' commands and keys too
                subscribed = client.put(f"{url}/seats/{seat}/webhook", json={"url": hook.url},
                                        headers={"Authorization": f"Bearer {token}"})
                assert subscribed.status_code == 201, subscribed.text
            rnd = random.Random(5)
            for n in range(12):
                if n == 6:
                    admin.script_flush()  # the next commit finds no script: NOSCRIPT, SCRIPT LOAD, again
                view = client.get(url).json()
                seat = rnd.choice(view["awaiting"])
                auth = {"Authorization": f"Bearer {tokens[seat]}"}
                action = rnd.choice(client.get(f"{url}/actions", headers=auth).json()["actions"])
                headers = {**auth, "Idempotency-Key": f"k{n}"}
                assert client.post(f"{url}/actions", json=action, headers=headers).status_code == 200
            hook.wait_for(1)  # delivered by the server's worker, as the service's user
            assert client.get(f"{url}/log", params={"after": 1000, "wait": 0.5}).status_code == 200
            assert client.get(f"{url}/stream", params={"after": 1000}).status_code == 200
            time.sleep(0.5)  # the rate limit counts reach Redis
        assert admin.keys("ratelimit:*") and admin.keys("game:*")
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
            await lobby_game(client, engine, seed=6)  # the lobby's keys and commands too
            assert "refuses" not in server.log()
            # A user not updated with the store (a command missing): a 503 that says so, not a 500.
            admin.acl_setuser("darkroad", commands=["-zrange"])
            try:
                listed = await client.get("/v1/games", params={"status": "waiting"})
                assert listed.status_code == 503 and listed.json()["type"] == "store-unavailable", listed.text
            finally:
                admin.acl_setuser("darkroad", commands=["+zrange"])
    finally:
        log = server.stop()
    assert "Traceback" not in log, log
    # Read once the server has stopped: the line may be written after the 503 was answered.
    assert "refuses the service's user a command (this user has no permissions to run the 'zrange'" in log, log


def test_without_credentials_the_service_is_not_ready(acl_redis: AclRedis) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "darkroad.api", "serve", "--port", str(free_port()),
         "--redis-url", f"redis://127.0.0.1:{acl_redis.port}/0"],
        capture_output=True, text=True, timeout=60,
        env={key: value for key, value in os.environ.items() if not key.startswith("DARKROAD_REDIS")},
    )  # fmt: skip
    assert result.returncode != 0
    assert "darkroad serve:" in result.stderr and "Authentication" in result.stderr, result.stderr


def test_a_replica_logs_in_as_replica(acl_redis: AclRedis, tmp_path: Path) -> None:
    replica = start(tmp_path, acl_redis.password, acl_redis.admin_password, "--replicaof", "127.0.0.1",
                    str(acl_redis.port))  # fmt: skip
    try:
        client = replica.client("admin")
        deadline = time.monotonic() + 10
        while client.info("replication").get("master_link_status") != "up":
            assert time.monotonic() < deadline, client.info("replication")
            time.sleep(0.1)
    finally:
        replica.stop()
