"""The policy layer: every HTTP request passes it, once, whatever route it is for.

It wraps the Litestar application as the outermost ASGI layer, so no route can miss a policy:

* **rate limits** (:mod:`~darkroad.api.http.ratelimit`): every request counts against its
  client's ``requests`` or ``create`` budget (a route's ``opt={"budget": ...}``; the probes
  count against none), a request carrying a token is refused while its client has used up
  the ``auth`` budget, and every ``401`` to a request that carried one counts against it;
* **metrics**: every request counted and timed by its route's template;
* **problem details**: an error raised anywhere, or answered by Litestar itself, is
  ``application/problem+json`` (:func:`~darkroad.api.http.problems.problem_for`);
* **caching**: an answer (not an error) to a request that carried a seat token, or one that
  hands out secrets (``opt={"secret": True}``: new seat tokens), is ``Cache-Control:
  private, no-store`` unless the route set its own;
* **language**: the answer's language is negotiated from ``Accept-Language`` (RFC 9110:
  ``darkroad.core.i18n.negotiate``; English by default) and is the language of the request's
  context while it is answered, so every text made for it (labels, prompts, names, problem
  titles and details) is in that language; every answer says it in ``Content-Language`` and
  adds ``Accept-Language`` to ``Vary``;
* **methods**: on a documented path, ``OPTIONS`` answers ``204`` with ``Allow`` listing
  exactly the documented methods, and any other method is ``405 method-not-allowed`` with
  that ``Allow``.

The methods come from the handlers the OpenAPI document is made of (those included in the
schema, as Litestar decides for its document), so ``Allow`` and the document agree by
construction; ``tests/api/http/test_api_policies.py`` walks every operation of the committed
document against every policy.
The **request deadline** (head and body within ``Settings.request_timeout``) is enforced
beneath this layer, by the server's protocol (``darkroad.api.http.server``), for every request.

Once a request has passed its policies, it goes to Litestar, or to what serves its method of its
route in Litestar's place (:meth:`RouteTable.serve`: ``POST`` an action, by
``darkroad.api.http.action_route``, which hands Litestar what it does not serve as Litestar would).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec
from litestar import Litestar
from litestar.enums import ScopeType
from litestar.routes import HTTPRoute
from litestar.types import (
    ASGIApp,
    HTTPScope,
    LifeSpanReceive,
    LifeSpanScope,
    LifeSpanSend,
    Message,
    Receive,
    Scope,
    Send,
)

from darkroad.api.http.bodies import raw_headers
from darkroad.api.http.problems import PROBLEM_MEDIA_TYPE, Problem, problem_for
from darkroad.api.http.ratelimit import RateLimiter, client_key
from darkroad.api.metrics import Metrics
from darkroad.core import i18n

logger = logging.getLogger("darkroad.api")

PRIVATE = b"private, no-store"
UNLIMITED = "unlimited"
"""A route's ``opt["budget"]`` when it counts against no budget (the probes)."""
_PARAMETER = re.compile(r"\{([^}/]+)\}")


@dataclass(frozen=True, slots=True)
class MethodPolicy:
    """What the layer does with one method of one route, decided when the app is built."""

    budget: str | None
    """The rate-limit budget the request counts against (``None``: none, the probes)."""
    secret: bool = False
    """Whether its answers hand out secrets."""
    allowed: bool = True
    """Whether Litestar answers it (else ``OPTIONS`` answers ``204``, any other ``405``)."""
    app: ASGIApp | None = None
    """What answers it in Litestar's place (``darkroad.api.http.action_route``), if anything."""


_UNROUTED = MethodPolicy("requests")
"""A path no route has: Litestar answers it (its 404), counted as a request."""
_NOT_ALLOWED = MethodPolicy("requests", allowed=False)
"""A method of a routed path with no policy of its own: ``405``, counted as a request."""


@dataclass(frozen=True, slots=True)
class RoutePolicy:
    """The policies of one path of the application."""

    template: str
    """The path as the document names it, e.g. ``/v1/games/{game_id}/actions``."""
    pattern: re.Pattern[str]
    documented: frozenset[str]
    """The methods of the path (those the OpenAPI document lists, for a documented path);
    ``OPTIONS`` is always allowed."""
    budgets: Mapping[str, str] = field(default_factory=dict)
    """The rate-limit budget of each method that has its own (default ``requests``)."""
    secret: frozenset[str] = frozenset()
    """The methods whose answers hand out secrets."""
    served: Mapping[str, ASGIApp] = field(default_factory=dict)
    """What answers a method in Litestar's place, by method (:meth:`RouteTable.serve`)."""
    allow: str = field(init=False)
    """The ``Allow`` header's value: the documented methods and ``OPTIONS``."""
    methods: Mapping[str, MethodPolicy] = field(init=False)
    """Each method's :class:`MethodPolicy` (a method not here: :data:`_NOT_ALLOWED`): one
    look-up a request where the budget, the secrecy and the method were three."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "allow", ", ".join(sorted(self.documented | {"OPTIONS"})))
        methods = {}
        for method in self.documented | self.budgets.keys() | self.secret | {"OPTIONS"}:
            budget = self.budgets.get(method, "requests")
            methods[method] = MethodPolicy(
                None if budget == UNLIMITED else budget, method in self.secret,
                method in self.documented and method != "OPTIONS", self.served.get(method),
            )
        object.__setattr__(self, "methods", methods)

    @property
    def literal(self) -> int:
        """How much of the path is fixed text: the more specific route wins a tie."""
        return len(_PARAMETER.sub("", self.template))


class RouteTable:
    """The paths of an application and their policies."""

    def __init__(self, routes: list[RoutePolicy]) -> None:
        self._index(routes)
        self.documented: Mapping[str, frozenset[str]] = {}
        """The methods of each path of the OpenAPI document the table was made from."""

    @classmethod
    def of(cls, app: Litestar) -> RouteTable:
        """The table of ``app``'s HTTP routes: a path of the OpenAPI document allows the methods
        the document lists there (those of its handlers included in the schema; a path outside
        the document, those of all its handlers); budgets and secrets come from the handlers'
        ``opt``."""
        routes = []
        documented: dict[str, frozenset[str]] = {}
        for route in app.routes:
            if not isinstance(route, HTTPRoute):
                continue
            methods: set[str] = set()
            in_schema: set[str] = set()
            budgets: dict[str, str] = {}
            secret: set[str] = set()
            for handler in route.route_handlers:
                methods |= set(handler.http_methods)
                if handler.resolve_include_in_schema():
                    in_schema |= set(handler.http_methods)
                if budget := handler.opt.get("budget"):
                    budgets.update(dict.fromkeys(handler.http_methods, budget))
                if handler.opt.get("secret"):
                    secret |= set(handler.http_methods)
            if in_schema:
                documented[route.path_format] = frozenset(in_schema)
                methods = in_schema
            methods = methods - {"OPTIONS"}
            routes.append(
                RoutePolicy(route.path_format, _pattern(route.path_format), frozenset(methods), budgets,
                            frozenset(secret))
            )
        table = cls(routes)
        table.documented = documented
        return table

    def _index(self, routes: list[RoutePolicy]) -> None:
        # The most specific first: ``/v1/games/import`` before ``/v1/games/{game_id}``.
        self.routes = sorted(routes, key=lambda route: -route.literal)
        self._by_depth: dict[int, list[RoutePolicy]] = {}
        """The routes by their number of segments (a parameter is one segment), in that order:
        a path is matched against those of its own depth only."""
        for route in self.routes:
            self._by_depth.setdefault(_depth(route.template), []).append(route)

    def serve(self, method: str, template: str, app: ASGIApp) -> None:
        """Have ``app`` answer ``method`` on the route ``template`` in Litestar's place, behind the
        same policies: the route's policy is made anew with it (when the app is built, not per
        request)."""
        route = next(route for route in self.routes if route.template == template)
        served = replace(route, served={**route.served, method: app})
        self._index([served if other is route else other for other in self.routes])

    def match(self, path: str) -> RoutePolicy | None:
        """The route of ``path``, if any (only the routes of the path's depth are tried)."""
        for route in self._by_depth.get(path.count("/") - path.endswith("/"), ()):  # _depth(path), inlined
            if route.pattern.match(path) is not None:
                return route
        return None


def _depth(path: str) -> int:
    """The number of segments of a path or template (a trailing slash adds none)."""
    return path.count("/") - path.endswith("/")


def _pattern(template: str) -> re.Pattern[str]:
    """The paths of ``template``: each ``{parameter}`` one segment (its type is checked by the
    route itself), a trailing slash allowed."""
    parts, position = [], 0
    for parameter in _PARAMETER.finditer(template):
        parts += [re.escape(template[position : parameter.start()]), "[^/]+"]
        position = parameter.end()
    parts.append(re.escape(template[position:].rstrip("/")))
    return re.compile("^" + "".join(parts) + "/?$")


class PolicyLayer:
    """The policies of ``app``'s requests, then Litestar (:class:`PolicedApp`)."""

    def __init__(self, app: Litestar, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics
        self.table = RouteTable.of(app)
        self.limiter: RateLimiter | None = None
        """The running app's rate limiter (set by its lifespan: ``None`` while it is stopped)."""

    async def handle(self, scope: HTTPScope, receive: Receive, send: Send, litestar: ASGIApp) -> None:
        """Answer an HTTP request: its policies, then ``litestar`` (the app's own handling)."""
        began = time.perf_counter()
        method: str = scope["method"]
        route = self.table.match(scope["path"])
        policy = _UNROUTED if route is None else route.methods.get(method, _NOT_ALLOWED)
        # The request's headers, read once: the action's route and its handler read the same.
        headers = raw_headers(scope)
        authenticates = b"authorization" in headers
        languages = headers.get(b"accept-language")
        # An error shows no secret: only answers that are not errors are kept from caches.
        private = authenticates or policy.secret
        # What the layer learns of the answer (cells of the closure: no object a request).
        status, started = 500, False
        locale = i18n.DEFAULT_LOCALE if languages is None else i18n.negotiate(languages.decode("latin-1"))
        language = _CONTENT_LANGUAGE[locale]
        # The context's language is set only when it is not the one already current (English, for
        # most callers): resetting it would put back the same language.
        in_language = None if locale == i18n.locale_now() else i18n.set_locale(locale)

        def answer(message: Message) -> Awaitable[None]:
            # send's own awaitable handed back (not a coroutine of its own: one frame less per message).
            nonlocal status, started
            if message["type"] == "http.response.start":
                status, started = message["status"], True
                message["headers"] = _answer_headers(message["headers"], language, private and status < 400)
            return send(message)

        limiter = self.limiter
        limited = limiter is not None and limiter.enabled and policy.budget is not None
        client = client_key(scope) if limited else ""
        try:
            if limited:
                assert limiter is not None and policy.budget is not None
                limiter.admit(policy.budget, client, authenticates)
            if policy.allowed:
                await (policy.app or litestar)(scope, receive, answer)
            else:
                assert route is not None
                await _refuse(route, method, scope["path"], answer)
        except Exception as exc:  # every error, raised anywhere, is a problem
            if started:
                raise  # too late to answer: the server closes the connection
            await _send_problem(answer, problem_for(exc), scope["path"])
        finally:
            if in_language is not None:
                i18n.reset_locale(in_language)
            if limited and authenticates and status == 401:
                assert limiter is not None
                limiter.add("auth", client)
            label = route.template if route is not None else str(scope.get("path_template") or "unrouted")
            self.metrics.requests.inc(method, label, str(status))
            self.metrics.latency.observe(time.perf_counter() - began, method, label)


def _refuse(route: RoutePolicy, method: str, path: str, send: Send) -> Awaitable[None]:
    """The answer to a method Litestar does not answer on ``route``: ``OPTIONS``, ``204`` with
    ``Allow``; any other, ``405 method-not-allowed``."""
    if method == "OPTIONS":
        return _send_empty(send, 204, [(b"allow", route.allow.encode())])
    raise Problem(
        "method-not-allowed",
        "%(path)s answers %(allowed)s, not %(method)s.", path=path, allowed=route.allow, method=method,
        headers={"Allow": route.allow},
    )


_CONTENT_LANGUAGE = {locale: (b"content-language", locale.encode()) for locale in i18n.LOCALES}
_VARY_LANGUAGE = (b"vary", b"Accept-Language")
_PRIVATE = (b"cache-control", PRIVATE)


def _answer_headers(headers: Any, language: tuple[bytes, bytes], private: bool) -> list[tuple[bytes, bytes]]:
    """An answer's headers: its ``Content-Language`` (unless the route said its own: a page in the
    language a link chose), ``Accept-Language`` in its ``Vary`` (added to a ``Vary`` the route sent:
    one header, as the other policies read it) and, for a ``private`` answer, ``Cache-Control:
    private, no-store`` unless the route set its own.

    The names the route sent are read in one dictionary made in C (a repeated name: its last
    value), not one by one in Python; the game's answers send their ``Vary`` with
    ``Accept-Language`` already in it (``darkroad.api.http.params``), so that only the other two
    are added. Names are compared as they are: an ASGI application sends them in lower case (the
    ASGI spec's ``http.response.start``), as Litestar's responses, the game's answers and the
    problems here do."""
    out = list(headers)
    said = dict(out)
    vary = said.get(b"vary")
    if vary is None:
        out.append(_VARY_LANGUAGE)
    elif b"accept-language" not in vary.lower():
        last = max(i for i, (name, _) in enumerate(out) if name == b"vary")  # the value ``said`` kept
        out[last] = (b"vary", vary + b", Accept-Language")
    if b"content-language" not in said:
        out.append(language)
    if private and b"cache-control" not in said:
        out.append(_PRIVATE)
    return out


_HTTP = ScopeType.HTTP
"""(Looked up once: an enum's member is looked up through its class on every access.)"""


class PolicedApp(Litestar):
    """A Litestar application whose every HTTP request passes :class:`PolicyLayer` first."""

    def __init__(self, *args: Any, metrics: Metrics, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.policies = PolicyLayer(self, metrics)
        self._handle = self.policies.handle
        # Litestar's own handling of this app, bound once (not a super() object per request).
        self.litestar: ASGIApp = super().__call__

    async def __call__(
        self, scope: Scope | LifeSpanScope, receive: Receive | LifeSpanReceive, send: Send | LifeSpanSend
    ) -> None:
        # (A coroutine function: uvicorn tells ASGI 3 apps by it.)
        if scope["type"] == _HTTP:
            await self._handle(scope, receive, send, self.litestar)  # type: ignore[arg-type]
        else:
            await self.litestar(scope, receive, send)  # type: ignore[arg-type]


async def _send_empty(send: Send, status: int, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _send_problem(send: Send, problem: Problem, instance: str) -> None:
    body = msgspec.json.encode(problem.body(instance))
    headers = [(b"content-type", PROBLEM_MEDIA_TYPE.encode()), (b"content-length", b"%d" % len(body))]
    headers += [(name.lower().encode(), value.encode()) for name, value in (problem.headers or {}).items()]
    await send({"type": "http.response.start", "status": problem.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
