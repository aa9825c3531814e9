"""Fixtures of the API tests: real Redis deployments, the stores, apps and clients.

Tests taking ``store``, ``settings``, ``app`` or ``client`` run once per store: memory,
one ``redis-server`` (``redis``), a Redis Cluster of 3 primaries and 3 replicas
(``cluster``) and a primary with a replica and three Sentinels (``sentinel``; in
``tests/api/store`` only, unless a test asks for it: :data:`APP_STORES`); the last two are
marked slow. Each deployment is started once per test process (each xdist worker has
its own) on free loopback ports in a temporary directory, with persistence off, emptied
before each test and killed at the end. Without ``redis-server`` the Redis variants are
skipped, except in CI (``CI`` set), where that is a failure.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from apiutil import ApiServer, RedisServer, need_redis, serve
from litestar import Litestar
from redisnodes import SHARED_FAILOVER_MS, ClusterNodes, SentinelGroup

from darkroad.api.http.app import create_app
from darkroad.api.settings import Settings
from darkroad.api.store.base import GameStore
from darkroad.api.store.memory import MemoryStore
from darkroad.api.store.redis_store import RedisStore
from darkroad.core import Engine


def pytest_sessionfinish() -> None:
    """Stop any ``darkroad serve`` or ``darkroad bots`` a test left running (:meth:`ApiServer.stop_all`)."""
    ApiServer.stop_all()


STORES = [
    "memory",
    "redis",
    pytest.param("cluster", marks=[pytest.mark.slow, pytest.mark.xdist_group("store-cluster")]),
    pytest.param("sentinel", marks=[pytest.mark.slow, pytest.mark.xdist_group("store-sentinel")]),
]
"""The store kinds a test taking ``store_kind`` (or ``store``, ``settings``, ``app``,
``client``) runs on, unless it is marked ``stores(...)`` with fewer: a test of what the HTTP
layer refuses before any store is asked (``stores("memory")``), or of whole games whose moves
reach a Redis Cluster and Sentinels only as the store contract does (``stores("memory",
"redis")``: that contract is ``test_api_store.py``'s, on every kind, and the HA tests play
whole games on those deployments). Under ``--dist loadgroup`` (CI) the tests of each of the two
deployments run on one worker: one Cluster (6 servers) and one Sentinel group (5) for the run,
not one of each per worker, each started in a few seconds and idling beside the suite after.

The Cluster's worker is also the run's lane of tests that mostly wait (for deadlines, heartbeats,
long polls, deliveries, clocks, bots): the Cluster's own tests wait on its replication and failovers,
and the modules whose tests wait more than they compute join its group (``xdist_group
("store-cluster")``: test_api_streams, test_api_log_wait, test_api_timeouts, test_api_webhooks,
test_api_time_banks, test_api_bot_worker). It is the largest group, so it starts first and the other
workers compute beside it. Handed out one test at a time (xdist's single units), those modules' tests
came one after another to all four workers, which then all waited at once while a core idled
(``scripts/suite_cpu.py --timeline`` of a whole run shows where). The lane is one worker's: it must
stay well shorter than the run. A module with Sentinel variants (``tests/api/store``) cannot join:
pytest-xdist >= 3.7 puts a test marked with two groups in a third, named after both.

Outside ``tests/api/store`` (the stores' own tests), a test not marked runs on every kind but
the Sentinels (:data:`APP_STORES`)."""

APP_STORES = STORES[:3]
"""The store kinds of the API's tests outside ``tests/api/store`` unless marked ``stores(...)``:
memory, one Redis and the Cluster. Behind Sentinels the store is the same ``RedisStore`` as on
one Redis, the same scripts and commands to one primary, found through the Sentinels
(``api/store/topology.py``'s ``SentinelPrimary``): what an API test asks of it there it asks
of one Redis. What is the Sentinels' own (finding the primary, following a failover, their
credentials) is tested by the store contract on every kind (``test_api_store.py``), the HA
tests, a bot worker through a failover and the command line's refusals."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "stores(*kinds): the store kinds the test runs on (default: every kind in "
                                       "tests/api/store, every kind but the Sentinels elsewhere)")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``store_kind`` over :data:`STORES`, or those of the test's ``stores`` mark."""
    if "store_kind" not in metafunc.fixturenames:
        return
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0]
        if "store_kind" in (names.replace(" ", "").split(",") if isinstance(names, str) else names):
            return  # the test names its store kinds itself
    marker = metafunc.definition.get_closest_marker("stores")
    stores_own = Path(metafunc.definition.path).parent.name == "store"
    kinds = (STORES if stores_own else APP_STORES) if marker is None else [
        param for param in STORES if (param if isinstance(param, str) else param.values[0]) in marker.args
    ]
    metafunc.parametrize("store_kind", kinds, indirect=True)


@pytest.fixture
def store_kind(request: pytest.FixtureRequest) -> str:
    """The store kind of this run of the test (:func:`pytest_generate_tests`, or the test's own
    ``parametrize("store_kind", [...], indirect=True)``)."""
    return str(request.param)
REDIS_MODES = {"redis": "standalone", "cluster": "cluster", "sentinel": "sentinel"}
"""The ``--redis-mode`` of each Redis store kind."""


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A real Redis for this test process (see the module docstring)."""
    need_redis()
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterNodes]:
    """A Redis Cluster (3 primaries, 3 replicas) for this test process."""
    need_redis()
    cluster = ClusterNodes(tmp_path_factory.mktemp("cluster"), node_timeout_ms=SHARED_FAILOVER_MS)
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session")
def redis_sentinel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SentinelGroup]:
    """A primary, its replica and three Sentinels for this test process."""
    need_redis()
    group = SentinelGroup(tmp_path_factory.mktemp("sentinel"), down_after_ms=SHARED_FAILOVER_MS)
    yield group
    group.stop()


@pytest.fixture
def redis_target(store_kind: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    """The empty Redis deployment of ``store_kind``, as ``RedisStore.from_url`` keyword arguments."""
    if store_kind == "cluster":
        cluster: ClusterNodes = request.getfixturevalue("redis_cluster")
        cluster.flush()
        return {"url": cluster.url, "mode": "cluster"}
    if store_kind == "sentinel":
        group: SentinelGroup = request.getfixturevalue("redis_sentinel")
        group.flush()
        return {"url": group.url, "mode": "sentinel", "service": group.service}
    return {"url": request.getfixturevalue("redis_url"), "mode": "standalone"}


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The URL of an empty Redis."""
    redis_server.flush()
    return redis_server.url


@pytest.fixture
def settings(store_kind: str, request: pytest.FixtureRequest) -> Settings:
    """Settings for ``store_kind``: an empty Redis deployment or memory."""
    if store_kind == "memory":
        return Settings(stream_heartbeat=0.2)
    target = request.getfixturevalue("redis_target")
    return Settings(
        redis_url=target["url"],
        redis_mode=target["mode"],
        redis_service=target.get("service"),
        stream_heartbeat=0.2,
    )


@pytest.fixture
async def store(store_kind: str, request: pytest.FixtureRequest) -> AsyncIterator[GameStore]:
    """An open, empty store of ``store_kind``."""
    opened: GameStore = (
        MemoryStore() if store_kind == "memory" else RedisStore.from_url(**request.getfixturevalue("redis_target"))
    )
    async with opened:
        yield opened


@pytest.fixture
def make_app(engine: Engine) -> Callable[[Settings], Litestar]:
    """Build apps sharing the session's engine."""

    def make(settings: Settings) -> Litestar:
        return create_app(settings, engine=engine)

    return make


_APPS: dict[Settings, Litestar] = {}
"""The apps of :func:`app`, by their settings (this test process's)."""


def _shared(engine: Engine, settings: Settings) -> Litestar:
    shared = _APPS.get(settings)
    if shared is None:
        shared = _APPS[settings] = create_app(settings, engine=engine)
    return shared


@pytest.fixture
def app(engine: Engine, settings: Settings) -> Litestar:
    """An app on ``settings``, shared by the tests of this process that ask for the same
    settings (those of a store kind): building an app takes a tenth of a second, and hundreds
    of tests ask for one. Each test starts it afresh (:func:`client`: its lifespan opens a new
    store, services and bot workers, and empties nothing it did not open), so that only the
    routes and the metrics' counters carry over; a test reading counters builds its own
    (:func:`make_app`)."""
    return _shared(engine, settings)


@pytest.fixture
def shared_app(engine: Engine) -> Callable[[Settings], Litestar]:
    """``shared_app(settings)``: the app of those settings shared as :func:`app`'s are, for a
    test of settings of its own (a heartbeat, retry or limit) that serves one app at a time and
    reads no metrics' counters (a test serving two at once, or reading counters, builds its own:
    :func:`make_app`)."""
    return lambda settings: _shared(engine, settings)


@pytest.fixture
async def client(app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    """A client of ``app``, started, served in the test's event loop (requests run concurrently)."""
    async with serve(app) as test_client:
        yield test_client
