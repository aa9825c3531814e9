"""Webhook deliveries per second: how fast ``darkroad bots`` workers drain a backlog of messages.

Starts a throwaway ``redis-server``, a receiver on loopback (answers ``204`` at once and counts
what it got) and ``darkroad serve --bots 0`` (to make games and subscribe their seats over
HTTP, as clients do). Each round then adds ``--messages`` messages to the shard's stream at
once (as commits add them: every field a commit's script writes, spread over the subscribed
seats, each its own id), with ``--workers`` worker processes started beforehand and idle, and
times until the receiver has counted every one and the stream is empty (each acknowledged).
Every delivery is the real one: the subscription read, the body signed, the receiver's address
resolved and checked, an HTTP POST, the acknowledgement.

Prints, per round, deliveries per second and the workers' CPU milliseconds per delivery, then
the median. On a shared machine the rate follows the load; the CPU per delivery less so.

    python benchmarks/webhooks.py --games 8 --messages 2000 --workers 1 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import httpx
import redis

RECEIVER = """
import sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
count, lock = [0], threading.Lock()
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the workers' client reuses its connections
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", "0")))
        with lock:
            count[0] += 1
        self.send_response(204)
        self.send_header("content-length", "0")
        self.end_headers()
    def do_GET(self):
        body = str(count[0]).encode()
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
server.daemon_threads = True
server.serve_forever()
"""
"""The receiver: answers every POST with 204; ``GET`` answers how many it got."""
STREAM = "darkroad:hooks:{bots}"
"""The stream of webhook messages of a single Redis (its one shard, ``bots``)."""


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


def cpu_seconds(pid: int) -> float:
    """CPU time (user and system) of process ``pid`` so far (``/proc``: Linux; else 0.0)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:13]) / os.sysconf("SC_CLK_TCK")


@contextmanager
def running(command: list[str], port: int | None = None, env: dict[str, str] | None = None) -> Iterator[int]:
    """Run ``command`` for the duration of the block (listening on ``port`` first, if given); its pid."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, **(env or {})})
    try:
        if port is not None:
            wait_for_port(port)
        yield process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def subscribed_seats(api: str, hook: str, games: int) -> list[tuple[str, int]]:
    """Make ``games`` 2-seat games and subscribe every seat to ``hook``: their (game, seat)."""
    seats = []
    with httpx.Client(base_url=api, timeout=30) as client:
        for n in range(games):
            created = client.post("/v1/games", json={"players": 2, "seed": n}).json()
            for entry in created["seats"]:
                seat, token = entry["seat"], entry["token"]
                answer = client.put(f"/v1/games/{created['id']}/seats/{seat}/webhook", json={"url": hook},
                                    headers={"Authorization": f"Bearer {token}"})
                answer.raise_for_status()
                seats.append((created["id"], seat))
    return seats


def enqueue(client: redis.Redis, seats: list[tuple[str, int]], count: int, first_version: int) -> None:
    """Add ``count`` turn messages over ``seats`` to the stream, as commits do."""
    decision = json.dumps({"type": "plan", "prompt": "Plan your day"})
    pipe = client.pipeline(transaction=False)
    for n in range(count):
        game_id, seat = seats[n % len(seats)]
        version = first_version + n
        pipe.xadd(STREAM, {"i": f"msg_{game_id}.{version}.{seat}.turn", "g": game_id, "s": seat, "v": version,
                           "k": "turn", "t": repr(time.time()), "d": decision, "a": "0"})
    pipe.execute()


def received(hook_port: int) -> int:
    return int(httpx.get(f"http://127.0.0.1:{hook_port}/count", timeout=10).text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=8, help="games (2 seats each, every seat subscribed)")
    parser.add_argument("--messages", type=int, default=2000, help="messages per round")
    parser.add_argument("--workers", type=int, default=1, help="darkroad bots processes")
    parser.add_argument("--concurrency", type=int, default=16, help="DARKROAD_WEBHOOK_CONCURRENCY of each")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is not installed")
    with ExitStack() as stack, tempfile.TemporaryDirectory() as directory:
        redis_port, hook_port, api_port = free_port(), free_port(), free_port()
        stack.enter_context(running(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                                     "--appendonly", "no", "--dir", directory], redis_port))
        stack.enter_context(running([sys.executable, "-c", RECEIVER, str(hook_port)], hook_port))
        redis_url = f"redis://127.0.0.1:{redis_port}/0"
        env = {"DARKROAD_REDIS_URL": redis_url, "DARKROAD_WEBHOOK_ALLOW_PRIVATE": "1",
               "DARKROAD_WEBHOOK_CONCURRENCY": str(args.concurrency)}
        stack.enter_context(running([sys.executable, "-m", "darkroad.api", "serve", "--port", str(api_port),
                                     "--bots", "0", "--log-level", "warning"], api_port, env))
        seats = subscribed_seats(f"http://127.0.0.1:{api_port}", f"http://127.0.0.1:{hook_port}/hook", args.games)
        client = redis.Redis(port=redis_port)
        rates, cpus = [], []
        version = 1_000_000  # above any version the games reach: every message its own id
        for round_ in range(1, args.rounds + 1):
            with ExitStack() as workers:
                pids = [workers.enter_context(running([sys.executable, "-m", "darkroad.api", "bots", "--redis-url",
                                                       redis_url], env=env)) for _ in range(args.workers)]
                # One message first, not timed: the workers are up and reading (their startup
                # is not measured) once it arrives.
                warm = received(hook_port)
                enqueue(client, seats, 1, version)
                version += 1
                while received(hook_port) <= warm or client.xlen(STREAM):
                    time.sleep(0.05)
                before_cpu = sum(cpu_seconds(pid) for pid in pids)
                before = received(hook_port)
                started = time.perf_counter()
                enqueue(client, seats, args.messages, version)
                while received(hook_port) < before + args.messages or client.xlen(STREAM):
                    time.sleep(0.01)
                elapsed = time.perf_counter() - started
                cpu = sum(cpu_seconds(pid) for pid in pids) - before_cpu
            version += args.messages
            rates.append(args.messages / elapsed)
            cpus.append(cpu / args.messages * 1000)
            print(f"round {round_}: {args.messages} deliveries in {elapsed:.2f} s: {rates[-1]:.0f}/s, "
                  f"{cpus[-1]:.2f} ms CPU per delivery ({args.workers} worker(s), concurrency {args.concurrency})",
                  flush=True)
        load = os.getloadavg()[0]
        print(f"median: {statistics.median(rates):.0f} deliveries/s, {statistics.median(cpus):.2f} ms CPU per "
              f"delivery (load average {load:.1f})")


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # stop the servers started, as on ^C
    main()
