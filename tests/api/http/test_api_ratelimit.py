"""Rate limits per client address: separate budgets for creating games, failed
authentication and everything else; a 429 problem with ``Retry-After``; counted in the
store so that replicas on one Redis share them; the client address behind trusted proxies.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx
import pytest
from apiutil import LONG_WINDOW, ApiServer, bearer, create_game, fresh_window, hold_the_clock, serve
from litestar import Litestar

from darkroad.api.http.problems import Problem
from darkroad.api.http.ratelimit import SYNC_INTERVAL, RateLimiter, client_key
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.memory import MemoryStore

PROBLEM = "application/problem+json"
NO_LIMITS = {"rate_limit_requests": 0, "rate_limit_creates": 0, "rate_limit_auth_failures": 0}


def assert_limited(response: httpx.Response) -> int:
    """``response`` is a 429 problem; its ``Retry-After`` in seconds."""
    assert response.status_code == 429, response.text
    assert response.headers["content-type"] == PROBLEM
    assert response.json()["type"] == "rate-limited"
    retry_after = int(response.headers["retry-after"])
    assert retry_after >= 1
    return retry_after


@asynccontextmanager
async def clients(app: Litestar, *addresses: str) -> AsyncIterator[list[httpx.AsyncClient]]:
    """Clients of ``app`` (served in this loop, its rate-limit clock held still:
    :func:`hold_the_clock`) calling from ``addresses``."""
    async with serve(app) as first:
        hold_the_clock(app)
        made = [first]
        for address in addresses[1:]:
            transport = httpx.ASGITransport(app=app, client=(address, 4321))
            made.append(httpx.AsyncClient(transport=transport, base_url="http://testserver"))
        try:
            yield made
        finally:
            for client in made[1:]:
                await client.aclose()


def limited(settings: Settings, **limits: int) -> Settings:
    return dataclasses.replace(settings, **{**NO_LIMITS, **limits})


async def test_game_creation_has_its_own_budget(make_app: Callable[[Settings], Litestar], settings: Settings) -> None:
    app = make_app(limited(settings, rate_limit_creates=3, rate_limit_requests=1000))
    async with clients(app, "127.0.0.1", "198.51.100.7") as (client, other):
        games = [await create_game(client) for _ in range(3)]
        response = await client.post("/v1/games", json={"players": 2})
        retry_after = assert_limited(response)
        assert retry_after <= 60
        assert "games created" in response.json()["detail"]
        # Other requests of the same client, and other clients, are not limited by it.
        assert (await client.get(games[0].url)).status_code == 200
        assert (await other.post("/v1/games", json={"players": 2})).status_code == 201
        metrics = (await client.get("/metrics")).text
        assert 'darkroad_rate_limited_total{budget="create"} 1.0' in metrics


async def test_requests_budget_spares_the_probes(make_app: Callable[[Settings], Litestar], settings: Settings) -> None:
    app = make_app(limited(settings, rate_limit_requests=5))
    async with clients(app, "127.0.0.1") as (client,):
        for _ in range(5):
            assert (await client.get("/v1/catalog")).status_code == 200
        assert_limited(await client.get("/v1/catalog"))
        assert_limited(await client.get("/v1/games/" + "A" * 22))
        for probe in ("/healthz", "/readyz", "/metrics"):
            assert (await client.get(probe)).status_code == 200


async def test_failed_authentication_budget(make_app: Callable[[Settings], Litestar], settings: Settings) -> None:
    app = make_app(limited(settings, rate_limit_auth_failures=3, rate_limit_requests=1000))
    async with clients(app, "127.0.0.1", "198.51.100.7") as (client, other):
        game = await create_game(client)
        for _ in range(3):
            assert (await client.get(game.url, headers=bearer("guess"))).status_code == 401
        # Spent: any request with a token is refused, even with the right one, until the window slides.
        assert_limited(await client.get(game.url, headers=bearer("guess")))
        response = await client.get(game.url, headers=game.auth(0))
        assert "failed authentications" in response.json()["detail"]
        assert_limited(response)
        # Without a token (a spectator), and from another address, all is well.
        assert (await client.get(game.url)).status_code == 200
        assert (await other.get(game.url, headers=game.auth(0))).status_code == 200
        # A missing token is no guess: it does not count.
        assert (await other.post(f"{game.url}/actions", json={})).status_code in (401, 415)


async def known_total(app: Litestar, budget: str, expected: int) -> int:
    """What ``app``'s limiter knows of this client's ``budget``, once it reaches ``expected``
    (or after 5 s: the machine may be slow)."""
    limiter: RateLimiter = app.state.limiter
    for _ in range(100):
        count = limiter._counts.get((budget, "127.0.0.1"))
        if count is not None and count.used >= expected:
            break
        await asyncio.sleep(0.05)
    return 0 if count is None else count.used


async def test_replicas_on_one_redis_share_the_counts(
    make_app: Callable[[Settings], Litestar], redis_url: str
) -> None:
    settings = limited(Settings(redis_url=redis_url), rate_limit_creates=10)
    apps = [make_app(settings), make_app(settings)]
    async with serve(apps[0]) as one, serve(apps[1]) as two:
        hold_the_clock(*apps)
        for _ in range(5):
            assert (await one.post("/v1/games", json={"players": 2})).status_code == 201
        assert await known_total(apps[0], "create", 5) == 5
        for _ in range(5):
            assert (await two.post("/v1/games", json={"players": 2})).status_code == 201
        # Ten games from this address in the window, five through each replica: both know, both refuse.
        assert await known_total(apps[1], "create", 10) == 10
        assert await known_total(apps[0], "create", 10) == 10
        assert_limited(await one.post("/v1/games", json={"players": 2}))
        assert_limited(await two.post("/v1/games", json={"players": 2}))


async def test_the_window_slides() -> None:
    now = [1005.0]  # 5 s into a 10 s window
    settings = Settings(rate_limit_window=10, rate_limit_requests=10, rate_limit_creates=0, rate_limit_auth_failures=0)
    limiter = RateLimiter(settings, MemoryStore(), Metrics(), clock=lambda: now[0])
    for _ in range(10):
        limiter.check("requests", "a")
        limiter.add("requests", "a")
    with pytest.raises(Problem) as refused:
        limiter.check("requests", "a")
    assert refused.value.headers == {"Retry-After": "5"}  # the window ends in 5 s; its count then weighs less
    limiter.check("requests", "b")
    now[0] = 1011.0  # 1 s into the next window: the previous one still weighs 90% (9 of 10)
    limiter.check("requests", "a")
    limiter.add("requests", "a")
    with pytest.raises(Problem):
        limiter.check("requests", "a")  # 9 + 1
    now[0] = 1016.0  # halfway: 5 + 1
    limiter.check("requests", "a")
    await limiter.close()


def test_client_keys() -> None:
    assert client_key({"client": ("203.0.113.9", 5555)}) == "203.0.113.9"  # type: ignore[typeddict-item]
    assert client_key({"client": ("2001:db8:1:2:3:4:5:6", 1)}) == "2001:db8:1:2::/64"  # type: ignore[typeddict-item]
    assert client_key({"client": None}) == "unknown"  # type: ignore[typeddict-item]


async def test_the_client_behind_a_trusted_proxy(redis_url: str) -> None:
    """A real server: behind a trusted proxy the client is the one ``X-Forwarded-For``
    names; from an untrusted peer the header is ignored, so it cannot dodge its budget."""
    window = {"DARKROAD_RATE_LIMIT_WINDOW": str(LONG_WINDOW)}
    env = {"DARKROAD_RATE_LIMIT_CREATES": "2", "DARKROAD_TRUSTED_PROXIES": "127.0.0.1", **window}
    untrusted = {"DARKROAD_RATE_LIMIT_CREATES": "2", "DARKROAD_TRUSTED_PROXIES": "192.0.2.1", **window}
    body = {"players": 2}
    for variables, forwarded_counts in ((env, True), (untrusted, False)):
        server = ApiServer(redis_url, env=variables).start()
        try:
            async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
                await fresh_window(LONG_WINDOW)
                for n in range(3):
                    forwarded = {"X-Forwarded-For": f"203.0.113.{n}"}  # a new client every time
                    response = await client.post("/v1/games", json=body, headers=forwarded)
                    if forwarded_counts or n < 2:
                        assert response.status_code == 201, (variables, n, response.text)
                    else:
                        assert_limited(response)
                if forwarded_counts:  # the proxy forwards one client's third game
                    for _ in range(2):
                        await client.post("/v1/games", json=body, headers={"X-Forwarded-For": "203.0.113.0"})
                    last = await client.post("/v1/games", json=body, headers={"X-Forwarded-For": "203.0.113.0"})
                    assert_limited(last)
        finally:
            assert "Traceback" not in server.stop()


async def test_unreachable_counter_store_does_not_fail_requests(
    make_app: Callable[[Settings], Litestar], settings: Settings
) -> None:
    """When the counts cannot be shared, each process keeps counting on its own."""

    class Broken(MemoryStore):
        async def count(self, key: str, amount: int, ttl: float) -> int:
            raise OSError("no Redis")

    # A clock that stands still mid-window: the wall clock could start a new window between
    # the counting and the check (CI once crossed a minute there), which forgives the counts.
    limiter = RateLimiter(limited(settings, rate_limit_requests=3), Broken(), Metrics(), clock=lambda: 1_000_030.0)
    for _ in range(3):
        limiter.check("requests", "a")
        limiter.add("requests", "a")
    await asyncio.sleep(2 * SYNC_INTERVAL)
    with pytest.raises(Problem):
        limiter.check("requests", "a")
    await limiter.close()
