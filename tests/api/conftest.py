"""Fixtures of the API tests: a real ``redis-server``, both stores, apps and clients.

The Redis server is started once per test process (each xdist worker has its own) on a
free port in a temporary directory, with persistence off, and killed at the end. Without
``redis-server`` the Redis variants are skipped, except in CI (``CI`` set), where that
is a failure.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Callable, Iterator

import httpx
import pytest
from apiutil import RedisServer, serve
from litestar import Litestar

from darkroad.api.app import create_app
from darkroad.api.redis_store import RedisStore
from darkroad.api.settings import Settings
from darkroad.api.store import GameStore, MemoryStore
from darkroad.core import Engine

STORES = ["memory", "redis"]


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A real Redis for this test process (see the module docstring)."""
    if shutil.which("redis-server") is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is not installed; CI must run the Redis tests")
        pytest.skip("redis-server is not installed")
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The URL of an empty Redis."""
    redis_server.flush()
    return redis_server.url


@pytest.fixture(params=STORES)
def store_kind(request: pytest.FixtureRequest) -> str:
    """Each test using it runs once per store."""
    return str(request.param)


@pytest.fixture
def settings(store_kind: str, request: pytest.FixtureRequest) -> Settings:
    """Settings for ``store_kind``: a fresh Redis database or memory."""
    if store_kind == "redis":
        return Settings(redis_url=request.getfixturevalue("redis_url"), stream_heartbeat=0.2)
    return Settings(stream_heartbeat=0.2)


@pytest.fixture
async def store(store_kind: str, request: pytest.FixtureRequest) -> AsyncIterator[GameStore]:
    """An open, empty store of ``store_kind``."""
    opened: GameStore = (
        RedisStore.from_url(request.getfixturevalue("redis_url")) if store_kind == "redis" else MemoryStore()
    )
    async with opened:
        yield opened


@pytest.fixture
def make_app(engine: Engine) -> Callable[[Settings], Litestar]:
    """Build apps sharing the session's engine."""

    def make(settings: Settings) -> Litestar:
        return create_app(settings, engine=engine)

    return make


@pytest.fixture
def app(make_app: Callable[[Settings], Litestar], settings: Settings) -> Litestar:
    """An app on ``settings``."""
    return make_app(settings)


@pytest.fixture
async def client(app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    """A client of ``app``, started, served in the test's event loop (requests run concurrently)."""
    async with serve(app) as test_client:
        yield test_client
