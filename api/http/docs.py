"""The browsable API reference: Swagger UI at ``/docs`` (and ``/schema/swagger``), linked from ``/``.

Litestar's Swagger render plugin loads Swagger UI from a CDN, which air-gapped deployments
cannot reach: the UI's assets ship in this package instead (``docs_assets/``, vendored
from the npm package ``swagger-ui-dist`` by ``scripts/vendor-swagger-ui``). Only the bundle
and its stylesheet are kept, gzip-compressed (about 0.5 MB): they are sent compressed to
clients that accept gzip (every browser) and decompressed once for the others. Swagger UI
rather than Redoc (read-only) or Scalar (a 3.5 MB bundle): it is interactive ("Try it
out", with a seat token under "Authorize") at a sixth of Scalar's size.

The page loads the completed document from ``/schema/openapi.json`` (see
:mod:`darkroad.api.http.openapi`), so the reference is exactly what clients generate from.
"""

from __future__ import annotations

import gzip
import html
from functools import cache
from importlib import resources
from typing import Annotated, Any

from litestar import Controller, MediaType, Request, Response, get
from litestar.exceptions import NotFoundException
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.params import PathParameter

ASSETS = "docs_assets"
DOCS = "/docs"
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


@cache
def swagger_version() -> str:
    return resources.files("darkroad.api.http").joinpath(ASSETS, "VERSION").read_text().strip()


def asset_url(name: str) -> str:
    """Where ``/docs`` loads the vendored asset ``name`` from (versioned, so it can be cached for good)."""
    return f"{DOCS}/assets/{swagger_version()}/{name}"


@cache
def _asset(name: str) -> bytes:
    """The gzip-compressed bytes of a vendored asset (``NotFoundException`` for any other name)."""
    if name not in ("swagger-ui-bundle.js", "swagger-ui.css"):
        raise NotFoundException()
    return resources.files("darkroad.api.http").joinpath(ASSETS, f"{name}.gz").read_bytes()


@cache
def _plain(name: str) -> bytes:
    return gzip.decompress(_asset(name))


class SwaggerDocsPlugin(SwaggerRenderPlugin):
    """Swagger UI from this package's assets, on the completed document (by URL)."""

    def __init__(self) -> None:
        super().__init__(
            js_url=asset_url("swagger-ui-bundle.js"),
            css_url=asset_url("swagger-ui.css"),
            path="/swagger",
            favicon="",  # Litestar's default is an image on a CDN
        )

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        # Litestar's template embeds Litestar's own document and loads the standalone preset;
        # this page loads the completed document and needs no preset (the base layout).
        title = html.escape(openapi_schema["info"]["title"])
        # Not get_openapi_json_route(): Litestar reverses the route to any one of its paths
        # (``/schema`` or ``/schema/openapi.json``, by set order, so by PYTHONHASHSEED).
        document = f"{request.app.openapi_config.path}/openapi.json" if request.app.openapi_config else ""
        return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{title} API reference</title>
  {self.favicon}
  <link rel="stylesheet" href="{self.css_url}">
  {self.style}
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{self.js_url}"></script>
  <script>
    window.ui = SwaggerUIBundle({{
      url: "{document}",
      dom_id: "#swagger-ui",
      deepLinking: true,
      persistAuthorization: true,
      showExtensions: true,
      presets: [SwaggerUIBundle.presets.apis],
      layout: "BaseLayout",
    }});
  </script>
</body>
</html>
""".encode()


_INDEX = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>darkroad</title></head>
<body>
  <h1>darkroad</h1>
  <p>A game-state service for the board game <em>Merchants of the Dark Road</em>.</p>
  <ul>
    <li><a href="/play">Play in the browser</a> (set up a game, one link per seat)</li>
    <li><a href="/docs">API reference</a> (browse and try the API)</li>
    <li><a href="/schema/openapi.json">OpenAPI document</a> (generate a client from it)</li>
    <li><a href="/v1/catalog">The components of this installation</a></li>
    <li><a href="/healthz">Health</a></li>
  </ul>
</body>
</html>
"""


class DocsController(Controller):
    """``/`` and ``/docs``: for people, not part of the API (not in the document)."""

    path = "/"
    include_in_schema = False

    @get("/", media_type=MediaType.HTML, sync_to_thread=False)
    def index(self) -> str:
        """A page linking the reference, the document and the catalogue."""
        return _INDEX

    @get(DOCS, media_type=MediaType.HTML)
    async def docs(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        """Swagger UI on the completed document."""
        plugin = _plugin(request)
        schema = request.app.openapi_schema.to_schema()
        return Response(plugin.render(request, schema), media_type=MediaType.HTML)

    @get(f"{DOCS}/assets/{{version:str}}/{{name:str}}", sync_to_thread=False)
    def asset(
        self, request: Request[Any, Any, Any], version: Annotated[str, PathParameter()],
        name: Annotated[str, PathParameter()],
    ) -> Response[bytes]:
        """A vendored asset of Swagger UI, compressed when the client accepts gzip."""
        suffix = name[name.rfind("."):]
        if version != swagger_version() or suffix not in _TYPES:
            raise NotFoundException()
        headers = {"Cache-Control": "public, max-age=31536000, immutable", "Vary": "Accept-Encoding"}
        if "gzip" in request.headers.get("accept-encoding", ""):
            return Response(_asset(name), media_type=_TYPES[suffix], headers={**headers, "Content-Encoding": "gzip"})
        return Response(_plain(name), media_type=_TYPES[suffix], headers=headers)


def _plugin(request: Request[Any, Any, Any]) -> SwaggerDocsPlugin:
    config = request.app.openapi_config
    assert config is not None
    return next(plugin for plugin in config.render_plugins if isinstance(plugin, SwaggerDocsPlugin))
