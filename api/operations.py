"""Operational endpoints: liveness, readiness and metrics (not versioned, not for players)."""

from __future__ import annotations

from litestar import Controller, Response, get
from litestar.di import NamedDependency

from darkroad.api.metrics import CONTENT_TYPE, Metrics
from darkroad.api.problems import problem_responses
from darkroad.api.schemas import Health
from darkroad.api.store import GameStore


class OperationsController(Controller):
    """For load balancers, orchestrators and Prometheus."""

    path = "/"
    tags = ["operations"]

    @get("/healthz", operation_id="getHealth", summary="Liveness", responses=problem_responses(limited=False))
    async def healthz(self) -> Health:
        """200 while the process serves requests (does not touch the store)."""
        return Health(status="ok")

    @get(
        "/readyz",
        operation_id="getReadiness",
        summary="Readiness",
        responses=problem_responses("store-unavailable", limited=False),
    )
    async def readyz(self, store: NamedDependency[GameStore]) -> Health:
        """200 when the game store answers; 503 otherwise (take the process out of rotation)."""
        await store.ping()
        return Health(status="ready")

    @get(
        "/metrics",
        operation_id="getMetrics",
        summary="Metrics",
        media_type=CONTENT_TYPE,
        responses=problem_responses(limited=False),
    )
    async def metrics(self, metrics: NamedDependency[Metrics]) -> Response[str]:
        """This process's metrics in the Prometheus text format."""
        return Response(metrics.render(), media_type=CONTENT_TYPE)
