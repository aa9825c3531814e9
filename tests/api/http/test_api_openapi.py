"""The OpenAPI document: committed, complete, valid, and what the app serves."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from apiutil import serve
from litestar import Litestar

from darkroad.api.app.lobby import EVENTS as LOBBY_EVENTS
from darkroad.api.cli import openapi_document
from darkroad.api.http.openapi import document, event_schema
from darkroad.api.http.problems import PROBLEM_MEDIA_TYPE, PROBLEM_TYPES
from darkroad.api.settings import Settings
from darkroad.core import Engine

# What this module tests is the HTTP layer's (the store holds what every other game's does): in
# memory and on one Redis, not on the Cluster and the Sentinels too (tests/api/conftest.py's STORES).
# On one worker under --dist loadgroup: doc() (the document generated from an app) is a module
# fixture, made once per worker that runs one of the module's tests.
pytestmark = [pytest.mark.stores("memory", "redis"), pytest.mark.xdist_group("api-openapi-document")]

COMMITTED = Path(__file__).parents[3] / "openapi" / "openapi.json"
METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return openapi_document(builtin_only=True)


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, op)
        for path, item in doc["paths"].items()
        for method, op in item.items()
        if method in METHODS
    ]


def test_committed_document_is_current(doc: dict[str, Any]) -> None:
    generated = json.dumps(doc, indent=2, sort_keys=True) + "\n"
    assert COMMITTED.read_text(encoding="utf-8") == generated, (
        "openapi/openapi.json is stale: run `darkroad openapi --output openapi/openapi.json`"
    )


def test_document_is_valid_openapi(doc: dict[str, Any]) -> None:
    validator = pytest.importorskip("openapi_spec_validator")
    validator.validate(doc)


async def test_app_serves_the_document(client: httpx.AsyncClient, app: Litestar) -> None:
    response = await client.get("/schema/openapi.json")
    assert response.status_code == 200
    assert response.json() == json.loads(json.dumps(document(app)))


def test_every_operation_is_named_tagged_and_documents_its_errors(doc: dict[str, Any]) -> None:
    ids = [op["operationId"] for _, _, op in operations(doc)]
    assert len(ids) == len(set(ids)) == 23
    for path, method, op in operations(doc):
        assert op["tags"], (method, path)
        assert op.get("summary") and op.get("description"), (method, path)
        assert "500" in op["responses"], (method, path)
        for status, response in op["responses"].items():
            if status >= "400":
                assert list(response["content"]) == [PROBLEM_MEDIA_TYPE], (method, path, status)


def test_every_problem_type_is_documented(doc: dict[str, Any]) -> None:
    text = json.dumps(doc["paths"])
    undocumented = [code for code in PROBLEM_TYPES if f"`{code}`" not in text and code != "not-found"]
    assert undocumented == ["method-not-allowed"]  # answered by routing, for methods no operation has


def _component(doc: dict[str, Any], ref: str) -> dict[str, Any]:
    schema: dict[str, Any] = doc["components"]["schemas"][ref.rsplit("/", 1)[1]]
    return schema


@pytest.mark.parametrize("name", ["Action", "Event"])
def test_actions_and_events_are_the_engines_unions(doc: dict[str, Any], engine: Engine, name: str) -> None:
    """``Action``/``Event`` are the engine's unions as named components: ``Known<name>`` (its
    variants, discriminated by ``type``) or ``Plugin<name>`` (the open variant); the events
    include the lobby's, in the same shape."""
    schemas = doc["components"]["schemas"]
    union = engine.action_schema() if name == "Action" else event_schema(engine)
    *known, open_variant = union["oneOf"]
    assert schemas[name]["anyOf"] == [{"$ref": f"#/components/schemas/Known{name}"},
                                      {"$ref": f"#/components/schemas/Plugin{name}"}]
    discriminator = schemas[f"Known{name}"]["discriminator"]
    assert discriminator["propertyName"] == "type"
    assert list(discriminator["mapping"]) == [variant["properties"]["type"]["const"] for variant in known]
    assert schemas[f"Known{name}"]["oneOf"] == [{"$ref": ref} for ref in discriminator["mapping"].values()]
    for variant in known:
        component = dict(_component(doc, discriminator["mapping"][variant["properties"]["type"]["const"]]))
        if name == "Event":
            data = _component(doc, component["properties"]["data"]["$ref"])
            assert {k: v for k, v in data.items() if k not in ("title", "description")} == \
                variant["properties"]["data"]
            component["properties"] = {**component["properties"], "data": variant["properties"]["data"]}
        assert {**component, "title": variant["title"]} == variant
    assert {**schemas[f"Plugin{name}"], "title": open_variant["title"]} == open_variant
    if name == "Event":
        engines = [variant["properties"]["type"]["const"] for variant in engine.event_schema()["oneOf"][:-1]]
        assert sorted(discriminator["mapping"]) == sorted([*engines, *LOBBY_EVENTS])
        assert set(LOBBY_EVENTS) <= set(open_variant["properties"]["type"]["not"]["enum"])


def test_bodies_name_the_unions(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    act = doc["paths"]["/v1/games/{game_id}/actions"]["post"]
    assert act["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Action"
    }
    assert schemas["ActionList"]["properties"]["actions"]["items"] == {"$ref": "#/components/schemas/Action"}
    assert schemas["EventPage"]["properties"]["events"]["items"] == {"$ref": "#/components/schemas/Event"}


def _walk(schema: Any, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every (location, sub-schema) of ``schema``, except what a ``not`` excludes."""
    if isinstance(schema, dict):
        yield where, schema
        for key, value in schema.items():
            if key != "not":
                yield from _walk(value, f"{where}/{key}")
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            yield from _walk(value, f"{where}/{i}")


def test_schemas_are_named_typed_and_tagged(doc: dict[str, Any]) -> None:
    """What generators need: each component titled by its (unique) name; every object typed
    (members, a typed map, or explicitly any JSON); no union of untyped branches; every union
    of ``type``-tagged variants with a discriminator."""
    schemas = doc["components"]["schemas"]
    assert [name for name, schema in schemas.items() if schema.get("title") != name] == []
    problems = []
    for where, schema in _walk(schemas, "#/components/schemas"):
        if schema.get("type") == "object" and "properties" not in schema and "additionalProperties" not in schema:
            problems.append(f"{where}: an object without members")
        for key in ("oneOf", "anyOf"):
            branches = schema.get(key, [])
            if isinstance(branches, list) and any(
                not {"type", "$ref", "const", "enum", "oneOf", "anyOf"} & set(branch) for branch in branches
            ):
                problems.append(f"{where}: a {key} branch without a type")
            tagged = [branch for branch in branches if isinstance(branch, dict) and "$ref" in branch
                      and "const" in _component(doc, branch["$ref"]).get("properties", {}).get("type", {})]
            if len(tagged) > 1 and "discriminator" not in schema:
                problems.append(f"{where}: a union of tagged variants without a discriminator")
    assert not problems, problems


def test_request_fields_have_no_defaults(doc: dict[str, Any]) -> None:
    """openapi-typescript makes a property with a ``default`` required: request defaults are
    said in words, so a client may leave those fields out."""
    for name in ("NewGame", "Variants"):
        schema = doc["components"]["schemas"][name]
        assert all("default" not in prop for prop in schema["properties"].values()), name
        assert schema.get("required", []) == (["players"] if name == "NewGame" else [])
    assert "Default: `false`." in doc["components"]["schemas"]["Variants"]["properties"]["drafting"]["description"]


def test_round_and_score_are_described(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    assert schemas["GameView"]["properties"]["round"].items() >= {"minimum": 0, "maximum": 13}.items()
    line = schemas["ScoreLine"]
    assert set(line["required"]) == set(line["properties"])  # one shape: every field, always
    assert all(prop.get("description") for name, prop in line["properties"].items() if name != "seat")
    assert "`total = base + deed_vp + illuminated_vp + goods_vp + quartz_vp`" in line["description"]
    assert "`base = min(coins, prestige)`" in line["description"]
    assert schemas["FinalScore"]["properties"]["score"]["items"] == {"$ref": "#/components/schemas/ScoreLine"}


def test_security(doc: dict[str, Any]) -> None:
    """Reads take a seat token or none (the document's default, inherited: generators then let
    spectators call them without credentials); acting needs one; the rest take none."""
    assert doc["components"]["securitySchemes"]["seatToken"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "A seat token from `POST /v1/games`: the caller plays that seat.",
    }
    assert doc["security"] == [{}, {"seatToken": []}]
    security = {op["operationId"]: op.get("security") for _, _, op in operations(doc)}
    for acting in ("submitAction", "undoAction", "leaveSeat", "timeoutSeat", "reclaimSeat", "putSeatWebhook",
                   "getSeatWebhook", "deleteSeatWebhook"):
        assert security.pop(acting) == [{"seatToken": []}], acting
    reads = ["getGame", "listActions", "getLog", "streamEvents", "getScore"]
    assert [security.pop(read) for read in reads] == [None] * len(reads)
    assert all(value == [] for value in security.values()), security


def test_links(doc: dict[str, Any]) -> None:
    links = doc["paths"]["/v1/games"]["post"]["responses"]["201"]["links"]
    assert {link["operationId"] for link in links.values()} >= {"getGame", "listActions", "submitAction", "joinSeat"}
    assert all(link["parameters"]["game_id"] == "$response.body#/id" for link in links.values())
    assert links["joinSeat"]["parameters"]["seat"] == "$response.body#/open_seats/0"
    joined = doc["paths"]["/v1/games/{game_id}/seats/{seat}/join"]["post"]["responses"]["201"]["links"]
    assert {link["operationId"] for link in joined.values()} >= {"listActions", "getGame", "leaveSeat"}
    listed = doc["paths"]["/v1/games"]["get"]["responses"]["200"]["links"]
    assert listed["joinSeat"]["parameters"] == {
        "game_id": "$response.body#/games/0/id", "seat": "$response.body#/games/0/open_seats/0"}


def test_new_game_names_this_installations_components(doc: dict[str, Any], engine: Engine) -> None:
    buildings = doc["components"]["schemas"]["NewGame"]["properties"]["buildings"]
    ids = sorted(c["id"] for c in engine.catalog() if c["kind"] == "building" and c["plugin"])
    assert set(buildings["items"]["enum"]) <= set(ids)
    assert buildings["not"]["anyOf"][0] == {"minItems": 1, "maxItems": 3}  # none or 4


# Transport headers every response may carry, which OpenAPI does not describe per response.
_TRANSPORT = {"content-type", "content-length", "transfer-encoding", "connection", "date", "server"}


async def test_every_header_sent_is_documented(doc: dict[str, Any], make_app: Any) -> None:
    """Each header of each answer (successes, 304, every kind of error) is documented for that
    operation and status; each documented required header is sent."""
    app = make_app(Settings(stream_heartbeat=0.05, stream_max_duration=0.2))
    seen: list[tuple[str, str, httpx.Response]] = []
    async with serve(app) as client:

        async def call(method: str, path: str, template: str, **kwargs: Any) -> httpx.Response:
            response = await client.request(method, path, **kwargs)
            seen.append((method.lower(), template, response))
            return response

        game = "/v1/games/{game_id}"
        created = (await call("POST", "/v1/games", "/v1/games", json={"players": 2, "seed": 3})).json()
        await call("POST", "/v1/games", "/v1/games", json={"players": 9})
        await call("POST", "/v1/games", "/v1/games", json={"players": 2, "buildings": ["a", "b", "c", "d"]})
        url = f"/v1/games/{created['id']}"
        tokens = [f"Bearer {seat['token']}" for seat in created["seats"]]
        view = await call("GET", url, game, headers={"Authorization": tokens[0]})
        await call("GET", url, game, headers={"If-None-Match": view.headers["ETag"]})
        await call("GET", url, game, headers={"Authorization": "Bearer nope"})
        await call("GET", "/v1/games/AAAAAAAAAAAAAAAAAAAAAA", game)
        await call("GET", "/v1/games/x", game)
        seat = view.json()["awaiting"][0]
        actions = (await call("GET", f"{url}/actions", f"{game}/actions",
                              headers={"Authorization": tokens[seat]})).json()["actions"]
        act = {"Authorization": tokens[seat], "Idempotency-Key": "k1"}
        await call("POST", f"{url}/actions", f"{game}/actions", json=actions[0], headers={"If-Match": '"7"', **act})
        await call("POST", f"{url}/actions", f"{game}/actions", json=actions[0])
        await call("POST", f"{url}/actions", f"{game}/actions", json=actions[0],
                   headers={"Authorization": tokens[1 - seat]})
        await call("POST", f"{url}/actions", f"{game}/actions", json={**actions[0], "option": "nope"}, headers=act)
        await call("POST", f"{url}/actions", f"{game}/actions", json={"type": 1}, headers=act)
        await call("POST", f"{url}/actions", f"{game}/actions", json=actions[0], headers=act)
        await call("POST", f"{url}/actions", f"{game}/actions", json=actions[0], headers=act)  # replayed
        await call("GET", f"{url}/log", f"{game}/log", headers={"Authorization": tokens[0]})
        await call("GET", f"{url}/log", f"{game}/log", params={"after": -5})
        await call("GET", f"{url}/score", f"{game}/score")
        await call("GET", f"{url}/stream", f"{game}/stream")
        for path in ("/v1/catalog", "/healthz", "/readyz", "/metrics"):
            await call("GET", path, path)

    statuses = set()
    problems = []
    for method, template, response in seen:
        status = str(response.status_code)
        statuses.add((method, template, status))
        documented = doc["paths"][template][method]["responses"].get(status)
        assert documented is not None, (method, template, status)
        headers = {name.lower(): spec for name, spec in documented.get("headers", {}).items()}
        sent = {name.lower() for name in response.headers} - _TRANSPORT
        problems += [f"{method} {template} {status}: `{name}` sent, not documented" for name in sent - set(headers)]
        problems += [f"{method} {template} {status}: `{name}` documented as required, not sent"
                     for name, spec in headers.items() if spec.get("required") and name not in sent]
    assert not problems, problems
    assert {status for _, _, status in statuses} >= {"200", "201", "304", "400", "401", "403", "404", "409", "422"}


def test_plugin_events_carry_the_tag_known_events_never_do(doc: dict[str, Any], engine: Engine) -> None:
    """A fan plugin's event carries ``plugin`` (PluginEvent requires it), a known event never does:
    so a typed client narrows ``Event`` to ``KnownEvent`` by it (tests/api/ts/contract.ts)."""
    from jsonschema import Draft202012Validator

    from darkroad.api.app.plugin_events import event_payload, known_event_types
    from darkroad.core import Event

    known = {variant["$ref"].rsplit("/", 1)[1] for variant in doc["components"]["schemas"]["KnownEvent"]["oneOf"]}
    assert len(known) == len(known_event_types(engine))
    validator = Draft202012Validator({**doc, "$ref": "#/components/schemas/Event"})
    fan = json.loads(event_payload(engine, Event(n=7, type="lamps_lit", seat=1, data={"lamps": 2}), known_event_types(engine)))
    assert fan == {"n": 7, "type": "lamps_lit", "seat": 1, "private_to": None, "data": {"lamps": 2}, "plugin": None}
    validator.validate(fan)
    assert "plugin" in doc["components"]["schemas"]["PluginEvent"]["required"]
    joined = json.loads(event_payload(engine, Event(n=8, type="round_ended", data={"round": 2}), known_event_types(engine)))
    assert "plugin" not in joined
    validator.validate(joined)
    assert not validator.is_valid({k: v for k, v in fan.items() if k != "plugin"})
