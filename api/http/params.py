"""What the routes of ``/v1/games`` share: their parameters, documented headers, security,
families of problems, and the response of encoded JSON with the game's headers."""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated, Any

from litestar import Response
from litestar.datastructures import ResponseHeader
from litestar.openapi.spec import OpenAPIType
from litestar.params import HeaderParameter, PathParameter, QueryParameter
from litestar.response.base import ASGIResponse

from darkroad.api.app.seating import GAME_ID_LENGTH, GAME_ID_PATTERN
from darkroad.api.http.guards import MAX_IDEMPOTENCY_KEY
from darkroad.api.http.problems import entity_tag

if TYPE_CHECKING:
    from litestar.types import Receive, Scope, Send

GAMES = "/v1/games"
MAX_EVENT = 2**53 - 1
"""Largest accepted event position (JSON-safe integer)."""
MAX_LOG_PAGE = 500
"""Largest page of ``GET /log``."""
MAX_LOG_WAIT = 30.0
"""Longest long poll of ``GET /log`` (seconds): well within the idle timeouts of usual proxies."""
MAX_LISTING_PAGE = 100
"""Largest page of ``GET /v1/games``."""
READ: list[dict[str, list[str]]] = [{}, {"seatToken": []}]
"""Security of reads: a seat token shows that seat's private parts; without one, the spectator view
(the document states it once, as its default: see ``darkroad.api.http.openapi``)."""
ACT: list[dict[str, list[str]]] = [{"seatToken": []}]
"""Security of acting: the token of the acting seat."""

GAME_ID_DESCRIPTION = "The game's id, from `POST /v1/games`."
GameId = Annotated[
    str,
    PathParameter(description=GAME_ID_DESCRIPTION, pattern=GAME_ID_PATTERN, max_length=GAME_ID_LENGTH),
]
SeatNumber = Annotated[int, PathParameter(description="The seat's number, from 0.", ge=0, le=3)]
After = Annotated[
    int,
    QueryParameter(
        description="Return the events after event `n = after` (-1: from the first event).",
        ge=-1,
        le=MAX_EVENT,
    ),
]

# ``value`` of a documentation-only header only gives its OpenAPI schema (a string).
ETAG = ResponseHeader(
    name="ETag",
    value='"0"',
    documentation_only=True,
    required=True,
    description='The game\'s version as an entity tag of the answer\'s language: `"12"` in English, `"12-hu"` '
    "in Hungarian (each language's view is a representation of its own). `If-Match` takes either form; "
    "`If-None-Match` answers 304 for the tag of the answer's language.",
)
CACHE_CONTROL = ResponseHeader(
    name="Cache-Control",
    value="private, no-store",
    documentation_only=True,
    required=False,
    description="`private, no-store` when the answer shows a seat's secrets (the request had its seat "
    "token): no cache may keep it.",
)
IDEMPOTENT_REPLAYED = ResponseHeader(
    name="Idempotent-Replayed",
    value="true",
    documentation_only=True,
    required=False,
    description="`true` when this is the recorded answer to an earlier request with this key.",
)


def idempotency_key_header(description: str) -> HeaderParameter:
    """An ``Idempotency-Key`` request header, checked by the handler (``guards.idempotency_key``,
    the same problem as on actions) and documented as there: a string (absent, not null, when
    there is none)."""
    return HeaderParameter(
        name="Idempotency-Key",
        description=description,
        schema_extra={"one_of": None, "type": OpenAPIType.STRING, "min_length": 1, "max_length": MAX_IDEMPOTENCY_KEY},
    )


def text_header(name: str, description: str) -> HeaderParameter:
    """An optional request header the handler reads itself, documented as text: a string (absent,
    not null, when there is none)."""
    return HeaderParameter(name=name, description=description, schema_extra={"one_of": None, "type": OpenAPIType.STRING})


def location(description: str) -> ResponseHeader:
    """The documented ``Location`` of a route's 201: the game's URL."""
    return ResponseHeader(
        name="Location", value="/v1/games/{id}", documentation_only=True, required=True, description=description
    )


SECRET = {"secret": True}
"""``opt`` of a route whose answer hands out secrets (seat tokens) to a caller without one: the
policy layer keeps caches from it as from any answer to a seat's token."""
CREATES = {"budget": "create"}
"""``opt`` of a route counted against the ``create`` rate-limit budget (it makes a game or hands
out a seat)."""

# The problems the routes of one family share (the order within a status is the documented order).
SEAT_HOLDER = ("bad-request", "missing-token", "invalid-token", "wrong-seat", "unknown-game", "unknown-seat")
"""A seat's own route (leave, timeout, reclaim): the caller's token and the seat's number."""
COMMITS = ("plugin-error", "missing-plugin", "store-unavailable", "replication-timeout")
"""A route that plays the game on (an action, or the bots' moves after a change of seats) and commits."""


_JSON = (b"content-type", b"application/json")
_VARY = (b"vary", b"Authorization, Accept-Language")
"""A game's answer differs by the caller's token and language: written whole here (the policy
layer adds ``Accept-Language`` to every answer's ``Vary``, and finds it already there)."""


class EncodedResponse(Response[Any]):
    """A response of JSON encoded already (``None``: no body) and headers known as bytes, handed
    to the server as they are: Litestar's own ``File``, ``Stream`` and ``Redirect`` responses
    override :meth:`to_asgi_response` the same way. A plain ``Response`` would merge its headers
    into a dictionary, render its content, and copy everything into an ``ASGIResponse`` header
    by header, on the requests clients make most (views and actions); here the body needs no
    rendering and the headers no merging (the routes that answer with it add no headers or
    cookies of their own: their documented headers are documentation only). It is its own ASGI
    application (two messages): nothing is copied into another object."""

    __slots__ = ("raw_headers",)

    status_code: int
    # What Response.__init__ would set, as class attributes (the answer's own headers are
    # ``raw_headers``): read-only, so that nothing can add a header or cookie that would not be sent.
    background = None
    cookies: Any = ()
    encoding = "utf-8"
    headers: Any = MappingProxyType({})
    media_type = "application/json"
    response_type_encoders: Any = MappingProxyType({})

    def __init__(self, content: bytes | None, raw_headers: list[tuple[bytes, bytes]], status_code: int = 200) -> None:
        # Not Response.__init__: no cookies, headers or encoders to merge.
        self.content = content
        self.raw_headers = raw_headers
        self.status_code = status_code

    def to_asgi_response(self, app: Any, request: Any, **kwargs: Any) -> ASGIResponse:
        """The ASGI response: the status, ``raw_headers`` and body, sent as they are."""
        return self  # type: ignore[return-value]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        await send({"type": "http.response.body", "body": self.content or b"", "more_body": False})


def answer_headers(version: int | None, body: bytes | None) -> list[tuple[bytes, bytes]]:
    """The headers of a game's answer: its ``ETag`` when ``version`` is given, ``Vary``, and the
    body's ``Content-Type`` and ``Content-Length`` when there is one (none for a 204 or a 304)."""
    if version is None:
        return [_VARY] if body is None else [_VARY, _JSON, (b"content-length", b"%d" % len(body))]
    tag = (b"etag", entity_tag(version).encode())
    return [tag, _VARY] if body is None else [tag, _VARY, _JSON, (b"content-length", b"%d" % len(body))]


def encoded(content: bytes | None, *, version: int | None = None, status_code: int = 200) -> Response[Any]:
    """A response of already encoded JSON (``None``: no body), with the game's ``ETag`` if
    ``version``.

    Handlers declare the model their JSON follows (``Response[GameView]``) for the
    OpenAPI document; the body is encoded once, without converting to the model.
    """
    return EncodedResponse(content, answer_headers(version, content), status_code)
