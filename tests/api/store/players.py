"""Clients playing many games at once over HTTP, as a bot author's would, for the tests that
break Redis under them (failover, resharding).

Each game is played by one task, its requests alternating between the API servers given.
Every action is sent with its own ``Idempotency-Key`` and, as the API documents, sent again
with the same key after a ``503`` (``store-unavailable`` during a failover,
``replication-timeout`` while a write waits for replicas). Every acknowledged action (the
``200``) is recorded with the version it made, so that the store can be checked
afterwards: :func:`lost_actions` finds the acknowledged actions that are not in a game's
action list, :func:`replays_to_its_state` replays that list against the stored state.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from apiutil import cookieless, played_record

from darkroad.api.app.records import entries_of
from darkroad.core import Engine

RETRYABLE = {"store-unavailable", "replication-timeout"}

KEEPALIVE_EXPIRY = 2.0
"""Seconds a test's client keeps an idle connection: below the server's keep-alive timeout
(uvicorn's, 5 s). httpx's default expiry is the same 5 s, so a request sent on a connection idle
for nearly 5 s could reach a server closing it at that moment (on a loaded machine the server's
timer runs before it reads the request) and fail with a ``ReadError`` (RFC 9112, 9.3.1: the
server may close an idle connection at any time; a client keeps its own expiry shorter)."""


def live_client(url: str, timeout: float) -> httpx.AsyncClient:
    """A client of a live server's ``url`` (httpx's default pool) that closes idle connections
    before the server does (:data:`KEEPALIVE_EXPIRY`)."""
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=KEEPALIVE_EXPIRY)
    return cookieless(httpx.AsyncClient(base_url=url, timeout=timeout, limits=limits))
"""503 problems a client retries (the same request, the same Idempotency-Key)."""
RETRY_PAUSE = 0.1
"""Seconds between retries (the API says ``Retry-After: 1``; the tests are in a hurry)."""


@dataclass
class Ack:
    """An action the API acknowledged: it made ``version`` of its game, at ``at`` (monotonic)."""

    version: int
    action: dict[str, Any]
    at: float


@dataclass
class PlayedGame:
    """A game created over HTTP and what its player saw."""

    id: str
    first_version: int
    tokens: dict[int, str]
    players: int
    acks: list[Ack] = field(default_factory=list)
    finished: bool = False

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}


@dataclass
class Table:
    """The games, the API servers, and what went wrong (problem type or status -> count)."""

    clients: list[httpx.AsyncClient]
    games: list[PlayedGame] = field(default_factory=list)
    retried: Counter[str] = field(default_factory=Counter)
    """Documented retries: 503s with a retryable problem type."""
    errors: Counter[str] = field(default_factory=Counter)
    """Everything else that was not a 2xx (a client of a healthy service sees none)."""
    conflicts: Counter[str] = field(default_factory=Counter)
    """After writes lost in a failover the game goes back: an action or the legal actions read
    for a view that is no longer the game's (409/422, or none for the awaited seat): re-read, go on."""

    async def request(self, n: int, method: str, url: str, **kwargs: Any) -> httpx.Response:
        """``method url`` on server ``n`` (mod the number of servers), sent again after a
        retryable 503 (with the same headers: an action keeps its Idempotency-Key)."""
        deadline = time.monotonic() + 60
        while True:
            client = self.clients[n % len(self.clients)]
            try:
                response = await client.request(method, url, **kwargs)
            except httpx.TransportError as exc:  # the test's API processes do not go away
                self.errors[f"transport {type(exc).__name__}"] += 1
                raise
            if response.status_code != 503:
                return response
            problem = response.json().get("type", "503")
            if problem not in RETRYABLE or time.monotonic() > deadline:
                self.errors[f"503 {problem}"] += 1
                return response
            self.retried[problem] += 1
            n += 1  # any server will do
            await asyncio.sleep(RETRY_PAUSE)

    async def create(self, players: int, seed: int) -> PlayedGame:
        response = await self.request(seed, "POST", "/v1/games", json={"players": players, "seed": seed})
        assert response.status_code == 201, response.text
        body = response.json()
        game = PlayedGame(
            body["id"], body["version"], {s["seat"]: s["token"] for s in body["seats"]}, players
        )
        self.games.append(game)
        return game

    async def import_near_end(self, engine: Engine, players: int, seed: int, left: int) -> PlayedGame:
        """A game played in-process by random legal actions to its end (:func:`played_record`),
        imported ``left`` actions before it (``POST /v1/games/import?at=``): a running game whose
        end is ``left`` actions of play away (a position set up directly instead of hundreds of
        requests to reach it)."""
        record = played_record(engine, players, seed, f"table-{seed}")
        at = len(record["actions"]) - left
        response = await self.request(seed, "POST", "/v1/games/import", params={"at": at}, json=record)
        assert response.status_code == 201, response.text
        body = response.json()
        played = PlayedGame(body["id"], body["version"] - at, {s["seat"]: s["token"] for s in body["seats"]}, players)
        self.games.append(played)
        return played

    async def play(self, game: PlayedGame, rnd: random.Random, keep_going: Callable[[], bool]) -> None:
        """Play ``game`` until it is finished or ``keep_going()`` is false."""
        url = f"/v1/games/{game.id}"
        turn = rnd.randrange(len(self.clients))
        state: dict[str, Any] | None = None
        """The game's view: as an applied action answered it (a client reads the view its action
        answers with, not the game again), else read (at the start, and after anything else)."""
        while keep_going():
            turn += 1
            if state is None:
                view = await self.request(turn, "GET", url)
                if view.status_code != 200:
                    self.errors[f"GET {view.status_code}"] += 1
                    await asyncio.sleep(RETRY_PAUSE)
                    continue
                state = view.json()
            if state["status"] == "finished":
                game.finished = True
                return
            seat = rnd.choice(state["awaiting"])
            state = None
            listed = await self.request(turn + 1, "GET", f"{url}/actions", headers=game.auth(seat))
            if listed.status_code != 200:
                self.errors[f"GET actions {listed.status_code}"] += 1
                await asyncio.sleep(RETRY_PAUSE)
                continue
            actions = listed.json()["actions"]
            if not actions:  # the game went back since the view was read (writes lost in a failover)
                self.conflicts["no legal action"] += 1
                continue
            action = rnd.choice(actions)
            headers = {**game.auth(seat), "Idempotency-Key": uuid.uuid4().hex}
            response = await self.request(turn, "POST", f"{url}/actions", json=action, headers=headers)
            if response.status_code == 200:
                state = response.json()
                game.acks.append(Ack(state["version"], action, time.monotonic()))
            elif response.status_code in (409, 422):
                self.conflicts[response.json()["type"]] += 1
            else:
                self.errors[f"POST {response.status_code} {response.json().get('type')}"] += 1

    async def play_all(self, keep_going: Callable[[], bool], seed: int = 0) -> None:
        """Play every game at once until each is finished or ``keep_going()`` is false."""
        await asyncio.gather(
            *(self.play(game, random.Random(seed + n), keep_going) for n, game in enumerate(self.games))
        )


def _key(action: dict[str, Any]) -> tuple[Any, ...]:
    return (action["type"], action["seat"], action["option"])


def lost_actions(game: PlayedGame, stored_actions: list[bytes]) -> list[Ack]:
    """The acknowledged actions of ``game`` that are not in its stored action list at their
    version (lost in a failover; another action may have taken their place since)."""
    stored = [_key(json.loads(raw)) for raw in stored_actions]
    lost = []
    for ack in game.acks:
        position = ack.version - game.first_version - 1
        if position >= len(stored) or stored[position] != _key(ack.action):
            lost.append(ack)
    return lost


def replays_to_its_state(engine: Engine, state: bytes, stored_actions: list[bytes]) -> bool:
    """Whether replaying the action list from the game's configuration gives its stored state."""
    game = engine.loads(state)
    replayed = engine.replay(game.config, entries_of(stored_actions))  # without their commit times
    return engine.pack(replayed) == state


LOBBY_ACTIONS = 20
"""Actions :func:`lobby_game` plays in the lobby's game, and before its end in the imported one."""


async def lobby_game(client: httpx.AsyncClient, engine: Engine, seed: int) -> str:
    """A game through the lobby, then a game played to its end, over HTTP: every kind of Redis
    command the service sends (the tests of the deployment's Redis users run it as the confined
    user).

    Ann creates a game of three with two open seats; it is listed as waiting; Bob joins and
    leaves, Cy joins (still listed), Di joins and the game starts (no longer listed); the log is
    long-polled while it waits; they play :data:`LOBBY_ACTIONS` random legal actions (each
    reading the game from its last action's answer, as a client does). A game of three is then
    imported :data:`LOBBY_ACTIONS` actions before its end (``POST /v1/games/import?at=``, a
    position set up directly instead of the hundreds of requests that reach it) and played to
    its end the same way, and its event stream read to the end. Returns the lobby game's id.
    """
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "open"}, {"kind": "open"}]
    created = await client.post("/v1/games", json={"players": 3, "seed": seed, "seats": seats})
    assert created.status_code == 201, created.text
    body = created.json()
    url = f"/v1/games/{body['id']}"
    tokens = {seat["seat"]: seat["token"] for seat in body["seats"] if seat.get("token")}

    async def waiting() -> list[str]:
        listed = await client.get("/v1/games", params={"status": "waiting"})
        assert listed.status_code == 200, listed.text
        return [game["id"] for game in listed.json()["games"]]

    assert body["id"] in await waiting()
    log = await client.get(f"{url}/log", params={"after": 100_000, "wait": 0.3})  # waits: XREAD BLOCK
    assert log.status_code == 200 and log.json()["events"] == [], log.text
    bob = await client.post(f"{url}/seats/1/join", json={"name": "Bob"})
    assert bob.status_code == 201, bob.text
    left = await client.post(f"{url}/seats/1/leave", headers={"Authorization": f"Bearer {bob.json()['token']}"})
    assert left.status_code == 204, left.text
    assert body["id"] in await waiting()
    for seat, name in ((1, "Cy"), (2, "Di")):
        joined = await client.post(f"{url}/seats/{seat}/join", json={"name": name}, headers={"Idempotency-Key": name})
        assert joined.status_code == 201, joined.text
        tokens[seat] = joined.json()["token"]
        assert (body["id"] in await waiting()) == (seat == 1)
    rnd = random.Random(seed)
    state = await _play(client, url, tokens, rnd, LOBBY_ACTIONS)
    assert state["status"] == "active", state["status"]

    record = played_record(engine, 3, seed, f"lobby-{seed}")
    imported = await client.post("/v1/games/import", params={"at": len(record["actions"]) - LOBBY_ACTIONS}, json=record)
    assert imported.status_code == 201, imported.text
    ending = imported.json()
    url = f"/v1/games/{ending['id']}"
    # Its end is played by another random line than the record's, so it may take more actions than
    # were left there: the cap only bounds a game that never ends (only the actions played cost).
    state = await _play(client, url, {s["seat"]: s["token"] for s in ending["seats"]}, rnd, 25 * LOBBY_ACTIONS)
    assert state["status"] == "finished", f"game {ending['id']} not finished"
    stream = await client.get(f"{url}/stream", params={"after": 0})  # every event, then the end
    assert stream.status_code == 200 and "game_finished" in stream.text, stream.text[-500:]
    return str(body["id"])


async def _play(
    client: httpx.AsyncClient, url: str, tokens: dict[int, str], rnd: random.Random, actions: int
) -> dict[str, Any]:
    """Up to ``actions`` random legal actions of the game at ``url`` (fewer if it ends), each with
    an Idempotency-Key; the game as the last one left it."""
    view = await client.get(url)
    assert view.status_code == 200, view.text
    state: dict[str, Any] = view.json()
    for n in range(actions):
        if state["status"] == "finished":
            break
        seat = rnd.choice(state["awaiting"])
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        listed = await client.get(f"{url}/actions", headers=auth)
        assert listed.status_code == 200, listed.text
        action = rnd.choice(listed.json()["actions"])
        acted = await client.post(f"{url}/actions", json=action, headers={**auth, "Idempotency-Key": f"k{n}"})
        assert acted.status_code == 200, acted.text
        state = acted.json()  # the game as the action left it, as a client reads it
    return state
