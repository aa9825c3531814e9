"""The reference web client: ``GET /play`` (set up a game), ``GET /play/{game_id}`` (the table)
and ``GET /play/how-to-play`` (the game in plain words: play_guide.py).

Both pages are one HTML shell loading the client's bundle, a small TypeScript app (``web/``)
that plays through the public v1 API only, with the types openapi-typescript generates from
the committed document. The bundle is built by ``scripts/build-web`` (esbuild) and committed
in ``play_assets/``, so installing darkroad needs no node; a test rebuilds it and fails when it
differs (see docs/play.md for why it is committed rather than built with the wheel).

The assets are served under a content hash (cached for good); the pages forbid everything
but this server (Content-Security-Policy), and a seat's token travels in the URL fragment,
which browsers never send to a server.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from functools import cache
from importlib import resources
from typing import Annotated, Any

from litestar import Controller, MediaType, Request, Response, get
from litestar.exceptions import NotFoundException
from litestar.params import PathParameter, QueryParameter

from darkroad.api.app.seating import GAME_ID_PATTERN
from darkroad.api.http.play_guide import guide, page_head
from darkroad.core import i18n
from darkroad.core.i18n import _

ASSETS = "play_assets"
PLAY = "/play"
GUIDE = f"{PLAY}/how-to-play"
_TYPES = {"play.js": "text/javascript; charset=utf-8", "play.css": "text/css; charset=utf-8"}
_GAME_ID = re.compile(GAME_ID_PATTERN)
_PAGE_HEADERS = {
    # Everything from this server only: the bundle, its stylesheet and the API it calls.
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}


class Asset:
    """One file of the bundle: its bytes, gzip-compressed once, and its content hash."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.plain = resources.files("darkroad.api.http").joinpath(ASSETS, name).read_bytes()
        self.compressed = gzip.compress(self.plain, compresslevel=9, mtime=0)
        self.digest = hashlib.sha256(self.plain).hexdigest()[:16]

    @property
    def url(self) -> str:
        return f"{PLAY}/assets/{self.digest}/{self.name}"


@cache
def asset(name: str) -> Asset:
    """The bundle's file ``name`` (``NotFoundException`` for any other name)."""
    if name not in _TYPES:
        raise NotFoundException()
    return Asset(name)


def page() -> str:
    """The HTML shell of both pages in the caller's language (``Accept-Language``; the client
    words it again in the language chosen on its switch): the client reads the path (and the
    fragment) itself."""
    return _page_in(i18n.current_locale())


@cache
def _page_in(locale: str) -> str:
    with i18n.use_locale(locale):  # (the calls outside the f-string: Babel reads no call inside one)
        skip, help_, how, loading = _("Skip to the decision"), _("Help and language"), _("How to play"), _("Loading the table…")
        noscript = _("This page needs JavaScript. The API reference is at %(link)s.", link='<a href="/docs">/docs</a>')
    script = f'<script type="module" src="{asset("play.js").url}"></script>'
    return page_head(locale, "darkroad: play", asset("play.css").url, script) + f"""<body>
  <a class="skip" href="#decision">{skip}</a>
  <nav class="help" aria-label="{help_}"><a href="{GUIDE}?lang={locale}">{how}</a></nav>
  <main id="app" data-state="loading" aria-busy="true"><p>{loading}</p></main>
  <noscript><p>{noscript}</p></noscript>
</body>
</html>
"""


def _page() -> Response[str]:
    return Response(page(), media_type=MediaType.HTML, headers=_PAGE_HEADERS)


class PlayController(Controller):
    """``/play``: for people, not part of the API (not in the OpenAPI document)."""

    path = PLAY
    include_in_schema = False

    @get("/", sync_to_thread=False)
    def setup(self) -> Response[str]:
        """Set up a game and hand out one link per seat."""
        return _page()

    @get("/how-to-play", sync_to_thread=False)
    def how_to_play(
        self, lang: Annotated[str | None, QueryParameter(description="The language chosen on the table's switch.")] = None,
    ) -> Response[str]:
        """The game in plain words, quoting the rulebook by page (linked from every page), in the
        language the table's switch chose (``?lang=``), else the caller's (``Accept-Language``)."""
        if lang in i18n.LOCALES:
            with i18n.use_locale(lang):
                return Response(guide(asset("play.css").url), media_type=MediaType.HTML,
                                headers={**_PAGE_HEADERS, "Content-Language": lang})
        return Response(guide(asset("play.css").url), media_type=MediaType.HTML, headers=_PAGE_HEADERS)

    @get("/{game_id:str}", sync_to_thread=False)
    def table(self, game_id: Annotated[str, PathParameter()]) -> Response[str]:
        """The table of a game, as the seat whose token is in the fragment, or as a spectator."""
        if not _GAME_ID.fullmatch(game_id):
            raise NotFoundException()
        return _page()

    @get("/assets/{digest:str}/{name:str}", sync_to_thread=False)
    def asset(
        self, request: Request[Any, Any, Any], digest: Annotated[str, PathParameter()],
        name: Annotated[str, PathParameter()],
    ) -> Response[bytes]:
        """A file of the client's bundle, compressed when the client accepts gzip."""
        found = asset(name)
        if digest != found.digest:
            raise NotFoundException()
        headers = {"Cache-Control": "public, max-age=31536000, immutable", "Vary": "Accept-Encoding",
                   "X-Content-Type-Options": "nosniff"}
        if "gzip" in request.headers.get("accept-encoding", ""):
            return Response(found.compressed, media_type=_TYPES[name], headers={**headers, "Content-Encoding": "gzip"})
        return Response(found.plain, media_type=_TYPES[name], headers=headers)
