"""Several API processes on one Redis: any of them serves any request of any game.

Two ``darkroad serve`` processes answer the requests of one game alternately; one of
them is restarted mid-game. The game plays on as if nothing happened.
"""

from __future__ import annotations

import random

import httpx
from apiutil import ApiServer, NewGame, RedisServer

from darkroad.api.app.records import entries_of
from darkroad.api.store.redis_store import game_key
from darkroad.core import Engine

RESTART_AT = 40
"""The version at which the first process is restarted."""
PLAYED_ON = 40
"""Versions played after the restart, through both processes (the rest of the game would ask
the processes nothing new: each action is the same requests again)."""


async def test_two_processes_one_game_with_a_restart(
    redis_server: RedisServer, redis_url: str, engine: Engine
) -> None:
    servers = [ApiServer(redis_url).start(), ApiServer(redis_url).start()]
    clients = [httpx.AsyncClient(base_url=server.url, timeout=10) for server in servers]
    try:
        created = await clients[0].post("/v1/games", json={"players": 2, "seed": 21})
        assert created.status_code == 201
        game = NewGame(created.json())
        rnd = random.Random(21)
        turn = 0
        restarted = False
        while True:
            client = clients[turn % 2]  # every request to the other process than the last
            turn += 1
            view = (await client.get(game.url)).json()
            if view["status"] == "finished" or view["version"] >= RESTART_AT + PLAYED_ON:
                break
            if view["version"] >= RESTART_AT and not restarted:
                assert "Traceback" not in servers[0].stop()
                servers[0].start()  # same port: its clients reconnect
                restarted = True
            seat = rnd.choice(view["awaiting"])
            other = clients[turn % 2]
            actions = (await other.get(f"{game.url}/actions", headers=game.auth(seat))).json()["actions"]
            headers = {**game.auth(seat), "If-Match": f'"{view["version"]}"'}
            response = await client.post(f"{game.url}/actions", json=rnd.choice(actions), headers=headers)
            assert response.status_code == 200, response.text
        assert restarted

        views = [(await client.get(game.url, headers=game.auth(0))).json() for client in clients]
        assert views[0] == views[1]
        for client in clients:
            metrics = (await client.get("/metrics")).text
            assert 'route="/v1/games/{game_id}/actions",status="200"' in metrics

        key = game_key(game.id)
        stored = redis_server.client.hgetall(key)
        actions = entries_of(redis_server.client.lrange(f"{key}:actions", 0, -1))  # without their commit times
        assert int(stored[b"version"]) == views[0]["version"] == len(actions) + game.version
        replayed = engine.replay(engine.loads(stored[b"state"]).config, actions)
        assert engine.pack(replayed) == stored[b"state"]
    finally:
        for client in clients:
            await client.aclose()
        for server in servers:
            if server.process is not None:
                server.stop()
