"""``POST /v1/games/{game_id}/actions``, the request clients make most, read straight from ASGI.

For it Litestar's per-request machinery (the ``Request``, the handler's keyword arguments,
the ``Response`` and its headers) costs about a third of the server's time
(``benchmarks/api.py``), so the policy layer (``darkroad.api.http.policy``) hands it to
:func:`action_endpoint` once its policies have run, exactly as it hands every other request to
Litestar: the same rate limits, metrics, problem details and headers, applied once. The
Litestar handler of the route (``GamesController.submit_action``) documents it and serves it
when ``Settings.action_endpoint`` is off; both run :func:`submit`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from litestar.enums import ParamType
from litestar.openapi.spec import OpenAPIType, Operation, Parameter, Schema
from litestar.types import HTTPResponseBodyEvent, HTTPResponseStartEvent, HTTPScope, Receive, Scope, Send

from darkroad.api.app.seating import GAME_ID_LENGTH, GAME_ID_PATTERN
from darkroad.api.app.service import GameService
from darkroad.api.app.values import ActResult
from darkroad.api.http.bodies import raw_headers, read_body, require_json
from darkroad.api.http.guards import (
    MAX_IDEMPOTENCY_KEY,
    bad_parameter,
    expected_versions,
    idempotency_key,
    parse_action,
    prefers_minimal,
    seat_token,
)
from darkroad.api.http.params import GAME_ID_DESCRIPTION, game_headers
from darkroad.api.http.problems import entity_tag
from darkroad.core import errors
from darkroad.core.i18n import N_
from darkroad.core.undo import UNDO

_GAME_ID = re.compile(GAME_ID_PATTERN)


def _parameter(where: ParamType, name: str, description: str, schema: Schema) -> Parameter:
    schema.description = description
    return Parameter(
        name=name, param_in=where, required=where is ParamType.PATH, description=description, schema=schema
    )


@dataclass
class SubmitActionOperation(Operation):
    """``submitAction``'s parameters, which :func:`submit` reads itself."""

    def __post_init__(self) -> None:
        self.parameters = [
            _parameter(
                ParamType.PATH,
                "game_id",
                GAME_ID_DESCRIPTION,
                Schema(type=OpenAPIType.STRING, pattern=GAME_ID_PATTERN, max_length=GAME_ID_LENGTH),
            ),
            _parameter(
                ParamType.HEADER,
                "If-Match",
                "Act only if the game is still at this version (`ETag`); otherwise 409 `stale-version`.",
                Schema(type=OpenAPIType.STRING),
            ),
            _parameter(
                ParamType.HEADER,
                "Prefer",
                "`return=minimal` (RFC 7240): answer `204` without the view, for a client that follows the "
                "game's stream or long poll anyway (the view is not even worked out); `ETag` still names the "
                "new version and `Preference-Applied: return=minimal` confirms it. Other preferences are "
                "ignored.",
                Schema(type=OpenAPIType.STRING),
            ),
            _parameter(
                ParamType.HEADER,
                "Idempotency-Key",
                "A unique key per intended action: a retry with the same key returns the first answer and "
                "does not act twice (remembered for a day).",
                Schema(type=OpenAPIType.STRING, min_length=1, max_length=MAX_IDEMPOTENCY_KEY),
            ),
        ]


@dataclass(slots=True)  # not frozen: see darkroad.api.store.base
class Submitted:
    """An action's answer, and whether the client asked for it without the view."""

    result: ActResult
    minimal: bool


async def submit(service: GameService, game_id: str, scope: Scope, receive: Receive) -> Submitted:
    """Read an action's request (its path, headers and body, checked as
    :class:`SubmitActionOperation` documents them) and act."""
    if len(game_id) != GAME_ID_LENGTH or not _GAME_ID.fullmatch(game_id):
        raise bad_parameter("path", "game_id", N_("must match %(pattern)s"), pattern=GAME_ID_PATTERN)
    headers = raw_headers(scope)
    key = idempotency_key(headers.get("idempotency-key"))
    require_json(headers.get("content-type"))
    body = await read_body(receive, headers.get("content-length"), service.settings.request_max_body_size)
    token = seat_token(headers.get("authorization"))
    action = parse_action(service.engine, body)
    if action.type == UNDO:  # recorded by an undo, never an answer (the app layer would undo)
        raise errors.IllegalAction("`undo` answers no decision: `POST /v1/games/{game_id}/undo` takes back your last action.")
    minimal = prefers_minimal(headers.get("prefer"))
    expected = expected_versions(headers.get("if-match"))
    return Submitted(await service.acting.act(game_id, token, action, expected, key, minimal), minimal)


_ACT_RAW_HEADERS = [(b"vary", b"Authorization")]
_REPLAYED_RAW_HEADER = (b"idempotent-replayed", b"true")
_MINIMAL_RAW_HEADER = (b"preference-applied", b"return=minimal")


def act_headers(answer: Submitted) -> dict[str, str]:
    """The headers of an action's answer."""
    headers = game_headers(answer.result.version)
    if answer.result.replayed:
        headers["Idempotent-Replayed"] = "true"
    if answer.minimal:
        headers["Preference-Applied"] = "return=minimal"
    return headers


async def action_endpoint(
    service: GameService, params: Mapping[str, str], scope: HTTPScope, receive: Receive, send: Send
) -> None:
    """Answer ``POST .../actions`` (errors are raised, for the policy layer to answer)."""
    answer = await submit(service, params["game_id"], scope, receive)
    result = answer.result
    # act_headers(answer), encoded once: the same headers in the same order.
    if answer.minimal:
        headers = [(b"etag", entity_tag(result.version).encode()), *_ACT_RAW_HEADERS]
        status, view = 204, b""
    else:
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", b"%d" % len(result.view)),
            (b"etag", entity_tag(result.version).encode()),
            *_ACT_RAW_HEADERS,
        ]
        status, view = 200, result.view
    if result.replayed:
        headers.append(_REPLAYED_RAW_HEADER)
    if answer.minimal:
        headers.append(_MINIMAL_RAW_HEADER)
    start: HTTPResponseStartEvent = {"type": "http.response.start", "status": status, "headers": headers}
    body: HTTPResponseBodyEvent = {"type": "http.response.body", "body": view, "more_body": False}
    await send(start)
    await send(body)
