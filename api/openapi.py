"""The OpenAPI document: Litestar's, completed with what only the engine knows.

Litestar generates the document from the routes; the bodies' schemas are msgspec's own
(exact where Litestar's lose constraints). The engine contributes what only it knows:
the ``Action`` union (``oneOf`` the decision types, tagged by ``type``) and the ``Event``
schema, from ``Engine.action_schema()`` / ``Engine.event_schema()``, and the building and
companion ids a game may choose (which depend on the installed plugins). Links (create →
view / actions / act / log / score, legal actions → act) let clients and stateful
fuzzers follow a game from its creation.

The committed ``openapi/openapi.json`` is this document for the base installation
(``darkroad openapi --output openapi/openapi.json``); a test fails when
they differ.
"""

from __future__ import annotations

import copy
import itertools
from importlib import metadata
from typing import Any

import msgspec
from litestar import Litestar, Request
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme, Tag

from darkroad.api.schemas import MODELS
from darkroad.core import Engine

SECURITY_SCHEME = "seatToken"
_REF = "#/components/schemas/{name}"
_GAME = "/v1/games/{game_id}"

_SERVER_SENT_EVENT = {
    "description": "One server-sent event (as OpenAPI 3.1 describes event streams: the schema of each event).",
    "type": "object",
    "required": ["id", "data"],
    "properties": {
        "id": {"type": "string", "pattern": "^[0-9]+$", "description": "The event's `n`: resume after it."},
        "event": {"type": "string", "const": "message"},
        "data": {
            "type": "string",
            "description": "The event, as JSON.",
            "contentMediaType": "application/json",
            "contentSchema": {"$ref": _REF.format(name="Event")},
        },
    },
}

DESCRIPTION = """\
A game-state service for the board game *Merchants of the Dark Road*.

Create a game (`POST /v1/games`) to get its id and one secret token per seat. Each
client then plays its seat with `Authorization: Bearer <seat token>`: read the view
(`GET /v1/games/{id}`), list the legal actions (`GET .../actions`) and submit one of
them unchanged (`POST .../actions`). Without a token, reads show the spectator view.

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
        render_plugins=[DocumentPlugin(engine)],
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
    schemas = doc["components"]["schemas"]
    # msgspec's own schemas of the bodies are exact where Litestar's lose constraints.
    schemas.update(msgspec.json.schema_components(MODELS, ref_template=_REF)[1])
    schemas["Action"] = engine.action_schema()
    schemas["Event"] = engine.event_schema()
    schemas["ActionList"]["properties"]["actions"]["items"] = _ref("Action")
    schemas["EventPage"]["properties"]["events"]["items"] = _ref("Event")
    _restrict_choices(schemas["NewGame"]["properties"], engine)
    # The Private Concern plays solo (players: 1) or fills a seat of 3-4: never with 2.
    schemas["NewGame"]["not"] = {"anyOf": [
        {"required": ["players", "private_concern"],
         "properties": {"players": {"const": 2}, "private_concern": {"const": True}}},
        {"required": ["players", "private_concern"],
         "properties": {"players": {"const": 1}, "private_concern": {"const": False}}},
    ]}

    paths = doc["paths"]
    paths["/v1/games"]["post"]["requestBody"] = {
        "required": True,
        "content": {"application/json": {"schema": _ref("NewGame")}},
    }
    paths[f"{_GAME}/actions"]["post"]["requestBody"] = {
        "required": True,
        "description": "One action, as listed by `GET .../actions`.",
        "content": {"application/json": {"schema": _ref("Action")}},
    }
    paths[f"{_GAME}/stream"]["get"]["responses"]["200"] = {
        "description": "Server-sent events, one per game event; comments are heartbeats.",
        "content": {"text/event-stream": {"schema": _SERVER_SENT_EVENT}},
    }
    for operation, links in _links().items():
        path, method, status = operation
        paths[path][method]["responses"][status]["links"] = links
    return doc


def _links() -> dict[tuple[str, str, str], dict[str, Any]]:
    """Where a response leads: create → the game's operations; legal actions → act; act → next."""
    created = {"game_id": "$response.body#/id"}
    same = {"game_id": "$request.path.game_id"}

    def link(operation_id: str, parameters: dict[str, str], description: str, **extra: Any) -> dict[str, Any]:
        return {"operationId": operation_id, "parameters": parameters, "description": description, **extra}

    return {
        ("/v1/games", "post", "201"): {
            "getGame": link("getGame", created, "View the new game."),
            "listActions": link("listActions", created, "The legal actions of a seat of the new game."),
            "submitAction": link("submitAction", created, "Act in the new game (with a seat token)."),
            "getLog": link("getLog", created, "The new game's event log."),
            "getScore": link("getScore", created, "The new game's final score (once finished)."),
        },
        (f"{_GAME}/actions", "get", "200"): {
            "submitFirstAction": link(
                "submitAction",
                same,
                "Submit the first legal action (with the same seat token).",
                requestBody="$response.body#/actions/0",
            ),
        },
        (f"{_GAME}/actions", "post", "200"): {
            "listActions": link("listActions", same, "The next legal actions."),
            "getGame": link("getGame", same, "View the game."),
            "getLog": link("getLog", same, "The events so far."),
        },
    }


def _ref(name: str) -> dict[str, str]:
    return {"$ref": _REF.format(name=name)}


def _restrict_choices(properties: dict[str, Any], engine: Engine) -> None:
    """Name the building and companion ids of this installation in the ``NewGame`` schema.

    ``buildings`` is empty or 4 different ids, at most one side of each double-sided tile.
    """
    components = engine.catalog()
    buildings = sorted(c["id"] for c in components if c["kind"] == "building")
    companions = sorted(c["id"] for c in components if c["kind"] == "companion")
    tiles: dict[Any, list[str]] = {}
    for component in components:
        if component["kind"] == "building" and component["data"].get("tile") is not None:
            tiles.setdefault(component["data"]["tile"], []).append(component["id"])
    one_side = [
        {"not": {"allOf": [{"contains": {"const": a}}, {"contains": {"const": b}}]}}
        for sides in tiles.values()
        for a, b in itertools.combinations(sorted(sides), 2)
    ]
    four: dict[str, Any] = {"minItems": 4, "maxItems": 4}
    if one_side:
        four["allOf"] = sorted(one_side, key=repr)
    buildings_schema = properties["buildings"]
    buildings_schema.pop("maxItems", None)
    buildings_schema["items"] = {"type": "string", "enum": buildings}
    buildings_schema["uniqueItems"] = True
    buildings_schema["anyOf"] = [{"maxItems": 0}, four]
    properties["companions"]["items"] = {"type": "string", "enum": companions}
