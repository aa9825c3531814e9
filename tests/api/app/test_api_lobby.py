"""The lobby over HTTP: seats at creation, waiting games, joining and leaving, the listing.

Each test taking ``client`` runs on every store (memory, one Redis, and, slow, a Redis
Cluster and a Sentinel-watched primary). Racing joins are sent to two ``darkroad serve``
processes on one Redis.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from apiutil import (
    LONG_WINDOW,
    ApiServer,
    RedisServer,
    bearer,
    fresh_window,
    played_out,
    problem,
    read_log,
    serve,
)
from conformance import Conformance
from litestar import Litestar

from darkroad.api.app.lobby import MAX_NAME_LENGTH, decode
from darkroad.api.settings import Settings
from darkroad.api.store.redis_store import WAITING_KEY, game_key

DOCUMENT = json.loads((Path(__file__).parents[3] / "openapi" / "openapi.json").read_text())


async def create(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await client.post("/v1/games", json={"seed": 7, **body})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    assert Conformance(DOCUMENT).check(created, "CreatedGame", "created") == []
    return created


async def join(client: Any, game_id: str, seat: int, name: str = "Ann") -> httpx.Response:
    response: httpx.Response = await client.post(f"/v1/games/{game_id}/seats/{seat}/join", json={"name": name})
    return response


async def snapshot(client: httpx.AsyncClient, game_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The spectator's view and the whole log: what "nothing changed" compares."""
    view = (await client.get(f"/v1/games/{game_id}")).json()
    log = (await client.get(f"/v1/games/{game_id}/log")).json()["events"]
    return view, log


def conforms(value: Any, schema: str) -> None:
    assert Conformance(DOCUMENT).check(value, schema, schema) == []


async def test_seats_at_creation_and_waiting(client: httpx.AsyncClient) -> None:
    created = await create(
        client, players=3, seats=[{"kind": "human", "name": "  Ann  "}, {"kind": "open"}, {"kind": "open"}]
    )
    assert created["status"] == "waiting" and created["open_seats"] == [1, 2]
    seats = created["seats"]
    assert [(s["kind"], s["name"], s["token"] is not None) for s in seats] == [
        ("human", "Ann", True), ("open", None, False), ("open", None, False)]
    url = f"/v1/games/{created['id']}"
    auth = bearer(seats[0]["token"])

    view = (await client.get(url, headers=auth)).json()
    conforms(view, "GameView")
    assert view["status"] == "waiting"
    assert [p["name"] for p in view["players"]] == ["Ann", None, None]
    assert [s["kind"] for s in view["seats"]] == ["human", "open", "open"]
    listed = (await client.get(f"{url}/actions", headers=auth)).json()
    assert listed["status"] == "waiting" and listed["actions"] == []

    # Acting is refused until every seat is taken, and changes nothing.
    before = await snapshot(client, created["id"])
    seat = view["awaiting"][0]
    action = {"type": view["decision"]["type"], "seat": seat, "option": "x"}
    if seat == 0:
        problem(await client.post(f"{url}/actions", json=action, headers=auth), 409, "game-not-started")
    assert await snapshot(client, created["id"]) == before


async def test_a_create_without_seats_is_as_before(client: httpx.AsyncClient) -> None:
    created = await create(client, players=2)
    assert created["status"] == "active" and created["open_seats"] == []
    assert [(s["kind"], s["name"], s["bot"]) for s in created["seats"]] == [("human", None, None)] * 2
    view = (await client.get(f"/v1/games/{created['id']}")).json()
    assert view["status"] == "active" and view["turn_timeout"] is None and view["timeout_bot"] is None
    timed = await create(client, players=2, turn_timeout=60)  # the default timeout bot
    view = (await client.get(f"/v1/games/{timed['id']}")).json()
    assert (view["turn_timeout"], view["timeout_bot"]) == (60, "search")
    assert [p["name"] for p in view["players"]] == [None, None]
    solo = await create(client, players=1)
    assert [(s["kind"], s["name"]) for s in solo["seats"]] == [("human", None), ("private_concern", "Private Concern")]
    assert (await client.get("/v1/games", params={"status": "waiting"})).json()["games"] == []


async def test_join_leave_and_start(client: httpx.AsyncClient) -> None:
    created = await create(client, players=3, seats=[{"kind": "human", "name": "Ann"}, {"kind": "open"},
                                                      {"kind": "open"}])
    game_id, url = created["id"], f"/v1/games/{created['id']}"
    version = created["version"]

    joined = await join(client, game_id, 1, "\tBob ")
    assert joined.status_code == 201, joined.text
    assert joined.headers["location"] == url
    body = joined.json()
    conforms(body, "JoinedSeat")
    assert body["seat"] == 1 and body["version"] == version + 1
    bob = bearer(body["token"])
    me = (await client.get(url, headers=bob)).json()
    assert me["seat"] == 1 and me["status"] == "waiting"
    assert [p["name"] for p in me["players"]] == ["Ann", "Bob", None]
    problem(await join(client, game_id, 1, "Eve"), 409, "seat-taken")
    problem(await join(client, game_id, 0, "Eve"), 409, "seat-taken")

    # Leaving reopens the seat; the token is no longer a seat's.
    assert (await client.post(f"{url}/seats/1/leave", headers=bob)).status_code == 204
    problem(await client.get(url, headers=bob), 401, "invalid-token")
    view = (await client.get(url)).json()
    assert view["seats"][1] == {"seat": 1, "kind": "open", "name": None, "bot": None, "replaced": False,
                                "timeout_at": None}
    assert view["version"] == version + 2

    cy = (await join(client, game_id, 1, "Cy")).json()
    last = await join(client, game_id, 2, "Dee")
    assert last.status_code == 201
    view = (await client.get(url, headers=bearer(cy["token"]))).json()
    assert view["status"] == "active"
    assert [p["name"] for p in view["players"]] == ["Ann", "Cy", "Dee"]
    problem(await client.post(f"{url}/seats/2/leave", headers=bearer(last.json()["token"])), 409, "game-started")

    lobby = [(e["type"], e["seat"], e["data"]) for e in await read_log(client, _Game(game_id))
             if e["type"].startswith("seat")]
    assert lobby == [("seat_joined", 1, {"name": "Bob"}), ("seat_left", 1, {}), ("seat_joined", 1, {"name": "Cy"}),
                     ("seat_joined", 2, {"name": "Dee"}), ("seats_filled", None, {})]
    for event in await read_log(client, _Game(game_id)):
        conforms(event, "Event")

    # Every seat plays now: the game waits for a decision of one of them.
    tokens = {0: created["seats"][0]["token"], 1: cy["token"], 2: last.json()["token"]}
    seat = view["awaiting"][0]
    actions = (await client.get(f"{url}/actions", headers=bearer(tokens[seat]))).json()
    assert actions["status"] == "active" and actions["actions"]
    acted = await client.post(f"{url}/actions", json=actions["actions"][0], headers=bearer(tokens[seat]))
    assert acted.status_code == 200, acted.text


class _Game:
    """What apiutil.read_log needs of a game."""

    def __init__(self, game_id: str) -> None:
        self.url = f"/v1/games/{game_id}"


async def test_racing_joins_in_one_process(client: httpx.AsyncClient) -> None:
    """Many joins of one seat at once: exactly one gets it, every other is ``seat-taken``."""
    created = await create(client, players=4, seats=[{"kind": "human"}, {"kind": "open"}, {"kind": "open"},
                                                      {"kind": "open"}])
    answers = await asyncio.gather(*(join(client, created["id"], 1 + n % 3, f"P{n}") for n in range(12)))
    won = [a for a in answers if a.status_code == 201]
    assert sorted(a.json()["seat"] for a in won) == [1, 2, 3]
    for answer in answers:
        if answer.status_code != 201:
            problem(answer, 409, "seat-taken")
    view = (await client.get(f"/v1/games/{created['id']}")).json()
    assert view["status"] == "active"
    assert view["version"] == created["version"] + 3  # three joins, nothing else


async def test_games_created_in_one_millisecond_list_newest_first(client: httpx.AsyncClient, app: Litestar) -> None:
    """The index orders entries by creation time in ms: with the server's clock standing still,
    each game is still listed before the one created before it (not in the order of the ids),
    and each creation time is a millisecond after the last."""
    app.state.service.games.clock = lambda: 1_800_000_000.0
    waiting = [await create(client, players=2, seats=[{"kind": "human"}, {"kind": "open"}]) for _ in range(6)]
    page = (await client.get("/v1/games", params={"status": "waiting", "limit": 10})).json()
    assert [game["id"] for game in page["games"]] == [game["id"] for game in reversed(waiting)]
    created = [datetime.datetime.fromisoformat(game["created"]) for game in page["games"]]
    assert created == sorted(created, reverse=True) and len(set(created)) == len(created)


@pytest.mark.stores("memory")
async def test_a_bot_seat_given_no_name_is_named_after_its_bot_in_the_reader_s_language(
    client: httpx.AsyncClient, app: Litestar
) -> None:
    """Issue 43: every human-readable text of an answer is in the caller's language. A bot seat
    created without a name stores none (it once stored the bot's English name): views, the
    creation's answer and the listing name it after its bot as the catalogue does, in the
    reader's language; a name given is kept as given in every language."""
    hu = {"Accept-Language": "hu"}
    response = await client.post("/v1/games", headers=hu, json={"players": 3, "seed": 7, "seats": [
        {"kind": "open"}, {"kind": "bot", "bot": "search"}, {"kind": "bot", "bot": "greedy", "name": "Gus"}]})
    assert response.status_code == 201, response.text
    created = response.json()
    assert [seat["name"] for seat in created["seats"]] == [None, "Kutató", "Gus"]
    stored = await app.state.service.games.store.load(created["id"])
    assert [seat.name for seat in decode(stored.lobby).seats] == [None, None, "Gus"]
    for headers, search in ((hu, "Kutató"), ({"Accept-Language": "en"}, "Search")):
        view = (await client.get(f"/v1/games/{created['id']}", headers=headers)).json()
        assert [seat["name"] for seat in view["seats"]] == [None, search, "Gus"]
        assert [player["name"] for player in view["players"]] == [None, search, "Gus"]
        bots = {bot["id"]: bot["name"] for bot in (await client.get("/v1/catalog", headers=headers)).json()["bots"]}
        assert bots["search"] == search
        listed = (await client.get("/v1/games", params={"status": "waiting"}, headers=headers)).json()["games"]
        assert [[seat["name"] for seat in game["seats"]] for game in listed if game["id"] == created["id"]] == [
            [None, search, "Gus"]]


async def test_listing_newest_first_paginated(client: httpx.AsyncClient) -> None:
    waiting = [await create(client, players=2, seats=[{"kind": "human", "name": f"G{n}"}, {"kind": "open"}])
               for n in range(5)]
    await create(client, players=2, seats=[{"kind": "human"}, {"kind": "open"}], listed=False)
    await create(client, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
    await create(client, players=2)

    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        params: dict[str, Any] = {"status": "waiting", "limit": 2}
        if cursor:
            params["cursor"] = cursor
        page = (await client.get("/v1/games", params=params)).json()
        conforms(page, "WaitingGames")
        seen += [game["id"] for game in page["games"]]
        pages += 1
        cursor = page["next"]
        if cursor is None:
            break
    assert seen == [game["id"] for game in reversed(waiting)]
    assert pages == 3
    first = (await client.get("/v1/games")).json()["games"][0]
    assert first["open_seats"] == [1] and first["players"] == 2
    assert [(s["kind"], s["name"]) for s in first["seats"]] == [("human", "G4"), ("open", None)]
    assert first["config"]["players"] == 2 and len(first["config"]["buildings"]) == 4

    # A game that fills up leaves the listing; one whose seat is left again comes back.
    newest = waiting[-1]
    token = (await join(client, newest["id"], 1)).json()["token"]
    ids = [game["id"] for game in (await client.get("/v1/games")).json()["games"]]
    assert newest["id"] not in ids and len(ids) == 4
    problem(await client.post(f"/v1/games/{newest['id']}/seats/1/leave", headers=bearer(token)), 409,
            "game-started")


async def test_racing_joins_across_two_processes(
    redis_server: RedisServer, redis_url: str, make_app: Callable[[Settings], Litestar]
) -> None:
    """Two processes serving one Redis, a ``darkroad serve`` and the app served in the test's
    own process, joins of the same seats sent to both at once: each seat is won exactly once,
    the rest answered ``seat-taken``."""
    server = ApiServer(redis_url).start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=20) as remote, \
                serve(make_app(Settings(redis_url=redis_url))) as local:
            clients = [remote, local]
            games = []
            for _ in range(4):
                body = {"players": 3, "seats": [{"kind": "human"}, {"kind": "open"}, {"kind": "open"}]}
                response = await clients[0].post("/v1/games", json=body)
                assert response.status_code == 201
                games.append(response.json()["id"])
            attempts = [(game_id, seat, n) for game_id in games for seat in (1, 2) for n in range(4)]
            answers = await asyncio.gather(
                *(join(clients[n % 2], game_id, seat, f"P{n}") for game_id, seat, n in attempts)
            )
            winners: dict[tuple[str, int], list[int]] = {}
            for (game_id, seat, n), answer in zip(attempts, answers, strict=True):
                if answer.status_code == 201:
                    winners.setdefault((game_id, seat), []).append(n)
                else:
                    problem(answer, 409, "seat-taken")
            assert sorted(winners) == sorted((game_id, seat) for game_id in games for seat in (1, 2))
            assert all(len(won) == 1 for won in winners.values()), winners
            for game_id in games:
                views = [(await c.get(f"/v1/games/{game_id}")).json() for c in clients]
                assert views[0] == views[1]
                assert views[0]["status"] == "active"
                names = {f"P{winners[(game_id, seat)][0]}" for seat in (1, 2)}
                assert {p["name"] for p in views[0]["players"][1:]} == names
                lobby = decode(redis_server.client.hget(game_key(game_id), "lobby"))
                assert lobby is not None and not lobby.waiting
            assert redis_server.client.zcard(WAITING_KEY) == 0
    finally:
        assert "Traceback" not in server.stop()


async def test_waiting_games_expire_and_leave_the_listing(make_app: Any, redis_url: str) -> None:
    """A waiting game expires ``waiting_game_ttl`` after its creation, joins or not; its entry
    in the index is dropped by the next reader (and one whose game vanished, at once)."""
    app: Litestar = make_app(Settings(redis_url=redis_url, waiting_game_ttl=1))
    async with serve(app) as client:
        old = await create(client, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
        lost = await create(client, players=3, seats=[{"kind": "human"}, {"kind": "open"}, {"kind": "open"}])
        assert (await join(client, lost["id"], 1)).status_code == 201  # a join does not extend its life
        store = app.state.service.store
        await store.command(game_key(lost["id"]), "DEL", game_key(lost["id"]), write=True)  # as if expired
        listed = (await client.get("/v1/games")).json()["games"]
        assert [game["id"] for game in listed] == [old["id"]]
        assert await store.command(WAITING_KEY, "ZCARD", WAITING_KEY) == 1
        await asyncio.sleep(1.2)
        assert (await client.get("/v1/games")).json() == {"games": [], "next": None}
        assert await store.command(WAITING_KEY, "ZCARD", WAITING_KEY) == 0
        problem(await join(client, old["id"], 1), 404, "unknown-game")


# -- bad input: a 4xx problem, nothing changed -----------------------------------------


@pytest.mark.stores("memory")
@pytest.mark.parametrize(
    "name", ["", "   ", "x" * (MAX_NAME_LENGTH + 1), "bad\u0007name", "\n"], ids=["empty", "blank", "long", "bell",
                                                                                   "newline"]
)
async def test_bad_names_are_refused(client: httpx.AsyncClient, name: str) -> None:
    created = await create(client, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    before = await snapshot(client, created["id"])
    problem(await join(client, created["id"], 1, name), 400, "bad-request")
    problem(await client.post("/v1/games", json={"players": 2, "seats": [{"kind": "human", "name": name},
                                                                        {"kind": "open"}]}), 400, "bad-request")
    assert await snapshot(client, created["id"]) == before
    assert (await client.get("/v1/games")).json()["games"][0]["open_seats"] == [1]


async def test_bad_seats_are_refused(client: httpx.AsyncClient) -> None:
    refused = [
        ({"players": 2, "seats": [{"kind": "bot", "bot": "nobody"}, {"kind": "open"}]}, 422, "unknown-bot"),
        ({"players": 2, "seats": [{"kind": "bot", "bot": ""}, {"kind": "open"}]}, 422, "unknown-bot"),
        ({"players": 2, "turn_timeout": 60, "timeout_bot": ""}, 422, "unknown-bot"),
        ({"players": 2, "turn_timeout": 60, "timeout_bot": "nobody"}, 422, "unknown-bot"),
        ({"players": 2, "seats": [{"kind": "human"}]}, 400, "bad-request"),
        ({"players": 3, "private_concern": True, "seats": [{"kind": "human"}] * 3}, 400, "bad-request"),
        ({"players": 1, "seats": [{"kind": "human"}, {"kind": "open"}]}, 400, "bad-request"),
        ({"players": 2, "seats": [{"kind": "open", "name": "x"}, {"kind": "open"}]}, 400, "bad-request"),
        ({"players": 2, "seats": [{"kind": "alien"}, {"kind": "open"}]}, 400, "bad-request"),
        ({"players": 2, "seats": [{"kind": "human"}] * 5}, 400, "bad-request"),
        ({"players": 2, "turn_timeout": 0}, 400, "bad-request"),
        # A think time the document refuses (above 20 s).
        ({"players": 2, "seats": [{"kind": "bot", "bot": "search", "think_time": 30}, {"kind": "open"}]},
         400, "bad-request"),
        ({"players": 2, "seats": [{"kind": "bot", "bot": "search", "think_time": 0}, {"kind": "open"}]},
         400, "bad-request"),
        ({"players": 2, "seats": [{"kind": "bot", "bot": "search", "think_time": 61}, {"kind": "open"}]},
         400, "bad-request"),
        ({"players": 2, "seats": [{"kind": "bot", "bot": "search", "think_time": "1"}, {"kind": "open"}]},
         400, "bad-request"),
        ({"players": 2, "seats": [{"kind": "human", "think_time": 1}, {"kind": "open"}]}, 400, "bad-request"),
    ]
    for body, status, kind in refused:
        problem(await client.post("/v1/games", json=body), status, kind)
    assert (await client.get("/v1/games")).json()["games"] == []


async def test_a_bot_seat_thinks_for_the_time_it_was_given(client: httpx.AsyncClient) -> None:
    created = await create(client, players=2, seats=[{"kind": "bot", "bot": "search", "think_time": 0.25},
                                                     {"kind": "open"}])
    seats = created["seats"]
    assert seats[0]["bot"] == "search" and seats[0]["think_time"] == 0.25
    assert "think_time" not in seats[1]  # only where set: other seats' views as they were
    view = (await client.get(f"/v1/games/{created['id']}")).json()
    assert view["seats"][0]["think_time"] == 0.25
    # A budget greedy is always within: accepted, and shown as given.
    greedy = await create(client, players=2, seats=[{"kind": "bot", "bot": "greedy", "think_time": 20},
                                                    {"kind": "open"}])
    assert greedy["seats"][0]["think_time"] == 20
    assert Conformance(DOCUMENT).check(view, "GameView", "view") == []


async def test_joining_a_full_finished_or_unknown_game(client: httpx.AsyncClient) -> None:
    full = await create(client, players=2)
    before = await snapshot(client, full["id"])
    problem(await join(client, full["id"], 1), 409, "seat-taken")
    problem(await join(client, full["id"], 3), 404, "unknown-seat")
    problem(await client.post(f"/v1/games/{full['id']}/seats/9/join", json={"name": "x"}), 400, "bad-request")
    problem(await join(client, "A" * 22, 1), 404, "unknown-game")
    assert await snapshot(client, full["id"]) == before

    finished = await create(client, players=1, seats=[{"kind": "bot", "bot": "random"}])
    assert (await played_out(client, finished["id"]))["status"] == "finished"  # by the bot worker
    before = await snapshot(client, finished["id"])
    problem(await join(client, finished["id"], 0), 409, "game-finished")
    assert await snapshot(client, finished["id"]) == before


async def test_leaving_someone_elses_seat_or_without_a_token(client: httpx.AsyncClient) -> None:
    created = await create(client, players=2, seats=[{"kind": "human"}, {"kind": "open"}])
    url = f"/v1/games/{created['id']}"
    bob = (await join(client, created["id"], 1, "Bob")).json()["token"]
    before = await snapshot(client, created["id"])
    problem(await client.post(f"{url}/seats/1/leave"), 401, "missing-token")
    problem(await client.post(f"{url}/seats/0/leave", headers=bearer(bob)), 403, "wrong-seat")
    problem(await client.post(f"{url}/seats/1/leave", headers=bearer("nope")), 401, "invalid-token")
    assert await snapshot(client, created["id"]) == before


async def test_joins_count_against_the_creation_budget(make_app: Any, settings: Settings) -> None:
    """A join hands a new seat token to anyone who asks, without a token: it is counted with
    game creation (``DARKROAD_RATE_LIMIT_CREATES``), not with the far larger request budget."""
    limits = {"rate_limit_requests": 1000, "rate_limit_creates": 3, "rate_limit_auth_failures": 0,
              "rate_limit_window": LONG_WINDOW}
    app: Litestar = make_app(dataclasses.replace(settings, **limits))
    async with serve(app) as client:
        await fresh_window(LONG_WINDOW)
        created = await create(client, players=4, seats=[{"kind": "human"}] + [{"kind": "open"}] * 3)
        assert (await join(client, created["id"], 1)).status_code == 201
        assert (await join(client, created["id"], 2)).status_code == 201
        before = await snapshot(client, created["id"])
        refused = problem(await join(client, created["id"], 3), 429, "rate-limited")
        assert "seats joined" in refused["detail"]
        assert await snapshot(client, created["id"]) == before  # reads still pass


async def test_a_think_time_the_move_timeout_leaves_no_room_for_is_refused(make_app: Any, redis_url: str) -> None:
    """A server whose bots are given up after 5 s refuses a bot seat's 5 s think time (every
    move would be given up), and makes no game."""
    app: Litestar = make_app(Settings(redis_url=redis_url, bot_move_timeout=5))
    async with serve(app) as client:
        refused = await client.post("/v1/games", json={"players": 2, "seats": [
            {"kind": "bot", "bot": "search", "think_time": 5}, {"kind": "open"}]})
        problem(refused, 422, "bad-bot-option")
        assert "5 s" in refused.json()["detail"]
        assert (await client.get("/v1/games")).json()["games"] == []
        created = await create(client, players=2, seats=[{"kind": "bot", "bot": "search", "think_time": 4.5},
                                                         {"kind": "open"}])
        assert created["seats"][0]["think_time"] == 4.5
