"""Bounded input: every string and list a request body may carry has a documented maximum,
the server enforces it, and what a client chooses freely (an action's label) is not stored.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from apiutil import awaited_seat, create_game, legal
from litestar import Litestar

from darkroad.api.http.setup_schemas import MAX_COMPANIONS, MAX_COMPONENT_ID
from darkroad.core import Engine, hookimpl
from darkroad.core.actions import MAX_LABEL_LENGTH, MAX_OPTION_LENGTH, MAX_TYPE_LENGTH
from darkroad.core.errors import PluginError

# What this module tests is the HTTP layer's (the store holds what every other game's does): in
# memory and on one Redis, not on the Cluster and the Sentinels too (tests/api/conftest.py's STORES).
pytestmark = pytest.mark.stores("memory", "redis")

DOCUMENT = json.loads((Path(__file__).parents[3] / "openapi" / "openapi.json").read_text())
PROBLEM = "application/problem+json"


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        schema = DOCUMENT["components"]["schemas"][name]
    return schema


def unbounded(schema: dict[str, Any], path: str, seen: set[str]) -> list[str]:
    """Where a string without ``maxLength`` (or a fixed set of values) or an array without
    ``maxItems`` can occur in ``schema`` (``not`` subschemas describe what is refused)."""
    if "$ref" in schema:
        if schema["$ref"] in seen:
            return []
        seen = seen | {schema["$ref"]}
    schema = _resolve(schema)
    found = []
    kinds = schema.get("type", [])
    kinds = kinds if isinstance(kinds, list) else [kinds]
    fixed = "enum" in schema or "const" in schema
    if "string" in kinds and "maxLength" not in schema and not fixed:
        found.append(path)
    if "array" in kinds and "maxItems" not in schema and not fixed:
        found.append(path + "[]")
    for key in ("oneOf", "anyOf", "allOf"):
        for i, sub in enumerate(schema.get(key, [])):
            found += unbounded(sub, f"{path}<{key}{i}>", seen)
    for name, sub in schema.get("properties", {}).items():
        found += unbounded(sub, f"{path}.{name}", seen)
    if isinstance(schema.get("items"), dict):
        found += unbounded(schema["items"], path + "[]", seen)
    if isinstance(schema.get("additionalProperties"), dict):
        found += unbounded(schema["additionalProperties"], path + ".*", seen)
        if "maxProperties" not in schema:
            found.append(path + "{}")
    return found


def test_every_request_string_and_list_has_a_documented_maximum() -> None:
    bodies = [
        (f"{method.upper()} {path}", content["schema"])
        for path, item in DOCUMENT["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict) and "requestBody" in operation
        for content in operation["requestBody"]["content"].values()
    ]
    assert {label for label, _ in bodies} == {
        "POST /v1/games", "POST /v1/games/{game_id}/actions", "POST /v1/games/{game_id}/seats/{seat}/join",
        "POST /v1/games/import", "PUT /v1/games/{game_id}/seats/{seat}/webhook"}
    for label, schema in bodies:
        assert unbounded(schema, "$", set()) == [], label


def properties_named(schema: dict[str, Any], name: str, seen: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """Every schema of a property ``name`` anywhere in ``schema``."""
    if "$ref" in schema:
        if schema["$ref"] in seen:
            return []
        seen = seen | {schema["$ref"]}
    schema = _resolve(schema)
    found = [sub for key, sub in schema.get("properties", {}).items() if key == name]
    for key in ("oneOf", "anyOf", "allOf"):
        for sub in schema.get(key, []):
            found += properties_named(sub, name, seen)
    return found


def test_the_document_names_the_enforced_maxima() -> None:
    schemas = DOCUMENT["components"]["schemas"]
    companions = schemas["NewGame"]["properties"]["companions"]
    assert companions["maxItems"] == MAX_COMPANIONS and companions["uniqueItems"] is True
    action = schemas["Action"]
    for name, limit in (("option", MAX_OPTION_LENGTH), ("label", MAX_LABEL_LENGTH), ("type", MAX_TYPE_LENGTH)):
        found = properties_named(action, name)
        assert found, name
        for schema in found:
            schema = _resolve(schema)
            assert "const" in schema or schema["maxLength"] == limit, (name, schema)


def _problem(response: httpx.Response, status: int, kind: str) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    assert response.json()["type"] == kind
    return str(response.json()["detail"])


@pytest.mark.parametrize(
    ("field", "limit"), [("type", MAX_TYPE_LENGTH), ("option", MAX_OPTION_LENGTH), ("label", MAX_LABEL_LENGTH)]
)
async def test_action_strings_are_bounded(client: httpx.AsyncClient, field: str, limit: int) -> None:
    game = await create_game(client)
    seat = await awaited_seat(client, game)
    action = {**(await legal(client, game, seat))[0], field: "x" * (limit + 1)}
    response = await client.post(f"{game.url}/actions", json=action, headers=game.auth(seat))
    assert f"@ $.{field}" in _problem(response, 422, "bad-action")
    assert (await client.get(game.url)).json()["version"] == game.version


async def test_labels_are_not_stored(client: httpx.AsyncClient, app: Litestar) -> None:
    game = await create_game(client)
    seat = await awaited_seat(client, game)
    action = {**(await legal(client, game, seat))[0], "label": "y" * MAX_LABEL_LENGTH}
    response = await client.post(f"{game.url}/actions", json=action, headers=game.auth(seat))
    assert response.status_code == 200, response.text
    stored = [json.loads(raw) for raw in await app.state.service.store.actions(game.id)]
    assert stored[-1]["option"] == action["option"] and not stored[-1].get("label")


async def test_companions_are_bounded_and_unique(client: httpx.AsyncClient, engine: Engine) -> None:
    companion = next(c["id"] for c in engine.catalog() if c["kind"] == "companion")
    twice = await client.post("/v1/games", json={"players": 2, "companions": [companion, companion]})
    assert companion in _problem(twice, 400, "bad-request")
    many = await client.post("/v1/games", json={"players": 2, "companions": [companion] * 3000})
    _problem(many, 400, "bad-request")
    too_many = [f"c{i}" for i in range(MAX_COMPANIONS + 1)]
    _problem(await client.post("/v1/games", json={"players": 2, "companions": too_many}), 400, "bad-request")
    long_id = "c" * (MAX_COMPONENT_ID + 1)
    _problem(await client.post("/v1/games", json={"players": 2, "companions": [long_id]}), 400, "bad-request")
    long_buildings = {"players": 2, "buildings": ["b" * (MAX_COMPONENT_ID + 1)] * 4}
    _problem(await client.post("/v1/games", json=long_buildings), 400, "bad-request")


class LongWinded:
    """A fan plugin offering an option no client could send back."""

    @hookimpl
    def darkroad_decision_options(self, ctx: Any, task: Any, seat: int) -> list[tuple[str, str]]:
        return [("x:" + "o" * MAX_OPTION_LENGTH, "too long to submit")]


def test_plugin_options_beyond_the_maximum_are_a_plugin_error() -> None:
    from darkroad.core import GameConfig

    engine = Engine.load(extra=[("long_winded", LongWinded())])
    with pytest.raises(PluginError, match="long_winded"):
        game, _ = engine.create(GameConfig(players=2, seed=1))  # settling asks for the options
        engine.legal_actions(game, engine.awaiting(game)[0])
