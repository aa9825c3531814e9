"""Real Redis deployments for the tests: a Redis Cluster and a Sentinel-watched primary.

Every process runs ``redis-server`` from the machine with the configuration files of
``deploy/`` (so they are checked for real), on loopback ports, in a temporary directory,
without persistence, with timeouts shortened so that failovers happen in a second or two
instead of the deployment's several:

* :class:`ClusterNodes`: 3 primaries + 3 replicas from ``deploy/redis-cluster.conf`` made
  one cluster by ``redis-cli --cluster create`` (``cluster-node-timeout`` 1 s). A node's
  cluster bus listens on its port + 10000; ``apiutil.free_port`` hands out ports whose
  bus port is free too.
* :class:`SentinelGroup`: a primary and its replica from ``deploy/redis.conf``, three
  Sentinels from ``deploy/sentinel.conf`` (``down-after-milliseconds`` 500).

Given :class:`Users`, every server starts as ``compose.yaml`` starts it, through
``deploy/redis-entrypoint.sh`` with the users of ``deploy/redis-users.acl`` (the
Sentinels: ``deploy/sentinel-users.acl``) and those passwords; the helpers' own clients
then log in as ``admin``, and the API must log in as ``darkroad`` (:meth:`Users.service_env`).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apiutil import answers_itself, free_port, wait_for_port
from redis import Redis
from redis import exceptions as redis_errors
from redis.backoff import NoBackoff
from redis.retry import Retry

CLUSTER_NODE_TIMEOUT_MS = 1000
SENTINEL_DOWN_AFTER_MS = 500
"""The failure detection of the groups the HA tests kill and pause: short, so a failover is over
within a test's time."""
SHARED_FAILOVER_MS = 5000
"""The failure detection of the cluster and Sentinel group each test process shares for tests that
are not about failures: deploy/'s own value. With the short one, a loaded machine (load 8-13 on 2
cores) starved a primary past 500 ms, the Sentinels failed over, and the writes the old primary
took meanwhile were dropped when it rejoined as a replica (Redis's asynchronous replication): a
racing client of tests/api/app/test_api_concurrency.py saw the version go back from 42 to 29."""
DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
EPHEMERAL = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0"]
"""On top of deploy/'s files: loopback only, no persistence (the directory is thrown away),
a replica's full sync at once (not after 5 s, waiting for other replicas to share it)."""


@dataclass(frozen=True)
class Users:
    """The two passwords compose.yaml gives every Redis server (``DARKROAD_REDIS_PASSWORD``:
    the API's user ``darkroad``; ``DARKROAD_REDIS_ADMIN_PASSWORD``: ``admin``, ``replica``,
    ``sentinel``)."""

    password: str
    admin_password: str

    @classmethod
    def random(cls) -> Users:
        return cls(secrets.token_hex(16), secrets.token_hex(16))

    @property
    def admin(self) -> dict[str, str]:
        """Client options of the operator's user."""
        return {"username": "admin", "password": self.admin_password}

    def service_env(self, sentinels: bool = False) -> dict[str, str]:
        """The API's settings as compose.yaml gives them (``sentinels``: for the Sentinels too)."""
        env = {"DARKROAD_REDIS_USERNAME": "darkroad", "DARKROAD_REDIS_PASSWORD": self.password}
        if sentinels:
            env |= {"DARKROAD_REDIS_SENTINEL_USERNAME": "darkroad", "DARKROAD_REDIS_SENTINEL_PASSWORD": self.password}
        return env

    def entrypoint_env(self, directory: Path, template: str = "redis-users.acl") -> dict[str, str]:
        """The environment of ``redis-entrypoint.sh`` writing its files to ``directory``."""
        return {
            **os.environ,
            "DARKROAD_REDIS_PASSWORD": self.password,
            "DARKROAD_REDIS_ADMIN_PASSWORD": self.admin_password,
            "DARKROAD_REDIS_ACL_TEMPLATE": str(DEPLOY / template),
            "DARKROAD_REDIS_SECRETS_DIR": str(directory),
        }


def deployed(name: str, directory: Path) -> str:
    """A copy of ``deploy/<name>`` in ``directory``: Redis may rewrite its configuration file
    (``CONFIG REWRITE``, which Sentinels send when they turn a server into a replica)."""
    directory.mkdir(parents=True, exist_ok=True)
    copy = directory / name
    copy.write_text((DEPLOY / name).read_text(encoding="utf-8"), encoding="utf-8")
    return str(copy)


def wait_until(condition: Callable[[], bool], timeout: float, what: str, interval: float = 0.05) -> float:
    """Poll ``condition`` until it holds; the seconds it took. ``TimeoutError`` after ``timeout``."""
    started = time.monotonic()
    while True:
        try:
            if condition():
                return time.monotonic() - started
        except (redis_errors.RedisError, OSError):
            pass
        if time.monotonic() - started > timeout:
            raise TimeoutError(f"{what}: not after {timeout}s")
        time.sleep(interval)


class Process:
    """One ``redis-server`` (a node or a Sentinel) that can be killed and started again.

    With ``users``, it starts through ``deploy/redis-entrypoint.sh`` (which ``exec``s
    ``redis-server``: the same process) with the users of ``template``, and its clients log
    in as ``admin``.
    """

    def __init__(
        self, port: int, directory: Path, args: list[str], users: Users | None = None, template: str = "redis-users.acl"
    ) -> None:
        self.port = port
        self.directory = directory
        self.args = args
        self.users = users
        self.template = template
        self.process: subprocess.Popen[bytes] | None = None
        directory.mkdir(parents=True, exist_ok=True)
        self.start()

    def start(self) -> None:
        # Its log in its directory (pytest keeps the last runs' temporary directories): a test
        # that failed over a group, or found one failed over, can be read after the fact.
        args = [*self.args, "--logfile", str(self.directory / "redis.log")]
        command, env = ["redis-server", *args], None
        if self.users is not None:
            command = ["sh", str(DEPLOY / "redis-entrypoint.sh"), *args]
            env = self.users.entrypoint_env(self.directory, self.template)
        self.process = subprocess.Popen(
            command, cwd=self.directory, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_for_port(self.port)
        with self.client() as client:
            if not answers_itself(self.process, client):
                self.kill()
                raise RuntimeError(f"redis-server did not start on port {self.port} (taken by another process?)")

    def client(self, **options: Any) -> Redis:
        auth = {} if self.users is None else self.users.admin
        # No resends of redis-py's own: a refused login fails at once.
        options = {"socket_timeout": 5, "retry": Retry(NoBackoff(), 0), **auth, **options}
        return Redis(host="127.0.0.1", port=self.port, **options)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def pause(self) -> None:
        """``kill -STOP``: frozen, its connections open but unanswered."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        """``kill -9``: no shutdown, no last words to replicas."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
            self.process = None


class ClusterNodes:
    """A Redis Cluster of 3 primaries and 3 replicas on loopback ports (with ``users``: as
    compose.yaml starts it, made one cluster as ``admin``)."""

    def __init__(
        self,
        directory: Path,
        primaries: int = 3,
        replicas: int = 1,
        users: Users | None = None,
        node_timeout_ms: int = CLUSTER_NODE_TIMEOUT_MS,
    ) -> None:
        self.users = users
        self.nodes: list[Process] = []
        for _ in range(primaries * (1 + replicas)):
            port = free_port()
            args = [
                deployed("redis-cluster.conf", directory / str(port)), "--port", str(port), *EPHEMERAL,
                "--dir", str(directory / str(port)),
                # The deployment's nodes announce their service names; these, their address.
                "--cluster-announce-hostname", "127.0.0.1",
                "--cluster-node-timeout", str(node_timeout_ms),
                # A replica may take over however long it was cut off (the default refuses
                # replicas that lost their link for 10 node timeouts: it must not block tests).
                "--cluster-replica-validity-factor", "0",
            ]  # fmt: skip
            self.nodes.append(Process(port, directory / str(port), args, users))
        addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
        login = [] if users is None else ["--user", "admin"]  # and REDISCLI_AUTH, as compose.yaml's init
        subprocess.run(
            ["redis-cli", *login, "--cluster", "create", *addresses, "--cluster-replicas", str(replicas), "--cluster-yes"],
            env=None if users is None else {**os.environ, "REDISCLI_AUTH": users.admin_password},
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=60,
        )
        self.url = "redis://" + ",".join(addresses[:2])  # two seeds: either may be the one that is down
        self.wait_healthy(primaries, replicas)

    def by_port(self, port: int) -> Process:
        return next(node for node in self.nodes if node.port == port)

    def topology(self) -> dict[int, list[int]]:
        """Primary port -> its replicas' ports, as a live node sees it (failed nodes left out)."""
        for node in self.nodes:
            if not node.alive:
                continue
            with contextlib.closing(node.client()) as client:
                lines = client.execute_command("CLUSTER", "NODES").decode().splitlines()
            ids: dict[str, int] = {}
            primaries: dict[int, list[int]] = {}
            for line in lines:
                node_id, address, flags, master, *_ = line.split()
                port = int(address.split("@")[0].rsplit(":", 1)[1])
                ids[node_id] = port
                if "fail" in flags.split(",") or "fail?" in flags.split(","):
                    continue
                if "master" in flags.split(","):
                    primaries.setdefault(port, [])
            for line in lines:
                node_id, address, flags, master, *_ = line.split()
                if "slave" in flags.split(",") and "fail" not in flags.split(",") and ids.get(master) in primaries:
                    primaries[ids[master]].append(ids[node_id])
            return primaries
        raise RuntimeError("no cluster node is alive")

    def primaries(self) -> list[Process]:
        return [self.by_port(port) for port in self.topology()]

    def wait_healthy(self, primaries: int = 3, replicas: int = 1, timeout: float = 30) -> float:
        """Until every live node reports the cluster ok, with ``primaries`` primaries holding slots,
        each with ``replicas`` replicas in sync; the seconds it took."""

        def healthy() -> bool:
            for node in self.nodes:
                if not node.alive:
                    continue
                with contextlib.closing(node.client()) as client:
                    if b"cluster_state:ok" not in client.execute_command("CLUSTER", "INFO"):
                        return False
                    info = client.info("replication")
                    if info["role"] == "slave" and info.get("master_link_status") != "up":
                        return False
            shards = self.topology()
            owners = {port for port, _ in self.slot_owners()}
            return len(owners) == primaries and all(len(shards.get(port, [])) >= replicas for port in owners)

        return wait_until(healthy, timeout, "cluster healthy", interval=0.1)

    def slot_owners(self) -> list[tuple[int, int]]:
        """(primary port, number of slots) from a live node's ``CLUSTER SLOTS``."""
        node = next(node for node in self.nodes if node.alive)
        with contextlib.closing(node.client()) as client:
            counts: dict[int, int] = {}
            for start, end, primary, *_ in client.execute_command("CLUSTER", "SLOTS"):
                counts[int(primary[1])] = counts.get(int(primary[1]), 0) + int(end) - int(start) + 1
        return sorted(counts.items())

    def flush(self) -> None:
        """Forget every key, on every primary (replicas follow)."""
        for node in self.primaries():
            with contextlib.closing(node.client()) as client:
                client.flushall()

    def stop(self) -> None:
        for node in self.nodes:
            node.kill()


class SentinelGroup:
    """A primary, one replica and three Sentinels watching them as service ``darkroad`` (with
    ``users``: as compose.yaml starts them; the Sentinels log in to the servers and to each
    other as ``sentinel``, and let only their own users in)."""

    service = "darkroad"

    def __init__(
        self, directory: Path, users: Users | None = None, down_after_ms: int = SENTINEL_DOWN_AFTER_MS
    ) -> None:
        self.users = users
        primary_port, replica_port = free_port(), free_port()
        self.servers = [
            Process(
                primary_port,
                directory / "primary",
                [deployed("redis.conf", directory / "primary"), "--port", str(primary_port), *EPHEMERAL,
                 "--dir", str(directory / "primary")],  # fmt: skip
                users,
            ),
            Process(
                replica_port,
                directory / "replica",
                [deployed("redis.conf", directory / "replica"), "--port", str(replica_port), *EPHEMERAL,
                 "--dir", str(directory / "replica"), "--replicaof", "127.0.0.1", str(primary_port)],  # fmt: skip
                users,
            ),
        ]
        sentinel_conf = (DEPLOY / "sentinel.conf").read_text(encoding="utf-8")
        self.sentinels: list[Process] = []
        for n in range(3):
            port = free_port()
            folder = directory / f"sentinel{n}"
            folder.mkdir(parents=True)
            text = sentinel_conf
            for pattern, value in (
                (r"^port \d+$", f"port {port}\nbind 127.0.0.1"),
                (r"^dir .*$", f"dir {folder}"),
                (rf"^sentinel monitor {self.service} \S+ \d+ (\d+)$", rf"sentinel monitor {self.service} 127.0.0.1 {primary_port} \1"),
                (rf"^sentinel down-after-milliseconds {self.service} \d+$",
                 f"sentinel down-after-milliseconds {self.service} {down_after_ms}"),
                (rf"^sentinel failover-timeout {self.service} \d+$", f"sentinel failover-timeout {self.service} 5000"),
            ):  # fmt: skip
                text, found = re.subn(pattern, value, text, flags=re.M)
                assert found == 1, f"deploy/sentinel.conf has no line {pattern!r}"
            config = folder / "sentinel.conf"  # a Sentinel rewrites its configuration file: a copy
            config.write_text(text, encoding="utf-8")
            self.sentinels.append(Process(port, folder, [str(config), "--sentinel"], users, "sentinel-users.acl"))
        self.url = "redis://" + ",".join(f"127.0.0.1:{sentinel.port}" for sentinel in self.sentinels)
        self.wait_ready()

    def primary(self) -> Process:
        """The server the Sentinels name as the primary now."""
        with contextlib.closing(self.sentinels[0].client()) as client:
            _, port = client.execute_command("SENTINEL GET-MASTER-ADDR-BY-NAME", self.service)
        return next(server for server in self.servers if server.port == int(port))

    def wait_ready(self, timeout: float = 30) -> float:
        """Until every Sentinel knows the primary, a replica in sync and the two other Sentinels."""

        def ready() -> bool:
            for sentinel in self.sentinels:
                with contextlib.closing(sentinel.client()) as client:
                    master = client.sentinel_master(self.service)
                    if master["num-other-sentinels"] < 2 or master["num-slaves"] < 1:
                        return False
                    if not client.sentinel_slaves(self.service):
                        return False
                    if master.get("is_sdown") or master.get("is_odown"):
                        return False
            # The replica has the primary's data: its first sync is done, not just begun.
            replica = next(server for server in self.servers if server is not self.primary())
            with contextlib.closing(replica.client()) as client:
                return bool(client.info("replication").get("master_link_status") == "up")

        return wait_until(ready, timeout, "Sentinels ready", interval=0.1)

    def flush(self) -> None:
        with contextlib.closing(self.primary().client()) as client:
            client.flushall()

    def stop(self) -> None:
        for process in self.sentinels + self.servers:
            process.kill()
