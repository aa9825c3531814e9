"""A darkroad bot on the Python client generated from openapi/openapi.json (see README.md).

It creates a game, plays every seat with random legal actions (one task per seat, each with
its own seat token, as separate players would), follows the event stream to know when to
act, and prints the final score.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
from darkroad_client import AuthenticatedClient, Client
from darkroad_client.api.games import create_game, get_score, list_actions, submit_action
from darkroad_client.models import (
    ActionList,
    ActionListStatus,
    CreatedGame,
    FinalScore,
    NewGame,
    ProblemDetails,
)
from httpx_sse import aconnect_sse

# Longer than the server's heartbeat (15 s), so an idle stream is not a timeout.
TIMEOUT = httpx.Timeout(30.0)


class ApiError(Exception):
    def __init__(self, problem: ProblemDetails | None) -> None:
        super().__init__(f"{problem.type_}: {problem.detail}" if problem else "unexpected answer")
        self.problem = problem


async def act(me: AuthenticatedClient, game_id: str, listed: ActionList, rng: random.Random) -> None:
    """Submit one random legal action. Retries reuse the Idempotency-Key: a 503 may come after
    the action was committed, and the same key makes the server answer it instead of acting twice."""
    action = rng.choice(listed.actions)
    key = str(uuid.uuid4())
    for attempt in range(5):
        response = await submit_action.asyncio_detailed(
            game_id, client=me, body=action, if_match=f'"{listed.version}"', idempotency_key=key
        )
        if response.status_code == 200:
            return
        problem = response.parsed if isinstance(response.parsed, ProblemDetails) else None
        if response.status_code == 409 and problem and problem.type_ == "stale-version":
            return  # someone acted first (a simultaneous step): list the actions again
        if response.status_code != 503:
            raise ApiError(problem)
        await asyncio.sleep(float(response.headers.get("Retry-After", 1)) * (attempt + 1))
    raise ApiError(None)


async def take_turns(me: AuthenticatedClient, game_id: str, rng: random.Random) -> bool:
    """Act while the game waits for this seat; False once the game is over."""
    while True:
        listed = await list_actions.asyncio(game_id, client=me)
        if not isinstance(listed, ActionList):
            raise ApiError(listed)
        if listed.status == ActionListStatus.FINISHED:
            return False
        if not listed.actions:
            return True
        await act(me, game_id, listed, rng)


async def follow(me: AuthenticatedClient, game_id: str, after: int = -1) -> AsyncIterator[dict[str, Any]]:
    """The game's events as this seat may see them, live: GET .../stream (server-sent events).
    The server ends a stream now and then; reconnecting with Last-Event-ID resumes after the
    last event received; 204 means the game is over and every event was sent."""
    http = me.get_async_httpx_client()
    while True:
        headers = {"Last-Event-ID": str(after)}
        async with aconnect_sse(http, "GET", f"/v1/games/{game_id}/stream", headers=headers) as source:
            if source.response.status_code == 204:
                return
            source.response.raise_for_status()
            async for message in source.aiter_sse():
                if message.data:  # httpx-sse also yields the heartbeats, as empty messages
                    after = int(message.id)
                    yield json.loads(message.data)  # an Event: n, type, seat, private_to, data


async def play_seat(url: str, game_id: str, seat: int, token: str, seed: int, verbose: bool) -> None:
    rng = random.Random(seed * 10 + seat)
    async with AuthenticatedClient(base_url=url, token=token, timeout=TIMEOUT) as me:
        if not await take_turns(me, game_id, rng):
            return
        async for event in follow(me, game_id):
            if verbose:
                print(f"seat {seat} saw #{event['n']} {event['type']} {event['data']}")
            if not await take_turns(me, game_id, rng):
                return


async def main(url: str, players: int, seed: int | None, verbose: bool) -> FinalScore:
    seed = random.randrange(2**31) if seed is None else seed
    async with Client(base_url=url, timeout=TIMEOUT) as anyone:
        created = await create_game.asyncio(client=anyone, body=NewGame(players=players, seed=seed))
        if not isinstance(created, CreatedGame):
            raise ApiError(created)
        print(f"game {created.id} ({players} players, seed {seed})")
        await asyncio.gather(*(
            play_seat(url, created.id, seat.seat, seat.token, seed, verbose)
            for seat in created.seats if isinstance(seat.token, str)  # the Private Concern plays itself
        ))
        score = await get_score.asyncio(created.id, client=anyone)  # a spectator read: no token
        if not isinstance(score, FinalScore):
            raise ApiError(score)
    for line in score.score:
        print(f"seat {line.seat}: {line.total} = base {line.base} (min of {line.coins} coins, {line.prestige} "
              f"prestige) + {line.deed_vp} deeds + {line.illuminated_vp} illuminated + {line.goods_vp} goods "
              f"+ {line.quartz_vp} quartz; rank {line.rank}")
    print("winners:", ", ".join(f"seat {seat}" for seat in score.winners))
    return score


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--verbose", action="store_true", help="print every event each seat sees")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.url, arguments.players, arguments.seed, arguments.verbose))
