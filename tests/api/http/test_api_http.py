"""The HTTP contract, endpoint by endpoint, on both stores."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import zlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from apiutil import (
    NewGame,
    RedisServer,
    assert_problem,
    awaited_seat,
    bearer,
    create_game,
    legal,
    read_log,
    serve,
)
from litestar import Litestar

from darkroad.api.settings import Settings
from darkroad.core import Engine, hookimpl

# On memory and one Redis, as the module's docstring says, not on the Cluster and the
# Sentinels too: these
# tests ask a store only what its contract asks (test_api_store.py, on every kind), and whole
# games reach the Cluster and the Sentinels in the HA tests and test_api_games.py's on Redis.
# A test's own stores(...) mark still names its kinds.
pytestmark = pytest.mark.stores("memory", "redis")
PROBLEM = "application/problem+json"


def json_auth(game: NewGame, seat: int) -> dict[str, str]:
    """The headers of a raw JSON body sent as ``seat``."""
    return {**game.auth(seat), "Content-Type": "application/json"}


# -- creating ----------------------------------------------------------------------


async def test_create_game(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/games", json={"players": 3, "seed": 7})
    assert response.status_code == 201
    body = response.json()
    assert response.headers["location"] == f"/v1/games/{body['id']}"
    assert [seat["seat"] for seat in body["seats"]] == [0, 1, 2]
    assert len({seat["token"] for seat in body["seats"]}) == 3
    view = (await client.get(response.headers["location"])).json()
    assert view["version"] == body["version"]
    assert len(view["players"]) == 3


async def test_create_game_with_chosen_buildings_and_variants(
    client: httpx.AsyncClient, engine: Engine
) -> None:
    buildings: list[str] = []
    tiles = set()
    for component in reversed(engine.catalog()):  # not the first-game set
        tile = component["data"].get("tile")
        if component["kind"] == "building" and tile not in tiles and len(buildings) < 4:
            buildings.append(component["id"])
            tiles.add(tile)
    game = await create_game(client, buildings=buildings, variants={"drafting": True})
    view = (await client.get(game.url)).json()
    assert sorted(view["board"]["buildings"]) == sorted(buildings)
    assert view["config"]["variants"] == {"drafting": True}


@pytest.mark.stores("memory")
@pytest.mark.parametrize(
    ("body", "status", "problem_type"),
    [
        ({"players": 0}, 400, "bad-request"),
        ({"players": 2, "private_concern": True}, 400, "bad-request"),
        ({"players": 5}, 400, "bad-request"),
        ({"players": "2"}, 400, "bad-request"),
        ({"players": 2, "seed": -1}, 400, "bad-request"),
        ({"players": 2, "seed": 10**40}, 400, "bad-request"),
        ({"players": 2, "colour": "red"}, 400, "bad-request"),
        ({"players": 2, "variants": {"chaos": True}}, 400, "bad-request"),
        ({"players": 2, "buildings": ["a", "b", "c", "d", "e"]}, 400, "bad-request"),
        ({}, 400, "bad-request"),
        ([], 400, "bad-request"),
        ({"players": 2, "buildings": ["nowhere", "b", "c", "d"]}, 422, "unknown-component"),
        ({"players": 2, "buildings": ["oracle_of_lumi"]}, 400, "bad-request"),
        ({"players": 2, "companions": ["nobody"]}, 422, "unknown-component"),
    ],
)
async def test_create_game_rejects_bad_configs(
    client: httpx.AsyncClient, body: Any, status: int, problem_type: str
) -> None:
    assert_problem(await client.post("/v1/games", json=body), status, problem_type)


@pytest.mark.stores("memory")
@pytest.mark.parametrize("content", [b"", b"{", b"null", b"\xff\xfe", b'{"players": 2' + b" " * 10])
async def test_create_game_rejects_malformed_json(client: httpx.AsyncClient, content: bytes) -> None:
    response = await client.post("/v1/games", content=content, headers={"Content-Type": "application/json"})
    assert_problem(response, 400, "bad-request")


# -- viewing -----------------------------------------------------------------------


async def test_view_redacts_other_seats(client: httpx.AsyncClient) -> None:
    game = await create_game(client, players=3)
    spectator = (await client.get(game.url)).json()
    assert spectator["seat"] is None
    assert all(player["coins"] is None and player["deeds"] is None for player in spectator["players"])
    mine = (await client.get(game.url, headers=game.auth(1))).json()
    assert mine["seat"] == 1
    coins = {player["seat"]: player["coins"] for player in mine["players"]}
    assert coins[1] is not None and coins[0] is None and coins[2] is None


async def test_view_etag_and_conditional_get(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    response = await client.get(game.url)
    etag = response.headers["etag"]
    assert etag == f'"{game.version}"'
    assert response.headers["vary"] == "Authorization, Accept-Language"  # one Vary: the token's and the language's
    for tag in (etag, str(game.version), f"W/{etag}", f'"nope", {etag}', "*"):
        not_modified = await client.get(game.url, headers={"If-None-Match": tag})
        assert not_modified.status_code == 304, tag
        assert not_modified.headers["etag"] == etag
        assert not_modified.content == b""
    assert (await client.get(game.url, headers={"If-None-Match": '"999"'})).status_code == 200


async def test_unknown_and_malformed_game_ids(client: httpx.AsyncClient) -> None:
    assert_problem(await client.get("/v1/games/" + "A" * 22), 404, "unknown-game")
    assert_problem(await client.get("/v1/games/" + "A" * 22 + "/actions"), 404, "unknown-game")
    for bad in ("short", "A" * 23, "%7Bx%7D" + "A" * 16):
        assert_problem(await client.get(f"/v1/games/{bad}"), 400, "bad-request")
        # the action route reads its own parameters: same answer, same shape
        response = await client.post(f"/v1/games/{bad}/actions", json={}, headers={"Authorization": "Bearer x"})
        assert_problem(response, 400, "bad-request")
        assert response.json()["errors"][0]["key"] == "game_id"
    response = await client.post("/v1/games/" + "A" * 22 + "/actions", json={"type": "plan", "seat": 0, "option": "x"},
                                 headers={"Authorization": "Bearer x"})
    assert_problem(response, 404, "unknown-game")


async def test_tokens_are_checked(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    other = await create_game(client)
    for authorization in ("Bearer nonsense", "Basic dXNlcjpwYXNz", "Bearer", other.auth(0)["Authorization"]):
        response = await client.get(game.url, headers={"Authorization": authorization})
        assert_problem(response, 401, "invalid-token")
        assert response.headers["www-authenticate"].startswith("Bearer")


# -- legal actions and acting ----------------------------------------------------------


async def test_legal_actions_only_for_the_awaited_seat(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    seat = await awaited_seat(client, game)
    body = (await client.get(f"{game.url}/actions", headers=game.auth(seat))).json()
    assert body["version"] == game.version and body["status"] == "active"
    assert body["actions"] and all(action["seat"] == seat for action in body["actions"])
    assert await legal(client, game, 1 - seat) == []
    spectator = (await client.get(f"{game.url}/actions")).json()
    assert spectator["actions"] == []


async def test_act_applies_a_listed_action(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    seat = await awaited_seat(client, game)
    action = (await legal(client, game, seat))[0]
    response = await client.post(f"{game.url}/actions", json=action, headers=game.auth(seat))
    assert response.status_code == 200, response.text
    view = response.json()
    assert view["version"] == game.version + 1
    assert view["seat"] == seat
    assert response.headers["etag"] == f'"{game.version + 1}"'
    assert "idempotent-replayed" not in response.headers
    assert (await client.get(game.url)).json()["version"] == game.version + 1


async def test_acting_needs_the_seat_token(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    seat = await awaited_seat(client, game)
    action = (await legal(client, game, seat))[0]
    url = f"{game.url}/actions"
    response = await client.post(url, json=action)
    assert_problem(response, 401, "missing-token")
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert_problem(await client.post(url, json=action, headers=bearer("forged")), 401, "invalid-token")
    assert_problem(await client.post(url, json=action, headers=game.auth(1 - seat)), 403, "wrong-seat")
    assert (await client.get(game.url)).json()["version"] == game.version


async def test_illegal_actions_change_nothing(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    seat = await awaited_seat(client, game)
    action = (await legal(client, game, seat))[0]
    url = f"{game.url}/actions"
    body = assert_problem(
        await client.post(url, json={**action, "option": "no-such-option"}, headers=game.auth(seat)),
        409,
        "illegal-action",
    )
    assert "legal" in body["detail"]
    other = 1 - seat
    assert_problem(
        await client.post(url, json={**action, "seat": other}, headers=game.auth(other)),
        409,
        "not-your-decision",
    )
    assert (await client.get(game.url)).json()["version"] == game.version


@pytest.mark.stores("memory")
@pytest.mark.parametrize(
    "body",
    [
        [],
        "move",
        12,
        None,
        {},
        {"type": "plan"},
        {"type": "plan", "seat": 0},
        {"type": 1, "seat": 0, "option": "x"},
        {"type": "plan", "seat": "0", "option": "x"},
        {"type": "plan", "seat": True, "option": "x"},
        {"type": "plan", "seat": 0.5, "option": "x"},
        {"type": "plan", "seat": 0, "option": ["x"]},
        {"type": "plan", "seat": 0, "option": "x", "label": 3},
        {"type": "plan", "seat": 0, "option": "x", "extra": 1},
    ],
)
async def test_malformed_actions_are_bad_actions(client: httpx.AsyncClient, body: Any) -> None:
    game = await create_game(client)
    response = await client.post(f"{game.url}/actions", content=json.dumps(body), headers=json_auth(game, 0))
    problem = assert_problem(response, 422, "bad-action")
    assert "@ $" in problem["detail"]


@pytest.mark.stores("memory")
@pytest.mark.parametrize("content", [b"", b"{", b'{"type": "plan",}', b"\xff", b"[" * 100000])
async def test_malformed_json_actions(client: httpx.AsyncClient, content: bytes) -> None:
    game = await create_game(client)
    response = await client.post(f"{game.url}/actions", content=content, headers=json_auth(game, 0))
    assert response.status_code in (400, 413), response.text
    assert response.headers["content-type"] == PROBLEM


async def test_huge_seat_numbers_are_not_a_crash(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    for seat in (10**30, -(10**30), -1):
        body = {"type": "plan", "seat": seat, "option": "x"}
        response = await client.post(f"{game.url}/actions", json=body, headers=game.auth(0))
        assert_problem(response, 403, "wrong-seat")


async def test_body_size_limit(make_app: Callable[[Settings], Litestar], settings: Settings) -> None:
    small = dataclasses.replace(settings, request_max_body_size=256)
    async with serve(make_app(small)) as client:
        game = await create_game(client)
        padding = {"players": 2, "companions": ["x" * 300]}
        assert_problem(await client.post("/v1/games", json=padding), 413, "body-too-large")
        action = {"type": "plan", "seat": 0, "option": "x" * 300}
        response = await client.post(f"{game.url}/actions", json=action, headers=game.auth(0))
        assert_problem(response, 413, "body-too-large")

        async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it arrives
            for _ in range(4):
                yield b" " * 100

        response = await client.post(f"{game.url}/actions", content=chunks(), headers=json_auth(game, 0))
        assert_problem(response, 413, "body-too-large")
        assert (await client.get(game.url)).json()["version"] == game.version  # nothing changed


# -- preconditions and idempotency -------------------------------------------------------


async def test_if_match(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    seat = await awaited_seat(client, game)
    action = (await legal(client, game, seat))[0]
    url = f"{game.url}/actions"
    for stale in ('"99"', "99", "garbage", f'W/"{game.version}"'):
        response = await client.post(url, json=action, headers={**game.auth(seat), "If-Match": stale})
        problem = assert_problem(response, 409, "stale-version")
        assert problem["version"] == game.version
        assert response.headers["etag"] == f'"{game.version}"'
    response = await client.post(
        url, json=action, headers={**game.auth(seat), "If-Match": f'"{game.version}"'}
    )
    assert response.status_code == 200
    response = await client.post(
        url, json=action, headers={**game.auth(seat), "If-Match": f'"{game.version}"'}
    )
    assert_problem(response, 409, "stale-version")


async def test_if_match_star_and_bare_number(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    for if_match in ("*", str(game.version + 1)):
        seat = await awaited_seat(client, game)
        action = (await legal(client, game, seat))[0]
        headers = {**game.auth(seat), "If-Match": if_match}
        response = await client.post(f"{game.url}/actions", json=action, headers=headers)
        assert response.status_code == 200, (if_match, response.text)
        game.version += 1


async def test_idempotency_key_replays_the_first_answer(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    seat = await awaited_seat(client, game)
    action = (await legal(client, game, seat))[0]
    headers = {**game.auth(seat), "Idempotency-Key": "move-1"}
    first = await client.post(f"{game.url}/actions", json=action, headers=headers)
    again = await client.post(f"{game.url}/actions", json={**action, "label": "ignored"}, headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.headers["idempotent-replayed"] == "true"
    assert again.content == first.content
    assert again.headers["etag"] == first.headers["etag"]
    assert (await client.get(game.url)).json()["version"] == game.version + 1
    different = {**action, "option": action["option"] + "-other"}
    response = await client.post(f"{game.url}/actions", json=different, headers=headers)
    assert_problem(response, 422, "idempotency-key-reused")


async def test_idempotency_key_with_stale_if_match_still_replays(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    seat = await awaited_seat(client, game)
    action = (await legal(client, game, seat))[0]
    headers = {**game.auth(seat), "Idempotency-Key": "k", "If-Match": f'"{game.version}"'}
    first = await client.post(f"{game.url}/actions", json=action, headers=headers)
    retry = await client.post(f"{game.url}/actions", json=action, headers=headers)
    assert retry.status_code == 200 and retry.content == first.content


async def test_idempotency_keys_are_per_seat(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    for _ in range(2):
        seat = await awaited_seat(client, game)
        action = (await legal(client, game, seat))[0]
        headers = {**game.auth(seat), "Idempotency-Key": "same-key"}
        response = await client.post(f"{game.url}/actions", json=action, headers=headers)
        assert response.status_code in (200, 422), response.text
        if response.status_code == 422:  # the same seat acted twice: the key is taken
            assert response.json()["type"] == "idempotency-key-reused"
            return
        assert "idempotent-replayed" not in response.headers


async def test_prefer_return_minimal_answers_without_the_view(client: httpx.AsyncClient) -> None:
    """``Prefer: return=minimal`` (RFC 7240): 204, no body, the new version in ``ETag`` and
    ``Preference-Applied``; its retry is the same; the same retry wanting the view gets it; a
    preference the server does not know is ignored."""
    game = await create_game(client)
    seat = await awaited_seat(client, game)
    action = (await legal(client, game, seat))[0]
    headers = {**game.auth(seat), "Idempotency-Key": "k2"}
    minimal = await client.post(f"{game.url}/actions", json=action, headers={**headers, "Prefer": 'return="minimal"'})
    assert (minimal.status_code, minimal.content) == (204, b"")
    assert minimal.headers["preference-applied"] == "return=minimal"
    assert minimal.headers["etag"] == f'"{game.version + 1}"'
    assert "content-type" not in minimal.headers and "idempotent-replayed" not in minimal.headers
    again = await client.post(f"{game.url}/actions", json=action,
                              headers={**headers, "Prefer": "handling=lenient, return=minimal"})
    assert (again.status_code, again.content) == (204, b"")
    assert again.headers["idempotent-replayed"] == "true" and again.headers["etag"] == minimal.headers["etag"]
    full = await client.post(f"{game.url}/actions", json=action, headers=headers)
    assert full.status_code == 200 and full.headers["idempotent-replayed"] == "true"
    assert f'"{full.json()["version"]}"' == minimal.headers["etag"] == full.headers["etag"]
    assert full.headers["content-type"] == "application/json" and "preference-applied" not in full.headers
    seat = await awaited_seat(client, game)
    action = (await legal(client, game, seat))[0]
    other = await client.post(f"{game.url}/actions", json=action, headers={**game.auth(seat), "Prefer": "respond-async"})
    assert other.status_code == 200 and other.headers["etag"] == f'"{other.json()["version"]}"'
    assert "preference-applied" not in other.headers


@pytest.mark.stores("memory")
@pytest.mark.parametrize("key", ["", "x" * 256])
async def test_idempotency_key_format(client: httpx.AsyncClient, key: str) -> None:
    game = await create_game(client)
    seat = await awaited_seat(client, game)
    action = (await legal(client, game, seat))[0]
    headers = {**game.auth(seat), "Idempotency-Key": key}
    assert_problem(await client.post(f"{game.url}/actions", json=action, headers=headers), 400, "bad-request")


# -- log, stream, score -----------------------------------------------------------------


async def play(client: httpx.AsyncClient, game: NewGame, actions: int) -> None:
    """Apply the first legal action ``actions`` times."""
    for _ in range(actions):
        seat = await awaited_seat(client, game)
        action = (await legal(client, game, seat))[0]
        response = await client.post(f"{game.url}/actions", json=action, headers=game.auth(seat))
        assert response.status_code == 200, response.text


async def test_log_pages_and_redacts(client: httpx.AsyncClient) -> None:
    game = await create_game(client, players=3)
    await play(client, game, 12)
    everything = [event for seat in range(3) for event in await read_log(client, game, game.auth(seat), 500)]
    spectator = await read_log(client, game, {}, 500)
    assert all(event["private_to"] is None for event in spectator)
    for seat in range(3):
        seen = await read_log(client, game, game.auth(seat), 500)
        assert [event["n"] for event in seen] == sorted({event["n"] for event in seen})
        assert all(event["private_to"] in (None, seat) for event in seen)
        assert await read_log(client, game, game.auth(seat), 3) == seen
    assert {event["n"] for event in spectator} | {
        e["n"] for e in everything if e["private_to"] is not None
    } == {e["n"] for e in everything}
    last = spectator[-1]["n"]
    tail = (await client.get(f"{game.url}/log", params={"after": last})).json()
    assert tail == {"events": [], "next": last, "more": False, "finished": False}


@pytest.mark.parametrize(
    "query", ["after=-2", "after=x", "after=1.5", f"after={2**64}", "limit=0", "limit=501"]
)
@pytest.mark.stores("memory", "redis")  # refused before any store is asked: see test_api_store.py for the stores
async def test_log_rejects_bad_cursors(client: httpx.AsyncClient, query: str) -> None:
    game = await create_game(client)
    assert_problem(await client.get(f"{game.url}/log?{query}"), 400, "bad-request")


async def test_score_only_when_finished(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    assert_problem(await client.get(f"{game.url}/score"), 409, "game-not-finished")


async def test_stream_delivers_and_resumes(
    make_app: Callable[[Settings], Litestar], settings: Settings
) -> None:
    short = dataclasses.replace(settings, stream_heartbeat=0.1, stream_max_duration=2.0)  # room for a heartbeat on a loaded machine
    async with serve(make_app(short)) as client:
        game = await create_game(client)
        log = await read_log(client, game, {}, 500)
        last = log[-1]["n"]

        async def listen() -> str:
            response = await client.get(f"{game.url}/stream", headers={"Last-Event-ID": str(last)})
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            return response.text

        listener = asyncio.create_task(listen())
        await asyncio.sleep(0.3)
        await play(client, game, 1)
        text = await listener
        ids = [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]
        new = [event["n"] for event in await read_log(client, game, {}, 500) if event["n"] > last]
        assert ids == new and new
        assert ": keep-alive" in text
        replay = (await client.get(f"{game.url}/stream", params={"after": -1})).text
        assert [int(line[4:]) for line in replay.splitlines() if line.startswith("id: ")][: len(log)] == [
            event["n"] for event in log
        ]


# -- operations -------------------------------------------------------------------------


async def test_catalog(client: httpx.AsyncClient, engine: Engine) -> None:
    response = await client.get("/v1/catalog")
    assert response.status_code == 200
    components = response.json()["components"]
    assert sum(len(items) for items in components.values()) == len(engine.catalog())
    assert all(
        item["plugin"] and item["kind"] == kind for kind, items in components.items() for item in items
    )


async def test_health_ready_metrics(make_app: Callable[[Settings], Litestar], settings: Settings) -> None:
    async with serve(make_app(settings)) as client:  # an app of its own: its counters start at 0
        assert (await client.get("/healthz")).json() == {"status": "ok"}
        assert (await client.get("/readyz")).json() == {"status": "ready"}
        await create_game(client)
        metrics = await client.get("/metrics")
    assert metrics.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    assert 'darkroad_http_requests_total{method="POST",route="/v1/games",status="201"} 1.0' in metrics.text
    assert "darkroad_games_created_total 1.0" in metrics.text
    assert "# TYPE darkroad_http_request_duration_seconds histogram" in metrics.text


async def test_unreachable_store_is_503(make_app: Callable[[Settings], Litestar], tmp_path: Path) -> None:
    redis = RedisServer(tmp_path)
    settings = Settings(redis_url=redis.url, redis_retry_window=0.2)
    async with serve(make_app(settings)) as client:
        assert (await client.get("/readyz")).status_code == 200
        redis.stop()
        assert (await client.get("/healthz")).status_code == 200
        response = await client.get("/readyz")
        assert_problem(response, 503, "store-unavailable")
        assert response.headers["retry-after"] == "1"
        assert_problem(await client.post("/v1/games", json={"players": 2}), 503, "store-unavailable")
        assert_problem(await client.get("/v1/games/" + "A" * 22), 503, "store-unavailable")


@pytest.mark.stores("memory", "redis")  # refused before any store is asked: see test_api_store.py for the stores
async def test_unknown_routes_and_methods(client: httpx.AsyncClient) -> None:
    assert_problem(await client.get("/v2/games"), 404, "not-found")
    response = await client.delete("/v1/games")
    assert_problem(response, 405, "method-not-allowed")
    assert "POST" in response.headers["allow"]


# -- a failing plugin ---------------------------------------------------------------------


class Saboteur:
    """A fan plugin whose extra option raises when chosen."""

    @hookimpl
    def darkroad_decision_options(self, ctx: Any, task: Any, seat: int) -> list[tuple[str, str]]:
        return [("x:sabotage", "Sabotage")]

    @hookimpl
    def darkroad_decision_choose(self, ctx: Any, task: Any, seat: int, option: str) -> bool | None:
        if option == "x:sabotage":
            ctx.game.round = 99  # half-done work, then a crash
            raise RuntimeError("sabotaged")
        return None


async def test_plugin_error_leaves_the_game_untouched(settings: Settings) -> None:
    """The failed action's half-done work never reaches the stored game; the failing answer
    is withdrawn from the decision (a version of its own), nothing else changes."""
    from darkroad.api.http.app import create_app

    engine = Engine.load(extra=[("saboteur", Saboteur())])
    async with serve(create_app(settings, engine=engine)) as client:
        game = await create_game(client)
        seat = await awaited_seat(client, game)
        before = (await client.get(game.url, headers=game.auth(seat))).json()
        action = next(a for a in await legal(client, game, seat) if a["option"] == "x:sabotage")
        response = await client.post(f"{game.url}/actions", json=action, headers=game.auth(seat))
        problem = assert_problem(response, 500, "plugin-error")
        assert "saboteur" in problem["detail"] and problem["plugin"] == "saboteur"
        after = (await client.get(game.url, headers=game.auth(seat))).json()
        assert after.pop("version") == before.pop("version") + 1
        assert after == before
        assert "x:sabotage" not in [a["option"] for a in await legal(client, game, seat)]


async def test_idempotency_records_are_small_and_old_ones_still_replay(
    redis_server: RedisServer, redis_url: str, make_app: Callable[[Settings], Litestar]
) -> None:
    """A record keeps only the version the action made, the seat and the request's
    fingerprint, as one integer (Redis keeps it inside the key's object); a retry's answer is
    rebuilt from the game's history, byte for byte the first, whatever happened since.
    Records of the older formats (the whole answer as plain JSON, then compressed) still
    replay while they live."""
    async with serve(make_app(Settings(redis_url=redis_url))) as client:
        game = await create_game(client)
        seat = await awaited_seat(client, game)
        action = (await legal(client, game, seat))[0]
        headers = {**game.auth(seat), "Idempotency-Key": "move-1"}
        first = await client.post(f"{game.url}/actions", json=action, headers=headers)
        assert first.status_code == 200, first.text
        records = redis_server.client.keys(f"game:{{{game.id}}}:idem:{seat}:*")
        assert len(records) == 1
        stored = redis_server.client.get(records[0])
        assert stored is not None and stored.isdigit() and int(stored) < 2**63
        assert redis_server.client.object("encoding", records[0]) == b"int"

        # The game goes on; the retry's answer is still the first, rebuilt at its version.
        for _ in range(5):
            other = await awaited_seat(client, game)
            move = (await legal(client, game, other))[0]
            assert (await client.post(f"{game.url}/actions", json=move, headers=game.auth(other))).status_code == 200
        for replay in range(2):  # from the replay, then from the replay kept
            again = await client.post(f"{game.url}/actions", json=action, headers=headers)
            assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true", replay
            assert again.content == first.content and again.headers["etag"] == first.headers["etag"]

        # The same answer as records of the old formats.
        fingerprint = hashlib.sha256(json.dumps([action["type"], action["seat"], action["option"]],
                                                separators=(",", ":")).encode()).hexdigest()
        old = json.dumps({"fingerprint": fingerprint, "version": game.version + 1, "view": first.json()}).encode()
        for recorded in (old, zlib.compress(old, 1)):
            redis_server.client.set(records[0], recorded, keepttl=True)
            again = await client.post(f"{game.url}/actions", json=action, headers=headers)
            assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
            assert again.json() == first.json()


async def test_a_retry_in_a_game_with_a_turn_timeout_gets_the_first_answer(client: httpx.AsyncClient) -> None:
    """The answer shows the seats' turn clocks (``timeout_at``), which the record keeps too."""
    created = await client.post("/v1/games", json={"players": 2, "seed": 5, "turn_timeout": 600,
                                                   "seats": [{"kind": "human"}, {"kind": "human"}]})
    assert created.status_code == 201, created.text
    game = NewGame(created.json())
    seat = await awaited_seat(client, game)
    action = (await legal(client, game, seat))[0]
    headers = {**game.auth(seat), "Idempotency-Key": "timed"}
    first = await client.post(f"{game.url}/actions", json=action, headers=headers)
    assert first.status_code == 200, first.text
    assert any(s["timeout_at"] for s in first.json()["seats"])
    for _ in range(4):
        other = await awaited_seat(client, game)
        move = (await legal(client, game, other))[0]
        assert (await client.post(f"{game.url}/actions", json=move, headers=game.auth(other))).status_code == 200
    again = await client.post(f"{game.url}/actions", json=action, headers=headers)
    assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
    assert again.content == first.content
