"""Benchmark of the API on loopback: action throughput and latency against a health check.

Starts a throwaway ``redis-server`` and ``darkroad serve`` (one uvicorn worker, Redis
store) on free loopback ports, then measures in one run, with async keep-alive clients
(see :class:`Connection`):

1. ``GET /healthz`` throughput (``--concurrency`` requests in flight);
2. ``POST /v1/games/{id}/actions`` latency p50/p99 of one game played alone, then
   throughput and latency with ``--games`` games played in parallel (one request in
   flight per game, each with ``If-Match``, the same seat-token authentication and JSON
   bodies as any client).
   The actions are legal moves computed beforehand with the engine from the same seeds,
   so the clients spend nothing on choosing them.

The two throughput phases alternate for ``--rounds`` rounds, so that a slow stretch of a
shared machine weighs on both. Prints each round's figures and ratio, the latencies, and
the median ratio of the rounds (target: actions >= 30% of health checks). Bounded: each
phase runs ``--seconds``; the whole run takes under a minute.

    python benchmarks/api.py [--seconds 5] [--rounds 3] [--games 64] [--concurrency 64]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import httpx

from darkroad.core import Engine, GameConfig

PLAYERS = 2
SOLO_GAMES = 4
SOLO_SECONDS = 3.0
"""The unloaded latency: one game at a time, for this long."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")


@contextmanager
def running(command: list[str], port: int) -> Iterator[None]:
    """Run ``command`` (a server listening on ``port``) for the duration of the block."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@dataclass
class Script:
    """The actions of one game, computed with the engine from its seed."""

    seed: int
    actions: list[dict[str, object]] = field(default_factory=list)


def scripts(engine: Engine, games: int, actions_needed: int) -> list[Script]:
    """Enough games' worth of legal actions for ``actions_needed`` in total."""
    out: list[Script] = []
    seed = 0
    while sum(len(s.actions) for s in out) < actions_needed or len(out) < games:
        game, _ = engine.create(GameConfig(players=PLAYERS, seed=seed))
        rnd = random.Random(seed)
        script = Script(seed)
        while not game.finished:
            seat = rnd.choice(engine.awaiting(game))
            action = rnd.choice(engine.legal_actions(game, seat))
            engine.apply(game, action)
            script.actions.append(engine.action_to_json(action))
        out.append(script)
        seed += 1
    return out


class Connection:
    """A keep-alive HTTP/1.1 connection, one request at a time.

    httpx is used to set up, but not in the measured loops: on this kind of machine an
    httpx client tops out around 2,000 requests/s, well below what the server answers,
    so it would measure itself. This costs the client a few microseconds per request.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        return cls(*await asyncio.open_connection("127.0.0.1", port))

    async def request(
        self, method: str, path: str, headers: dict[str, str], body: bytes = b""
    ) -> tuple[int, bytes]:
        """Send one request; returns the status and the body."""
        head = f"{method} {path} HTTP/1.1\r\nHost: bench\r\nContent-Length: {len(body)}\r\n"
        head += "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        self.writer.write(head.encode() + b"\r\n" + body)
        status_line, _, rest = (await self.reader.readuntil(b"\r\n\r\n")).partition(b"\r\n")
        length = 0
        for line in rest.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        return int(status_line.split()[1]), await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


async def health_checks(port: int, seconds: float, concurrency: int) -> float:
    """Requests per second of ``GET /healthz``."""
    connections = [await Connection.open(port) for _ in range(concurrency)]
    deadline = time.perf_counter() + seconds
    done = 0

    async def worker(connection: Connection) -> None:
        nonlocal done
        while time.perf_counter() < deadline:
            status, _ = await connection.request("GET", "/healthz", {})
            assert status == 200
            done += 1

    started = time.perf_counter()
    await asyncio.gather(*(worker(connection) for connection in connections))
    elapsed = time.perf_counter() - started
    for connection in connections:
        connection.close()
    return done / elapsed


async def actions(port: int, games: list[Script], seconds: float, parallel: int) -> tuple[float, list[float]]:
    """Requests per second of ``POST .../actions`` and every request's latency (seconds)."""
    queue: asyncio.Queue[Script] = asyncio.Queue()
    for script in games:
        queue.put_nowait(script)
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def play(connection: Connection, script: Script) -> None:
        body = json.dumps({"players": PLAYERS, "seed": script.seed}).encode()
        status, raw = await connection.request(
            "POST", "/v1/games", {"Content-Type": "application/json"}, body
        )
        assert status == 201, raw
        created = json.loads(raw)
        tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
        url, version = f"/v1/games/{created['id']}/actions", created["version"]
        for action in script.actions:
            if time.perf_counter() >= deadline:
                return
            headers = {
                "Content-Type": "application/json",
                "Authorization": f"Bearer {tokens[action['seat']]}",
                "If-Match": f'"{version}"',
            }
            sent = time.perf_counter()
            status, raw = await connection.request("POST", url, headers, json.dumps(action).encode())
            latencies.append(time.perf_counter() - sent)
            assert status == 200, raw
            version += 1

    async def worker() -> None:
        connection = await Connection.open(port)
        while time.perf_counter() < deadline and not queue.empty():
            await play(connection, queue.get_nowait())
        connection.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(parallel)))
    return len(latencies) / (time.perf_counter() - started), latencies


def _percentiles(latencies: list[float]) -> str:
    quantiles = statistics.quantiles(latencies, n=100)
    return f"p50 {quantiles[49] * 1000:6.2f} ms   p99 {quantiles[98] * 1000:6.2f} ms"


async def measure(
    port: int, games: list[Script], seconds: float, concurrency: int, parallel: int, rounds: int
) -> None:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
        ready = await client.get("/readyz")  # the API and its Redis answer
        assert ready.status_code == 200, ready.text
    await health_checks(port, 1.0, concurrency)  # warm-up
    _, alone = await actions(port, games[:SOLO_GAMES], SOLO_SECONDS, 1)
    results = []
    for _ in range(rounds):
        # The phases alternate, so that a slower stretch of a shared machine weighs on both.
        # Every round creates new games from the same scripts.
        health = await health_checks(port, seconds, concurrency)
        throughput, loaded = await actions(port, games[SOLO_GAMES:], seconds, parallel)
        results.append((health, throughput, loaded))
    for n, (health, throughput, _) in enumerate(results, 1):
        print(
            f"round {n}: GET /healthz {health:8.0f} req/s ({concurrency} connections)   "
            f"POST /v1/games/{{id}}/actions {throughput:6.0f} req/s ({parallel} games in parallel)   "
            f"ratio {throughput / health:4.0%}"
        )
    latencies = [latency for _, _, loaded in results for latency in loaded]
    print(f"latency, {parallel} games:   {_percentiles(latencies)}   (mostly queueing: {parallel} in flight)")
    print(f"latency, 1 game alone:  {_percentiles(alone)}")
    ratio = statistics.median(throughput / health for health, throughput, _ in results)
    verdict = "met" if ratio >= 0.3 else "NOT met"
    print(f"actions / health checks, median of {rounds} rounds: {ratio:.0%}   (target >= 30%: {verdict})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each phase")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of (health checks, actions)")
    parser.add_argument("--games", type=int, default=64, help="games played in parallel")
    parser.add_argument("--concurrency", type=int, default=64, help="health checks in flight")
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is not installed")

    engine = Engine.load()
    # Enough actions for a fast server: 6000 actions/s for a whole phase.
    games = scripts(engine, args.games + SOLO_GAMES, int(6000 * args.seconds))
    print(f"{len(games)} scripted {PLAYERS}-player games, {sum(len(s.actions) for s in games)} actions")

    redis_port, api_port = free_port(), free_port()
    with tempfile.TemporaryDirectory() as directory:
        redis = ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", ""]
        redis += ["--appendonly", "no", "--dir", directory]
        api = [sys.executable, "-m", "darkroad.api", "serve", "--port", str(api_port)]
        api += ["--redis-url", f"redis://127.0.0.1:{redis_port}/0", "--log-level", "warning"]
        with running(redis, redis_port), running(api, api_port):
            asyncio.run(measure(api_port, games, args.seconds, args.concurrency, args.games, args.rounds))


if __name__ == "__main__":
    main()
