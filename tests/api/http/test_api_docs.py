"""The browsable reference: ``/`` links ``/docs``, which is Swagger UI served from the package."""

from __future__ import annotations

import gzip
import re
from importlib import resources

import httpx
import pytest

from darkroad.api.http.docs import swagger_version

# What this module tests is the HTTP layer's (the store holds what every other game's does): in
# memory and on one Redis, not on the Cluster and the Sentinels too (tests/api/conftest.py's STORES).
pytestmark = pytest.mark.stores("memory", "redis")

LOCAL = re.compile(r'(?:src|href)=["\']([^"\']+)["\']')


async def test_the_index_links_the_reference(client: httpx.AsyncClient) -> None:
    response = await client.get("/")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert {"/docs", "/schema/openapi.json"} <= set(LOCAL.findall(response.text))


@pytest.mark.parametrize("path", ["/docs", "/schema/swagger"])
async def test_the_reference_needs_no_cdn(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert "://" not in response.text  # nothing from another host: works air-gapped
    assert 'url: "/schema/openapi.json"' in response.text  # the completed document
    urls = LOCAL.findall(response.text)
    assert urls == [f"/docs/assets/{swagger_version()}/swagger-ui.css",
                    f"/docs/assets/{swagger_version()}/swagger-ui-bundle.js"]
    for url in urls:
        asset = await client.get(url)
        assert asset.status_code == 200, url
        assert "immutable" in asset.headers["cache-control"]
    bundle = (await client.get(urls[1])).text
    assert "SwaggerUIBundle" in bundle and len(bundle) > 500_000


async def test_assets_are_sent_compressed_when_accepted(client: httpx.AsyncClient) -> None:
    url = f"/docs/assets/{swagger_version()}/swagger-ui-bundle.js"
    packaged = resources.files("darkroad.api.http").joinpath("docs_assets", "swagger-ui-bundle.js.gz").read_bytes()
    async with client.stream("GET", url, headers={"Accept-Encoding": "gzip"}) as response:
        assert response.headers["content-encoding"] == "gzip"
        assert response.headers["content-type"].startswith("text/javascript")
        assert await response.aread() == gzip.decompress(packaged)  # httpx decodes it
        assert response.num_bytes_downloaded == len(packaged)
    plain = await client.get(url, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == gzip.decompress(packaged)


@pytest.mark.parametrize("path", ["/docs/assets/0.0.1/swagger-ui.css", "/docs/assets/{v}/index.html",
                                  "/docs/assets/{v}/..%2fschemas.py", "/docs/assets/{v}/LICENSE"])
async def test_nothing_else_is_served_as_an_asset(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path.format(v=swagger_version()))
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
