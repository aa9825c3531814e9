"""Safe deployment defaults: metrics Prometheus 3 reads (summed over a replica's workers,
optionally behind a token), a readiness that notices a Redis refusing writes, seat views
no cache keeps."""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from apiutil import ApiServer, RedisServer, create_game, free_port, need_redis, serve
from litestar import Litestar
from prometheus_client.parser import text_string_to_metric_families
from redis import exceptions as redis_errors

from darkroad.api.settings import Settings
from darkroad.api.store.topology import WritesRefused, refusal

PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8"


def samples(text: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    """The samples of metric ``name`` (as Prometheus parses them) by their sorted labels."""
    return {
        tuple(sorted(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name
    }


# -- metrics ---------------------------------------------------------------------------------------


async def test_metrics_are_the_prometheus_text_format(make_app: Callable[[Settings], Litestar], settings: Settings) -> None:
    async with serve(make_app(settings)) as client:  # an app of its own: its counters start at 0
        await create_game(client)
        response = await client.get("/metrics")
    # One charset: Prometheus 3 refuses a Content-Type with the parameter twice.
    assert response.headers["content-type"] == PROMETHEUS_TEXT
    created = samples(response.text, "darkroad_games_created_total")
    assert created == {(): 1.0}
    requests = samples(response.text, "darkroad_http_requests_total")
    assert requests[(("method", "POST"), ("route", "/v1/games"), ("status", "201"))] == 1.0
    assert not [family.name for family in text_string_to_metric_families(response.text)
                for sample in family.samples if sample.name.endswith("_created")]  # no timestamp series


async def test_metrics_behind_a_token(make_app: Callable[[Settings], Litestar], settings: Settings) -> None:
    app = make_app(dataclasses.replace(settings, metrics_token="s3cret"))
    async with serve(app) as client:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret"}):
            refused = await client.get("/metrics", headers=headers)
            assert refused.status_code == 401 and refused.json()["type"] == "metrics-token"
            assert refused.headers["www-authenticate"].startswith("Bearer")
        granted = await client.get("/metrics", headers={"Authorization": "Bearer s3cret"})
        assert granted.status_code == 200 and granted.headers["content-type"] == PROMETHEUS_TEXT
    assert "s3cret" not in repr(app.state.settings)


def workers_of(server: ApiServer, count: int, timeout: float = 60.0) -> list[int]:
    """The pids of ``server``'s ``count`` uvicorn workers (its children by multiprocessing's
    spawn) once they have all started serving (run with ``--log-level info``)."""
    assert server.process is not None
    deadline = time.monotonic() + timeout
    while True:
        workers = [
            int(pid)
            for pid in Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read_text().split()
            if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
        ]
        if len(workers) == count and server.log().count("Application startup complete") >= count:
            return workers
        assert time.monotonic() < deadline, server.log()
        time.sleep(0.1)


@pytest.fixture(scope="module")
def replica(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    """A replica of two workers (``serve --workers 2``, each started by multiprocessing's spawn:
    three processes importing the service), for both tests of a replica's workers (one xdist
    group): on a Redis of its own, which no other test of the process flushes under it."""
    need_redis()
    redis = RedisServer(tmp_path_factory.mktemp("replica-redis"))
    try:
        server = ApiServer(redis.url, args=["--workers", "2", "--log-level", "info"]).start()
        try:
            workers_of(server, 2)  # both serving: a count is not shared with a late starter
            yield server
        finally:
            assert "Traceback" not in server.stop()
    finally:
        redis.stop()


CATALOG_200 = (("method", "GET"), ("route", "/v1/catalog"), ("status", "200"))


def catalog_requests(server: ApiServer) -> float:
    """The replica's count of ``GET /v1/catalog`` answered 200, as the worker asked tells it."""
    return samples(httpx.get(f"{server.url}/metrics", timeout=10).text, "darkroad_http_requests_total").get(CATALOG_200, 0.0)


@pytest.mark.slow
@pytest.mark.xdist_group("deploy-replica")
def test_metrics_sum_over_the_workers_of_a_replica(replica: ApiServer) -> None:
    before = catalog_requests(replica)  # the other test of the replica may have asked some
    for _ in range(20):  # a new connection each: the workers take turns
        assert httpx.get(f"{replica.url}/v1/catalog", timeout=10).status_code == 200, replica.log()
    seen = {catalog_requests(replica) for _ in range(6)}
    assert seen == {before + 20.0}, (before, seen)  # whichever worker answers, it answers for the replica


@pytest.mark.slow
@pytest.mark.xdist_group("deploy-replica")
def test_a_worker_short_of_cpu_is_not_killed(replica: ApiServer) -> None:
    """uvicorn's supervisor kills a worker that does not answer its health check within 5 s by
    default, dropping the worker's requests in flight, though the worker is only starved of
    CPU (uvicorn issue #2506). `serve` gives it 30 s (--worker-healthcheck-timeout): a worker
    stopped for 7 s (SIGSTOP, the extreme of a starved process) is kept, and the other one
    answers meanwhile."""
    first, second = workers_of(replica, 2)
    os.kill(first, signal.SIGSTOP)
    try:
        started = time.monotonic()
        # Requests on new connections meanwhile: the running worker takes them all (the stopped
        # one accepts none from the shared socket).
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda _: httpx.get(f"{replica.url}/v1/catalog", timeout=30), range(8)))
            time.sleep(max(0.0, 7.0 - (time.monotonic() - started)))
    finally:
        with contextlib.suppress(ProcessLookupError):  # (killed by the supervisor: see below)
            os.kill(first, signal.SIGCONT)
    assert [answer.status_code for answer in answers] == [200] * 8, replica.log()
    time.sleep(1.0)  # a health check after the stop
    assert sorted(workers_of(replica, 2)) == sorted((first, second)), replica.log()
    assert "died" not in replica.log()


# -- readiness -------------------------------------------------------------------------------------


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A Redis of this test's own: it is made to refuse writes."""
    server = RedisServer(tmp_path)
    yield server
    server.stop()


async def test_readiness_reports_a_redis_refusing_writes(
    own_redis: RedisServer, make_app: Callable[[Settings], Litestar]
) -> None:
    admin = own_redis.client
    async with serve(make_app(Settings(redis_url=own_redis.url))) as client:
        assert (await client.get("/readyz")).status_code == 200
        admin.config_set("maxmemory", 1)  # full: OOM on every write, PING still answers
        try:
            full = await client.get("/readyz")
            assert full.status_code == 503 and full.json()["type"] == "store-unavailable"
            assert full.headers["retry-after"] == "1"
        finally:
            admin.config_set("maxmemory", 0)
        assert (await client.get("/readyz")).status_code == 200
        nowhere = free_port()
        admin.execute_command("REPLICAOF", "127.0.0.1", nowhere)  # a demoted primary: READONLY
        try:
            assert (await client.get("/readyz")).status_code == 503
        finally:
            admin.execute_command("REPLICAOF", "NO", "ONE")
        assert (await client.get("/readyz")).status_code == 200


def test_misconf_is_a_refusal_to_write() -> None:
    """``MISCONF`` (a failed snapshot, a full disk) has no redis-py class: the store makes it
    one of the "cannot serve now" errors (503), not a bug (500)."""
    refused = refusal(redis_errors.ResponseError("MISCONF Redis is configured to save RDB snapshots, but ..."))
    assert isinstance(refused, WritesRefused)
    other = redis_errors.ResponseError("ERR something else")
    assert refusal(other) is other


# -- seat views ------------------------------------------------------------------------------------


async def test_seat_views_are_not_cached(client: httpx.AsyncClient) -> None:
    created = await client.post("/v1/games", json={"players": 2, "seed": 3})
    assert created.headers["cache-control"] == "private, no-store"  # it carries the tokens
    game_url = created.headers["location"]
    token = created.json()["seats"][0]["token"]
    seat = {"Authorization": f"Bearer {token}"}
    for path in ("", "/actions", "/log"):  # (the event stream is "no-cache", as every stream)
        mine = await client.get(game_url + path, headers=seat)
        assert mine.headers["cache-control"] == "private, no-store", path
        spectator = await client.get(game_url + path)
        assert "cache-control" not in spectator.headers, path
    actions = (await client.get(f"{game_url}/actions", headers=seat)).json()["actions"]
    assert actions, "seat 0 plans first"
    acted = await client.post(f"{game_url}/actions", json=actions[0], headers=seat)
    assert acted.status_code == 200, acted.text
    assert acted.headers["cache-control"] == "private, no-store"


def test_the_document_names_the_cache_control_header() -> None:
    import json

    doc = json.loads((Path(__file__).parents[2] / "openapi" / "openapi.json").read_text())
    for path, method, status in [
        ("/v1/games", "post", "201"),
        ("/v1/games/{game_id}", "get", "200"),
        ("/v1/games/{game_id}/actions", "get", "200"),
        ("/v1/games/{game_id}/actions", "post", "200"),
        ("/v1/games/{game_id}/log", "get", "200"),
        ("/v1/games/{game_id}/score", "get", "200"),
    ]:
        headers = doc["paths"][path][method]["responses"][status].get("headers", {})
        assert "Cache-Control" in headers, (path, method)


def test_redis_credentials_come_from_the_environment(tmp_path: Path) -> None:
    from darkroad.api.http.app import _credentials

    secret = tmp_path / "redis-password"
    secret.write_text("from-a-file\n")
    settings = Settings.from_env({"DARKROAD_REDIS_USERNAME": "darkroad", "DARKROAD_REDIS_PASSWORD_FILE": str(secret),
                                  "DARKROAD_REDIS_PASSWORD": "ignored-when-a-file-is-named"})  # fmt: skip
    assert _credentials(settings) == {"username": "darkroad", "password": "from-a-file"}
    assert "from-a-file" not in repr(settings)
    assert _credentials(Settings.from_env({"DARKROAD_REDIS_PASSWORD": "p"})) == {"password": "p"}
    assert _credentials(Settings.from_env({})) == {}
    # The Sentinels' login is apart (sentinel mode), from the environment the same way.
    assert _credentials(settings, sentinel=True) == {}
    secret.write_text("sentinels\n")
    settings = Settings.from_env({"DARKROAD_REDIS_SENTINEL_USERNAME": "darkroad",
                                  "DARKROAD_REDIS_SENTINEL_PASSWORD_FILE": str(secret), "DARKROAD_REDIS_PASSWORD": "p"})  # fmt: skip
    assert _credentials(settings, sentinel=True) == {"username": "darkroad", "password": "sentinels"}
    assert _credentials(settings) == {"password": "p"}
    assert "sentinels" not in repr(settings)
    assert _credentials(Settings.from_env({"DARKROAD_REDIS_SENTINEL_PASSWORD": "s"}), sentinel=True) == {"password": "s"}
