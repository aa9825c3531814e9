"""Helpers of the API tests: ports, a throwaway Redis server, API server processes."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import os
import platform
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from litestar import Litestar
from redis import Redis

from darkroad.core import Engine

# Every port a test listens on comes from this worker's own block below the kernel's
# ephemeral range (32768-60999 here): no outgoing connection and no other xdist worker ever
# takes one, and a worker hands a port out again only after every other one of its block
# (thousands: more than a whole run needs). A port picked with bind(0)
# instead could be the port a node of another test had before it was killed, and a
# Sentinel or cluster peer of that test then talked to (and reconfigured, or cut the
# clients of) the new server there: CI once saw a fresh Redis reset the API's first
# connection. Ports are handed out with their cluster bus port (+10000) free too, so one
# allocator serves plain servers and cluster nodes alike.
_PORT_BASE, _PORT_SPAN, _BUS_OFFSET = 10000, 10000, 10000


def need_redis() -> None:
    """Skip (fail in CI) when ``redis-server`` is not installed. Here, not in a conftest: a test
    module importing ``from conftest import ...`` gets whichever conftest was imported last under
    that name (tests/api/http has one of its own)."""
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is not installed; CI must run the Redis tests")
        pytest.skip("redis-server is not installed")


def _port_block() -> range:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    size = _PORT_SPAN // max(1, workers)
    start = _PORT_BASE + (int(worker) % max(1, workers)) * size if worker.isdigit() else _PORT_BASE
    return range(start, start + size)


def _rotated(block: range) -> list[int]:
    """``block`` from a point of its own for this process: two test runs at once on one machine
    (engineers sharing it) have the same blocks, and handing ports out from the same start in
    the same order, their servers asked for the same port at the same moment (one failed to
    bind and its client talked to the other run's server)."""
    start = random.Random(f"{os.getpid()}-{time.time_ns()}").randrange(len(block))
    return [*block[start:], *block[:start]]


_handed_out = itertools.cycle(_rotated(_port_block()))


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port() -> int:
    """A loopback port nobody listens on, with its cluster bus port (+10000) free too."""
    for _ in range(_PORT_SPAN):
        port = next(_handed_out)
        if _bindable(port) and _bindable(port + _BUS_OFFSET):
            return port
    raise RuntimeError("no free loopback port left in this worker's block")


LONG_WINDOW = 3600.0
"""A rate-limit window (``Settings.rate_limit_window``, ``DARKROAD_RATE_LIMIT_WINDOW``) for a
test that spends a budget on the wall clock: :func:`fresh_window` then waits (up to 20 s) in
one run in 180, where with the minute of the default it waited in one run in three (10 s on
average when it did). What such a test checks does not depend on the window's length."""


def fresh_window_wait(window: float = 60.0, need: float = 20.0) -> float:
    """Seconds to wait so that at least ``need`` seconds of the current rate-limit window are
    left (windows start at multiples of ``window`` since the epoch, the same in every
    replica): 0 when they are. A test that spends a budget on the wall clock and expects the
    next request refused must not see a new window start in between: the sliding count then
    forgives a little of the last window, and the request passes (CI once crossed a minute)."""
    left = window - time.time() % window
    return 0.0 if left >= need else left + 0.05


async def fresh_window(window: float = 60.0, need: float = 20.0) -> None:
    """Wait, if need be, for :func:`fresh_window_wait` (in async tests)."""
    await asyncio.sleep(fresh_window_wait(window, need))


def wait_for_port(port: int, timeout: float = 10.0) -> None:
    """Return once something accepts connections on ``port``; fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise TimeoutError(f"nothing listens on port {port} after {timeout}s")


def _listening_inodes(port: int) -> set[str]:
    """The socket inodes listening on loopback (or any address) TCP ``port`` (Linux's /proc)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as lines:
            for line in list(lines)[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # LISTEN
                    inodes.add(fields[9])
    return inodes


def listens(process: subprocess.Popen[bytes], port: int) -> bool:
    """Whether ``process`` itself listens on ``port`` (not another program that took the port
    meanwhile); where /proc cannot tell, whether anything accepts connections there.

    A connection is tried first: refused, it costs microseconds, where a read of /proc/net/tcp
    costs milliseconds of CPU (the kernel walks its whole socket table, everyone's on a shared
    machine: 7 ms a read here), and a server's start was polled every 20 ms for seconds."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            pass
    except OSError:
        return False
    if not os.path.exists("/proc/net/tcp"):
        return True
    inodes = _listening_inodes(port)
    if not inodes:
        return False
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{process.pid}/fd"):
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{process.pid}/fd/{fd}").removeprefix("socket:[").rstrip("]") in inodes:
                    return True
    return False


def answers_itself(process: subprocess.Popen[bytes], client: Redis) -> bool:
    """Whether the ``redis-server`` answering ``client`` is ``process``, not a leftover of
    another test on the port (its ``INFO server`` process_id; an entrypoint script that
    ``exec``s the server is the same process)."""
    return process.poll() is None and client.info("server")["process_id"] == process.pid


class RedisServer:
    """A throwaway ``redis-server`` process (a replica of the server on ``replica_of``, if given)."""

    def __init__(self, directory: Path, *, replica_of: int | None = None, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        replication = [] if replica_of is None else ["--replicaof", "127.0.0.1", str(replica_of)]
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--save", "",
                "--appendonly", "no",
                "--dir", str(directory),
                "--maxmemory-policy", "noeviction",
                # A replica's first sync starts at once (Redis 7 waits 5 s for more replicas).
                "--repl-diskless-sync-delay", "0",
                *replication,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_for_port(self.port)
        self.client = Redis.from_url(self.url)
        if not answers_itself(self.process, self.client):
            self.stop()
            raise RuntimeError(f"redis-server did not start on port {self.port} (taken by another process?)")

    def wait_in_sync(self, timeout: float = 10.0) -> None:
        """A replica: until its link to the primary is up (the first sync done)."""
        deadline = time.monotonic() + timeout
        while self.client.info("replication").get("master_link_status") != "up":
            if time.monotonic() > deadline:
                raise TimeoutError(f"replica on {self.port} not in sync after {timeout}s")
            time.sleep(0.02)

    def flush(self) -> None:
        """Forget every key."""
        self.client.flushall()

    def stop(self) -> None:
        """Kill the server and wait for it."""
        self.client.close()
        self.process.kill()
        self.process.wait(timeout=10)


class _Cookieless(httpx.Cookies):
    """A client's cookie jar that reads only responses that set a cookie: httpx hands every
    response to urllib's cookie jar, which parses its URL again (about 0.3 ms a response, a
    tenth of a test playing whole games). The API sets no cookie."""

    def extract_cookies(self, response: httpx.Response) -> None:
        if "set-cookie" in response.headers:
            super().extract_cookies(response)


def cookieless(client: httpx.AsyncClient) -> httpx.AsyncClient:
    """``client`` with a :class:`_Cookieless` jar (no public way: the ``cookies`` setter copies
    into a plain jar), for the clients sending thousands of requests."""
    client._cookies = _Cookieless()
    return client


def hold_the_clock(*apps: Litestar) -> None:
    """Hold the started ``apps``' rate-limit clock still, a second into the current window: a
    test that spends a budget and expects the next request refused must not see a new window
    start in between (the sliding count then forgives a little of the last window)."""
    limiters = [app.state.limiter for app in apps]
    window = limiters[0].window
    now = (time.time() // window) * window + 1.0
    for limiter in limiters:
        limiter.clock = lambda: now


@asynccontextmanager
async def serve(app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    """Start ``app`` (lifespan included) and yield a client calling it in this event loop.

    Unlike Litestar's test clients, which run the app in a thread one request at a time,
    requests made concurrently here really interleave, as with a real server. The
    lifespan runs in a task of its own, since it must end in the task it started in.
    """
    started, stop = asyncio.Event(), asyncio.Event()

    async def run() -> None:
        async with app.lifespan():
            started.set()
            await stop.wait()

    lifespan = asyncio.create_task(run())
    ready = asyncio.create_task(started.wait())
    await asyncio.wait([lifespan, ready], return_when=asyncio.FIRST_COMPLETED)
    if lifespan.done():
        ready.cancel()
        lifespan.result()  # raises the start-up failure
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield cookieless(client)
    finally:
        stop.set()
        await lifespan


def bearer(token: str) -> dict[str, str]:
    """The ``Authorization`` header of a seat token."""
    return {"Authorization": f"Bearer {token}"}


PROBLEM = "application/problem+json"


def problem(response: httpx.Response, status: int, kind: str) -> dict[str, Any]:
    """Assert ``response`` is a ``status`` problem of type ``kind``; its body."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body: dict[str, Any] = response.json()
    assert body["type"] == kind, body
    return body


def assert_problem(response: Any, status: int, problem_type: str) -> dict[str, Any]:
    """``response`` is an RFC 9457 problem of ``problem_type`` (with every member filled);
    returns its body."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body = response.json()
    assert body["type"] == problem_type
    assert body["status"] == status
    assert body["title"] and body["detail"]
    assert body["instance"] == response.request.url.path
    return dict(body)


class NewGame:
    """A game created over HTTP: its id and each seat's token."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.id: str = body["id"]
        self.version: int = body["version"]
        self.tokens: dict[int, str] = {seat["seat"]: seat["token"] for seat in body["seats"]}
        self.url = f"/v1/games/{self.id}"

    def auth(self, seat: int) -> dict[str, str]:
        """The ``Authorization`` header of ``seat``."""
        return bearer(self.tokens[seat])


async def create_game(client: Any, players: int = 2, seed: int = 1, **config: Any) -> NewGame:
    """Create a game through the API (``client`` is any async httpx-like client)."""
    response = await client.post("/v1/games", json={"players": players, "seed": seed, **config})
    assert response.status_code == 201, response.text
    return NewGame(response.json())


async def awaited_seat(client: Any, game: NewGame) -> int:
    """The first seat the game waits for."""
    view = (await client.get(game.url)).json()
    return int(view["awaiting"][0])


async def legal(client: Any, game: NewGame, seat: int) -> list[dict[str, Any]]:
    """The legal actions of ``seat``."""
    response = await client.get(f"{game.url}/actions", headers=game.auth(seat))
    assert response.status_code == 200, response.text
    return list(response.json()["actions"])


async def play_seat(client: httpx.AsyncClient, game: NewGame, seat: int, seed: int) -> int:
    """Play ``seat`` with only ``GET/POST .../actions`` until the game ends; returns the actions applied."""
    rnd = random.Random(seed)
    url = f"{game.url}/actions"
    applied = 0
    pause = 0.002
    while True:
        listed = (await client.get(url, headers=game.auth(seat))).json()
        if listed["status"] == "finished":
            return applied
        if not listed["actions"]:
            # Another seat's decision: ask again a little later each time, up to 20 ms (every
            # waiting seat asking every 2 ms was about a third of these games' CPU).
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.02)
            continue
        pause = 0.002
        action = rnd.choice(listed["actions"])
        headers = {**game.auth(seat), "If-Match": f'"{listed["version"]}"'}
        response = await client.post(url, json=action, headers=headers)
        if response.status_code == 409 and response.json()["type"] == "stale-version":
            continue  # a simultaneous decision of another seat came first
        assert response.status_code == 200, response.text
        assert response.json()["version"] == listed["version"] + 1
        applied += 1


async def read_log(
    client: Any, game: NewGame, headers: dict[str, str] | None = None, limit: int = 500
) -> list[dict[str, Any]]:
    """Every event the caller of ``headers`` may see, read page by page."""
    events: list[dict[str, Any]] = []
    after, more = -1, True
    while more:
        page = await client.get(
            f"{game.url}/log", params={"after": after, "limit": limit}, headers=headers or {}
        )
        assert page.status_code == 200, page.text
        body = page.json()
        events += body["events"]
        after, more = body["next"], body["more"]
    return events


async def played_out(client: Any, game_id: str, timeout: float = 120.0) -> dict[str, Any]:
    """The spectator's view once the game is over, following its log with the long poll as a
    client does while the bot workers play (bots play apart from requests)."""
    deadline = time.monotonic() + timeout
    after = -1
    while True:
        assert time.monotonic() < deadline, f"game {game_id} not finished in {timeout} s"
        page = await client.get(f"/v1/games/{game_id}/log", params={"after": after, "limit": 500, "wait": 5})
        if page.status_code == 503:  # the store is failing over or restarting: retry, as a client does
            await asyncio.sleep(0.2)
            continue
        assert page.status_code == 200, page.text
        body = page.json()
        after = body["next"]
        if body["finished"] and not body["more"]:
            view: dict[str, Any] = (await client.get(f"/v1/games/{game_id}")).json()
            return view


async def play_bots(service: Any) -> int:
    """Play every bot job waiting in ``service``'s store, and those the moves enqueue, until
    none is left, as a bot worker would (in the test's own task, thinking in-process); the
    number of moves made."""
    from darkroad.api.app.bot_worker import BotWorker
    from darkroad.api.metrics import Metrics
    from darkroad.api.store.memory import MemoryStore

    worker = BotWorker(service.engine, service.store, service.settings, Metrics(), processes=False)
    # Never waiting on the memory store (its wake-up event may belong to another event loop:
    # the app's); Redis's XREADGROUP takes BLOCK 0 as "for ever", so it waits a little.
    block = 0.0 if isinstance(service.store, MemoryStore) else 0.05
    moves = 0
    while True:
        jobs = [
            job
            for shard in service.store.job_shards()
            for job in await service.store.take_jobs(shard, worker.name, 100, block, 0.0)
        ]
        if not jobs:
            return moves
        for job in jobs:
            moves += (await worker.play(job)).outcome in ("played", "stood_in")


def played_record(engine: Engine, players: int, seed: int, game_id: str) -> dict[str, Any]:
    """The record (as JSON, what ``GET .../record`` answers, under ``game_id``) of a game of
    ``players`` played in-process to its end by random legal actions: ``random.Random(seed)``
    picks a seat the game awaits, then one of its legal actions. A finished game to import, or
    to import ``at`` a version near its end (a position set up directly instead of the
    requests that reach it)."""
    from darkroad.api.app import records
    from darkroad.core import GameConfig

    game, _ = engine.create(GameConfig(players=players, seed=seed))
    rnd, entries = random.Random(seed), []
    while not game.finished:
        action = rnd.choice(engine.legal_actions(game, rnd.choice(engine.awaiting(game))))
        engine.apply(game, action)
        entries.append(engine.encode(action))
    record: dict[str, Any] = msgspec.to_builtins(records.build(engine, game_id, game, None, entries, {}))
    return record


class ApiServer:
    """``darkroad serve`` in a child process (stopped with :meth:`stop`, restartable; one a
    test left running is stopped when the test session ends, :meth:`stop_all`).

    ``redis_url=None`` serves from the process's memory; ``env`` adds ``DARKROAD_*``
    settings. What the server writes to stderr goes to a file (a pipe nobody reads could
    fill up and block it), returned by :meth:`stop` and readable with :meth:`log`.
    """

    def __init__(
        self,
        redis_url: str | None,
        port: int | None = None,
        *,
        env: dict[str, str] | None = None,
        args: list[str] | None = None,
    ) -> None:
        self.redis_url = redis_url
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = env or {}
        self.args = args or []
        self.process: subprocess.Popen[bytes] | None = None
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the server object

    def start(self) -> ApiServer:
        """Start the server and wait until it accepts connections."""
        command = [sys.executable, "-c", WITHOUT_PYDANTIC, "serve", "--port", str(self.port)]
        if self.redis_url is not None:
            command += ["--redis-url", self.redis_url]
        command += ["--log-level", "warning", *self.args]
        env = {**os.environ, **self.env}
        if self.redis_url is None:
            env.pop("DARKROAD_REDIS_URL", None)
        self._stderr.seek(0)
        self._stderr.truncate()
        # In a session of its own, so that what the server starts (uvicorn's worker processes with
        # --workers, the bot pool's processes) goes with it: a server killed -9, or stopped after
        # its shutdown timed out, left those running, orphaned (a leftover beside a finished run).
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=self._stderr, env=env,
                                        start_new_session=True)
        _RUNNING.add(self)
        # Wait until this very process listens: a port taken by another program meanwhile
        # (another test run on the machine) would accept connections too, and the test would
        # talk to a stranger. A loaded machine took 28 s to start a Cluster-mode server.
        deadline = time.monotonic() + 60
        while not listens(self.process, self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                log = self.stop()
                raise RuntimeError(f"darkroad serve did not listen on port {self.port}:\n{log}")
            time.sleep(0.02)
        return self

    def log(self) -> str:
        """What the server wrote to stderr so far."""
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    def kill(self) -> None:
        """``kill -9`` the server (no clean shutdown) and wait for it."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(timeout=10)
        _kill_group(self.process)
        self.process = None
        _RUNNING.discard(self)

    def stop(self) -> str:
        """Stop the server (SIGTERM, then SIGKILL) and whatever it started that outlived it
        (SIGKILL); returns what it wrote to stderr."""
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            _kill_group(self.process)
            self.process = None
        _RUNNING.discard(self)
        return self.log()

    @staticmethod
    def stop_all() -> None:
        """Stop every server and bot worker still running (``pytest_sessionfinish``: one a test
        failed to stop, for instance when the one started beside it failed or an assertion in
        its ``finally`` came first, outlives no test run)."""
        for server in list(_RUNNING):
            server.stop()
        for worker in list(_RUNNING_BOTS):
            worker.stop()


_RUNNING: set[ApiServer] = set()

WITHOUT_PYDANTIC = "import sys; sys.modules['pydantic'] = None; from darkroad.api.cli import main; main()"
"""``darkroad serve`` (:class:`ApiServer`) as the product's own install runs it: without pydantic,
which none of darkroad's dependencies needs and only the test tools bring (openapi-python-client,
openapi-spec-validator). Litestar adds its pydantic plugins to every app when pydantic imports
(``Litestar._get_default_plugins``, an optional dependency it skips when missing): importing
them took 0.09 CPU-s of each server's 0.83 to listen (medians of 8 start-ups alternated). The
in-process apps are built with it, as before."""


SERVE_WRITES = ("DARKROAD_REDIS_URL", "DARKROAD_REDIS_MODE", "DARKROAD_REDIS_SERVICE", "DARKROAD_STRICT_PLUGINS",
                "DARKROAD_TRUSTED_PROXIES", "DARKROAD_BOTS", "DARKROAD_LOG_LEVEL")
"""The variables ``darkroad serve`` writes to its environment for its workers (darkroad.api.cli)."""


def serve_refusal(args: list[str], env: dict[str, str]) -> str:
    """The one line ``darkroad serve ARGS`` says when it refuses to start (exit status 1), run in
    this process by typer's test runner, as test_api_cli.py's refusals are (a process of its
    own would import the whole service again: test_api_cli.py runs the real command once).
    Its environment is this process's without any ``DARKROAD_REDIS*`` variable, plus ``env``;
    whatever serve writes to it is put back afterwards, and a serve that does not refuse fails
    the test instead of serving."""
    import uvicorn
    from typer.testing import CliRunner

    from darkroad.api import cli

    unset: dict[str, str | None] = {name: None for name in [*os.environ, *SERVE_WRITES]
                                    if name.startswith("DARKROAD_REDIS") or name in SERVE_WRITES}
    with pytest.MonkeyPatch.context() as patch:  # (serve imports uvicorn when it runs: its module's run)
        patch.setattr(uvicorn, "run", lambda *args, **kwargs: pytest.fail("darkroad serve did not refuse"))
        result = CliRunner().invoke(cli.app, ["serve", *args], env={**unset, **env})
    assert result.exit_code == 1, result.output
    [line] = result.output.strip().splitlines()
    return line


def pip_target(requirements: list[str], flags: list[str], fallback: Path) -> Path:
    """A directory holding ``requirements`` as ``pip install --target DIR *flags *requirements``
    installs them (the floor tests put it first on ``PYTHONPATH``). It is the user's cache
    (``~/.cache/darkroad-pip-target/KEY``, KEY a hash of the requirements, the flags, this Python's
    version and the machine), installed there by the first run that asks and read by the later
    runs and clones: the same pinned versions install the same files, and each pip run took 1.3
    to 1.6 CPU-s (the commit message has the figures). An install goes to a folder of its own and
    is renamed into place when pip has succeeded, so a failed or interrupted one is never read;
    without a writable cache, it goes to ``fallback`` every run."""
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *flags]
    key = hashlib.sha256(repr((requirements, flags, sys.version, platform.machine())).encode()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "darkroad-pip-target"
    target = cache / key
    if target.is_dir():
        return target
    try:
        cache.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f"{key}.", dir=cache))
    except OSError:
        work = target = fallback
    install = subprocess.run([*command, "--target", str(work), *requirements],
                             capture_output=True, text=True, timeout=300)  # fmt: skip
    assert install.returncode == 0, install.stderr
    if work != target:
        try:
            work.rename(target)
        except OSError:  # another run installed it first: that copy is read
            shutil.rmtree(work, ignore_errors=True)
    return target


def run_script(command: list[str], *, timeout: float, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)``, in
    a session of its own: whatever the script started in the background (``darkroad serve`` for
    the example clients, node, go) is killed with it when it runs out of time (``subprocess.run``
    kills the script alone, whose ``trap ... EXIT`` then never stops its server) or leaves
    something behind."""
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True, **kwargs) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            process.communicate()
            raise
        finally:
            _kill_group(process)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _kill_group(leader: subprocess.Popen[Any]) -> None:
    """``kill -9`` what is left of the session ``leader`` started (it has exited: only its
    children, which a clean shutdown has already stopped, may remain)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(leader.pid, 9)
"""The servers started and not stopped yet."""


class BotProcess:
    """``darkroad bots`` in a child process, in a session of its own: :meth:`kill` is ``kill -9``
    of the worker and its pool's processes at once."""

    def __init__(self, redis_url: str, *, env: dict[str, str] | None = None, args: list[str] | None = None) -> None:
        self.redis_url = redis_url
        self.env = env or {}
        self.args = args or []
        self.process: subprocess.Popen[bytes] | None = None
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the object

    def start(self) -> BotProcess:
        command = [sys.executable, "-m", "darkroad.api", "bots", "--redis-url", self.redis_url, *self.args]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=self._stderr, env={**os.environ, **self.env},
            start_new_session=True,
        )  # fmt: skip
        _RUNNING_BOTS.add(self)
        return self

    def log(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")

    def kill(self) -> None:
        """``kill -9`` the worker and its pool."""
        assert self.process is not None
        os.killpg(self.process.pid, 9)
        self.process.wait(timeout=10)
        self.process = None
        _RUNNING_BOTS.discard(self)

    def stop(self) -> str:
        if self.process is not None:
            os.killpg(self.process.pid, 15)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, 9)
                self.process.wait()
            _kill_group(self.process)
            self.process = None
        _RUNNING_BOTS.discard(self)
        return self.log()


_RUNNING_BOTS: set[BotProcess] = set()


def raw_exchange(port: int, data: bytes, timeout: float = 10.0) -> bytes:
    """Send ``data`` as is on a new connection and return everything the server sends
    until it closes the connection (or ``timeout`` passes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def parse_response(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """The status, headers (lower-case names) and body of the first response in ``raw``."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if "content-length" in headers:
        body = body[: int(headers["content-length"])]
    return int(lines[0].split()[1]), headers, body


def read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """Read one whole response (with a ``Content-Length``) from ``sock``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    status, headers, body = parse_response(data)
    length = int(headers.get("content-length", 0))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, headers, body


def list_elsewhere(target: Any, here: str, elsewhere: list[str]) -> None:
    """Append to ``elsewhere`` the URL of every request of the Playwright page or context
    ``target`` to a host other than ``here`` (a ``host:port``; ``data:`` URLs stay allowed).
    The browser (:func:`launch_chromium`) resolves no host but ``here``: such a request fails
    before it leaves, and its failure is listed here. (A route did both, and Playwright then
    paused every request of the page, each API call, asset and stream, for a round trip to its
    driver: the commit message has the figures.)"""
    foreign = re.compile(rf"^(?!data:)(?![a-z][a-z0-9+.-]*://{re.escape(here)}(?:[/?#]|$))")
    target.on("requestfailed", lambda request: elsewhere.append(request.url) if foreign.match(request.url) else None)


CHROMIUM = "/usr/bin/chromium"
"""The browser the browser tests drive with Playwright: Debian's Chromium (Playwright downloads
no browser of its own here)."""


def chromium_for_tests() -> str:
    """:data:`CHROMIUM`; the test is skipped when it is not installed, and fails in CI."""
    if not os.access(CHROMIUM, os.X_OK):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is not installed (Debian's chromium); CI must run the browser tests")
        pytest.skip(f"{CHROMIUM} is not installed (Debian's chromium)")
    return CHROMIUM


UNSEEN_UI = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")
"""Chromium features the browser tests switch off: the address bar's suggestion popups, which
Chromium 156 builds as web pages of its own, loaded ahead in a renderer process of their own for
every window, and so for every page the tests open (a browser context's page is a window in
Chromium's headless mode), unseen here, and about half of Chromium's CPU for a page that loads
and does little (docs/performance.md, session 14)."""
PLAYWRIGHT_DISABLED = ("AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
                       "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding",
                       "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect",
                       "TcpPortRandomizationWin", "OptimizationHints", "NetworkTimeServiceQuerying", "AimEnabled",
                       "PreconnectToSearch", "msForceBrowserSignIn", "msEdgeUpdateLaunchServicesPreferredVersion")
"""The features Playwright (1.65) switches off itself. Chromium reads only the last
``--disable-features`` of its command line, which is ours (Playwright puts the caller's switches
after its own), so ours names these too; :func:`launch_chromium` adds any that a later Playwright
switches off besides."""


def launch_chromium(playwright: Any, here: str) -> Any:
    """Debian's Chromium (:func:`chromium_for_tests`) launched by ``playwright`` (the sync API)
    for pages of the server at ``here`` (``host:port``): it resolves no other host (nor port),
    so a request elsewhere fails at once (:func:`list_elsewhere` lists them), and it runs without
    :data:`UNSEEN_UI`. When the browser's command line shows that Playwright disabled features
    that ours does not name (a Playwright newer than :data:`PLAYWRIGHT_DISABLED`'s list), the
    browser is launched again with them added, with a warning, so that an upgrade installed by a
    clean clone keeps Playwright's own settings rather than failing the browser tests.
    Playwright has no public API for its default switches, hence the command line."""
    features = (*PLAYWRIGHT_DISABLED, *UNSEEN_UI)
    for _ in range(2):
        browser = playwright.chromium.launch(executable_path=chromium_for_tests(), args=[
            "--no-sandbox", f"--disable-features={','.join(features)}",
            f"--host-resolver-rules=MAP {here} {here}, MAP * ~NOTFOUND"])  # the first rule that matches
        missing: set[str] = set()
        for switches in _chromium_command_lines():
            asked = [s.split("=", 1)[1].split(",") for s in switches if s.startswith("--disable-features=")]
            missing |= set(asked[0]) - set(asked[-1])  # Playwright's own, and the one Chromium reads
        if not missing:
            return browser
        browser.close()
        warnings.warn(f"Playwright disables {sorted(missing)} too: add them to apiutil.PLAYWRIGHT_DISABLED",
                      stacklevel=2)
        features = (*features, *sorted(missing))
    raise AssertionError(f"Chromium's command line does not end with the features asked for: {sorted(missing)}")


def _chromium_command_lines() -> list[list[str]]:
    """The command lines of the Chromium browser processes this process started (through
    Playwright's driver), read from /proc (none where there is no /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
    found, stack = [], list(children.get(os.getpid(), []))
    while stack:
        pid = stack.pop()
        stack += children.get(pid, [])
        with contextlib.suppress(OSError):
            switches = Path(f"/proc/{pid}/cmdline").read_text().split("\0")
            if "--remote-debugging-pipe" in switches:
                found.append(switches)
    return found
