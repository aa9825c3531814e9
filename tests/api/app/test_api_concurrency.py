"""Many clients racing on one game: duplicates, stale versions, retries.

Every request carries ``If-Match`` or an ``Idempotency-Key`` (or both), so each may
apply at most once. At the end: every committed version was produced by exactly one
request (none lost, none doubled), each client saw versions only increase, retries
got the first answer, and replaying the stored action list reproduces the stored state.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass

import httpx
from apiutil import NewGame, create_game
from litestar import Litestar

from darkroad.api.app import records
from darkroad.core import Engine

RACERS = 12
TARGET_ACTIONS = 60


@dataclass
class Answer:
    key: str | None
    status: int
    version: int | None
    replayed: bool
    problem: str | None
    body: bytes


async def submit(client: httpx.AsyncClient, game: NewGame, seat: int, action: dict, headers: dict) -> Answer:
    response = await client.post(f"{game.url}/actions", json=action, headers={**game.auth(seat), **headers})
    ok = response.status_code == 200
    return Answer(
        key=headers.get("Idempotency-Key"),
        status=response.status_code,
        version=response.json()["version"] if ok else None,
        replayed=response.headers.get("idempotent-replayed") == "true",
        problem=None if ok else response.json()["type"],
        body=response.content,
    )


async def racer(client: httpx.AsyncClient, game: NewGame, number: int, answers: list[Answer]) -> None:
    rnd = random.Random(number)
    seen = -1
    for attempt in range(10_000):
        view = (await client.get(game.url)).json()
        assert view["version"] >= seen, "a client saw the version go back"
        seen = view["version"]
        if view["status"] == "finished" or view["version"] - game.version >= TARGET_ACTIONS:
            return
        seat = rnd.choice(view["awaiting"])
        listed = (await client.get(f"{game.url}/actions", headers=game.auth(seat))).json()
        if not listed["actions"]:
            continue
        action = rnd.choice(listed["actions"])
        if_match = {"If-Match": f'"{listed["version"]}"'}
        key = {"Idempotency-Key": f"racer{number}-{attempt}"}
        mode = rnd.choice(["if-match", "key", "both", "duplicate-key", "duplicate-if-match"])
        if mode == "if-match":
            batch = [if_match]
        elif mode == "key":
            batch = [key]
        elif mode == "both":
            batch = [{**if_match, **key}]
        elif mode == "duplicate-key":
            batch = [key] * 3
        else:
            batch = [if_match] * 3
        sent = await asyncio.gather(*(submit(client, game, seat, action, headers) for headers in batch))
        answers.extend(sent)
        # Duplicates of one batch answer in any order; each applied version is new to this client.
        versions = [answer.version for answer in sent if answer.version is not None]
        assert all(version > seen for version in versions), "a client saw the version go back"
        seen = max([seen, *versions])


async def test_racing_clients_lose_and_double_nothing(
    client: httpx.AsyncClient, app: Litestar, engine: Engine
) -> None:
    game = await create_game(client, players=3, seed=9)
    answers: list[Answer] = []
    await asyncio.gather(*(racer(client, game, number, answers) for number in range(RACERS)))

    assert {answer.status for answer in answers} <= {200, 409}
    assert {answer.problem for answer in answers if answer.status == 409} <= {
        "stale-version",
        "illegal-action",
        "not-your-decision",
    }
    final = (await client.get(game.url)).json()["version"]
    applied = sorted(answer.version for answer in answers if answer.status == 200 and not answer.replayed)
    assert applied == list(range(game.version + 1, final + 1)), "a version was lost or produced twice"
    assert any(answer.replayed for answer in answers), (
        "no duplicate was ever replayed: the race did not happen"
    )
    assert any(answer.problem == "stale-version" for answer in answers), "no request was ever stale"

    by_key: dict[str, list[Answer]] = {}
    for answer in answers:
        if answer.key is not None and answer.status == 200:
            by_key.setdefault(answer.key, []).append(answer)
    for same in by_key.values():
        assert sum(not answer.replayed for answer in same) == 1
        assert len({answer.body for answer in same}) == 1, "a retry got a different answer"

    store = app.state.service.store
    stored = await store.load(game.id)
    assert stored.version == final
    actions = records.entries_of(await store.actions(game.id))  # without their commit times
    assert len(actions) == final - game.version
    replayed = engine.replay(engine.loads(stored.state).config, actions)
    assert engine.pack(replayed) == stored.state
