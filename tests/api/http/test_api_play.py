"""``/play``: the reference web client's pages and assets, served by the API itself.

The pages are one HTML shell loading a committed bundle (``api/http/play_assets/``, built from
``web/`` by ``scripts/build-web``: test_api_play_bundle.py checks they match); nothing comes from
another host, a content hash names every asset, and the pages stay out of the v1 document.
In a real browser: test_api_play_browser.py.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from importlib import resources
from pathlib import Path

import httpx
import pytest

from darkroad.api.http.play import asset, page
from darkroad.api.http.play_guide import PARTS

# What this module tests is the HTTP layer's (the store holds what every other game's does): in
# memory and on one Redis, not on the Cluster and the Sentinels too (tests/api/conftest.py's STORES).
pytestmark = pytest.mark.stores("memory", "redis")

ROOT = Path(__file__).resolve().parents[3]
LOCAL = re.compile(r'(?:src|href)=["\']([^"\']+)["\']')
GAME = "A" * 22


@pytest.mark.parametrize("path", ["/play", "/play/", f"/play/{GAME}"])
async def test_the_pages_need_no_other_host(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert "://" not in response.text  # air-gapped: everything from this server
    assert LOCAL.findall(response.text) == [
        "data:,", asset("play.css").url, asset("play.js").url, "#decision", "/play/how-to-play?lang=en", "/docs"]
    policy = response.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy and "connect-src 'self'" in policy
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.text == page()


async def test_the_index_links_the_client(client: httpx.AsyncClient) -> None:
    assert "/play" in LOCAL.findall((await client.get("/")).text)


@pytest.mark.parametrize("path", ["/play/short", f"/play/{GAME}x", "/play/assets", f"/play/{GAME[:-1]}!"])
async def test_a_malformed_game_id_is_not_found(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")


@pytest.mark.parametrize("name", ["play.js", "play.css"])
async def test_assets_by_content_hash_compressed_when_accepted(client: httpx.AsyncClient, name: str) -> None:
    committed = resources.files("darkroad.api.http").joinpath("play_assets", name).read_bytes()
    url = asset(name).url
    assert url == f"/play/assets/{hashlib.sha256(committed).hexdigest()[:16]}/{name}"  # named by its content
    compressed = await client.get(url, headers={"Accept-Encoding": "gzip"})
    async with client.stream("GET", url, headers={"Accept-Encoding": "gzip"}) as raw:
        sent = b"".join([chunk async for chunk in raw.aiter_raw()])  # the bytes on the wire
    plain = await client.get(url, headers={"Accept-Encoding": "identity"})
    for response in (compressed, plain):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/javascript" if name.endswith(".js") else "text/css")
        assert "immutable" in response.headers["cache-control"]
        assert response.content == committed  # httpx undoes the gzip
    assert compressed.headers["content-encoding"] == "gzip"
    assert int(compressed.headers["content-length"]) < len(committed) / 2
    assert "content-encoding" not in plain.headers
    assert len(sent) < len(committed) / 2 and gzip.decompress(sent) == committed
    # Another digest (an old bundle) or another file is not found.
    assert (await client.get(url.replace(asset(name).digest, "0" * 16))).status_code == 404
    assert (await client.get(url.replace(name, "other.js"))).status_code == 404


def test_the_pages_are_not_in_the_v1_document() -> None:
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    assert not [path for path in document["paths"] if path.startswith("/play")]


def test_the_bundle_is_in_the_package_data() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"play_assets/*"' in pyproject
    names = {p.name for p in (ROOT / "api" / "http" / "play_assets").iterdir()}
    assert names == {"play.js", "play.css", "THIRD-PARTY-LICENSES.txt"}


async def test_how_to_play_quotes_every_page_it_cites(client: httpx.AsyncClient) -> None:
    """The guide (linked from every page's shell, above) is a page of this server alone; each
    of its points that cites a rulebook page links to a quote headed by that page."""
    response = await client.get("/play/how-to-play")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert "://" not in response.text
    assert response.headers["content-security-policy"].startswith("default-src 'none'")
    links = LOCAL.findall(response.text)
    assert links[:2] == ["data:,", asset("play.css").url] and "/play" in links
    cited = {int(page) for page in re.findall(r'href="#page-(\d+)"', response.text)}
    quoted = {int(page) for page in re.findall(r'<blockquote id="page-(\d+)"', response.text)}
    assert cited == quoted == {quote.page for part in PARTS for quote in part.quotes}
    assert len(quoted) >= 6
    # The score rule, in the rulebook's words (p. 13, Final Scoring).
    assert "The lower of the two values is your base score." in response.text
