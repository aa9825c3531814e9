"""Operational endpoints: liveness, readiness and metrics (not versioned, not for players)."""

from __future__ import annotations

import hmac
from typing import Any

from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency

from darkroad.api.http.policy import UNLIMITED
from darkroad.api.http.problems import Problem, problem_responses
from darkroad.api.http.schemas import Health
from darkroad.api.metrics import CONTENT_TYPE, Metrics
from darkroad.api.store.base import GameStore

PROBE = {"budget": UNLIMITED}
"""Probes: load balancers and Prometheus call them all the time, and they touch no game."""


class OperationsController(Controller):
    """For load balancers, orchestrators and Prometheus."""

    path = "/"
    tags = ["operations"]

    @get(
        "/healthz",
        operation_id="getHealth",
        summary="Liveness",
        opt=PROBE,
        responses=problem_responses(limited=False),
    )
    async def healthz(self) -> Health:
        """200 while the process serves requests (does not touch the store)."""
        return Health(status="ok")

    @get(
        "/readyz",
        operation_id="getReadiness",
        summary="Readiness",
        opt=PROBE,
        responses=problem_responses("store-unavailable", limited=False),
    )
    async def readyz(self, store: NamedDependency[GameStore]) -> Health:
        """200 when the game store answers and accepts writes (a Redis out of memory, out of
        disk or read-only does not); 503 otherwise (take the process out of rotation)."""
        await store.ping()
        return Health(status="ready")

    @get(
        "/metrics",
        operation_id="getMetrics",
        summary="Metrics",
        opt=PROBE,
        media_type=CONTENT_TYPE,
        responses=problem_responses("metrics-token", limited=False),
    )
    async def metrics(self, request: Request[Any, Any, Any], metrics: NamedDependency[Metrics]) -> Response[bytes]:
        """The replica's metrics in the Prometheus text format (every worker's, summed).

        When the server has a metrics token (`DARKROAD_METRICS_TOKEN`), only a request
        with `Authorization: Bearer <that token>` gets them.
        """
        token = request.app.state.settings.metrics_token
        if token is not None:
            presented = request.headers.get("authorization", "")
            if not hmac.compare_digest(presented.encode(), f"Bearer {token}".encode()):
                raise Problem(
                    "metrics-token",
                    "This server's metrics need `Authorization: Bearer <metrics token>`.",
                    headers={"WWW-Authenticate": 'Bearer realm="darkroad-metrics"'},
                )
        # The content type set here whole: Litestar would add a second charset to a text/ type.
        return Response(metrics.render(), headers={"content-type": CONTENT_TYPE})
