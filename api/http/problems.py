"""RFC 9457 problem details: every error the API answers, its stable ``type`` and status.

Every error response is ``application/problem+json`` with ``type`` (one of the codes in
:data:`PROBLEM_TYPES`, stable across versions: clients branch on it), ``title`` (the type's
fixed summary), ``status``, ``detail`` (the human reason, e.g. the engine's explanation of
why an action is illegal) and ``instance`` (the request path). Some types add members:
``errors`` (``bad-request``), ``version`` (``stale-version``).

Routes declare the types they can answer with :func:`problem_responses`, so the OpenAPI
document lists every status code a client (or schemathesis) can observe.

This module is the one place where errors become problems: the services' domain errors
(:class:`~darkroad.api.app.service_errors.ServiceError`: a code and facts), the rules' errors, the
store's and Litestar's own, each with its status and headers (:func:`problem_for`). Litestar's
exception handling and the policy layer (``darkroad.api.http.policy``) both use it.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException
from litestar.openapi.datastructures import ResponseSpec
from litestar.plugins.problem_details import (
    ProblemDetailsConfig,
    ProblemDetailsException,
    ProblemDetailsPlugin,
)

from darkroad.api.app.service_errors import ServiceError
from darkroad.api.store.base import ReplicationTimeout, StoreUnavailable
from darkroad.core import errors, i18n
from darkroad.core.i18n import N_

logger = logging.getLogger("darkroad.api")

PROBLEM_MEDIA_TYPE = "application/problem+json"


@dataclass(frozen=True, slots=True)
class ProblemType:
    """One kind of error: its stable ``type`` code, HTTP status and meaning."""

    code: str
    status: int
    title: str
    description: str
    headers: Mapping[str, str] = field(default_factory=dict)
    """The headers a problem of this type carries, with their meaning."""


_CHALLENGE = {"WWW-Authenticate": 'The scheme to use: `Bearer realm="darkroad"`.'}

PROBLEM_TYPES: dict[str, ProblemType] = {
    problem.code: problem
    for problem in [
        ProblemType(
            "bad-request",
            400,
            N_("Bad request"),
            "The request does not match the documented schema (see `errors`).",
        ),
        ProblemType(
            "missing-token",
            401,
            N_("Seat token required"),
            "The operation needs `Authorization: Bearer <seat token>`.",
            _CHALLENGE,
        ),
        ProblemType(
            "invalid-token",
            401,
            N_("Invalid seat token"),
            "The bearer token is not one of this game's seat tokens.",
            _CHALLENGE,
        ),
        ProblemType(
            "metrics-token",
            401,
            N_("Metrics token required"),
            "This server's `/metrics` needs `Authorization: Bearer <metrics token>` (`DARKROAD_METRICS_TOKEN`).",
        ),
        ProblemType(
            "wrong-seat",
            403,
            N_("Not your seat"),
            "The caller's token is not for the seat the request is about: an action's `seat` (or a seat "
            "to leave or reclaim) is another's, or a timeout is claimed for the caller's own seat.",
        ),
        ProblemType(
            "unknown-game", 404, N_("Unknown game"), "No game has this id (it never existed or it expired)."
        ),
        ProblemType("unknown-seat", 404, "Unknown seat", "The game has no seat with this number."),
        ProblemType(
            "unknown-version",
            404,
            N_("Unknown version"),
            "The game (or the record to import) has no such version: versions go from 0 to the last one.",
        ),
        ProblemType("no-webhook", 404, N_("No webhook"), "The seat has no webhook subscription."),
        ProblemType("not-found", 404, N_("Not found"), N_("No resource at this path.")),
        ProblemType(
            "method-not-allowed",
            405,
            N_("Method not allowed"),
            N_("The path exists but not with this method (see `Allow`)."),
        ),
        ProblemType(
            "stale-version",
            409,
            N_("Stale version"),
            "The game is no longer at the version the request was made for (`If-Match`); `version` is the current one.",
            {"ETag": 'The current version as an entity tag of the answer\'s language, e.g. `"12"` (`"12-hu"`).'},
        ),
        ProblemType(
            "illegal-action",
            409,
            N_("Illegal action"),
            "The action is not a legal answer to the decision the game waits for; `detail` says why.",
        ),
        ProblemType(
            "not-your-decision",
            409,
            N_("Not your decision"),
            "The game is not waiting for a decision of this seat.",
        ),
        ProblemType("game-finished", 409, N_("Game finished"), "The game is over; no more actions are accepted."),
        ProblemType(
            "cannot-undo",
            409,
            N_("Cannot undo"),
            "The caller has nothing it may undo (`detail` says why): its last action is a checkpoint (it drew "
            "on chance, revealed hidden information, passed the decision on, ...), the game's last move is not "
            "the caller's action of this turn, or there is nothing to undo. Nothing changed.",
        ),
        ProblemType(
            "game-not-started",
            409,
            N_("Game not started"),
            "The game waits for players to join its open seats; no action is accepted until every seat is taken.",
        ),
        ProblemType(
            "game-started",
            409,
            N_("Game started"),
            "Every seat has been taken and the game has started: seats can no longer be left.",
        ),
        ProblemType(
            "seat-taken",
            409,
            N_("Seat taken"),
            "The seat is not open: someone joined it first, or it is a creator's, a bot's or an automated "
            "seat (a seat kind's). Join another of `open_seats`.",
        ),
        ProblemType(
            "seat-replaced",
            409,
            N_("Seat played by a bot"),
            "A bot plays this seat since its player timed out; reclaim it (`POST .../seats/{seat}/reclaim`) "
            "to act again.",
        ),
        ProblemType(
            "not-overdue",
            409,
            N_("Not overdue"),
            "The seat cannot be handed to a bot: the game has no `turn_timeout`, the seat is not a player's "
            "seat awaited now, or it has been awaited for less than `turn_timeout` seconds (`detail` says "
            "which, and when it will be overdue).",
        ),
        ProblemType(
            "bank-empty",
            409,
            N_("Time bank empty"),
            "The seat's time bank ran out and the game's clock adds nothing for a decision (`increment` 0): "
            "reclaimed, it would be handed to the bot again as soon as the game waits for it, so its bot plays "
            "it to the end. Nothing changed.",
        ),
        ProblemType(
            "game-not-finished",
            409,
            N_("Game not finished"),
            "The final score, and the game's record (whose seed deals every hidden card), exist only once "
            "the game is finished.",
        ),
        ProblemType(
            "request-timeout",
            408,
            N_("Request timeout"),
            "The whole request (head and body) did not arrive in time; the connection is closed.",
        ),
        ProblemType(
            "body-too-large", 413, N_("Request body too large"), N_("The request body exceeds the server's limit.")
        ),
        ProblemType(
            "unsupported-media-type",
            415,
            N_("Unsupported media type"),
            "The body must be sent as `Content-Type: application/json`.",
        ),
        ProblemType(
            "bad-config",
            422,
            N_("Bad game configuration"),
            "No game can be created from this configuration; `detail` says why.",
        ),
        ProblemType(
            "unknown-component",
            422,
            N_("Unknown component"),
            "The configuration names a component this server does not have (see `GET /v1/catalog`).",
        ),
        ProblemType(
            "unknown-bot",
            422,
            N_("Unknown bot"),
            "The request names a bot this server does not have (see `GET /v1/catalog`: `bots`).",
        ),
        ProblemType(
            "bad-bot-option",
            422,
            N_("Bad bot option"),
            "A bot seat asks for a `think_time` the server's bot move timeout does not leave room for.",
        ),
        ProblemType(
            "bad-webhook-url",
            422,
            N_("Webhook URL refused"),
            "The service does not send to this URL: it is malformed, not `http(s)`, carries credentials, or "
            "its host is (or resolves to) a loopback, private, link-local, multicast, unspecified or reserved "
            "address; `detail` says which.",
        ),
        ProblemType(
            "bad-action",
            422,
            N_("Malformed action"),
            "The body is not an action object; `detail` says where (`@ $.path`).",
        ),
        ProblemType(
            "bad-record",
            422,
            N_("Malformed game record"),
            "The body is not a game record this server reads (its format, its format's version, a member); "
            "`detail` says what.",
        ),
        ProblemType(
            "record-plugins",
            409,
            N_("Record needs other plugins"),
            "The record's game used plugins this server does not have, or has at other versions; `detail` "
            "names each. Nothing was stored.",
        ),
        ProblemType(
            "record-not-replayable",
            409,
            N_("Record does not replay"),
            "Replayed here, the record's actions do not give its game: an action is illegal where it "
            "stands, a version is out of order, or the result differs; `detail` names the first. Nothing "
            "was stored.",
        ),
        ProblemType(
            "idempotency-key-reused",
            422,
            N_("Idempotency key reused"),
            "This `Idempotency-Key` was already used for a different action, or for a join under another "
            "name or one since undone.",
        ),
        ProblemType(
            "rate-limited",
            429,
            N_("Too many requests"),
            "The client's address has used up a budget (requests, games created or failed "
            "authentications); retry after `Retry-After` seconds.",
            {"Retry-After": "Seconds to wait before retrying."},
        ),
        ProblemType(
            "internal-error", 500, N_("Internal server error"), "A bug in the server; the game was not changed."
        ),
        ProblemType(
            "plugin-error",
            500,
            N_("Plugin error"),
            "A plugin failed while applying the action, which was not applied; the answer is then withdrawn "
            "from the decision (a new version of the game), so that a seat is never stuck.",
        ),
        ProblemType(
            "missing-plugin",
            503,
            N_("Missing plugin"),
            "The game needs a plugin this server process does not have; another replica may.",
        ),
        ProblemType(
            "too-many-streams",
            503,
            N_("Too many event streams"),
            "Every event stream slot of the server process (or of the client's address) is taken; "
            "retry after `Retry-After` seconds, or read the log without `wait`.",
            {"Retry-After": "Seconds to wait before retrying."},
        ),
        ProblemType(
            "store-unavailable",
            503,
            N_("Store unavailable"),
            "The game store cannot be reached; retry after `Retry-After` seconds.",
            {"Retry-After": "Seconds to wait before retrying."},
        ),
        ProblemType(
            "replication-timeout",
            503,
            N_("Replication timeout"),
            "The change was written, but not confirmed by as many Redis replicas as the server "
            "requires (`DARKROAD_REDIS_WAIT_REPLICAS`) in time, so it could still be lost in a "
            "failover. Retry after `Retry-After` seconds with the same `Idempotency-Key`: the "
            "retry answers as the first request would have once the change is confirmed, and "
            "applies the action again if it was lost.",
            {"Retry-After": "Seconds to wait before retrying."},
        ),
    ]
}


class FieldError(msgspec.Struct, frozen=True, omit_defaults=True):
    """Where a request failed validation."""

    message: str
    key: str | msgspec.UnsetType = msgspec.UNSET
    """The invalid parameter's name, or the path of the invalid body member (`seats[0].kind`);
    absent when the whole body is wrong."""
    source: str | msgspec.UnsetType = msgspec.UNSET
    """Where it is: `path`, `query`, `header` or `body`."""


class ProblemDetails(msgspec.Struct, frozen=True, omit_defaults=True):
    """An RFC 9457 problem details object."""

    # The members of some types only are absent from the others (never null): optional
    # without a default in the document, so that generators type them as possibly absent.
    type: str
    """Stable problem type code (`illegal-action`, `stale-version`, ...)."""
    title: str
    """Fixed summary of the type."""
    status: int
    detail: str
    """Human-readable explanation of this occurrence."""
    instance: str | msgspec.UnsetType = msgspec.UNSET
    """The request path."""
    errors: list[FieldError] | msgspec.UnsetType = msgspec.UNSET
    """`bad-request` only: each invalid part of the request (absent when the request could not be
    read at all, e.g. a body that is not JSON)."""
    version: int | msgspec.UnsetType = msgspec.UNSET
    """`stale-version` only: the game's current version."""
    plugin: str | msgspec.UnsetType = msgspec.UNSET
    """`plugin-error` only: the name of the plugin that failed."""


class Problem(ProblemDetailsException):
    """An error answered as a problem details response of one of :data:`PROBLEM_TYPES`."""

    def __init__(
        self,
        code: str,
        detail: str,
        *,
        headers: dict[str, str] | None = None,
        extra: Mapping[str, Any] | None = None,
        **params: Any,
    ) -> None:
        problem = PROBLEM_TYPES[code]
        # The title and the detail (an English sentence, its placeholders filled from ``params``)
        # in the request's language; `type` and the members stay.
        super().__init__(
            detail=i18n.translated(detail, **params),
            status_code=problem.status,
            headers=headers,
            extra=dict(extra) if extra else None,
            type_=problem.code,
            title=i18n.gettext(problem.title),
        )
        self.code = code

    def body(self, instance: str | None) -> dict[str, Any]:
        """The problem details object, about the request path ``instance``."""
        problem: dict[str, Any] = {"status": self.status_code, "type": self.type_, "title": self.title}
        if instance is not None:
            problem["instance"] = instance
        problem["detail"] = self.detail
        if isinstance(self.extra, Mapping):
            problem.update(self.extra)
        return problem

    def to_response(self, request: Request[Any, Any, Any]) -> Response[dict[str, Any]]:
        return Response(
            self.body(request.url.path), headers=self.headers, media_type=PROBLEM_MEDIA_TYPE, status_code=self.status_code
        )


_HTTP_STATUS_CODES = {400: "bad-request", 404: "not-found", 405: "method-not-allowed", 413: "body-too-large"}


def _from_http_exception(exc: HTTPException) -> Problem:
    code = _HTTP_STATUS_CODES.get(exc.status_code)
    if code is None:
        logger.error("unmapped HTTP exception %s: %s", exc.status_code, exc.detail)
        return Problem("internal-error", "Unexpected server condition.")
    extra: dict[str, Any] | None = None
    if code == "bad-request" and isinstance(exc.extra, list):
        extra = {"errors": [_field_error(item) for item in exc.extra]}
    detail = exc.detail if code == "bad-request" else PROBLEM_TYPES[code].description
    return Problem(code, detail, headers=exc.headers, extra=extra)


def _field_error(item: object) -> dict[str, Any]:
    if not isinstance(item, Mapping):
        return {"message": str(item)}
    error = {}
    for key in ("message", "key", "source"):
        value = item.get(key)
        if value is not None:
            error[key] = str(value.value if isinstance(value, enum.Enum) else value)
    return error


def _from_darkroad_error(exc: errors.DarkroadError) -> Problem:
    code = exc.code if exc.code in PROBLEM_TYPES else "internal-error"
    if code in ("plugin-error", "missing-plugin", "internal-error"):
        logger.error("%s: %s", code, exc.reason, exc_info=exc)
    if isinstance(exc, errors.PluginError) and exc.plugin:
        return Problem(code, exc.message, extra={"plugin": exc.plugin}, **exc.params)  # the plugin to blame, by name
    return Problem(code, exc.message, **exc.params)


def _from_store_unavailable(exc: StoreUnavailable) -> Problem:
    logger.warning("store unavailable: %s", exc)
    return Problem("store-unavailable", "The game store cannot be reached.", headers={"Retry-After": "1"})


def _from_replication_timeout(exc: ReplicationTimeout) -> Problem:
    logger.warning("replication timeout: %s", exc)
    return Problem(
        "replication-timeout",
        "The change was written but not confirmed by enough replicas in time; retry with the same "
        "Idempotency-Key.",
        headers={"Retry-After": "1"},
    )


CHALLENGE = 'Bearer realm="darkroad"'
"""``WWW-Authenticate`` of a refused seat token (RFC 6750)."""


def entity_tag(version: int) -> str:
    """The ``ETag`` of a game at ``version`` in the language of the call: ``"12"`` in English (as
    before languages), ``"12-hu"`` in Hungarian. A strong tag names one representation (RFC 9110,
    section 8.8.3), and a view's texts differ by language, so each language has its own tag: a
    conditional GET never gets a 304 for a view cached in another language. ``If-Match`` takes
    either form (it names the game's version: ``darkroad.api.http.guards``)."""
    locale = i18n.locale_now()
    return f'"{version}"' if locale == i18n.DEFAULT_LOCALE else f'"{version}-{locale}"'


def _from_service_error(exc: ServiceError) -> Problem:
    """A domain error as its problem: the code's status, and each fact as its header or member."""
    headers: dict[str, str] = {}
    extra: dict[str, Any] = {}
    if exc.version is not None:
        extra["version"] = exc.version
        if exc.code == "stale-version":
            headers["ETag"] = entity_tag(exc.version)
    if exc.retry_after is not None:
        headers["Retry-After"] = str(exc.retry_after)
    if "WWW-Authenticate" in PROBLEM_TYPES[exc.code].headers or exc.code in ("missing-token", "invalid-token"):
        headers["WWW-Authenticate"] = CHALLENGE
    if exc.invalid:
        extra["errors"] = [
            {name: value for name, value in (("message", part.translated()), ("key", part.key), ("source", part.source))
             if value is not None}
            for part in exc.invalid
        ]
    if exc.plugin:
        extra["plugin"] = exc.plugin
    return Problem(exc.code, exc.message, headers=headers or None, extra=extra or None, **exc.params)


_MAPPING: dict[type[Exception], Callable[[Any], Problem]] = {}
"""Filled below: each kind of exception and its problem (the most specific class wins)."""


def problem_for(exc: Exception) -> Problem:
    """The problem details answering ``exc`` (``internal-error`` for anything unexpected)."""
    if isinstance(exc, Problem):
        return exc
    for kind in type(exc).__mro__:
        convert = _MAPPING.get(kind)
        if convert is not None:
            return convert(exc)
    return _from_unexpected(exc)


def _from_unexpected(exc: Exception) -> Problem:
    logger.error("unhandled exception", exc_info=exc)
    return Problem("internal-error", N_("Unexpected server condition; the game was not changed."))


_MAPPING.update(
    {
        ServiceError: _from_service_error,
        HTTPException: _from_http_exception,
        errors.DarkroadError: _from_darkroad_error,
        StoreUnavailable: _from_store_unavailable,
        ReplicationTimeout: _from_replication_timeout,
    }
)


def problem_details_plugin() -> ProblemDetailsPlugin:
    """Litestar's problem details plugin, turning every exception into a problem details
    response through :func:`problem_for`."""
    mapping: dict[type[Exception], Callable[[Any], ProblemDetailsException]] = {Exception: problem_for}
    return ProblemDetailsPlugin(ProblemDetailsConfig(exception_to_problem_detail_map=mapping))


def problem_responses(*codes: str, limited: bool = True) -> dict[int, ResponseSpec]:
    """OpenAPI ``responses=`` for a route that can answer with the problem types ``codes``.

    Every route can also answer ``internal-error`` (500) and, unless not ``limited`` (the
    probes), ``rate-limited`` (429); routes touching the store add ``store-unavailable``
    themselves.
    """
    by_status: dict[int, list[ProblemType]] = {}
    for code in (*codes, *(("rate-limited",) if limited else ()), "internal-error"):
        problem = PROBLEM_TYPES[code]
        by_status.setdefault(problem.status, []).append(problem)
    return {
        status: ResponseSpec(
            data_container=ProblemDetails,
            media_type=PROBLEM_MEDIA_TYPE,
            description="\n".join(f"- `{problem.code}`: {problem.description}" for problem in problems),
            generate_examples=False,
        )
        for status, problems in sorted(by_status.items())
    }
