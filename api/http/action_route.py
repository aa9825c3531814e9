"""The one place a route is served without Litestar's per-request machinery (issue 39's adapter
lever): ``POST /v1/games/{game_id}/actions``, the request clients make most.

Through Litestar's router, a handler that declares parameters pays about fifteen steps a request:
the router and its cache, the exception middleware's wrapper, the kwargs model and its extractors,
the signature model (``msgspec.convert`` of every parameter, then back to a dictionary), the
``AsyncExitStack``, ``Request``; no public option of Litestar takes any of it off. :class:`ActionRoute`
serves the same handler function (``GamesController.submit_action``, the one implementation) with
what the handler's own declarations say, read once when the app is built. Issue 39 allows such a
lever only for at least 10% of the server's CPU per action: what it saves, and how it was
measured, is docs/performance.md's section "The action route outside Litestar's per-request
machinery".

It serves a request only when it is sure Litestar would do the same; anything else (a path not
exactly the route's, a ``root_path``, a ``Host`` outside a plain set of characters, a path
parameter outside its declared constraints or equal to another route's fixed segment there, which
Litestar's router follows instead: ``/v1/games/import/actions`` is a 404 of Litestar's) goes to
Litestar unchanged, nothing of it read. It sits
beneath the policy layer (``darkroad.api.http.policy``), which every request passes as before, and
serves only the method the layer hands it. It is built only for an app and a handler with nothing
it would skip: no middleware (the app's, the route's or Litestar's CSRF, compression, allowed
hosts, CORS, OpenTelemetry), guards, ``before_request``, ``after_request`` or ``after_response``
hooks, ``before_send``
or ``after_exception`` hooks, exception logging, response cache, DTOs or dependencies; else
:meth:`ActionRoute.of` gives ``None`` and Litestar serves the route.

What it uses of Litestar (public attributes, the same in 2.23 and 2.25): of the app, ``routes``,
``state`` and the configuration named above; of the route (``HTTPRoute``), ``path_format``,
``path_parameters`` and ``route_handler_map``'s handlers; of the handler, ``fn``,
``parsed_fn_signature`` (each parameter's ``FieldDefinition``: ``annotation``, ``default``,
``kwarg_definition``, whose ``ParameterKwarg`` gives ``param_type``, ``name``, ``pattern``,
``min_length`` and ``max_length``), ``resolve_request_class``, ``resolve_exception_handlers``,
``resolve_type_encoders``, ``resolve_layered_parameters`` and ``to_response``; a ``Response``'s
``to_asgi_response``. The declared headers are read from the scope as Litestar's header extractor
reads them (:func:`~darkroad.api.http.bodies.raw_headers`, read once by the policy layer: the first
value, names in any case).
Litestar newer than :data:`NEWEST` (the newest the tests run it on) serves the route itself: a
release may add a per-request step this adapter would skip. An error becomes its answer as Litestar's exception middleware makes it: the
handler's exception handler for the exception's class, its response sent with the handler's type
encoders. Sending the answer is outside that handling, as nothing of it can fail before its
first message (the body is encoded by then); a failure while sending (a client gone) goes up to
the policy layer, where Litestar's middleware would wrap it first. tests/api/http/test_api_action_route.py compares the two byte for byte, and
tests/api/http/test_api_litestar_floor.py runs them on the oldest and newest Litestar the project
supports.
"""

from __future__ import annotations

import importlib.metadata
import logging
import re
from dataclasses import dataclass
from typing import Any

from litestar import Litestar, Request
from litestar.enums import ParamType
from litestar.handlers import HTTPRouteHandler
from litestar.params import ParameterKwarg
from litestar.routes import ASGIRoute, HTTPRoute
from litestar.types import ASGIApp, Receive, Scope, Send
from litestar.typing import FieldDefinition

from darkroad.api.http.bodies import raw_headers
from darkroad.api.http.params import EncodedResponse

NEWEST = (2, 25)
"""The newest Litestar (major, minor) the tests run the adapter on (tests/api/http/test_api_litestar_floor.py:
raise both together)."""
_logger = logging.getLogger(__name__)

_HOST = re.compile(rb"[0-9A-Za-z.:\[\]-]*")
"""The ``Host`` values served here: a strict subset of those Litestar's router accepts (any other
goes to Litestar, which refuses those it refuses)."""
_LIMITS = ("gt", "ge", "lt", "le", "multiple_of", "min_items", "max_items", "const", "lower_case", "upper_case")
"""Constraints of a parameter this adapter does not check itself (a path parameter with one of
them leaves the route to Litestar)."""


@dataclass(frozen=True, slots=True)
class _PathParameter:
    """A path parameter of the handler, as its declaration constrains it (``msgspec.Meta``'s rules:
    the pattern searched, the lengths in characters)."""

    name: str
    pattern: re.Pattern[str] | None
    min_length: int | None
    max_length: int | None
    fixed: frozenset[str] = frozenset()
    """Other routes' fixed segments at this parameter's place (Litestar's router takes those)."""

    def place(self) -> str:
        """The regular expression of the parameter's segment: its lengths, and none of ``fixed``
        (the pattern is searched in the value: a regular expression of its own)."""
        shortest = max(1, self.min_length or 0)  # a segment is never empty
        if self.max_length is not None and self.max_length < shortest:
            return "(?!)"  # no value is accepted
        longest = "" if self.max_length is None else self.max_length
        avoided = "".join(rf"(?!{re.escape(segment)}(?:/|\Z))" for segment in sorted(self.fixed))
        return f"(?P<{self.name}>{avoided}[^/]{{{shortest},{longest}}})"


@dataclass(frozen=True, slots=True)
class _Parameters:
    """What the handler declares, read from its signature: the ``Request``'s name, its path
    parameters and its optional text headers (parameter, header name in lower case)."""

    request: str
    path: tuple[_PathParameter, ...]
    headers: tuple[tuple[str, bytes], ...]


class ActionRoute:
    """An ASGI application serving one Litestar route handler's method as Litestar would, or handing
    the request to ``litestar`` (the app's own handling) when it is not sure to."""

    def __init__(self, app: Litestar, route: HTTPRoute, handler: HTTPRouteHandler, parameters: _Parameters,
                 litestar: ASGIApp) -> None:  # fmt: skip
        self.app = app
        self.handler = handler
        self.litestar = litestar
        self.template = route.path_format
        self._path = _path_pattern(route, parameters.path)
        self._request = parameters.request
        self._parameters = parameters.path
        self._searched = tuple((p.name, p.pattern) for p in parameters.path if p.pattern is not None)
        """The path parameters' patterns, searched in their values (the lengths and other routes'
        segments are in the path's pattern)."""
        self._headers = parameters.headers
        self._request_class = handler.resolve_request_class()
        self._fn = handler.fn
        self._exception_handlers = handler.resolve_exception_handlers()
        self._type_encoders = handler.resolve_type_encoders()

    @classmethod
    def of(cls, app: Litestar, template: str, method: str, litestar: ASGIApp) -> ActionRoute | None:
        """The adapter of ``method`` on the route ``template`` (``/v1/games/{game_id}/actions``) of
        ``app``, or ``None`` when something of the app, the route or its handler is not what it
        serves as Litestar does (the module's docstring lists it)."""
        route = next((r for r in app.routes if isinstance(r, HTTPRoute) and r.path_format == template), None)
        if route is None or method not in route.route_handler_map or not _plain_app(app) or _mounted(app, template):
            return None
        if _version() > NEWEST:
            _logger.info("Litestar %s is newer than the action route's adapter is tested on: Litestar serves it",
                         importlib.metadata.version("litestar"))
            return None
        handler = route.route_handler_map[method][0]  # type: ignore[index]
        if any(other.cache for other in route.route_handlers) or not _plain_handler(handler):
            return None
        parameters = _declared(app, handler, route)
        if parameters is None:
            return None
        return cls(app, route, handler, parameters, litestar)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # The headers as the policy layer read them (the first value, any case), not Litestar's
        # ``Headers``: it decodes every header of the request into a multidict, for the few the
        # handler declares.
        headers = raw_headers(scope)
        found = self._path.fullmatch(scope["path"])
        if found is None or scope.get("root_path") or not _plain_host(headers.get(b"host")):
            return await self.litestar(scope, receive, send)
        values = found.groupdict()
        for name, pattern in self._searched:
            if pattern.search(values[name]) is None:
                return await self.litestar(scope, receive, send)  # Litestar's own 400
        # What Litestar's __call__ and its router leave in the scope for the handler and its request.
        scope["app"] = scope["litestar_app"] = self.app
        scope.setdefault("state", {})
        scope["path_params"] = values
        scope["route_handler"] = self.handler
        scope["path_template"] = self.template
        request = self._request_class(scope, receive, send)
        try:
            # The declared headers the request has (each declared with the default ``None``: _declared).
            kwargs: dict[str, Any] = {name: value.decode("latin-1") for name, header in self._headers
                                      if (value := headers.get(header)) is not None}  # fmt: skip
            kwargs[self._request] = request
            data = await self._fn(**values, **kwargs)
            # An EncodedResponse is its own ASGI answer whatever Litestar's response handler would
            # hand its ``to_asgi_response`` (no ``after_request`` hook or return DTO: _plain_handler).
            answer = data if type(data) is EncodedResponse else await self.handler.to_response(self.app, data, request)
        except Exception as exc:  # as Litestar's exception middleware answers it
            answer = self._error(request, exc)
        await answer(scope, receive, send)

    def _error(self, request: Request[Any, Any, Any], exc: Exception) -> ASGIApp:
        """The answer Litestar's exception middleware gives ``exc``: the exception handler of its
        class (or the nearest base class) made into the response, with the handler's type encoders."""
        handle = next(self._exception_handlers[kind] for kind in type(exc).__mro__ if kind in self._exception_handlers)
        response = handle(request, exc)
        return response.to_asgi_response(app=None, request=request, type_encoders=self._type_encoders)


def _plain_app(app: Litestar) -> bool:
    """Whether ``app`` adds nothing to a request this adapter would skip: no middleware of its own
    or of Litestar's configuration, no hooks around sending or exceptions, no exception logging."""
    try:
        app.plugins.get("OpenTelemetryPlugin")
    except KeyError:
        pass
    else:
        return False
    configured = (app.cors_config, app.csrf_config, app.compression_config, app.allowed_hosts, app.logging_config,
                  app.before_send, app.after_exception, app.pdb_on_exception)  # fmt: skip
    return not any(configured)


def _plain_handler(handler: HTTPRouteHandler) -> bool:
    """Whether ``handler`` is an async function Litestar calls with nothing around it: no
    middleware, guards, hooks, DTOs, and its exceptions handled by their class (no handler by status
    code), every one by some handler."""
    handlers = handler.resolve_exception_handlers()
    return not (
        handler.has_sync_callable
        or handler.resolve_layered_parameters()
        or handler.resolve_middleware()
        or handler.resolve_guards()
        or handler.resolve_before_request()
        or any(getattr(layer, "after_request", None) for layer in handler.ownership_layers)
        or handler.resolve_after_response()
        or handler.resolve_data_dto()
        or handler.resolve_return_dto()
        or Exception not in handlers
        or any(isinstance(key, int) for key in handlers)
    )


def _declared(app: Litestar, handler: HTTPRouteHandler, route: HTTPRoute) -> _Parameters | None:
    """The handler's parameters, if each is one this adapter reads as Litestar does: the
    ``Request``, a text path parameter of the route (its pattern and lengths), or an optional text
    header without constraints; ``None`` for any other."""
    request, path, headers = None, [], []
    fixed = _fixed_segments(app, route)
    for name, field in handler.parsed_fn_signature.parameters.items():
        kwarg = field.kwarg_definition
        if field.is_subclass_of(Request):
            request = name
        elif not isinstance(kwarg, ParameterKwarg) or any(getattr(kwarg, limit, None) is not None for limit in _LIMITS):
            return None
        elif kwarg.param_type is ParamType.PATH and name in route.path_parameters and _text(field, optional=False):
            pattern = None if kwarg.pattern is None else re.compile(kwarg.pattern)
            path.append(_PathParameter(name, pattern, kwarg.min_length, kwarg.max_length, fixed.get(name, frozenset())))
        elif (kwarg.param_type is ParamType.HEADER and _text(field, optional=True) and field.default is None
              and kwarg.pattern is None and kwarg.min_length is None and kwarg.max_length is None):
            headers.append((name, (kwarg.name or name).lower().encode("latin-1")))
        else:
            return None
    if request is None or {parameter.name for parameter in path} != set(route.path_parameters):
        return None
    return _Parameters(request, tuple(path), tuple(headers))


def _text(field: FieldDefinition, *, optional: bool) -> bool:
    """Whether ``field`` is declared ``str`` (``str | None`` if ``optional``)."""
    if optional:
        return field.is_optional and [inner.annotation for inner in field.inner_types] == [str, type(None)]
    return field.annotation is str


def _path_pattern(route: HTTPRoute, parameters: tuple[_PathParameter, ...]) -> re.Pattern[str]:
    """The paths of ``route`` exactly (no trailing slash, no empty segment): each parameter one
    segment of its declared lengths, not another route's fixed segment, captured by its name."""
    pattern = re.escape(route.path_format)
    for parameter in parameters:
        pattern = pattern.replace(re.escape("{" + parameter.name + "}"), parameter.place())
    return re.compile(pattern)


def _plain_host(host: bytes | None) -> bool:
    """Whether the request's ``Host`` (the first, as Litestar's router reads it) is one Litestar
    accepts for certain."""
    return host is None or _HOST.fullmatch(host) is not None


def _version() -> tuple[int, int]:
    """The installed Litestar's (major, minor)."""
    major, minor = importlib.metadata.version("litestar").split(".")[:2]
    return int(major), int(minor)


def _fixed_segments(app: Litestar, route: HTTPRoute) -> dict[str, frozenset[str]]:
    """Each path parameter of ``route`` -> the fixed segments other routes have at its place under
    the same prefix (``import`` for ``/v1/games/{game_id}/...``, from ``/v1/games/import``)."""
    segments = route.path_format.strip("/").split("/")
    fixed: dict[str, set[str]] = {}
    for index, segment in enumerate(segments):
        if not (segment.startswith("{") and segment.endswith("}")):
            continue
        name = segment[1:-1].split(":")[0]
        for other in app.routes:
            parts = other.path_format.strip("/").split("/")
            if len(parts) > index and parts[:index] == segments[:index] and not parts[index].startswith("{"):
                fixed.setdefault(name, set()).add(parts[index])
    return {name: frozenset(values) for name, values in fixed.items()}


def _mounted(app: Litestar, template: str) -> bool:
    """Whether a mounted ASGI app's path is a prefix of ``template`` (it would take the request)."""
    for route in app.routes:
        if isinstance(route, ASGIRoute) and route.route_handler.is_mount:
            prefix = route.path_format.rstrip("/")
            if template == prefix or template.startswith(prefix + "/"):
                return True
    return False
