"""Metrics in the Prometheus text format (``GET /metrics``), kept by ``prometheus_client``.

One ``darkroad serve`` process is one registry: Prometheus scrapes every replica and sums.
With ``--workers N`` the workers of a replica share one port, so a scrape reaches one
worker at random: ``darkroad serve`` then runs ``prometheus_client`` in multiprocess mode
(``PROMETHEUS_MULTIPROC_DIR``, a directory of its own), each worker writing its values
to a file there and ``/metrics`` summing every worker's, so any worker answers for the
whole replica. Each :class:`Metrics` (one per app) has its own registry, so that several
apps in one process (tests) do not mix their numbers.

In one process (not multiprocess mode) counters and histograms are plain numbers in a
dictionary per metric, exported by a collector of their own (:class:`_Collected`) in the
text ``prometheus_client`` would write for its own metrics: counting a request costs a
dictionary lookup and an addition, where ``prometheus_client``'s children take a lock and
several calls per count, on every request (docs/performance.md). They are counted from
the event loop's thread only, as every metric of the API is. In multiprocess mode they are
``prometheus_client``'s metrics, whose values live in the shared files.
"""

from __future__ import annotations

import bisect
import math
import os
from collections.abc import Callable, Iterable
from typing import Any

import prometheus_client
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.metrics_core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.utils import floatToGoString

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""The text exposition format, with its charset once (Prometheus 3 refuses a repeated one)."""

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]  # no *_created series


MULTIPROCESS = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))
"""Whether this process shares its metrics with the other workers of its replica: decided
when ``prometheus_client`` is imported (as it decides where its values live), so a
variable set later (``darkroad serve`` sets it for its workers) changes nothing here."""


class _Collected:
    """A collector of one metric kept in plain numbers (see the module's docstring)."""

    def __init__(self, family: Callable[[], Metric]) -> None:
        self._family = family

    def collect(self) -> Iterable[Metric]:
        yield self._family()


class Counter:
    """A monotonically increasing count per label combination."""

    def __init__(self, registry: CollectorRegistry, name: str, help_text: str, labels: tuple[str, ...] = ()) -> None:
        self._counts: dict[tuple[str, ...], float] | None = None
        """The counts by label values, in one process (else ``None``)."""
        self._children: dict[tuple[str, ...], Any] = {}
        self._labelled = bool(labels)
        if MULTIPROCESS:
            self._metric = prometheus_client.Counter(name, help_text, labels, registry=registry)
            return
        counts: dict[tuple[str, ...], float] = {} if labels else {(): 0.0}
        self._counts = counts

        def family() -> Metric:
            metric = CounterMetricFamily(name, help_text, labels=labels)
            for values, count in list(counts.items()):
                metric.add_metric(values, count)
            return metric

        registry.register(_Collected(family))

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        """Add ``amount`` to the count of this label combination."""
        counts = self._counts
        if counts is not None:
            counts[labels] = counts.get(labels, 0.0) + amount
            return
        child = self._children.get(labels)
        if child is None:
            child = self._children[labels] = self._metric.labels(*labels) if self._labelled else self._metric
        child.inc(amount)


class Histogram:
    """Observations counted into cumulative buckets per label combination."""

    def __init__(
        self,
        registry: CollectorRegistry,
        name: str,
        help_text: str,
        labels: tuple[str, ...] = (),
        buckets: tuple[float, ...] = LATENCY_BUCKETS,
    ) -> None:
        self._children: dict[tuple[str, ...], Any] = {}
        self._counts: dict[tuple[str, ...], list[float]] | None = None
        """In one process (else ``None``), by label values: the observations of each bucket
        alone (the first bound at or above them), and their sum last."""
        self._bounds = bounds = buckets if buckets[-1] == math.inf else (*buckets, math.inf)
        if MULTIPROCESS:
            self._metric = prometheus_client.Histogram(name, help_text, labels, registry=registry, buckets=buckets)
            return
        counts: dict[tuple[str, ...], list[float]] = {}
        self._counts = counts
        names = [floatToGoString(bound) for bound in bounds]  # type: ignore[no-untyped-call]

        def family() -> Metric:
            metric = HistogramMetricFamily(name, help_text, labels=labels)
            for values, cells in list(counts.items()):
                cumulative, total = [], 0.0
                for bound, cell in zip(names, cells, strict=False):
                    total += cell
                    cumulative.append((bound, total))
                metric.add_metric(values, cumulative, cells[-1])
            return metric

        registry.register(_Collected(family))

    def observe(self, value: float, *labels: str) -> None:
        """Record one observation for this label combination."""
        counts = self._counts
        if counts is not None:
            cells = counts.get(labels)
            if cells is None:
                cells = counts[labels] = [0.0] * (len(self._bounds) + 1)
            cells[bisect.bisect_left(self._bounds, value)] += 1.0
            cells[-1] += value
            return
        child = self._children.get(labels)
        if child is None:
            child = self._children[labels] = self._metric.labels(*labels)
        child.observe(value)


class Gauge:
    """A value that goes up and down, per label combination (in multiprocess mode: the
    largest of the processes', as every worker measures the same shared queue)."""

    def __init__(self, registry: CollectorRegistry, name: str, help_text: str, labels: tuple[str, ...] = ()) -> None:
        self._metric = prometheus_client.Gauge(name, help_text, labels, registry=registry, multiprocess_mode="max")
        self._labelled = bool(labels)

    def set(self, value: float, *labels: str) -> None:
        """Set the value of this label combination."""
        (self._metric.labels(*labels) if self._labelled else self._metric).set(value)


class Metrics:
    """Every metric of one API process."""

    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry(auto_describe=True)
        # Registered in this order: the order of /metrics.
        self._requests_and_games(registry)
        self._bots(registry)
        self._webhooks(registry)
        self.redis_resends = Counter(
            registry, "darkroad_redis_resends_total",
            "Redis commands sent again, by reason: moved, ask (cluster slots moving), tryagain, "
            "clusterdown, noscript, readonly, connection (failover, restart).",
            ("reason",),
        )
        self.rate_limited = Counter(
            registry, "darkroad_rate_limited_total", "Requests refused with 429, by the budget they exceeded.", ("budget",)
        )

    def _requests_and_games(self, registry: CollectorRegistry) -> None:
        self.requests = Counter(
            registry, "darkroad_http_requests_total", "HTTP requests answered.", ("method", "route", "status")
        )
        self.latency = Histogram(
            registry, "darkroad_http_request_duration_seconds", "Time to answer an HTTP request.", ("method", "route")
        )
        self.games_created = Counter(registry, "darkroad_games_created_total", "Games created.")
        self.actions = Counter(registry, "darkroad_actions_total", "Actions submitted, by outcome.", ("outcome",))
        self.conflicts = Counter(
            registry, "darkroad_commit_conflicts_total",
            "Commits that found the game at a newer version and re-applied.",
        )
        self.cache = Counter(registry, "darkroad_game_cache_total", "Decoded-game cache lookups.", ("result",))
        self.seats = Counter(
            registry,
            "darkroad_seat_changes_total",
            "Seats joined, rejoined (a join retried with its Idempotency-Key), left, handed to a bot (replaced) "
            "or reclaimed.",
            ("change",),
        )

    def _bots(self, registry: CollectorRegistry) -> None:
        self.bot_moves = Counter(
            registry, "darkroad_bot_moves_total",
            "Moves bots made in games' seats, by bot and outcome: chosen, failed (the bot or the rules "
            "failed on its choice: another legal action stood in), timed_out (the bot thought longer than "
            "DARKROAD_BOT_MOVE_TIMEOUT, or is still thinking over a move given up: the first legal action "
            "stood in), missing (the bot is not installed here).",
            ("bot", "outcome"),
        )
        self.bot_jobs = Counter(
            registry, "darkroad_bot_jobs_total",
            "Bot jobs a worker finished, by bot and outcome: played, stood_in (the bot failed, answered "
            "something not legal or thought past DARKROAD_BOT_MOVE_TIMEOUT: the first legal action stood in), "
            "stale (the game had moved on: dropped), missing (the bot is not installed in this worker), left "
            "(the game still awaited the bot under the job after every attempt: left for a reclaim).",
            ("bot", "outcome"),
        )
        self.bot_job_age = Histogram(
            registry, "darkroad_bot_job_age_seconds", "Age of a bot job when a worker picks it up.", ("bot",),
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
        )
        self.bot_think = Histogram(
            registry, "darkroad_bot_think_seconds", "Time a bot thought over one move (in the worker's pool).",
            ("bot",),
        )
        self.bot_jobs_waiting = Gauge(
            registry, "darkroad_bot_jobs_waiting", "Bot jobs enqueued and not yet picked up by a worker, by bot.",
            ("bot",),
        )
        self.bot_oldest_job = Gauge(
            registry, "darkroad_bot_oldest_job_age_seconds",
            "Age of the oldest bot job not yet picked up (0: none): jobs waiting with no worker taking them.",
        )

    def _webhooks(self, registry: CollectorRegistry) -> None:
        self.webhooks = Counter(
            registry, "darkroad_webhook_deliveries_total",
            "Webhook delivery attempts, by outcome: delivered (2xx), retried (failed: tried again later), "
            "failed (failed for the last time: given up after DARKROAD_WEBHOOK_RETRY_FOR), gone (410: the "
            "subscription ended), dropped (the seat's subscription had ended).",
            ("outcome",),
        )
        self.webhook_latency = Histogram(
            registry, "darkroad_webhook_delivery_seconds", "Time a webhook receiver took to answer (or fail), by outcome.",
            ("outcome",),
        )

    def render(self) -> bytes:
        """Every metric in the Prometheus text exposition format: this process's, or in
        multiprocess mode the sum over every worker of the replica."""
        if MULTIPROCESS:
            registry = CollectorRegistry()
            MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            return generate_latest(registry)
        return generate_latest(self.registry)
