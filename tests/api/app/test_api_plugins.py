"""Plugin failures over HTTP (issue 12): a stored game whose plugin failed to load on this
server answers ``503 missing-plugin`` saying so; a new game asking for the plugin's
component is a ``422`` naming the plugin; an answer a plugin fails to resolve is withdrawn
from the decision, so that a seat whose only answer fails is not stuck."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from apiutil import assert_problem, create_game, legal, read_log, serve
from conformance import Conformance
from litestar import Litestar
from test_plugin_loading import BUILDINGS, Tower  # tests/ (the conftest's folder) is on sys.path

from darkroad.api.http.app import create_app
from darkroad.api.settings import Settings
from darkroad.core import Choice, Ctx, Engine, Option, Step, Task, hookimpl


class BrokenTower(Tower):
    @hookimpl
    def darkroad_activate_buildings(self, ctx: Ctx, seat: int, building: str) -> Any:  # misspelt: skipped
        return None


async def test_a_game_whose_plugin_failed_to_load(redis_url: str) -> None:
    settings = Settings(redis_url=redis_url)
    good = Engine.load(extra=[("lamp-tower", Tower())])
    broken = Engine.load(extra=[("lamp-tower", BrokenTower())])
    async with serve(create_app(settings, engine=good)) as a, serve(create_app(settings, engine=broken)) as b:
        game = await create_game(a, buildings=BUILDINGS)
        assert (await a.get(game.url)).status_code == 200
        body = assert_problem(await b.get(game.url), 503, "missing-plugin")
        assert "plugin 'lamp-tower', which failed to load on this server: implements unknown hook" in body["detail"]
        body = assert_problem(await b.post("/v1/games", json={"players": 2, "buildings": BUILDINGS}), 422,
                              "unknown-component")
        assert "unknown building 'lamp_tower'; plugin 'lamp-tower' failed to load" in body["detail"]


class Boom(Choice):
    """Seat 0's first decision: one answer, which fails."""

    kind = "boom_ask"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        return [("explode", "explode")]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        raise RuntimeError("the boom plugin is broken")


class BoomPlugin:
    @hookimpl
    def darkroad_steps(self) -> list[Step]:
        return [Boom()]

    @hookimpl
    def darkroad_setup(self, ctx: Ctx) -> None:
        ctx.push(Boom.kind, 0)


@pytest.fixture
def boom_app(settings: Settings) -> Litestar:
    return create_app(settings, engine=Engine.load(extra=[("boom", BoomPlugin())]))


@pytest.mark.stores("memory", "redis")  # a store asked only what its contract asks: see test_api_store.py for the stores
async def test_a_failing_only_answer_is_withdrawn(boom_app: Litestar) -> None:
    async with serve(boom_app) as client:
        game = await create_game(client)
        assert await legal(client, game, 0) == [{"type": "boom_ask", "seat": 0, "option": "explode",
                                                  "label": "explode"}]
        done = await client.post(f"{game.url}/actions", json={"type": "boom_ask", "seat": 0, "option": "explode"},
                                 headers=game.auth(0))
        body = assert_problem(done, 500, "plugin-error")
        assert body["plugin"] == "boom"
        assert "the boom plugin is broken; this answer is withdrawn from the decision (the game is now at version 1)" \
            in body["detail"]
        view = (await client.get(game.url, headers=game.auth(0))).json()
        assert view["version"] == 1 and view["decision"]["type"] == "plan"  # the game goes on
        [told] = [e for e in await read_log(client, game, game.auth(0)) if e["type"] == "option_withdrawn"]
        assert told["data"]["option"] == "explode" and told["private_to"] == 0
        document = json.loads((Path(__file__).parents[3] / "openapi" / "openapi.json").read_text())
        assert Conformance(document).check(told, "Event", "option_withdrawn") == []  # as documented
        assert not [e for e in await read_log(client, game, game.auth(1)) if e["type"] == "option_withdrawn"]
        sent = await client.post(f"{game.url}/actions", json={"type": "withdrawn", "seat": 0,
                                                              "option": "plan:slot1:die1"}, headers=game.auth(0))
        assert_problem(sent, 409, "illegal-action")  # a client cannot withdraw an answer
