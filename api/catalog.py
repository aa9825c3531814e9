"""``/v1/catalog``: the components this installation offers."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, Response, get
from litestar.di import NamedDependency

from darkroad.api.problems import problem_responses
from darkroad.api.schemas import Catalog
from darkroad.core import Engine
from darkroad.core.content import COMPONENT_KINDS


def catalog_body(engine: Engine) -> bytes:
    """The catalogue response: every component of ``engine``, grouped by kind (every kind, even empty)."""
    by_kind: dict[str, list[dict[str, object]]] = {kind: [] for kind in COMPONENT_KINDS}
    for component in engine.catalog():
        by_kind[component["kind"]].append(component)
    return msgspec.json.encode({"components": by_kind})


class CatalogController(Controller):
    """The installation's components; a game picks among them by id."""

    path = "/v1/catalog"
    tags = ["catalog"]

    @get("/", operation_id="getCatalog", summary="List components", responses=problem_responses())
    async def get_catalog(self, catalog: NamedDependency[bytes]) -> Response[Catalog]:
        """Every component (buildings, companions, steeds, deeds, wagon upgrades, ...) by kind,
        with the plugin (and its version) providing each."""
        response: Response[Any] = Response(catalog, media_type="application/json")
        return response
