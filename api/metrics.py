"""Process metrics in the Prometheus text format (``GET /metrics``).

A deliberately small registry (counters and histograms with labels): each API process
exposes its own numbers and Prometheus sums over the replicas, so nothing is shared.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Iterable

from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


def _labels(names: tuple[str, ...], values: tuple[str, ...], extra: str = "") -> str:
    pairs = [f'{name}="{_escape(value)}"' for name, value in zip(names, values, strict=True)]
    if extra:
        pairs.append(extra)
    return "{" + ",".join(pairs) + "}" if pairs else ""


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _number(value: float) -> str:
    return repr(float(value)) if value != int(value) else str(int(value))


class Counter:
    """A monotonically increasing count per label combination."""

    def __init__(self, name: str, help_text: str, labels: tuple[str, ...] = ()) -> None:
        self.name, self.help, self.label_names = name, help_text, labels
        self._values: dict[tuple[str, ...], float] = {}

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        """Add ``amount`` to the count of this label combination."""
        self._values[labels] = self._values.get(labels, 0.0) + amount

    def value(self, *labels: str) -> float:
        """The current count of this label combination."""
        return self._values.get(labels, 0.0)

    def render(self) -> Iterable[str]:
        """The counter's lines in the Prometheus text format."""
        yield f"# HELP {self.name} {self.help}"
        yield f"# TYPE {self.name} counter"
        for labels, value in sorted(self._values.items()):
            yield f"{self.name}{_labels(self.label_names, labels)} {_number(value)}"


class Histogram:
    """Observations counted into cumulative buckets per label combination."""

    def __init__(
        self,
        name: str,
        help_text: str,
        labels: tuple[str, ...] = (),
        buckets: tuple[float, ...] = LATENCY_BUCKETS,
    ) -> None:
        self.name, self.help, self.label_names, self.buckets = name, help_text, labels, buckets
        self._series: dict[tuple[str, ...], tuple[list[int], list[float]]] = {}

    def observe(self, value: float, *labels: str) -> None:
        """Record one observation for this label combination."""
        counts, total = self._series.setdefault(labels, ([0] * (len(self.buckets) + 1), [0.0]))
        counts[bisect.bisect_left(self.buckets, value)] += 1
        total[0] += value

    def render(self) -> Iterable[str]:
        """The histogram's lines in the Prometheus text format."""
        yield f"# HELP {self.name} {self.help}"
        yield f"# TYPE {self.name} histogram"
        for labels, (counts, total) in sorted(self._series.items()):
            cumulative = 0
            for bound, count in zip((*self.buckets, float("inf")), counts, strict=True):
                cumulative += count
                le = "+Inf" if bound == float("inf") else _number(bound)
                bucket_labels = _labels(self.label_names, labels, 'le="' + le + '"')
                yield f"{self.name}_bucket{bucket_labels} {cumulative}"
            yield f"{self.name}_sum{_labels(self.label_names, labels)} {_number(total[0])}"
            yield f"{self.name}_count{_labels(self.label_names, labels)} {cumulative}"


class Metrics:
    """Every metric of one API process."""

    def __init__(self) -> None:
        self.requests = Counter(
            "darkroad_http_requests_total", "HTTP requests answered.", ("method", "route", "status")
        )
        self.latency = Histogram(
            "darkroad_http_request_duration_seconds", "Time to answer an HTTP request.", ("method", "route")
        )
        self.games_created = Counter("darkroad_games_created_total", "Games created.")
        self.actions = Counter("darkroad_actions_total", "Actions submitted, by outcome.", ("outcome",))
        self.conflicts = Counter(
            "darkroad_commit_conflicts_total",
            "Commits that found the game at a newer version and re-applied.",
        )
        self.cache = Counter("darkroad_game_cache_total", "Decoded-game cache lookups.", ("result",))
        self.redis_resends = Counter(
            "darkroad_redis_resends_total",
            "Redis commands sent again, by reason: moved, ask (cluster slots moving), tryagain, "
            "clusterdown, noscript, readonly, connection (failover, restart).",
            ("reason",),
        )
        self.rate_limited = Counter(
            "darkroad_rate_limited_total", "Requests refused with 429, by the budget they exceeded.", ("budget",)
        )

    def render(self) -> str:
        """All metrics in the Prometheus text exposition format."""
        lines: list[str] = []
        for metric in (
            self.requests,
            self.latency,
            self.games_created,
            self.actions,
            self.conflicts,
            self.cache,
            self.redis_resends,
            self.rate_limited,
        ):
            lines.extend(metric.render())
        return "\n".join(lines) + "\n"


class MetricsMiddleware(ASGIMiddleware):
    """Counts and times every routed HTTP request by its route template."""

    scopes = (ScopeType.HTTP,)

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        started = time.perf_counter()
        status = 500

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await next_app(scope, receive, send_wrapper)
        finally:
            route = str(scope.get("path_template") or "unrouted")
            method = str(scope.get("method", ""))
            self.metrics.requests.inc(method, route, str(status))
            self.metrics.latency.observe(time.perf_counter() - started, method, route)
