"""Plugin load failures over HTTP (issue 12): a stored game whose plugin failed to load on
this server answers ``503 missing-plugin`` saying so; a new game asking for the plugin's
component is a ``422`` naming the plugin."""

from __future__ import annotations

from typing import Any

from apiutil import create_game, serve
from test_api_http import assert_problem

from darkroad.api.app import create_app
from darkroad.api.settings import Settings
from darkroad.core import Component, Ctx, Engine, hookimpl

BUILDINGS = ["lamp_tower", "blazing_quartz_mine", "oracle_of_lumi", "yedls_workshop"]


class Tower:
    @hookimpl
    def darkroad_components(self) -> list[Component]:
        return [Component("building", "lamp_tower", "Lamp Tower", "Gain 1 lantern.")]

    @hookimpl
    def darkroad_activate_building(self, ctx: Ctx, seat: int, building: str) -> bool | None:
        if building != "lamp_tower":
            return None
        ctx.gain_effects(seat, ["lantern:1"], source="lamp_tower")
        return True


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
