"""Lobby games played through over HTTP on a real Redis: bot seats, a player who walks away
and takes the seat back, games of bots only, and the refusals that must change nothing.

Bots play in the app's in-process bot worker (``Settings.bots``), apart from requests: the
tests wait for their moves (as clients do, following the game) rather than expect them in
an answer. The server's clock (``GameRepository.clock``: turn timeouts, creation times; the
worker's too) is the test's, so a turn timeout passes without sleeping. Every other part is the real thing: one
``redis-server``, the app served in the test's event loop, JSON over HTTP.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from apiutil import RedisServer, bearer, problem, serve
from conformance import Conformance
from litestar import Litestar

from darkroad.api.app import lobby as lobbies
from darkroad.api.app.bot_worker import BotWorker
from darkroad.api.app.records import entries_of
from darkroad.api.http.app import create_app
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.redis_store import WAITING_KEY, game_key
from darkroad.core import Engine

DOCUMENT = json.loads((Path(__file__).parents[3] / "openapi" / "openapi.json").read_text())
LOBBY_EVENTS = set(lobbies.EVENTS)


class Clock:
    """The server's wall clock, moved by the test."""

    def __init__(self) -> None:
        self.now = float(int(time.time()))

    def __call__(self) -> float:
        return self.now


@dataclass
class Table:
    """A client of an app on a real Redis, the Redis, and the server's clock."""

    client: httpx.AsyncClient
    redis: RedisServer
    clock: Clock
    app: Litestar

    async def create(self, **body: Any) -> dict[str, Any]:
        response = await self.client.post("/v1/games", json=body)
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        assert Conformance(DOCUMENT).check(created, "CreatedGame", "created") == []
        return created

    async def join(self, game_id: str, seat: int, name: str) -> str:
        response = await self.client.post(f"/v1/games/{game_id}/seats/{seat}/join", json={"name": name})
        assert response.status_code == 201, response.text
        return str(response.json()["token"])

    async def log(self, game_id: str, token: str | None = None) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        after, more = -1, True
        while more:
            page = await self.client.get(
                f"/v1/games/{game_id}/log", params={"after": after, "limit": 500},
                headers=bearer(token) if token else {},
            )  # fmt: skip
            assert page.status_code == 200, page.text
            body = page.json()
            events += body["events"]
            after, more = body["next"], body["more"]
        return events

    def stored(self, game_id: str) -> dict[bytes, bytes]:
        """Every key of the game in Redis, serialised (``DUMP``), and the index of waiting games."""
        keys = sorted(self.redis.client.scan_iter(match=f"{game_key(game_id)}*"))
        dumped = {key: self.redis.client.dump(key) for key in keys}
        dumped[b"index"] = json.dumps(self.redis.client.zrange(WAITING_KEY, 0, -1), default=repr).encode()
        return dumped

    async def state(self, game_id: str) -> tuple[Any, ...]:
        """What "nothing changed" compares: the stored keys, the ETag, the spectator's view and log."""
        view = await self.client.get(f"/v1/games/{game_id}")
        return self.stored(game_id), view.headers["etag"], view.json(), await self.log(game_id)

    async def settled(self, game_id: str, bots: set[int], timeout: float = 60.0) -> dict[str, Any]:
        """The spectator's view once the game awaits none of the ``bots`` seats (or is over):
        the bot worker has played what they were awaited for."""
        deadline = time.monotonic() + timeout
        while True:
            view: dict[str, Any] = (await self.client.get(f"/v1/games/{game_id}")).json()
            if view["status"] != "active" or not bots & set(view["awaiting"]):
                return view
            assert time.monotonic() < deadline, f"the bots never moved: {view['awaiting']}"
            await asyncio.sleep(0.02)

    async def finished(self, game_id: str, timeout: float = 120.0) -> dict[str, Any]:
        """The spectator's view once the game is over (the bot worker plays it out)."""
        deadline = time.monotonic() + timeout
        while True:
            view: dict[str, Any] = (await self.client.get(f"/v1/games/{game_id}")).json()
            if view["status"] == "finished":
                return view
            assert time.monotonic() < deadline, "the game never finished"
            await asyncio.sleep(0.05)

    def replays(self, engine: Engine, game_id: str) -> Any:
        """The stored action list (bots' moves and changes of seats included) replayed from the
        game's config: it must give the stored state."""
        stored = self.redis.client.hget(game_key(game_id), "state")
        assert isinstance(stored, bytes)
        config = engine.loads(stored).config
        actions = self.redis.client.lrange(f"{game_key(game_id)}:actions", 0, -1)
        game = lobbies.replay(engine, config, entries_of(actions))
        assert engine.pack(game) == stored
        return game, entries_of(actions)  # without their commit times


@asynccontextmanager
async def open_table(make_app: Any, redis_server: RedisServer, **settings: Any) -> AsyncIterator[Table]:
    redis_server.flush()
    app: Litestar = make_app(Settings(redis_url=redis_server.url, **settings))
    async with serve(app) as client:
        clock = Clock()
        app.state.service.games.clock = clock
        for worker in app.state.bot_workers:
            worker.games.clock = clock
        yield Table(client, redis_server, clock, app)


@pytest.fixture
async def table(make_app: Any, redis_server: RedisServer) -> AsyncIterator[Table]:
    async with open_table(make_app, redis_server) as opened:
        yield opened


# -- a game with a bot seat, played to the end by two human clients ----------------------


async def play(
    table: Table, game_id: str, tokens: dict[int, str], bot_seat: int, rnd: random.Random
) -> list[tuple[int, dict[str, Any]]]:
    """Play the human seats with seeded random legal actions until the game ends; the actions
    sent, in order. Before each, wait for the bot to have played (the bot worker plays it
    after the answer), as a client following the game does."""
    url = f"/v1/games/{game_id}"
    sent: list[tuple[int, dict[str, Any]]] = []
    while True:
        await table.settled(game_id, {bot_seat})
        views = [(await table.client.get(url, headers=bearer(token))).json() for token in tokens.values()]
        if views[0]["status"] == "finished":
            return sent
        for view in views:
            assert view["status"] == "active"
            assert view["awaiting"] and bot_seat not in view["awaiting"], view["awaiting"]
        seat = rnd.choice(views[0]["awaiting"])
        listed = (await table.client.get(f"{url}/actions", headers=bearer(tokens[seat]))).json()
        action = rnd.choice(listed["actions"])
        answer = await table.client.post(f"{url}/actions", json=action, headers=bearer(tokens[seat]))
        assert answer.status_code == 200, answer.text
        after = answer.json()
        assert after["version"] == listed["version"] + 1  # the state right after this action
        sent.append((seat, action))


async def three_players(table: Table, seed: int) -> tuple[str, dict[int, str]]:
    """A 3-player game: Ann creates it (seat 0), the greedy bot has seat 1, Bob joins seat 2."""
    created = await table.create(
        players=3, seed=seed, seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "greedy"},
                                     {"kind": "open"}],
    )  # fmt: skip
    assert created["status"] == "waiting"
    assert [(s["kind"], s["bot"]) for s in created["seats"]] == [
        ("human", None),
        ("bot", "greedy"),
        ("open", None),
    ]
    bob = await table.join(created["id"], 2, "Bob")
    return created["id"], {0: created["seats"][0]["token"], 2: bob}


async def test_three_players_one_joined_one_bot_played_to_the_end_and_replayed(table: Table, engine: Engine) -> None:
    """A game with a bot seat played to its end by two human clients; then, seeded, a second
    game of the same seed, seats and human actions (sent blindly, in the same order) is the
    same game, the bot's moves included, event for event (one test: the first game is the one
    replayed, not a third whole game of a greedy bot and two clients)."""
    game_id, tokens = await three_players(table, seed=11)
    sent = await play(table, game_id, tokens, bot_seat=1, rnd=random.Random(5))
    assert {seat for seat, _ in sent} == {0, 2}

    # The bot's moves are in the log like anyone's: the same kinds of events, seen by all.
    log = await table.log(game_id)
    kinds = {seat: {e["type"] for e in log if e["seat"] == seat} - LOBBY_EVENTS for seat in range(3)}
    assert {"moved", "activated"} <= kinds[1]
    assert len(kinds[1] & (kinds[0] | kinds[2])) >= 10, kinds
    assert [(e["type"], e["seat"]) for e in log if e["type"] in LOBBY_EVENTS] == [
        ("seat_joined", 2),
        ("seats_filled", None),
    ]
    assert [e["n"] for e in log] == sorted(e["n"] for e in log)

    # ... and in the stored action list, which replays to the stored game.
    game, actions = table.replays(engine, game_id)
    moves = [a for a in actions if "seat_change" not in a]
    by_bot = [a for a in moves if a["seat"] == 1]
    assert len(moves) == len(sent) + len(by_bot) and len(by_bot) > 50
    assert [(s, a["type"], a["option"]) for s, a in sent] == [
        (a["seat"], a["type"], a["option"]) for a in moves if a["seat"] != 1
    ]

    score = (await table.client.get(f"/v1/games/{game_id}/score")).json()
    assert Conformance(DOCUMENT).check(score, "FinalScore", "score") == []
    assert sorted(line["seat"] for line in score["score"]) == [0, 1, 2]
    assert score["score"] == engine.view(game, None)["score"]
    assert score["winners"] and set(score["winners"]) <= {0, 1, 2}
    final = (await table.client.get(f"/v1/games/{game_id}")).json()
    assert final["version"] == score["version"] == game.version
    bot_name = engine.bots["greedy"].name or "greedy"
    assert [p["name"] for p in final["players"]] == ["Ann", bot_name, "Bob"]
    assert final["seats"][1] == {
        "seat": 1,
        "kind": "bot",
        "name": bot_name,
        "bot": "greedy",
        "replaced": False,
        "timeout_at": None,
    }

    await replays_identically(table, 11, game_id, tokens, sent)


async def replays_identically(
    table: Table, seed: int, first: str, first_tokens: dict[int, str], sent: list[tuple[int, dict[str, Any]]]
) -> None:
    """Seeded: a second game of :func:`three_players` of ``first``'s seed, with its human
    actions sent blindly in the same order, is the same game, the bot's moves included, event
    for event."""
    second, second_tokens = await three_players(table, seed=seed)
    for seat, action in sent:
        await table.settled(second, {1})
        answer = await table.client.post(
            f"/v1/games/{second}/actions", json=action, headers=bearer(second_tokens[seat])
        )
        assert answer.status_code == 200, answer.text
    for seat in (None, 0, 2):
        logs = [
            await table.log(game, None if seat is None else tokens[seat])
            for game, tokens in ((first, first_tokens), (second, second_tokens))
        ]
        assert logs[0] == logs[1]
    assert len([e for e in logs[0] if e["seat"] == 1]) > 50
    states = [table.redis.client.hget(game_key(game), "state") for game in (first, second)]
    assert states[0] == states[1]
    scores = [(await table.client.get(f"/v1/games/{game}/score")).json() for game in (first, second)]
    assert scores[0] == scores[1]


# -- a player who walks away -------------------------------------------------------------


def at(seconds: float) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC)


async def act_until_awaited(
    table: Table, game_id: str, tokens: dict[int, str], seat: int, rnd: random.Random
) -> None:
    """Play the other seats (random legal actions) until the game awaits ``seat``."""
    url = f"/v1/games/{game_id}"
    for _ in range(200):
        view = (await table.client.get(url)).json()
        if seat in view["awaiting"]:
            return
        other = rnd.choice(view["awaiting"])
        listed = (await table.client.get(f"{url}/actions", headers=bearer(tokens[other]))).json()
        answer = await table.client.post(
            f"{url}/actions", json=rnd.choice(listed["actions"]), headers=bearer(tokens[other])
        )
        assert answer.status_code == 200, answer.text
    raise AssertionError(f"seat {seat} never awaited")


async def test_a_timed_out_seat_goes_to_a_bot_and_is_reclaimed(table: Table, engine: Engine) -> None:
    created = await table.create(
        players=2,
        seed=3,
        turn_timeout=30,
        timeout_bot="random",
        seats=[{"kind": "human", "name": "Ann"}, {"kind": "open"}],
    )
    game_id, url = created["id"], f"/v1/games/{created['id']}"
    started = table.clock.now
    listed = (await table.client.get("/v1/games", params={"status": "waiting"})).json()["games"]
    assert [(g["turn_timeout"], g["timeout_bot"]) for g in listed if g["id"] == game_id] == [(30, "random")]
    tokens = {0: created["seats"][0]["token"], 1: await table.join(game_id, 1, "Bob")}
    rnd = random.Random(2)
    view = (await table.client.get(url)).json()
    assert (view["turn_timeout"], view["timeout_bot"]) == (30, "random")
    idle = view["awaiting"][0]
    other = 1 - idle
    assert datetime.datetime.fromisoformat(view["seats"][idle]["timeout_at"]) == at(started + 30)

    # Too early: a 409 problem saying when, and nothing changed; nor do reads hand it over.
    table.clock.now = started + 29
    before = await table.state(game_id)
    early = problem(
        await table.client.post(f"{url}/seats/{idle}/timeout", headers=bearer(tokens[other])),
        409,
        "not-overdue",
    )
    assert at(started + 30).isoformat(timespec="seconds") in early["detail"]
    await table.client.get(url, headers=bearer(tokens[other]))
    await table.client.get(f"{url}/actions", headers=bearer(tokens[other]))
    assert await table.state(game_id) == before

    # Overdue: no request hands the seat over (the bot worker's clock stands still here) ...
    frozen = Clock()
    frozen.now = started + 29
    for worker in table.app.state.bot_workers:
        worker.games.clock = frozen
    table.clock.now = started + 30
    await table.client.get(url)
    await table.client.get(url, headers=bearer(tokens[idle]))
    await table.client.get(url, headers=bearer(tokens[other]))
    assert await table.state(game_id) == before
    # ... the other player's claim does: the bot takes the seat, and plays it after the answer.
    claimed = await table.client.post(f"{url}/seats/{idle}/timeout", headers=bearer(tokens[other]))
    assert claimed.status_code == 200, claimed.text
    view = claimed.json()
    assert view["seat"] == other and view["version"] == before[2]["version"] + 1  # the hand-over only
    for worker in table.app.state.bot_workers:
        worker.games.clock = table.clock
    view = {**(await table.settled(game_id, {idle})), "seat": other}
    assert view["seats"][idle] == {
        "seat": idle,
        "kind": "human",
        "name": ["Ann", "Bob"][idle],
        "bot": "random",
        "replaced": True,
        "timeout_at": None,
    }
    assert idle not in view["awaiting"] and view["awaiting"] == [other]
    log = await table.log(game_id)
    replaced = [e for e in log if e["type"] == "seat_replaced"]
    assert [(e["seat"], e["data"]) for e in replaced] == [(idle, {"bot": "random"})]
    assert any(e["seat"] == idle and e["n"] > replaced[0]["n"] for e in log if e["type"] not in LOBBY_EVENTS)

    # The player still reads the game, but acts no more until they reclaim the seat.
    assert (await table.client.get(f"{url}/actions", headers=bearer(tokens[idle]))).json()["actions"] == []
    listed = (await table.client.get(f"{url}/actions", headers=bearer(tokens[other]))).json()
    mine = {**listed["actions"][0], "seat": idle}
    before = await table.state(game_id)
    problem(
        await table.client.post(f"{url}/actions", json=mine, headers=bearer(tokens[idle])),
        409,
        "seat-replaced",
    )
    problem(
        await table.client.post(f"{url}/seats/{idle}/reclaim", headers=bearer(tokens[other])),
        403,
        "wrong-seat",
    )
    problem(await table.client.post(f"{url}/seats/{idle}/reclaim"), 401, "missing-token")
    problem(
        await table.client.post(f"{url}/seats/{idle}/timeout", headers=bearer(tokens[other])),
        409,
        "not-overdue",
    )
    assert await table.state(game_id) == before

    reclaimed = await table.client.post(f"{url}/seats/{idle}/reclaim", headers=bearer(tokens[idle]))
    assert reclaimed.status_code == 200, reclaimed.text
    assert reclaimed.json()["seat"] == idle
    assert (
        reclaimed.json()["seats"][idle]["replaced"] is False
        and reclaimed.json()["seats"][idle]["bot"] is None
    )
    assert [
        (e["type"], e["seat"], e["data"]) for e in await table.log(game_id) if e["type"] == "seat_reclaimed"
    ] == [("seat_reclaimed", idle, {"bot": "random"})]
    again = (await table.client.post(f"{url}/seats/{idle}/reclaim", headers=bearer(tokens[idle]))).json()
    assert again["version"] == reclaimed.json()["version"]  # a seat no bot plays: nothing to do

    # The player decides again; when they idle once more, the turn clock hands the seat to the
    # bot with nobody asking (the bot worker watches the deadlines), the timeout counted from
    # when the seat was awaited.
    await act_until_awaited(table, game_id, tokens, idle, rnd)
    awaited_since = table.clock.now
    table.clock.now += 29
    await asyncio.sleep(1.5)  # the worker looks at the clocks every second: not yet due
    assert idle in (await table.client.get(url)).json()["awaiting"]
    table.clock.now = awaited_since + 30
    deadline = time.monotonic() + 30
    while not (seen := (await table.client.get(url)).json())["seats"][idle]["replaced"]:
        assert time.monotonic() < deadline, "the seat was never handed over"
        await asyncio.sleep(0.1)
    seen = await table.settled(game_id, {idle})
    assert seen["seats"][idle]["replaced"] is True and idle not in seen["awaiting"]
    assert [e["seat"] for e in await table.log(game_id) if e["type"] == "seat_replaced"] == [idle, idle]
    table.replays(engine, game_id)


# -- games of automated seats only ---------------------------------------------------------


@pytest.mark.parametrize("bot", ["greedy", "random"])
async def test_a_bot_against_the_private_concern_plays_out_with_nobody_reading(
    table: Table, engine: Engine, bot: str
) -> None:
    """Solo, a bot seat against the Private Concern: two automated seats, the whole game played
    by the bot worker after the creation answers."""
    created = await table.create(players=1, seed=5, seats=[{"kind": "bot", "bot": bot}])
    assert created["status"] == "active" and created["version"] == 0
    await table.finished(created["id"])
    assert [(s["seat"], s["kind"], s["bot"], s["token"]) for s in created["seats"]] == [
        (0, "bot", bot, None),
        (1, "private_concern", None, None),
    ]
    game_id = created["id"]
    game, actions = table.replays(engine, game_id)
    assert game.finished
    assert {a["seat"] for a in actions} == {0} and len(actions) > 30  # the bot's; the Concern acts by itself
    log = await table.log(game_id)
    assert {e["seat"] for e in log} >= {0, 1}
    assert log[-1]["type"] == "game_finished"

    before = await table.state(game_id)  # reads change nothing: there is nothing left to play
    view = before[2]
    assert view["status"] == "finished" and view["awaiting"] == []
    assert [p["name"] for p in view["players"]] == [engine.bots[bot].name or bot, "Private Concern"]
    score = (await table.client.get(f"/v1/games/{game_id}/score")).json()
    assert Conformance(DOCUMENT).check(score, "FinalScore", "score") == []
    assert score["score"] == engine.view(game, None)["score"] and score["version"] == game.version
    assert await table.state(game_id) == before


BOTS_ONLY = [{"kind": "bot", "bot": "greedy"}, {"kind": "bot", "bot": "random"}]


def sse_events(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]


BOTS_ONLY_GAME = pytest.mark.xdist_group("lobby-play-bots-only")
"""The two tests comparing their game with :func:`unlimited`'s on one worker under ``--dist
loadgroup``, so that it is played once a run."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def unlimited(redis_server: RedisServer, engine: Engine) -> bytes:
    """The seeded game of bots only, played whole by one bot worker: its packed state. The game
    of a seed and bots is a constant, the same for each test that compares with it: played once
    a module (a whole game of two bots and a bot worker), by the first test that asks."""
    async with open_table(lambda settings: create_app(settings, engine=engine), redis_server) as table:
        created = await table.create(players=2, seed=9, seats=BOTS_ONLY)
        await table.finished(created["id"])
        game, _ = table.replays(engine, created["id"])
    return engine.pack(game)


@BOTS_ONLY_GAME
async def test_a_game_of_bots_only_plays_to_the_end_for_followers_of_its_stream_alone(
    make_app: Any, redis_server: RedisServer, engine: Engine, unlimited: bytes
) -> None:
    """No request but event streams: two per process, on two processes sharing the Redis, each
    with its bot worker. Each stream sees the whole game to `game_finished` (then the server
    ends it); the two workers take the jobs as they come, commit every move once, and the
    game is the one a single worker plays."""
    limits = {"stream_max_duration": 60.0}
    async with open_table(make_app, redis_server, **limits) as one, open_table(make_app, redis_server, **limits) as two:
        created = await one.create(players=2, seed=9, seats=BOTS_ONLY)
        url = f"/v1/games/{created['id']}/stream"
        answers = await asyncio.gather(*(t.client.get(url) for t in (one, two, one, two)))
        logged = await one.log(created["id"])
        assert logged[-1]["type"] == "game_finished"
        for answer in answers:
            assert answer.status_code == 200
            assert sse_events(answer.text) == logged
        limited, _ = one.replays(engine, created["id"])
    assert engine.pack(limited) == unlimited


@BOTS_ONLY_GAME
async def test_a_game_of_bots_only_plays_to_the_end_for_a_long_poll_alone(
    make_app: Any, redis_server: RedisServer, engine: Engine, unlimited: bytes
) -> None:
    """The long poll (`log?after=N&wait=S`) brings the bot worker's next moves as they are
    committed, until the page says `finished`."""
    async with open_table(make_app, redis_server) as table:
        created = await table.create(players=2, seed=9, seats=BOTS_ONLY)
        events: list[dict[str, Any]] = []
        after, polls = -1, 0
        while True:
            page = await table.client.get(f"/v1/games/{created['id']}/log", params={"after": after, "wait": 5})
            assert page.status_code == 200, page.text
            body = page.json()
            assert body["events"] or body["finished"], f"poll {polls} after {after} waited in vain"
            events += body["events"]
            after, polls = body["next"], polls + 1
            if body["finished"] and not body["more"]:
                break
        assert polls > 5 and events[-1]["type"] == "game_finished"
        assert events == await table.log(created["id"])
        game, _ = table.replays(engine, created["id"])
    assert engine.pack(game) == unlimited


async def test_a_human_never_waits_on_a_bot(
    make_app: Any, redis_server: RedisServer, engine: Engine
) -> None:
    """Each answer is the state right after the human's action (the bot's reply comes after,
    from the bot worker of either process), followers of the stream on another process see
    every move, and the game replays."""
    async with open_table(make_app, redis_server) as one, open_table(make_app, redis_server) as two:
        created = await one.create(players=2, seed=4, seats=[{"kind": "human"}, {"kind": "bot", "bot": "greedy"}])
        game_id, token = created["id"], created["seats"][0]["token"]
        url = f"/v1/games/{game_id}"
        followers = [asyncio.create_task(two.client.get(f"{url}/stream")) for _ in range(2)]
        rnd, answers = random.Random(3), 0
        while True:
            await one.settled(game_id, {1})
            listed = (await one.client.get(f"{url}/actions", headers=bearer(token))).json()
            if listed["status"] == "finished":
                break
            assert listed["actions"], listed
            answer = await one.client.post(f"{url}/actions", json=rnd.choice(listed["actions"]), headers=bearer(token))
            assert answer.status_code == 200, answer.text
            assert answer.json()["version"] == listed["version"] + 1, answers
            answers += 1
        streamed = await asyncio.gather(*followers)
        logged = await one.log(game_id)
        assert all(sse_events(answer.text) == logged for answer in streamed)
        one.replays(engine, game_id)
        assert answers > 20


async def test_without_a_bot_worker_reads_change_nothing(
    make_app: Any, redis_server: RedisServer, engine: Engine
) -> None:
    """Reads play no bot any more: with no worker (``--bots 0`` and no ``darkroad bots``), a
    game of bots waits at its first move whatever is read; a worker started later plays it out."""
    async with open_table(make_app, redis_server, bots=0) as table:
        created = await table.create(players=2, seed=9, seats=BOTS_ONLY)
        game_id = created["id"]
        before = await table.state(game_id)
        await table.client.get(f"/v1/games/{game_id}/log", params={"after": -1, "wait": 1})
        problem(await table.client.get(f"/v1/games/{game_id}/score"), 409, "game-not-finished")
        assert await table.state(game_id) == before
        # The job waits in Redis: a worker started now (as `darkroad bots` would be) plays it out.
        worker = BotWorker(engine, table.app.state.service.store, Settings(), Metrics(), processes=False)
        stop = asyncio.Event()
        running = asyncio.create_task(worker.run(stop))
        try:
            await table.finished(game_id)
        finally:
            stop.set()
            await running
        table.replays(engine, game_id)


# -- bad input: a 4xx problem, and the stored game unchanged ---------------------------------


async def test_refusals_change_nothing(table: Table) -> None:
    def games() -> dict[bytes, bytes | None]:
        keys = [*table.redis.client.scan_iter(match="game:*"), WAITING_KEY.encode()]
        return {key: table.redis.client.dump(key) for key in sorted(keys)}

    # An unknown bot, in a seat or as the timeout bot: no game is made, none is listed.
    waiting = await table.create(
        players=3, seed=1, seats=[{"kind": "human"}, {"kind": "open"}, {"kind": "open"}]
    )
    stored = games()
    for body in (
        {"players": 2, "seats": [{"kind": "open"}, {"kind": "bot", "bot": "deep-thought"}]},
        {"players": 1, "seats": [{"kind": "bot", "bot": "Greedy"}]},
        {
            "players": 2,
            "seats": [{"kind": "human"}, {"kind": "open"}],
            "turn_timeout": 9,
            "timeout_bot": "nobody",
        },
    ):
        refused = problem(await table.client.post("/v1/games", json=body), 422, "unknown-bot")
        assert "greedy" in refused["detail"] and "random" in refused["detail"]  # what is installed
    assert games() == stored
    assert [g["id"] for g in (await table.client.get("/v1/games")).json()["games"]] == [waiting["id"]]

    # A started game (seat 1 a bot, seat 2 joined): its seats cannot be left, nor be timed
    # out without a turn timeout, nor joined; the bot's seat is not a player's.
    created = await table.create(
        players=3, seed=2, seats=[{"kind": "human"}, {"kind": "bot", "bot": "greedy"}, {"kind": "open"}]
    )
    game_id, url = created["id"], f"/v1/games/{created['id']}"
    ann, bob = created["seats"][0]["token"], await table.join(game_id, 2, "Bob")
    before = await table.state(game_id)
    assert before[2]["status"] == "active"
    problem(await table.client.post(f"{url}/seats/2/leave", headers=bearer(bob)), 409, "game-started")
    problem(await table.client.post(f"{url}/seats/0/leave", headers=bearer(ann)), 409, "game-started")
    problem(await table.client.post(f"{url}/seats/1/leave", headers=bearer(ann)), 403, "wrong-seat")
    problem(await table.client.post(f"{url}/seats/1/join", json={"name": "Eve"}), 409, "seat-taken")
    problem(await table.client.post(f"{url}/seats/0/timeout", headers=bearer(bob)), 409, "not-overdue")
    problem(await table.client.post(f"{url}/seats/0/timeout", headers=bearer(ann)), 403, "wrong-seat")
    problem(await table.client.post(f"{url}/seats/1/timeout", headers=bearer(bob)), 409, "not-overdue")
    problem(await table.client.post(f"{url}/seats/3/timeout", headers=bearer(bob)), 404, "unknown-seat")
    problem(await table.client.post(f"{url}/seats/0/reclaim", headers=bearer(bob)), 403, "wrong-seat")
    assert await table.state(game_id) == before

    # A waiting game's seats cannot be timed out; a seat is left only with its own token.
    url = f"/v1/games/{waiting['id']}"
    joined = await table.join(waiting["id"], 1, "Cy")
    before = await table.state(waiting["id"])
    problem(
        await table.client.post(f"{url}/seats/0/timeout", headers=bearer(joined)), 409, "game-not-started"
    )
    problem(await table.client.post(f"{url}/seats/0/leave", headers=bearer(joined)), 403, "wrong-seat")
    problem(await table.client.post(f"{url}/seats/2/leave", headers=bearer(joined)), 403, "wrong-seat")
    assert await table.state(waiting["id"]) == before
