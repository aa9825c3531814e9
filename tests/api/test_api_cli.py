"""The ``darkroad`` command line (serve, openapi) and the settings it reads."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from apiutil import SERVE_WRITES, ApiServer, RedisServer, free_port, need_redis
from redisnodes import ClusterNodes, SentinelGroup
from typer.testing import CliRunner

from darkroad.api import cli
from darkroad.api.settings import REDIS_MODES, Settings

runner = CliRunner()


@pytest.fixture
def uvicorn_calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Record ``uvicorn.run`` instead of serving."""
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: calls.append({"app": app, **kwargs}))
    # serve passes its options to the workers in the environment: undo that after the test.
    for variable in (*SERVE_WRITES, "PROMETHEUS_MULTIPROC_DIR"):
        monkeypatch.setenv(variable, "")
        monkeypatch.delenv(variable)
    return calls


def test_serve_defaults_to_one_process_in_memory(uvicorn_calls: list[dict[str, Any]]) -> None:
    result = runner.invoke(cli.app, ["serve", "--port", "9999"])
    assert result.exit_code == 0, result.output
    assert "memory" in result.output
    [call] = uvicorn_calls
    assert call["app"] == "darkroad.api.http.app:create_app_from_env" and call["factory"] is True
    assert (call["host"], call["port"], call["workers"]) == ("127.0.0.1", 9999, 1)
    assert call["timeout_worker_healthcheck"] == 30  # not uvicorn's 5 s (test_api_deploy)


def test_serve_refuses_workers_without_redis(uvicorn_calls: list[dict[str, Any]]) -> None:
    result = runner.invoke(cli.app, ["serve", "--workers", "3"])
    assert result.exit_code == 2
    assert "--redis-url" in result.output
    assert uvicorn_calls == []


def test_serve_workers_share_redis_through_the_environment(
    uvicorn_calls: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    url = redis_url.replace("/0", "/2")
    monkeypatch.setenv("DARKROAD_REDIS_URL", url)
    result = runner.invoke(cli.app, ["serve", "--workers", "3"])
    assert result.exit_code == 0, result.output
    assert uvicorn_calls[0]["workers"] == 3
    assert Settings.from_env().redis_url == url
    assert Settings.from_env().redis_mode == "standalone"


def test_openapi_writes_the_document(tmp_path: Path) -> None:
    output = tmp_path / "openapi.json"
    result = runner.invoke(cli.app, ["openapi", "--output", str(output)])
    assert result.exit_code == 0, result.output
    text = output.read_text(encoding="utf-8")
    assert text.endswith("}\n")
    assert json.loads(text) == cli.openapi_document(builtin_only=True)
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"


def test_openapi_prints_to_stdout() -> None:
    result = runner.invoke(cli.app, ["openapi"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["info"]["title"] == "darkroad"


def test_settings_from_env() -> None:
    env = {
        "DARKROAD_REDIS_URL": "redis://r:6379/0",
        "DARKROAD_EXCLUDE_PLUGINS": "a, b,",
        "DARKROAD_MAX_BODY_SIZE": "1024",
        "DARKROAD_ACTIVE_GAME_TTL": "60",
        "DARKROAD_STREAM_MAX_DURATION": "2.5",
    }
    settings = Settings.from_env(env, idempotency_ttl=5)
    assert settings.redis_url == "redis://r:6379/0"
    assert settings.exclude_plugins == ("a", "b")
    assert (settings.request_max_body_size, settings.active_game_ttl, settings.idempotency_ttl) == (
        1024,
        60,
        5,
    )
    assert Settings.from_env({}) == Settings()
    assert Settings.from_env({"DARKROAD_STRICT_PLUGINS": "1"}).strict_plugins
    redis = Settings.from_env(
        {
            "DARKROAD_REDIS_MODE": "sentinel",
            "DARKROAD_REDIS_SERVICE": "games",
            "DARKROAD_REDIS_WAIT_REPLICAS": "1",
            "DARKROAD_REDIS_WAIT_TIMEOUT": "0.25",
            "DARKROAD_REDIS_RETRY_WINDOW": "3",
        }
    )
    assert (redis.redis_mode, redis.redis_service) == ("sentinel", "games")
    assert (redis.redis_wait_replicas, redis.redis_wait_timeout, redis.redis_retry_window) == (1, 0.25, 3.0)
    assert (Settings().redis_mode, Settings().redis_wait_replicas) == ("standalone", 0)
    assert [mode.value for mode in cli.RedisMode] == list(REDIS_MODES)
    assert not Settings.from_env({}).strict_plugins


def test_serve_strict_refuses_a_broken_plugin(add_entry_point: Callable[[str, str], None],
                                              caplog: pytest.LogCaptureFixture) -> None:
    """Issue 5: a plugin failing at load is skipped with a warning, or refused with --strict."""
    from darkroad.api.http.app import create_app
    from darkroad.core import errors

    add_entry_point("broken-fan", "darkroad_no_such_module")
    with caplog.at_level("WARNING", logger="darkroad.core"):
        create_app(Settings())
    assert "'broken-fan' failed to load and is skipped" in caplog.text
    with pytest.raises(errors.PluginError, match="broken-fan"):
        create_app(Settings(strict_plugins=True))


def test_serve_strict_exits_2_with_one_line(add_entry_point: Callable[[str, str], None],
                                            uvicorn_calls: list[dict[str, Any]]) -> None:
    """``serve --strict`` with a plugin that fails to load: one line and status 2, as
    ``darkroad plugins --strict``, and no server started."""
    add_entry_point("broken-fan", "darkroad_no_such_module")
    result = runner.invoke(cli.app, ["serve", "--strict"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == ["darkroad serve: plugin 'broken-fan' failed to load: ModuleNotFoundError: "
                                          "No module named 'darkroad_no_such_module'"]
    assert uvicorn_calls == []
    plugins = runner.invoke(cli.app, ["plugins", "--strict"])
    assert plugins.exit_code == 2 and len(plugins.stderr.splitlines()) == 1
    assert runner.invoke(cli.app, ["serve"]).exit_code == 0 and len(uvicorn_calls) == 1  # without --strict: skipped


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DARKROAD_MAX_BODY_SIZE": "lots"}, "must be a number"),
        ({"DARKROAD_MAX_BODY_SIZE": "1.5"}, "must be a number"),
        ({"DARKROAD_ACTIVE_GAME_TTL": "0"}, "positive"),
        ({"DARKROAD_REDIS_MODE": "clustered"}, "redis_mode must be one of standalone, cluster, sentinel"),
        ({"DARKROAD_REDIS_WAIT_REPLICAS": "-1"}, "0 or more"),
        ({"DARKROAD_REDIS_WAIT_TIMEOUT": "0"}, "positive"),
    ],
)
def test_settings_reject_nonsense(env: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Settings.from_env(env)


def test_server_processes_tune_the_garbage_collector() -> None:
    """The uvicorn factory freezes start-up objects and raises the collector's thresholds
    (see ``tune_gc``); apps built in-process (tests, embedding) leave the process alone."""
    code = (
        "import gc, json\n"
        "from darkroad.api.http.app import GC_THRESHOLDS, create_app, create_app_from_env\n"
        "create_app(); before = gc.get_threshold()\n"
        "create_app_from_env()\n"
        "print(json.dumps([before, gc.get_threshold(), list(GC_THRESHOLDS), gc.get_freeze_count()]))\n"
    )
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    before, after, wanted, frozen = json.loads(output)
    assert before == [700, 10, 10] and after == wanted and frozen > 10_000


# -- bad Redis configuration: one readable line and exit 1, before serving ------------------


CLEAN: dict[str, str | None] = {name: None for name in ("DARKROAD_REDIS_URL", "DARKROAD_REDIS_MODE", "DARKROAD_REDIS_SERVICE")}
"""No Redis settings from the environment (serve's own writes to it are undone after each run)."""


def refused(args: list[str]) -> str:
    """Run ``darkroad serve`` with ``args``; it must refuse to start: its one line of output."""
    result = runner.invoke(cli.app, ["serve", *args], env=CLEAN)
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("darkroad serve: "), result.output
    return lines[0]


def test_serve_refuses_a_standalone_store_that_is_not_one(
    uvicorn_calls: list[dict[str, Any]], redis_server: RedisServer, tmp_path: Path
) -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"
    assert "cannot reach Redis at " + dead in refused(["--redis-url", dead])
    replica = RedisServer(tmp_path, replica_of=redis_server.port)
    try:
        line = refused(["--redis-url", replica.url])
        assert f"is a read-only replica of 127.0.0.1:{redis_server.port}: point --redis-url at the primary" in line
    finally:
        replica.stop()
    assert "needs --redis-service NAME" in refused(["--redis-url", redis_server.url, "--redis-mode", "sentinel"])
    line = refused(["--redis-url", redis_server.url, "--redis-mode", "sentinel", "--redis-service", "x"])
    assert f"127.0.0.1:{redis_server.port} is not a Sentinel" in line
    line = refused(["--redis-url", redis_server.url, "--redis-mode", "cluster"])
    assert f"127.0.0.1:{redis_server.port} is not a Redis Cluster node (cluster support is disabled)" in line
    assert "--redis-mode standalone" in line
    assert "cannot reach any node" in refused(["--redis-url", dead, "--redis-mode", "cluster"])
    assert "cannot reach any Sentinel" in refused(["--redis-url", dead, "--redis-mode", "sentinel", "--redis-service", "x"])
    assert uvicorn_calls == []


# Each deployment's half on the worker holding it under --dist loadgroup (tests/api/conftest.py's
# store groups): one test asking for both started a second Cluster (6 redis-servers) or Sentinel
# group (5) on whichever worker it ran, idling there to the end of the run.
@pytest.mark.slow
@pytest.mark.xdist_group("store-cluster")
def test_serve_refuses_a_cluster_in_the_wrong_mode(uvicorn_calls: list[dict[str, Any]], redis_cluster: ClusterNodes) -> None:
    node = redis_cluster.nodes[0]
    line = refused(["--redis-url", f"redis://127.0.0.1:{node.port}/0"])
    assert f"127.0.0.1:{node.port}/0 is a Redis Cluster node: start with --redis-mode cluster" in line
    line = refused(["--redis-url", f"redis://127.0.0.1:{node.port}/1", "--redis-mode", "cluster"])
    assert "a Redis Cluster has only database 0; drop /1 from the URL" in line
    assert uvicorn_calls == []
    result = runner.invoke(cli.app, ["serve", "--redis-url", redis_cluster.url, "--redis-mode", "cluster"], env=CLEAN)
    assert result.exit_code == 0, result.output
    assert [call["workers"] for call in uvicorn_calls] == [1]


@pytest.mark.slow
@pytest.mark.xdist_group("store-sentinel")
def test_serve_refuses_sentinels_in_the_wrong_mode(uvicorn_calls: list[dict[str, Any]], redis_sentinel: SentinelGroup) -> None:
    sentinel = f"redis://127.0.0.1:{redis_sentinel.sentinels[0].port}"
    line = refused(["--redis-url", sentinel])
    assert "is a Sentinel: start with --redis-mode sentinel --redis-service NAME" in line
    line = refused(["--redis-url", sentinel, "--redis-mode", "cluster"])
    assert "is not a Redis Cluster node (unknown command 'CLUSTER'" in line
    line = refused(["--redis-url", redis_sentinel.url, "--redis-mode", "sentinel", "--redis-service", "nope"])
    assert "monitors no master named 'nope' (it monitors: darkroad)" in line
    assert uvicorn_calls == []
    args = ["--redis-url", redis_sentinel.url, "--redis-mode", "sentinel", "--redis-service", "darkroad"]
    result = runner.invoke(cli.app, ["serve", *args], env=CLEAN)
    assert result.exit_code == 0, result.output
    assert [call["workers"] for call in uvicorn_calls] == [1]


def test_serve_refusal_is_one_line_from_the_real_command() -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"
    result = subprocess.run(
        [sys.executable, "-m", "darkroad.api", "serve", "--redis-url", dead],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"darkroad serve: cannot reach Redis at {dead}: ")


def test_serve_workers_sum_their_metrics_in_a_directory_of_their_own(
    uvicorn_calls: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str | None] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: seen.append(os.environ.get("PROMETHEUS_MULTIPROC_DIR")))
    monkeypatch.setattr(cli, "check_store", lambda settings: asyncio.sleep(0))
    result = runner.invoke(cli.app, ["serve", "--workers", "2", "--redis-url", "redis://127.0.0.1:1/0"])
    assert result.exit_code == 0, result.output
    assert seen and seen[0] and "darkroad-metrics-" in seen[0]  # the workers inherit it
    assert "PROMETHEUS_MULTIPROC_DIR" not in os.environ and not Path(seen[0]).exists()  # gone after serving


@pytest.mark.parametrize(("level", "shown"), [("warning", True), ("error", False)])
def test_serve_logs_at_its_log_level_with_level_and_logger(tmp_path: Path, level: str, shown: bool) -> None:
    """``darkroad serve --log-level`` sets the service's own loggers too (not only uvicorn's),
    and their lines say when, how grave and where: a Redis gone under a running server is a
    warning of ``darkroad.api`` shown at ``warning`` and not at ``error``."""
    need_redis()
    redis = RedisServer(tmp_path)
    server = ApiServer(redis.url, args=["--log-level", level]).start()
    try:
        redis.stop()
        answer = httpx.post(f"{server.url}/v1/games", json={"players": 2}, timeout=30)
        assert answer.status_code == 503
    finally:
        log = server.stop()
    warned = re.findall(r"^\d{4}-\d\d-\d\d [\d:,]+ WARNING darkroad\.api(?:\.\w+)?: .+$", log, re.MULTILINE)
    assert bool(warned) is shown, log
