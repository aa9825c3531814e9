"""The OpenAPI document: Litestar's, completed with what only the engine knows.

Litestar generates the document from the routes; the bodies' schemas are msgspec's own
(exact where Litestar's lose constraints), typed down to their leaves (api/schemas.py).
The engine contributes what only it knows: the ``Action`` and ``Event`` unions, from
``Engine.action_schema()`` / ``Engine.event_schema()``, as named components (one per
decision or event type, a ``discriminator`` on ``type``, an open variant for fan
plugins), the building and companion ids a game may choose (which depend on the
installed plugins), and what the installed seat kinds declare (their request fields and
view blocks: :mod:`darkroad.api.http.seat_kinds`). Then what generators need: request defaults said in words, the
document-level optional seat token that reads inherit, every header responses send.
Links (create → view / actions / act / log / score, legal actions → act) let clients and
stateful fuzzers follow a game from its creation.

The committed ``openapi/openapi.json`` is this document for the base installation
(``darkroad openapi --output openapi/openapi.json``); a test fails when they differ, and
``tests/api/http/test_api_generated_clients.py`` generates clients from it.
"""

from __future__ import annotations

import copy
import inspect
import itertools
import json
import re
from importlib import metadata
from typing import Any

import msgspec
from litestar import Litestar, Request
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme, Tag

from darkroad.api.app import lobby
from darkroad.api.http.docs import SwaggerDocsPlugin
from darkroad.api.http.openapi_links import response_links
from darkroad.api.http.problems import PROBLEM_TYPES
from darkroad.api.http.schemas import LAST_EVENT_ID_PATTERN, MODELS, OPEN
from darkroad.api.http.seat_kinds import SeatKindSurface
from darkroad.api.http.setup_schemas import NewGame
from darkroad.core import Engine, SeatKind
from darkroad.core.configs import BUILDING_SPACES, tile_clashes
from darkroad.core.game_setup import SIZES, SOLO, SetupRequest, refused_sizes, seat_count
from darkroad.core.i18n import LOCALES

SECURITY_SCHEME = "seatToken"
_REF = "#/components/schemas/{name}"
_GAME = "/v1/games/{game_id}"

_SERVER_SENT_EVENT = {
    "title": "ServerSentEvent",
    "description": "One message of `GET .../stream` (a server-sent event): the lines `id: <n>` and "
    "`data: <the event as JSON>`, then a blank line. No `event:` line is sent, so it is the default "
    "`message` type (`EventSource.onmessage`). Lines starting with `:` are heartbeat comments.",
    "type": "object",
    "required": ["id", "data"],
    "properties": {
        "id": {"type": "string", "pattern": "^[0-9]+$",
               "description": "The event's `n`: send it back as `Last-Event-ID` to resume after it."},
        "event": {"type": "string", "const": "message", "description": "Not sent: the default type."},
        "data": {
            "type": "string",
            "description": "The event, as one line of JSON: an `Event`.",
            "contentMediaType": "application/json",
            "contentSchema": {"$ref": _REF.format(name="Event")},
        },
    },
}

_EVENT_MESSAGE = {
    "title": "EventMessage",
    "description": "One message of `GET .../stream`, decoded: its `id` and its `data` parsed as JSON (an "
    "`Event`). The server sends neither this object nor any JSON envelope (the stream is `id:` and `data:` "
    "lines, `ServerSentEvent`); it is here so that generators make a model that parses and types one "
    "message, e.g. Python (openapi-python-client, httpx-sse): "
    "`EventMessage.from_dict({\"id\": sse.id, \"event\": sse.json()}).event` is the event as its own class "
    "(`EventMoved`, ..., `PluginEvent`).",
    "type": "object",
    "required": ["id", "event"],
    "properties": {
        "id": {"type": "string", "pattern": "^[0-9]+$", "description": "The message's `id`: the event's `n`."},
        "event": {"$ref": _REF.format(name="Event"), "description": "The message's `data`, parsed."},
    },
}

_STREAM_OK = {
    "description": "The events as server-sent events (`ServerSentEvent`), live. Each message carries one "
    "`Event` as JSON and its `n` as `id`; comment lines are heartbeats. The server ends the stream now "
    "and then (and once a finished game's last event is sent): reconnect with `Last-Event-ID` to resume.",
    "headers": {
        "Cache-Control": {"description": "`no-cache`.", "required": True, "schema": {"type": "string"}},
        "X-Accel-Buffering": {"description": "`no`: proxies must not buffer the stream.", "required": True,
                              "schema": {"type": "string"}},
    },
    "content": {
        "text/event-stream": {
            # Before OpenAPI 3.2 (``itemSchema``), an event stream's ``schema`` describes each
            # message: schemathesis validates every message (and its JSON ``data``) against it.
            # The ``string`` branch first: generated clients return the body as text, never
            # trying to decode the stream as one JSON document.
            "schema": {
                "anyOf": [{"type": "string"}, {"$ref": _REF.format(name="ServerSentEvent")}],
                "description": "The body is text: a stream of `ServerSentEvent` messages (read it as a "
                "stream: openapi-fetch `parseAs: \"stream\"`, httpx `stream()`).",
            },
            "example": 'id: 0\ndata: {"n":0,"type":"game_started","seat":null,"private_to":null,'
            '"data":{"players":2,"buildings":["blazing_quartz_mine","oracle_of_lumi","othos_lanternworks",'
            '"yedls_workshop"]}}\n\n: keep-alive\n\n',
        }
    },
}

DESCRIPTION = """\
A game-state service for the board game *Merchants of the Dark Road*.

Create a game (`POST /v1/games`) to get its id and one secret token per seat. Each
client then plays its seat with `Authorization: Bearer <seat token>`: read the view
(`GET /v1/games/{id}`), list the legal actions (`GET .../actions`) and submit one of
them unchanged (`POST .../actions`). Without a token, reads show the spectator view.

A game may leave seats `open` for strangers, who find it in `GET /v1/games?status=waiting`
and take a seat (and its token) with `POST .../seats/{seat}/join`; seats may be played by
bots; with a `turn_timeout`, a player who walks away is replaced by a bot until they
reclaim their seat. Bots play apart from requests: the answer to an action is the state
after that action, and the bots' moves arrive in the log and the stream like anyone's.

Every error is an RFC 9457 problem details object (`application/problem+json`) whose
`type` is a stable code (`illegal-action`, `stale-version`, `unknown-game`, ...).
Versions increase by one per applied action and are the `ETag`; send `If-Match` to act
only on the version you saw, and `Idempotency-Key` to retry safely.
"""


def _version() -> str:
    try:
        return metadata.version("darkroad")
    except metadata.PackageNotFoundError:
        return "0.0.0"


class DocumentPlugin(JsonRenderPlugin):
    """Serves the completed document at ``/schema/openapi.json``."""

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self._engine = engine
        self._rendered: bytes | None = None

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        if self._rendered is None:
            self._rendered = self.render_json(request, complete(openapi_schema, self._engine))
        return self._rendered


def openapi_config(engine: Engine) -> OpenAPIConfig:
    """The app's OpenAPI configuration."""
    return OpenAPIConfig(
        title="darkroad",
        version=_version(),
        description=DESCRIPTION,
        path="/schema",
        render_plugins=[DocumentPlugin(engine), SwaggerDocsPlugin()],
        use_handler_docstrings=True,
        components=Components(
            security_schemes={
                SECURITY_SCHEME: SecurityScheme(
                    type="http",
                    scheme="bearer",
                    description="A seat token from `POST /v1/games`: the caller plays that seat.",
                )
            }
        ),
        tags=[
            Tag(name="games", description="Create, view and play games."),
            Tag(name="catalog", description="The components this installation offers."),
            Tag(name="operations", description="Health, readiness and metrics."),
        ],
    )


def document(app: Litestar) -> dict[str, Any]:
    """The completed OpenAPI document of ``app`` (as served at ``/schema/openapi.json``)."""
    return complete(app.openapi_schema.to_schema(), app.state.engine)


def complete(generated: dict[str, Any], engine: Engine) -> dict[str, Any]:
    """``generated`` (Litestar's document) completed with the engine's types and the links."""
    doc = copy.deepcopy(generated)
    # The paths in one order whatever the order the controllers register their routes in:
    # the committed document's (written with sorted keys), so that what is served, the
    # committed file and the clients and fuzzers reading either list operations alike.
    doc["paths"] = dict(sorted(doc["paths"].items()))
    _complete_schemas(doc["components"]["schemas"], engine)
    _complete_paths(doc["paths"])
    _security(doc)
    doc["components"].setdefault("parameters", {})["AcceptLanguage"] = copy.deepcopy(ACCEPT_LANGUAGE)
    doc["components"].setdefault("headers", {}).update(copy.deepcopy(_LANGUAGE_HEADERS))
    _headers(doc["paths"])
    for operation, links in response_links().items():
        path, method, status = operation
        doc["paths"][path][method]["responses"][status]["links"] = links
    return doc


def _complete_schemas(schemas: dict[str, Any], engine: Engine) -> None:
    """The document's schemas completed: msgspec's exact ones of the bodies, the installed seat
    kinds' fields, the unions of actions and events, and the rules Litestar cannot express."""
    # msgspec's own schemas of the bodies are exact where Litestar's lose constraints; the
    # request that creates a game has the installed seat kinds' fields.
    seat_kinds = SeatKindSurface(engine.seat_kinds)
    models = tuple(seat_kinds.new_game if model is NewGame else model for model in MODELS)
    components = msgspec.json.schema_components(models, ref_template=_REF)[1]
    # A schema's description is its class's docstring: msgspec gives it as written before 0.23
    # and cleaned (``inspect.cleandoc``) since; cleaned here, so that the document is the same
    # whichever msgspec a fresh install gets.
    for schema in components.values():
        if "description" in schema:
            schema["description"] = inspect.cleandoc(schema["description"])
    schemas.update(components)
    seat_kinds.complete(schemas)
    for model in OPEN:
        schemas[model.__name__]["additionalProperties"] = True
    # Kinds are a closed set, but clients may index the catalogue by a kind they hold as text.
    schemas["CatalogComponents"]["additionalProperties"] = {"type": "array", "items": _ref("Component")}
    _add_union(schemas, "Action", engine.action_schema(), _ACTION_DESCRIPTION, data=False)
    _add_union(schemas, "Event", event_schema(engine), _EVENT_DESCRIPTION, data=True)
    schemas["ActionList"]["properties"]["actions"]["items"] = _ref("Action")
    schemas["EventPage"]["properties"]["events"]["items"] = _ref("Event")
    schemas["HistoryEntry"]["properties"]["events"]["items"] = _ref("Event")
    _restrict_choices(schemas, engine)
    # Where a seat kind may be asked for (from the catalogue of seat kinds); `seats` lists every
    # seat but the automated one.
    schemas["NewGame"]["not"] = {"anyOf": [*_seat_rule(seat_kinds), *_wrong_seat_counts(seat_kinds.kinds)]}
    _name_the_seat_union(schemas)
    for name in ("NewGame", "Variants"):
        _defaults_in_words(schemas[name])
    for schema in schemas.values():
        _any_json_object(schema)
    schemas["ServerSentEvent"] = copy.deepcopy(_SERVER_SENT_EVENT)
    schemas["EventMessage"] = copy.deepcopy(_EVENT_MESSAGE)


def _complete_paths(paths: dict[str, Any]) -> None:
    """The operations' bodies and parameters where Litestar's are not the API's."""
    paths["/v1/games"]["post"]["requestBody"] = {
        "required": True,
        "content": {"application/json": {"schema": _ref("NewGame")}},
    }
    paths[f"{_GAME}/seats/{{seat}}/leave"]["post"]["responses"]["204"] = {
        "description": "The seat is open again; its token no longer plays it."
    }
    for parameter in paths["/v1/games/import"]["post"]["parameters"]:
        if parameter["name"] == "at":
            # Litestar loses an optional parameter's bounds (`int | None`): absent is the default.
            parameter["schema"] = {"type": "integer", "minimum": 0, "maximum": parameter["schema"]["maximum"],
                                   "description": parameter["description"]}
    paths["/v1/games/import"]["post"]["requestBody"] = {
        "required": True,
        "description": "A game record, as `GET .../record` answers it.",
        "content": {"application/json": {"schema": _ref("GameRecord")}},
    }
    paths[f"{_GAME}/seats/{{seat}}/join"]["post"]["requestBody"] = {
        "required": True,
        "content": {"application/json": {"schema": _ref("JoinSeat")}},
    }
    paths[f"{_GAME}/seats/{{seat}}/webhook"]["put"]["requestBody"] = {
        "required": True,
        "content": {"application/json": {"schema": _ref("PutWebhook")}},
    }
    paths[f"{_GAME}/actions"]["post"]["requestBody"] = {
        "required": True,
        "description": "One action, as listed by `GET .../actions`.",
        "content": {"application/json": {"schema": _ref("Action")}},
    }
    paths[f"{_GAME}/stream"]["get"]["responses"]["200"] = copy.deepcopy(_STREAM_OK)
    for parameter in paths[f"{_GAME}/stream"]["get"]["parameters"]:
        if parameter["name"] == "Last-Event-ID":
            # A header is text: a string (not Litestar's nullable one), so generated clients send it.
            parameter["schema"] = {"type": "string", "pattern": LAST_EVENT_ID_PATTERN, "maxLength": 16,
                                   "description": parameter["description"]}


def event_schema(engine: Engine) -> dict[str, Any]:
    """The engine's union of events with the lobby's (``darkroad.api.app.lobby.EVENTS``) among the
    known ones, in the same shape."""
    union = copy.deepcopy(engine.event_schema())
    *known, open_variant = union["oneOf"]
    template = known[0]
    for kind, (description, fields) in lobby.EVENTS.items():
        data: dict[str, Any] = {"type": "object", "properties": copy.deepcopy(fields)}
        if fields:
            data["required"] = sorted(fields)
        properties = {**template["properties"], "type": {"type": "string", "const": kind}, "data": data}
        known.append({**template, "title": kind, "description": description, "properties": properties})
    known.sort(key=lambda variant: variant["properties"]["type"]["const"])
    excluded = open_variant["properties"]["type"]["not"]
    excluded["enum"] = sorted({*excluded["enum"], *lobby.EVENTS})
    # The tag that tells a plugin's event from a known one (darkroad.api.app.plugin_events).
    open_variant["properties"]["plugin"] = {
        "type": ["string", "null"],
        "description": "The fan plugin that documents this event type (null: none does). Only plugins' events "
        "have this member, so a typed client tells them from known events by it: in TypeScript "
        "`!(\"plugin\" in e)` narrows an `Event` to `KnownEvent`, whose `type` then narrows its `data`.",
    }
    open_variant["required"] = [*open_variant["required"], "plugin"]
    return {"oneOf": [*known, open_variant]}


def _wrong_seat_counts(kinds: tuple[SeatKind, ...]) -> list[dict[str, Any]]:
    """``seats`` of the wrong length (core's :func:`~darkroad.core.game_setup.seat_count`), for each
    number of players, with each seat kind asked for alone and with none (one case where the kinds
    change nothing): what ``NewGame.not`` refuses."""
    # Each case is flat (properties and required only): openapi-generator's Go client makes a
    # type of each ``anyOf`` branch, and a nested ``allOf``/``not`` in one left it undefined
    # (the client did not compile). "Without the automated seat" is the optional flag absent,
    # false or null (``enum``), not ``not`` of "present and true".
    wrong = []
    for players in (SOLO, *SIZES):
        cases = [{kind.id: True} for kind in kinds] + [{kind.id: False for kind in kinds}]
        counts = [seat_count(kinds, SetupRequest(players=players, seed=0, seat_kinds=when)) for when in cases]
        if len(set(counts)) == 1:
            cases, counts = [{}], counts[-1:]
        fields = {kind.id: kind.api_field for kind in kinds}
        for count, when in zip(counts, cases, strict=True):
            wrong.append({
                "required": ["players", "seats", *(fields[id_] for id_, value in when.items() if value)],
                "properties": {"players": {"const": players},
                               **{fields[id_]: {"const": True} if value else {"enum": [False, None]}
                                  for id_, value in when.items()},
                               "seats": {"not": {"minItems": count, "maxItems": count}}},
            })
    return wrong


def _name_the_seat_union(schemas: dict[str, Any]) -> None:
    """``NewGame.seats``' items as a named union, ``NewSeat``, discriminated by ``kind``."""
    seats = schemas["NewGame"]["properties"]["seats"]
    items = seats["items"]
    schemas["NewSeat"] = {
        "title": "NewSeat",
        "description": "One seat of a new game: `human` (the creator gets its token), `open` (a player joins "
        "it later) or `bot` (an installed bot plays it), by `kind`.",
        "oneOf": items["anyOf"],
        "discriminator": items["discriminator"],
    }
    seats["items"] = _ref("NewSeat")


_ACTION_DESCRIPTION = """\
An answer to the decision the game waits for, as `GET .../actions` lists it: submit it unchanged.

`type` tells the decision: one of the built-in types (`KnownAction`), or a fan plugin's own
step (`PluginAction`)."""

_EVENT_DESCRIPTION = """\
Something that happened in the game, as `GET .../log` and `GET .../stream` send it.

`type` tells what: one of the base installation's event types, each with its own `data`
(`KnownEvent`), or an event of a fan plugin, whose `data` is the plugin's (`PluginEvent`).
Expect new types: treat a type you do not know as a `PluginEvent`."""


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def _add_union(
    schemas: dict[str, Any], name: str, union: dict[str, Any], description: str, *, data: bool
) -> None:
    """Add the engine's tagged union ``union`` as named components.

    Each variant becomes ``<name><Type>`` (its ``data``, for events: ``<name><Type>Data``);
    the closed variants form ``Known<name>`` with a ``discriminator`` on ``type``; the open
    variant is ``Plugin<name>``; ``<name>`` is ``anyOf`` the two, known first. The open
    variant stays out of the discriminated union because its ``type`` is any other text,
    which a discriminator mapping cannot name (generators would tag it with its schema's
    name). ``anyOf``, not ``oneOf`` (the two exclude each other all the same): generators
    do not enforce the open variant's ``not`` and, with ``oneOf``, strict ones (Go) refuse a
    known event for matching both.
    """
    *known, open_variant = copy.deepcopy(union["oneOf"])
    mapping = {}
    for variant in known:
        tag = variant["properties"]["type"]["const"]
        component = f"{name}{_pascal(tag)}"
        if component in schemas:
            raise ValueError(f"the {name} type {tag!r} collides with the schema {component}")
        variant = {**variant, "title": component}
        if data:
            schemas[f"{component}Data"] = {
                "title": f"{component}Data",
                "description": f"The `data` of a `{tag}` event.",
                **variant["properties"]["data"],
            }
            variant["properties"] = {**variant["properties"], "data": _ref(f"{component}Data")}
        schemas[component] = variant
        mapping[tag] = _REF.format(name=component)
    plugin = f"Plugin{name}"
    schemas[plugin] = {**open_variant, "title": plugin}
    schemas[f"Known{name}"] = {
        "title": f"Known{name}",
        "description": f"The {name.lower()}s of the base installation, tagged by `type`.",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    schemas[name] = {
        "title": name,
        "description": description,
        "anyOf": [_ref(f"Known{name}"), _ref(plugin)],
    }


def _defaults_in_words(schema: dict[str, Any]) -> None:
    """Move request defaults into the descriptions: openapi-typescript makes a property with a
    ``default`` required in a named schema, and clients must be free to leave it out."""
    for prop in schema["properties"].values():
        if "default" in prop:
            default = prop.pop("default")
            words = f"Default: `{json.dumps(default)}`."
            prop["description"] = f"{prop['description']} {words}" if prop.get("description") else words


def _any_json_object(schema: Any) -> None:
    """``{"type": "object"}`` without members (msgspec's ``dict[str, Any]``) accepts any JSON
    object: say so, or generators type it as an empty object."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" and "properties" not in schema and "additionalProperties" not in schema:
            schema["additionalProperties"] = True
        for value in schema.values():
            _any_json_object(value)
    elif isinstance(schema, list):
        for value in schema:
            _any_json_object(value)


_READS = ("getGame", "listActions", "getLog", "streamEvents", "getScore")


_ACTS = ("submitAction", "undoAction", "leaveSeat", "timeoutSeat", "reclaimSeat", "putSeatWebhook", "getSeatWebhook",
         "deleteSeatWebhook")
"""Operations that need a seat token."""


def _security(doc: dict[str, Any]) -> None:
    """Reads take a seat token or none (the document's default); acting (and leaving, timing
    out and reclaiming a seat, and managing its webhook) needs one; the rest none.

    Reads inherit the document-level requirement instead of repeating it, so generators that
    demand a credentialed client for any operation with its own ``security`` (openapi-python-client)
    let spectators call them with a plain one.
    """
    doc["security"] = [{}, {SECURITY_SCHEME: []}]
    for item in doc["paths"].values():
        for method, operation in item.items():
            if method not in _METHODS:
                continue
            if operation["operationId"] in _READS:
                operation.pop("security", None)
            elif operation["operationId"] not in _ACTS:
                operation["security"] = []


_METHODS = ("get", "put", "post", "delete", "patch", "options", "head")
_PROBLEM_CODE = re.compile(r"^- `([a-z-]+)`:", re.MULTILINE)
_VARY = {
    "Vary": {
        "description": "`Authorization, Accept-Language`: the answer depends on the caller's seat token "
                       "and language.",
        "required": True,
        "schema": {"type": "string"},
    }
}
_LANGUAGE_HEADERS = {
    "Content-Language": {
        "description": "The language of the answer's texts (`en` or `hu`), negotiated from `Accept-Language`.",
        "required": True,
        "schema": {"type": "string", "enum": list(LOCALES)},
    },
    "Vary": {
        "description": "`Accept-Language` (with the route's own, e.g. `Authorization`): the answer's texts "
                       "are in the caller's language.",
        "required": True,
        "schema": {"type": "string"},
    },
}
_LANGUAGE_REFS = {name: {"$ref": f"#/components/headers/{name}"} for name in _LANGUAGE_HEADERS}
ACCEPT_LANGUAGE = {
    "name": "Accept-Language",
    "in": "header",
    "required": False,
    "description": "The languages the caller reads, as RFC 9110 section 12.5.4 says (`hu-HU,hu;q=0.9,en;q=0.8`). "
                   "darkroad speaks `en` (the default) and `hu` (in the words of the published Hungarian "
                   "edition): action labels, decision prompts, the catalogue's names and texts, problem "
                   "`title` and `detail`. Types, ids, options, problem `type` URIs and every other "
                   "machine-readable field are the same in every language. A header naming no language "
                   "darkroad speaks, or a malformed one, is answered in English.",
    # Any text: a header darkroad cannot read is answered in English, never refused (no maxLength).
    "schema": {"type": "string"},
}


def _headers(paths: dict[str, Any]) -> None:
    """Document the headers every response sends: ``Content-Language`` and ``Vary`` on every
    answer (``Accept-Language`` on every operation), and those of the problem types
    (``WWW-Authenticate`` on a 401, ``ETag`` on a stale version, ...)."""
    for item in paths.values():
        for method, operation in item.items():
            if method not in _METHODS:
                continue
            operation.setdefault("parameters", []).append({"$ref": "#/components/parameters/AcceptLanguage"})
            for status, response in operation["responses"].items():
                headers = {**_LANGUAGE_REFS, **response.get("headers", {})}
                if operation["operationId"] in _VARIES and status in ("200", "304"):
                    headers.update(_VARY)
                if status == "304":
                    headers.update(_ETAG)
                headers.update(_problem_headers(_PROBLEM_CODE.findall(response.get("description", ""))))
                if headers:
                    response["headers"] = headers


_VARIES = ("getGame", "listActions", "getLog", "submitAction", "timeoutSeat", "reclaimSeat")
_ETAG = {"ETag": {"description": 'The game\'s version as an entity tag, e.g. `"12"`.', "required": True,
                  "schema": {"type": "string"}}}


def _problem_headers(codes: list[str]) -> dict[str, Any]:
    """The headers of a response answering with the problem types ``codes``: required when
    every one of them sends it."""
    headers: dict[str, Any] = {}
    for code in codes:
        for name, description in PROBLEM_TYPES[code].headers.items():
            sent_by = [c for c in codes if name in PROBLEM_TYPES[c].headers]
            always = len(sent_by) == len(codes)
            headers[name] = {
                "description": description if always else f"{description} (`{'`, `'.join(sent_by)}`)",
                "required": always,
                "schema": {"type": "string"},
            }
    return headers


def _ref(name: str) -> dict[str, str]:
    return {"$ref": _REF.format(name=name)}


def _seat_rule(seat_kinds: SeatKindSurface) -> list[dict[str, Any]]:
    """What ``NewGame`` never allows, derived from the installed seat kinds (their game sizes):
    a seat kind's field true with a ``players`` it does not take (2: its solo game is
    ``players: 1``), or false with ``players: 1`` (solo is against a seat kind)."""
    never = []
    for kind in seat_kinds.kinds:
        field = kind.api_field
        for n in refused_sizes(kind):
            never.append({"required": ["players", field],
                          "properties": {"players": {"const": n}, field: {"const": True}}})
        never.append({"required": ["players", field],
                      "properties": {"players": {"const": SOLO}, field: {"const": False}}})
    return never


def _restrict_choices(schemas: dict[str, Any], engine: Engine) -> None:
    """Name the building, companion and bot ids of this installation in the ``NewGame`` schema.

    ``buildings`` is empty or :data:`~darkroad.core.configs.BUILDING_SPACES` different ids, at most
    one side of each double-sided tile (core's rules: :func:`~darkroad.core.configs.building_problems`).
    """
    properties = schemas["NewGame"]["properties"]
    bots = sorted(engine.bots)
    for bot in (schemas["BotSeat"]["properties"]["bot"], properties["timeout_bot"]):
        bot["enum"] = bots
    components = engine.catalog()
    buildings = sorted(c["id"] for c in components if c["kind"] == "building")
    companions = sorted(c["id"] for c in components if c["kind"] == "companion")
    # Generators type an ``anyOf`` of bare constraints as ``unknown`` but skip a ``not``: so the
    # constraints say what is never allowed, in one ``not``: 1-3 ids, or both sides of a tile.
    never: list[dict[str, Any]] = [{"minItems": 1, "maxItems": BUILDING_SPACES - 1}]
    never += sorted(
        ({"allOf": [{"contains": {"const": a}}, {"contains": {"const": b}}]}
         for sides in tile_clashes(engine, buildings)
         for a, b in itertools.combinations(sides, 2)),
        key=repr,
    )
    buildings_schema = properties["buildings"]
    buildings_schema["items"] = {"type": "string", "enum": buildings}
    buildings_schema["uniqueItems"] = True
    buildings_schema["maxItems"] = BUILDING_SPACES
    buildings_schema["not"] = {"anyOf": never}
    properties["companions"]["items"] = {"type": "string", "enum": companions}
    properties["companions"]["uniqueItems"] = True
