"""The request turned into domain values: who calls (a seat token, or a spectator), which
versions the request is made for (``If-Match``), its ``Idempotency-Key`` and its action.

Controllers get them as Litestar dependencies (:data:`DEPENDENCIES`) and pass them to the
services; the action handler (``GamesController.submit_action``, the request clients make most)
calls the same functions itself, without dependency injection.
"""

from __future__ import annotations

import re
from typing import Any

from litestar import Request
from litestar.di import Provide

from darkroad.api.app.service_errors import InvalidPart, ServiceError
from darkroad.api.app.values import Expected
from darkroad.api.http import bodies
from darkroad.core import Action, Engine, i18n
from darkroad.core.i18n import N_

MAX_IDEMPOTENCY_KEY = 255


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header; ``None`` when there is no header
    (a spectator). ``invalid-token`` for any other scheme or an empty token."""
    if authorization is None:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise ServiceError("invalid-token", "Use `Authorization: Bearer <seat token>`.")
    return token


def seat_token(authorization: str | None) -> str:
    """The bearer token of a request that must have one (``missing-token`` when there is none)."""
    token = bearer_token(authorization)
    if token is None:
        raise ServiceError("missing-token", "Acting needs `Authorization: Bearer <seat token>`.")
    return token


MAX_VERSION_DIGITS = 18
"""The most digits of an entity tag naming a version (no game reaches 10**18 versions). A
longer run of digits names none; ``int()`` refuses more than 4,300 digits anyway
(``sys.int_info.default_max_str_digits``), which answered such a header 500."""


_TAG = re.compile(f'([0-9]{{1,{MAX_VERSION_DIGITS}}})(?:-({"|".join(i18n.LOCALES)}))?')
"""An entity tag's opaque part naming a version, in a language (``12`` in English, ``12-hu``:
:func:`~darkroad.api.http.problems.entity_tag`)."""


def _tags(header: str, *, weak: bool) -> tuple[bool, frozenset[tuple[int, str]]]:
    """Whether an ``If-Match`` / ``If-None-Match`` list is ``*``, and the versions it names,
    each with the language of its tag.

    A bare number is accepted as well as a quoted entity tag; weak tags (``W/"5"``) count
    only for ``If-None-Match`` (RFC 9110 weak comparison); tags naming no version name none.
    """
    versions = set()
    for tag in header.split(","):
        tag = tag.strip()
        if tag == "*":
            return True, frozenset()
        if tag.startswith("W/"):
            if not weak:
                continue
            tag = tag[2:]
        named = _TAG.fullmatch(tag.strip('"'))
        if named is not None:
            versions.add((int(named[1]), named[2] or i18n.DEFAULT_LOCALE))
    return False, frozenset(versions)


_ONE_TAG = re.compile(f'"([0-9]{{1,{MAX_VERSION_DIGITS}}})(?:-(?:{"|".join(i18n.LOCALES)}))?"')
"""One strong entity tag naming a version (``"41"``, ``"41-hu"``): the ``If-Match`` of almost
every action."""


def expected_versions(if_match: str | None) -> Expected | None:
    """The versions ``If-Match`` names (``None``: no header, or ``*``: any version).

    ``If-Match`` names the game's version, a precondition of the game and not of a view: a tag of
    any language names its version (``"41"`` and ``"41-hu"`` alike), so a client that acts in one
    language with the tag of a view it read in another, or an older client that sends ``"41"``,
    acts all the same."""
    if if_match is None:
        return None
    one = _ONE_TAG.fullmatch(if_match)
    if one is not None:  # what _tags finds in it, without splitting a list
        return Expected(frozenset((int(one[1]),)))
    anything, tags = _tags(if_match, weak=False)
    return None if anything else Expected(frozenset(version for version, _ in tags))


def if_none_match(header: str | None, version: int) -> bool:
    """True when a conditional GET's ``If-None-Match`` already names ``version`` in the language of
    the call (answer 304): the tag of a view in another language names another representation,
    answered in full (RFC 9110, section 13.1.2)."""
    if header is None:
        return False
    anything, tags = _tags(header, weak=True)
    return anything or (version, i18n.current_locale()) in tags


_INVALID = {
    "header": N_("Invalid header parameter '%(key)s': %(reason)s."),
    "path": N_("Invalid path parameter '%(key)s': %(reason)s."),
    "query": N_("Invalid query parameter '%(key)s': %(reason)s."),
}
"""The detail of a refused parameter, by where it is (one sentence each, for translations)."""


def bad_parameter(source: str, key: str, message: str, **params: Any) -> ServiceError:
    """``bad-request`` naming the invalid parameter; ``message`` (what is wrong with it) is an
    English phrase with placeholders filled from ``params``."""
    part = InvalidPart(message, key, source, params)
    return ServiceError("bad-request", _INVALID[source], invalid=(part,), key=key, reason=i18n.Text(message, **params))


def idempotency_key(value: str | None) -> str | None:
    """The ``Idempotency-Key`` of an action or a join, checked (``bad-request``)."""
    if value is not None and not 1 <= len(value) <= MAX_IDEMPOTENCY_KEY:
        raise bad_parameter("header", "Idempotency-Key", N_("must be 1 to %(most)d characters"), most=MAX_IDEMPOTENCY_KEY)
    return value


def prefers_minimal(prefer: str | None) -> bool:
    """Whether a ``Prefer`` header (RFC 7240) asks for ``return=minimal``: preferences are
    comma-separated, each ``name[=value]`` with optional ``;`` parameters, and a value may be
    quoted; a preference the server does not know is ignored, never refused."""
    if not prefer:
        return False
    for preference in prefer.split(","):
        name, _, value = preference.partition(";")[0].partition("=")
        if name.strip().lower() == "return" and value.strip().strip('"').lower() == "minimal":
            return True
    return False


def parse_action(engine: Engine, body: bytes) -> Action:
    """The action of a request's JSON body (``bad-request``, ``bad-action``)."""
    return bodies.parse_action(body, engine.action_from_json)


def _caller_token(request: Request[Any, Any, Any]) -> str | None:
    return bearer_token(request.headers.get("authorization"))


def _seat_token(request: Request[Any, Any, Any]) -> str:
    return seat_token(request.headers.get("authorization"))


DEPENDENCIES = {
    "token": Provide(_caller_token, sync_to_thread=False),
    "seat_token": Provide(_seat_token, sync_to_thread=False),
}
"""The caller of a game's routes: ``token`` (a seat's, or ``None`` for a spectator) and
``seat_token`` (required: the routes that act for a seat)."""
