"""The ``darkroad`` command line: serve the API, write its OpenAPI document.

The server's modules (Litestar, redis-py, uvicorn, the app, the store) are imported by the
commands that use them, not at the top: every command's process imports this module, and most
commands (``plugins``, ``simulate``, ``arena``, ``new-plugin``, ``record verify``) need only the
core, so they do not wait for the server's imports.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import tempfile
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from darkroad.api.settings import Settings
from darkroad.api.store.base import StoreConfigError, StoreUnavailable
from darkroad.api.tools import arena, commands
from darkroad.core import Engine, PluginError
from darkroad.core.errors import DarkroadError

if TYPE_CHECKING:
    from darkroad.api.metrics import Metrics

app = typer.Typer(
    name="darkroad",
    help="Game-state service for Merchants of the Dark Road.",
    no_args_is_help=True,
    add_completion=False,
)


class RedisMode(StrEnum):
    """``--redis-mode``: the modes of ``darkroad.api.settings.REDIS_MODES``."""

    standalone = "standalone"
    cluster = "cluster"
    sentinel = "sentinel"


# The options of ``serve`` (and of the commands that reach the same store), as types.
HealthcheckTimeout = Annotated[
    int,
    typer.Option(
        envvar="DARKROAD_WORKER_HEALTHCHECK_TIMEOUT",
        help="With --workers > 1: seconds a worker may take to answer its supervisor's "
        "health check before it is killed and replaced.",
        min=1,
    ),
]
RedisUrl = Annotated[
    str | None,
    typer.Option(
        envvar="DARKROAD_REDIS_URL",
        help="Keep games in this Redis (redis://host:6379/0). Without it, games live in the "
        "process's memory and are lost when it stops. Cluster mode: one or more seed nodes, "
        "sentinel mode: the Sentinels (redis://host1:26379,host2:26379).",
    ),
]
RedisModeOption = Annotated[
    RedisMode,
    typer.Option(
        envvar="DARKROAD_REDIS_MODE",
        help="standalone: one Redis server; cluster: a Redis Cluster; sentinel: the primary "
        "the Sentinels name (followed through failovers).",
    ),
]
RedisService = Annotated[
    str | None, typer.Option(envvar="DARKROAD_REDIS_SERVICE", help="Sentinel mode: the master's name.")
]
TrustedProxies = Annotated[
    str,
    typer.Option(
        envvar="DARKROAD_TRUSTED_PROXIES",
        help="Comma-separated addresses or networks of the reverse proxies whose X-Forwarded-For "
        "names the client (rate limits count per client address); '*' trusts any peer.",
    ),
]


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port to listen on.", min=0, max=65535)] = 8000,
    workers: Annotated[
        int, typer.Option(help="Worker processes (more than 1 needs --redis-url).", min=1)
    ] = 1,
    worker_healthcheck_timeout: HealthcheckTimeout = 30,
    redis_url: RedisUrl = None,
    redis_mode: RedisModeOption = RedisMode.standalone,
    redis_service: RedisService = None,
    trusted_proxies: TrustedProxies = "127.0.0.1",
    log_level: Annotated[str, typer.Option(help="Log level (uvicorn's and the service's).")] = "info",
    strict: Annotated[bool, typer.Option(help="Refuse to start when a plugin fails to load "
                                              "(default: skip it with a warning).")] = False,
    bots: Annotated[
        int,
        typer.Option(envvar="DARKROAD_BOTS", min=0,
                     help="Bot workers each server process runs (1: bots play with no second command; "
                          "0: a deployment running `darkroad bots` apart)."),
    ] = 1,
) -> None:
    """Serve the REST API (OpenAPI document at /schema/openapi.json)."""
    import uvicorn

    from darkroad.api.http.server import HttpProtocol

    if workers > 1 and not redis_url:
        raise typer.BadParameter(
            "each worker is a separate process with its own memory, so without a shared store a game "
            "created by one worker is unknown to the others; pass --redis-url (or set DARKROAD_REDIS_URL) "
            "or use --workers 1",
            param_hint="--workers",
        )
    _export_settings(redis_url, redis_mode, redis_service, strict, trusted_proxies)
    os.environ["DARKROAD_BOTS"] = str(bots)
    os.environ["DARKROAD_LOG_LEVEL"] = log_level  # the workers' own loggers (configure_logging)
    metrics_dir = _share_metrics(workers)
    settings = _checked_settings(redis_url, strict)
    store = _store_named(redis_url, redis_mode, redis_service)
    typer.echo(f"darkroad API on http://{host}:{port} with {workers} worker(s); store: {store}", err=True)
    uvicorn.run(
        "darkroad.api.http.app:create_app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
        proxy_headers=True,
        forwarded_allow_ips=settings.trusted_proxies,
        http=HttpProtocol,
        # uvicorn's supervisor pings each worker every 0.5 s and SIGKILLs one that has not
        # answered within this timeout, dropping its requests in flight. Its default, 5 s, kills
        # healthy workers that are only short of CPU (a busy host, a start-up importing the
        # plugins): uvicorn issue #2506, and a CI run here once lost a request so. 30 s is
        # gunicorn's worker timeout.
        timeout_worker_healthcheck=worker_healthcheck_timeout,
    )
    if metrics_dir is not None:
        del os.environ["PROMETHEUS_MULTIPROC_DIR"]
        metrics_dir.cleanup()


def _store_named(redis_url: str | None, redis_mode: RedisMode, redis_service: str | None) -> str:
    """The store as ``serve`` names it when it starts (a URL without its password)."""
    from darkroad.api.store.topology import redact

    if not redis_url:
        return "memory (single process; games are lost when it stops)"
    return f"{redis_mode.value} Redis at {redact(redis_url)}" + (f", service {redis_service}" if redis_service else "")


def _export_settings(
    redis_url: str | None, redis_mode: RedisMode, redis_service: str | None, strict: bool, trusted_proxies: str
) -> None:
    """Put the command's options where the workers read them: workers are separate processes,
    which read their settings from the environment."""
    if redis_url:
        os.environ["DARKROAD_REDIS_URL"] = redis_url
    os.environ["DARKROAD_REDIS_MODE"] = redis_mode.value
    if redis_service:
        os.environ["DARKROAD_REDIS_SERVICE"] = redis_service
    if strict:
        os.environ["DARKROAD_STRICT_PLUGINS"] = "1"
    os.environ["DARKROAD_TRUSTED_PROXIES"] = trusted_proxies


def _share_metrics(workers: int) -> tempfile.TemporaryDirectory[str] | None:
    """With several workers on one port, a directory where each writes its metrics, for
    ``/metrics`` to sum them all (prometheus_client's multiprocess mode; darkroad.api.metrics)."""
    if workers == 1 or os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return None
    metrics_dir = tempfile.TemporaryDirectory(prefix="darkroad-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir.name
    return metrics_dir


def _checked_settings(redis_url: str | None, strict: bool) -> Settings:
    """The settings of the environment, the store they name reached, and (``strict``) every
    plugin loaded: or one readable line and exit, before any worker starts (not at the first
    request, nor a traceback from every worker)."""
    try:
        settings = Settings.from_env()
        if redis_url:
            asyncio.run(check_store(settings))
    except (ValueError, StoreConfigError, StoreUnavailable) as exc:
        typer.echo(f"darkroad serve: {exc}", err=True)
        raise typer.Exit(1) from None
    if strict:
        # Status 2, as `darkroad plugins --strict`.
        try:
            Engine.load(exclude=settings.exclude_plugins, strict=True)
        except PluginError as exc:
            typer.echo(f"darkroad serve: {exc.reason}", err=True)
            raise typer.Exit(2) from None
    return settings


@app.command("bots")
def bots_command(
    redis_url: RedisUrl = None,
    redis_mode: RedisModeOption = RedisMode.standalone,
    redis_service: RedisService = None,
    concurrency: Annotated[
        int,
        typer.Option(envvar="DARKROAD_BOT_CONCURRENCY", min=0,
                     help="Bot jobs played at once, each thinking in a process of the worker's pool "
                          "(0: as many as this machine has CPUs)."),
    ] = 0,
    strict: Annotated[bool, typer.Option(help="Refuse to start when a plugin fails to load.")] = False,
    log_level: Annotated[str, typer.Option(help="Log level.")] = "info",
    metrics_port: Annotated[
        int, typer.Option(help="Serve this worker's metrics (Prometheus) on this port; 0: not at all.", min=0)
    ] = 0,
) -> None:
    """A bot worker: plays the bots' moves and the turn clocks of the games in Redis, and delivers their
    webhook messages, apart from the API."""
    import prometheus_client

    from darkroad.api.http.app import LOG_FORMAT
    from darkroad.api.metrics import Metrics
    from darkroad.api.store.topology import redact

    if not redis_url:
        raise typer.BadParameter(
            "a bot worker takes its jobs from the store the API writes them to: pass --redis-url (or set "
            "DARKROAD_REDIS_URL); with the memory store, `darkroad serve` plays the bots itself",
            param_hint="--redis-url",
        )
    _export_settings(redis_url, redis_mode, redis_service, strict, "127.0.0.1")
    settings = _checked_settings(redis_url, strict)
    logging.basicConfig(level=log_level.upper(), format=LOG_FORMAT)
    concurrency = concurrency or os.cpu_count() or 1
    engine = Engine.load(exclude=settings.exclude_plugins, strict=settings.strict_plugins)
    typer.echo(f"darkroad bots: {concurrency} at once, bots {', '.join(sorted(engine.bots))}; "
               f"{redis_mode.value} Redis at {redact(redis_url)}", err=True)
    metrics = Metrics()
    if metrics_port:
        prometheus_client.start_http_server(metrics_port, registry=metrics.registry)
    asyncio.run(_run_bots(engine, settings, metrics, concurrency))


async def _run_bots(engine: Engine, settings: Settings, metrics: Metrics, concurrency: int) -> None:
    from darkroad.api.app.bot_worker import BotWorker
    from darkroad.api.app.webhook_delivery import Deliverer
    from darkroad.api.http.app import open_store
    from darkroad.api.http.webhook_client import WebhookClient

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with open_store(settings, metrics) as store:
        # The worker delivers the webhook messages too (darkroad.api.app.webhook_delivery).
        await asyncio.gather(
            BotWorker(engine, store, settings, metrics, concurrency=concurrency).run(stop),
            Deliverer(store, settings, metrics, WebhookClient(settings)).run(stop),
        )


async def check_store(settings: Settings) -> None:
    """Open and close the store ``settings`` name: :class:`StoreConfigError` when the Redis
    deployment reached is not the one the mode expects, :class:`StoreUnavailable` when it
    cannot be reached."""
    from darkroad.api.http.app import open_store

    async with open_store(settings):
        pass


@app.command()
def openapi(
    output: Annotated[Path | None, typer.Option(help="Write the document here instead of to stdout.")] = None,
    installed: Annotated[
        bool,
        typer.Option(
            "--installed",
            help="Describe this installation, fan plugins included (what its server serves at /schema). "
            "Without it: the base game's document, the one committed as openapi/openapi.json.",
        ),
    ] = False,
) -> None:
    """Print (or write) the API's OpenAPI document."""
    text = json.dumps(openapi_document(builtin_only=not installed), indent=2, sort_keys=True) + "\n"
    if output is None:
        typer.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {output}", err=True)


def openapi_document(*, builtin_only: bool = False) -> dict[str, object]:
    """The OpenAPI document of this installation (or of the base game alone)."""
    from darkroad.api.http.app import create_app
    from darkroad.api.http.openapi import document

    engine = Engine.load()
    if builtin_only:
        engine = Engine.load(
            exclude=[name for name, plugin in engine.plugins.plugins.items() if not plugin.builtin]
        )
    return document(create_app(Settings(), engine=engine))


commands.register(app)
app.command("arena")(arena.arena_command)

record_app = typer.Typer(help="Game records: verify one, export one from a store.", no_args_is_help=True)
app.add_typer(record_app, name="record")


@record_app.command("verify")
def record_verify(
    file: Annotated[Path, typer.Argument(help="A game record (JSON), as GET /v1/games/{id}/record answers it.",
                                         exists=True, dir_okay=False, readable=True)],
) -> None:
    """Replay a game record with the installed plugins and print its final score table; exit 1 if it
    does not replay (a missing plugin or another version, an illegal action, another result)."""
    from darkroad.api.app import records
    from darkroad.api.app.service_errors import ServiceError

    console = Console()
    engine = Engine.load()
    try:
        record = records.parse(file.read_bytes())
        game = records.replay(engine, record).game
    except ServiceError as exc:
        Console(stderr=True).print(f"{file}: {exc.code}: {exc.detail}", markup=False, highlight=False)
        raise typer.Exit(1) from None
    view = engine.view(game, None)
    names = {seat.seat: seat.name or seat.bot or seat.kind for seat in record.seats}
    title = f"{file.name}: {record.config.players} seats, version {game.version}, " + (
        "finished" if game.finished else "not finished")
    table = Table(title=title)
    for column in ("rank", "seat", "name", "total", "coins", "prestige", "deed VP", "illuminated VP"):
        table.add_column(column, justify="left" if column == "name" else "right")
    for line in sorted(view["score"] or [], key=lambda line: (line["rank"], line["seat"])):
        table.add_row(str(line["rank"]), str(line["seat"]), str(names.get(line["seat"], "")), str(line["total"]),
                      str(line["coins"]), str(line["prestige"]), str(line["deed_vp"]), str(line["illuminated_vp"]),
                      style="bold" if line["seat"] in (view["winners"] or []) else None)
    console.print(table)
    console.print(f"replays exactly: {len(record.actions)} actions", markup=False, highlight=False)


@record_app.command("export")
def record_export(
    game_id: Annotated[str, typer.Argument(help="The game's id (after `--` when it begins with `-`).")],
    redis_url: Annotated[str, typer.Option(envvar="DARKROAD_REDIS_URL", help="The Redis the games live in.")],
    redis_mode: RedisModeOption = RedisMode.standalone,
    redis_service: RedisService = None,
    output: Annotated[Path | None, typer.Option(help="Write the record here (default: <game id>.json).")] = None,
    running: Annotated[bool, typer.Option("--running", help="Export a game still being played (its seed shows "
                                                           "every hidden card: for its operator only).")] = False,
) -> None:
    """Write a game's record (as GET /v1/games/{id}/record answers it) to a file."""
    from darkroad.api.app.service_errors import ServiceError

    settings = Settings(redis_url=redis_url, redis_mode=redis_mode.value, redis_service=redis_service)
    try:
        raw = asyncio.run(_export(settings, game_id, running))
    except (ServiceError, StoreUnavailable, StoreConfigError, DarkroadError) as exc:
        detail = exc.detail if isinstance(exc, ServiceError) else str(exc)
        typer.echo(f"darkroad record export: {detail}", err=True)
        raise typer.Exit(1) from None
    target = output or Path(f"{game_id}.json")
    target.write_bytes(raw + b"\n")
    typer.echo(f"wrote {target}", err=True)


async def _export(settings: Settings, game_id: str, running: bool) -> bytes:
    import msgspec

    from darkroad.api.app import lobby as lobbies
    from darkroad.api.app import records
    from darkroad.api.app.service_errors import ServiceError, unknown_game
    from darkroad.api.http.app import open_store

    engine = Engine.load(exclude=settings.exclude_plugins)
    async with open_store(settings) as store:
        stored = await store.load(game_id)
        if stored is None:
            raise unknown_game(game_id)
        if not stored.finished and not running:
            raise ServiceError("game-not-finished", "game %(game)s is still being played (--running exports it all the "
                                                    "same)", game=game_id)
        game = engine.loads(stored.state)
        seat_names = lobbies.SeatNames(engine)
        record = records.build(engine, game_id, game, lobbies.decode(stored.lobby),
                               (await store.actions(game_id))[: stored.version], seat_names)
    return msgspec.json.format(msgspec.json.encode(record), indent=2)


def main() -> None:
    """Entry point of the ``darkroad`` script."""
    app()
