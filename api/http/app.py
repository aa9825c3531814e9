"""The Litestar application factory."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from litestar import Litestar
from litestar.datastructures import State
from litestar.di import Provide

from darkroad.api.app.bot_worker import BotWorker
from darkroad.api.app.service import GameService
from darkroad.api.app.webhook_delivery import Deliverer
from darkroad.api.http.action_route import ActionRoute
from darkroad.api.http.catalog import CatalogController, catalog_bodies
from darkroad.api.http.docs import DocsController
from darkroad.api.http.follow_routes import FollowingController
from darkroad.api.http.games import GamesController
from darkroad.api.http.openapi import openapi_config
from darkroad.api.http.operations import OperationsController
from darkroad.api.http.params import GAMES
from darkroad.api.http.play import PlayController
from darkroad.api.http.policy import PolicedApp
from darkroad.api.http.problems import problem_details_plugin
from darkroad.api.http.ratelimit import RateLimiter
from darkroad.api.http.record_routes import RecordsController
from darkroad.api.http.seat_kinds import SeatKindSurface
from darkroad.api.http.seat_routes import SeatsController
from darkroad.api.http.webhook_client import WebhookClient
from darkroad.api.http.webhook_routes import WebhooksController
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.base import GameStore
from darkroad.api.store.memory import MemoryStore
from darkroad.api.store.redis_store import RedisStore
from darkroad.core import Engine, i18n


def open_store(settings: Settings, metrics: Metrics | None = None) -> GameStore:
    """The store ``settings`` ask for: Redis with a URL, else this process's memory
    (``metrics`` count the Redis commands sent again).

    Raises :class:`~darkroad.api.store.base.StoreConfigError` for settings that cannot work;
    the deployment itself is checked when the store opens.
    """
    if settings.redis_url is None:
        return MemoryStore()
    return RedisStore.from_url(
        settings.redis_url,
        mode=settings.redis_mode,
        service=settings.redis_service,
        max_connections=settings.redis_max_connections,
        max_streams=settings.max_event_streams,
        wait_replicas=settings.redis_wait_replicas,
        wait_timeout=settings.redis_wait_timeout,
        retry_window=settings.redis_retry_window,
        timeout=settings.redis_timeout,
        max_block=settings.stream_heartbeat,
        connection=_credentials(settings),
        sentinel_connection=_credentials(settings, sentinel=True),
        on_resend=None if metrics is None else metrics.redis_resends.inc,
        job_shards=settings.bot_shards,
    )


def _credentials(settings: Settings, *, sentinel: bool = False) -> dict[str, str]:
    """The Redis user and password of ``settings`` as connection options (on top of the URL's);
    ``sentinel``: those for the Sentinels."""
    credentials = {"username": settings.redis_username, "password": settings.redis_password}
    if sentinel:
        credentials = {"username": settings.redis_sentinel_username, "password": settings.redis_sentinel_password}
    return {name: value for name, value in credentials.items() if value is not None}


def _service(state: State) -> GameService:
    # By key: ``State``'s attribute access finds a value only after a failed attribute look-up.
    service: GameService = state["service"]
    return service


def _store(state: State) -> GameStore:
    return _service(state).store


def _lifespan(engine: Engine, settings: Settings, metrics: Metrics) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    """The app's lifespan: its store, services and this process's bot workers, for as long as it runs."""

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        async with open_store(settings, metrics) as store:
            app.state.service = GameService(engine, store, settings, metrics)
            app.state.limiter = limiter = RateLimiter(settings, store, metrics)
            if isinstance(app, PolicedApp):  # its policy layer counts with it, not a state look-up a request
                app.policies.limiter = limiter
            # The bot workers of this process (``--bots``, default 1): with the memory store the
            # only ones its in-memory queue can have, with Redis one beside ``darkroad bots``, on
            # connections of its own (its blocking reads never take the requests' or streams').
            stop = asyncio.Event()
            async with contextlib.AsyncExitStack() as workers_store:
                bot_store = store
                if settings.bots and not isinstance(store, MemoryStore):
                    bot_store = await workers_store.enter_async_context(open_store(settings, metrics))
                app.state.bot_workers = [BotWorker(engine, bot_store, settings, metrics) for _ in range(settings.bots)]
                # Each bot worker delivers the webhook messages too (darkroad.api.app.webhook_delivery).
                app.state.deliverers = [Deliverer(bot_store, settings, metrics, WebhookClient(settings))
                                        for _ in range(settings.bots)]
                workers = [asyncio.create_task(worker.run(stop)) for worker in app.state.bot_workers]
                workers += [asyncio.create_task(deliverer.run(stop)) for deliverer in app.state.deliverers]
                try:
                    yield
                finally:
                    stop.set()
                    await asyncio.gather(*workers, return_exceptions=True)
                    await app.state.limiter.close()
                app.state.service.close()
                if isinstance(app, PolicedApp):
                    app.policies.limiter = None
                del app.state.service, app.state.limiter, app.state.bot_workers, app.state.deliverers

    return lifespan


def create_app(settings: Settings | None = None, *, engine: Engine | None = None) -> Litestar:
    """A new API application.

    ``engine`` defaults to one loaded from the installed plugins (minus
    ``settings.exclude_plugins``); pass one to share it between apps (tests). The store
    opens when the app starts and closes when it stops.
    """
    settings = settings or Settings()
    if engine is None:
        # A plugin that fails to load is skipped and logged by the engine (or, strict, refused).
        engine = Engine.load(exclude=settings.exclude_plugins, strict=settings.strict_plugins)
    metrics = Metrics()
    catalogs = catalog_bodies(engine)

    app = PolicedApp(
        route_handlers=[
            GamesController,
            SeatsController,
            FollowingController,
            CatalogController,
            OperationsController,
            DocsController,
            PlayController,
            RecordsController,
            WebhooksController,
        ],
        dependencies={
            "service": Provide(_service, sync_to_thread=False),
            "store": Provide(_store, sync_to_thread=False),
            "metrics": Provide(lambda: metrics, sync_to_thread=False, use_cache=True),
            # The catalogue in the request's language (i18n: the policy layer negotiated it).
            "catalog": Provide(lambda: catalogs[i18n.current_locale()], sync_to_thread=False),
        },
        lifespan=[_lifespan(engine, settings, metrics)],
        plugins=[problem_details_plugin()],
        openapi_config=openapi_config(engine),
        # Logging is the process's to configure (:func:`configure_logging` for ``darkroad serve
        # --log-level``; pytest), not the app's: Litestar's default configuration would set the
        # root logger to INFO behind a queue thread whatever ``--log-level`` says (and, in
        # tests, log every httpx request).
        logging_config=None,
        request_max_body_size=settings.request_max_body_size,
        # The body that creates a game has the installed seat kinds' fields (made once: a kind
        # whose field or view keys clash with the API's refuses the app here).
        state=State({"engine": engine, "settings": settings, "new_game": SeatKindSurface(engine.seat_kinds).new_game}),
        metrics=metrics,
    )
    # The request clients make most, without Litestar's per-request machinery when the adapter can
    # serve it as Litestar does (darkroad.api.http.action_route); behind the same policies.
    acting = ActionRoute.of(app, ACTION_ROUTE, "POST", app.litestar)
    if acting is not None:
        app.policies.table.serve("POST", ACTION_ROUTE, acting)
    return app


ACTION_ROUTE = f"{GAMES}/{{game_id}}/actions"
"""The path template of ``POST`` an action (``GamesController.submit_action``)."""


GC_THRESHOLDS = (20_000, 10, 10)
"""The server's cyclic garbage collector thresholds (CPython's default: ``(700, 10, 10)``)."""


def tune_gc() -> None:
    """Set a server process's garbage collector for request work, once its app is built.

    An action builds thousands of short-lived containers (the engine's options, the view),
    many alive at once before reference counting frees them; at CPython's default
    threshold (700 container allocations net of frees) they trigger frequent
    young-generation collections, each scanning the survivors, on every action
    (docs/performance.md). A threshold of 20,000 keeps cyclic garbage bounded all the same. ``gc.freeze()`` moves everything built at start-up (plugins,
    content, routes) out of the collector's sight, so full collections only scan what
    requests created.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
"""The format of a server process's log lines (``darkroad bots`` writes the same)."""


def configure_logging() -> None:
    """A server process's logging (each worker process is configured on its own): the level
    ``darkroad serve --log-level`` exported as ``DARKROAD_LOG_LEVEL`` (uvicorn's own loggers
    follow the option themselves), lines with their time, level and logger. Nothing changes
    where logging is configured already (a test run)."""
    level = logging.getLevelName(os.environ.get("DARKROAD_LOG_LEVEL", "info").upper())
    logging.basicConfig(level=level if isinstance(level, int) else logging.INFO, format=LOG_FORMAT)


def create_app_from_env() -> Litestar:
    """An app configured from ``DARKROAD_*`` environment variables (uvicorn factory of
    ``darkroad serve``), in a process configured (:func:`configure_logging`) and tuned
    (:func:`tune_gc`) for serving."""
    configure_logging()
    app = create_app(Settings.from_env())
    tune_gc()
    return app
