"""Seat kinds declare their API surface (issue 20): the HTTP layer knows no seat kind by name.

A seat kind (``darkroad.core.SeatKind``) contributes its request field (``api_field``,
``request_text``), the JSON Schemas of its view blocks (``view_blocks``) and notes on its
score line (``score_notes``), as components contribute their actions and events; the app
builds ``NewGame`` and the document from the installed kinds
(``darkroad.api.http.seat_kinds``). The base game's Private Concern is one such kind, a
plugin: no module of ``api/`` names it. A fan seat kind (the test plugin's Test Peddler)
gets its field and its view block in the document, and over HTTP.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from apiutil import NewGame, assert_problem, play_seat, serve
from conformance import Conformance
from test_hooks import RECORDER  # tests/ (the conftest's folder) is on sys.path

from darkroad.api.http.app import create_app
from darkroad.api.http.openapi import document
from darkroad.api.http.seat_kinds import SeatKindSurface
from darkroad.api.settings import Settings
from darkroad.core import Engine, SeatKind, ViewBlock

API = Path(__file__).parents[3] / "api"
NAMES_IT = re.compile(r"private.concern|\bconcern", re.IGNORECASE)
ALLOWED: dict[str, str] = {}
"""Modules of ``api/`` that may still name the Private Concern, each with the reason: none.
(``darkroad simulate --private-concern`` works on: the CLI derives ``--<field>`` from the
installed seat kinds' request fields, as the HTTP request derives its fields.)"""


def test_no_module_of_the_api_names_the_private_concern() -> None:
    named = {}
    for path in sorted(API.rglob("*.py")):
        module = path.relative_to(API.parent).as_posix()
        lines = [n for n, line in enumerate(path.read_text().splitlines(), 1) if NAMES_IT.search(line)]
        if lines and module not in ALLOWED:
            named[module] = lines
    assert not named, f"modules of api/ naming the Private Concern (module: lines): {named}"


@pytest.fixture(scope="module")
def fan_engine() -> Engine:
    """The base installation and the test plugin, whose seat kind ``test_peddler`` plays solo
    too (every size) and declares its request field and its view block ``peddler``."""
    return Engine.load(extra=[RECORDER])


def test_a_fan_seat_kind_in_the_document(fan_engine: Engine) -> None:
    schemas = document(create_app(Settings(), engine=fan_engine))["components"]["schemas"]
    new_game = schemas["NewGame"]
    field = new_game["properties"]["test_peddler"]
    assert field["anyOf"] == [{"type": "boolean"}, {"type": "null"}]
    assert field["description"] == ("Seat the Test Peddler, who sells its wares every turn, in the last seat: with "
                                    "`players: 1`: solo against it; allowed with 3 or 4 players. Default: `null`.")
    # Two kinds play solo: `players: 1` implies neither, and the texts name both.
    assert "implied" not in new_game["properties"]["private_concern"]["description"]
    assert new_game["properties"]["players"]["description"] == (
        "Number of seats, an automated seat included: 1 is solo (you against the one asked for: the Private "
        "Concern or the Test Peddler).")
    assert "one fewer with `private_concern: true` or `test_peddler: true`" in new_game["properties"]["seats"][
        "description"]
    never = new_game["not"]["anyOf"]
    assert {"required": ["players", "test_peddler"],
            "properties": {"players": {"const": 2}, "test_peddler": {"const": True}}} in never
    assert {"required": ["players", "seats"],
            "properties": {"players": {"const": 3}, "private_concern": {"enum": [False, None]},
                           "test_peddler": {"enum": [False, None]}, "seats": {"not": {"minItems": 3, "maxItems": 3}}}
            } in never  # without an automated seat, every seat is listed

    assert schemas["PlayerView"]["properties"]["peddler"] == {
        "$ref": "#/components/schemas/PeddlerView",
        "description": "The peddler's public state (its seat only): the turns it played."}
    assert schemas["PeddlerView"]["required"] == ["turns"]
    assert "peddler" not in schemas["PlayerView"]["required"]  # its seat only
    assert "concern" in schemas["PlayerView"]["properties"]  # the base game's kind's too
    for name in ("GameConfig", "GameSummary"):
        assert schemas[name]["properties"]["test_peddler"]["description"] == "The Test Peddler's seat; null without it."
        assert {"private_concern", "test_peddler"} <= set(schemas[name]["required"])
    assert {"private_concern", "test_peddler"} <= set(schemas["SeatView"]["properties"]["kind"]["enum"])
    score = schemas["ScoreLine"]
    assert "with the Test Peddler at the table: by `discarded` only" in score["description"]
    assert score["properties"]["base"]["description"].endswith("(the Test Peddler: its coins).")


async def test_a_fan_seat_kind_over_http(fan_engine: Engine) -> None:
    """Its field seats it; its seat's view shows its block, which the document describes."""
    app = create_app(Settings(), engine=fan_engine)
    conformance = Conformance(document(app))
    async with serve(app) as client:
        created = await client.post("/v1/games", json={"players": 3, "seed": 4, "test_peddler": True})
        assert created.status_code == 201, created.text
        body = created.json()
        assert [seat["kind"] for seat in body["seats"]] == ["human", "human", "test_peddler"]
        assert body["seats"][2]["token"] is None
        assert not conformance.check(body, "CreatedGame", "created")
        game = NewGame({**body, "seats": body["seats"][:2]})
        await asyncio.gather(*(play_seat(client, game, seat, seed=seat) for seat in (0, 1)))
        view = (await client.get(game.url, headers=game.auth(0))).json()
        assert view["status"] == "finished"
        assert view["players"][2]["kind"] == "test_peddler" and view["players"][2]["peddler"] == {"turns": 13}
        assert view["config"]["test_peddler"] == 2 and view["config"]["private_concern"] is None
        assert not conformance.check(view, "GameView", "finished view")
        assert conformance.seen[("PeddlerView", "turns")]

        # A game waiting for a player lists the seat kind's seat in its summary.
        seats = [{"kind": "human"}, {"kind": "open"}]
        waiting = await client.post("/v1/games", json={"players": 3, "test_peddler": True, "seats": seats})
        assert waiting.status_code == 201, waiting.text
        listing = (await client.get("/v1/games", params={"status": "waiting"})).json()
        summary = next(g for g in listing["games"] if g["id"] == waiting.json()["id"])
        assert summary["config"]["test_peddler"] == 2 and summary["config"]["private_concern"] is None
        assert not conformance.check(listing, "WaitingGames", "listing")

        # Solo: two installed kinds play solo, so the request names its opponent.
        solo = await client.post("/v1/games", json={"players": 1, "test_peddler": True})
        assert solo.status_code == 201, solo.text
        assert [seat["kind"] for seat in solo.json()["seats"]] == ["human", "test_peddler"]
        detail = assert_problem(await client.post("/v1/games", json={"players": 1}), 422, "bad-config")["detail"]
        assert "`private_concern: true` (the Private Concern), `test_peddler: true` (the Test Peddler)" in detail
        # (a size the document refuses for the kind is a schema violation: 400, with `errors`)
        refused = assert_problem(await client.post("/v1/games", json={"players": 2, "test_peddler": True}), 400,
                                 "bad-request")
        assert refused["errors"][0]["key"] == "test_peddler"
        both = {"players": 4, "test_peddler": True, "private_concern": True}
        assert_problem(await client.post("/v1/games", json=both), 422, "bad-config")  # one seat, two kinds


async def test_the_field_is_unknown_without_its_seat_kind(fan_engine: Engine) -> None:
    """An installation without the seat kind neither documents nor takes its field."""
    base = Engine.load()
    app = create_app(Settings(), engine=base)
    assert "test_peddler" not in document(app)["components"]["schemas"]["NewGame"]["properties"]
    async with serve(app) as client:
        answer = await client.post("/v1/games", json={"players": 3, "test_peddler": True})
        assert_problem(answer, 400, "bad-request")


class Clashing(SeatKind):
    id = "clashing"
    name = "Clash"
    view_blocks = (ViewBlock("coins", {"type": "integer"}, "Its coins, again."),)


@pytest.mark.parametrize(("kind", "says"), [
    (type("Seedy", (SeatKind,), {"id": "seedy", "request_field": "seed"})(), "request field 'seed'"),
    (Clashing(), "view key (in PlayerView) 'coins'"),
    (type("Plugged", (SeatKind,), {"id": "plugins", "request_field": "plugged"})(), "id (in GameConfig) 'plugins'"),
])
def test_a_seat_kind_may_not_clash_with_the_api(kind: SeatKind, says: str) -> None:
    """A seat kind whose field, id or view key is already a member of the API's refuses the app."""
    with pytest.raises(ValueError, match=re.escape(says)):
        SeatKindSurface({kind.id: kind})


def test_a_view_block_is_checked_when_declared() -> None:
    with pytest.raises(ValueError, match="where"):
        ViewBlock("x", {}, "x", where="board")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="key"):
        ViewBlock("Not A Key", {}, "x")
    assert ViewBlock("x", {"type": "integer"}, "x").where == "player"
