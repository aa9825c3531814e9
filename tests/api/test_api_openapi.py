"""The OpenAPI document: committed, complete, valid, and what the app serves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar

from darkroad.api.cli import openapi_document
from darkroad.api.openapi import document
from darkroad.api.problems import PROBLEM_MEDIA_TYPE, PROBLEM_TYPES
from darkroad.core import Engine

COMMITTED = Path(__file__).parents[2] / "openapi" / "openapi.json"
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
    assert len(ids) == len(set(ids)) == 11
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


def test_actions_and_events_are_the_engines_unions(doc: dict[str, Any], engine: Engine) -> None:
    schemas = doc["components"]["schemas"]
    assert schemas["Action"] == engine.action_schema()
    assert schemas["Event"] == engine.event_schema()
    assert all("type" in variant["required"] for variant in schemas["Action"]["oneOf"])
    act = doc["paths"]["/v1/games/{game_id}/actions"]["post"]
    assert act["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Action"
    }
    assert schemas["ActionList"]["properties"]["actions"]["items"] == {"$ref": "#/components/schemas/Action"}
    assert schemas["EventPage"]["properties"]["events"]["items"] == {"$ref": "#/components/schemas/Event"}


def test_security_and_links(doc: dict[str, Any]) -> None:
    assert doc["components"]["securitySchemes"]["seatToken"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "A seat token from `POST /v1/games`: the caller plays that seat.",
    }
    act = doc["paths"]["/v1/games/{game_id}/actions"]["post"]
    assert act["security"] == [{"seatToken": []}]
    view = doc["paths"]["/v1/games/{game_id}"]["get"]
    assert view["security"] == [{}, {"seatToken": []}]
    links = doc["paths"]["/v1/games"]["post"]["responses"]["201"]["links"]
    assert {link["operationId"] for link in links.values()} >= {"getGame", "listActions", "submitAction"}
    assert all(link["parameters"] == {"game_id": "$response.body#/id"} for link in links.values())


def test_new_game_names_this_installations_components(doc: dict[str, Any], engine: Engine) -> None:
    buildings = doc["components"]["schemas"]["NewGame"]["properties"]["buildings"]
    ids = sorted(c["id"] for c in engine.catalog() if c["kind"] == "building" and c["plugin"])
    assert set(buildings["items"]["enum"]) <= set(ids)
    assert buildings["anyOf"][0] == {"maxItems": 0}


def test_documented_views_match_the_engine_views() -> None:
    """Every key of the engine's view (a Private Concern game, so its block shows) is in the
    documented GameView / PlayerView schemas, and the schemas document nothing else."""
    from darkroad.api import schemas
    from darkroad.core import Engine, GameConfig

    engine = Engine.load()
    game, _ = engine.create(GameConfig(players=3, seed=1, private_concern=True))
    view = engine.view(game, 0)
    assert set(view) == set(schemas.GameView.__struct_fields__)
    keys = set().union(*(set(p) for p in view["players"]))
    assert keys == set(schemas.PlayerView.__struct_fields__)
