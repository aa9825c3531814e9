"""Redis memory per game, measured on finished 2-, 3- and 4-player games, and how many games
one Redis node of 1 GB holds.

Starts a throwaway ``redis-server`` and plays ``--games`` games per player count to the end
through the API's service layer (``GameService`` on ``RedisStore``: the keys and writes of
a game played over HTTP), every action sent with an ``Idempotency-Key`` as a careful client
does, seats played by ``--bot`` bots. Then, per game, ``MEMORY USAGE`` of each key:

* state: the hash ``game:{id}`` (version, tag, state blob, token hashes);
* event log: the stream ``game:{id}:events``;
* action list: the list ``game:{id}:actions``;
* idempotency records: one per action sent with a key, each holding the version the
  action made, the seat and the action's fingerprint (one integer; the answer is rebuilt
  from the game's history) for ``DARKROAD_IDEMPOTENCY_TTL`` (a day); actions sent without a
  key leave an empty record for 5 minutes instead.

and the node's ``used_memory`` before and after (which adds Redis's per-key bookkeeping).
Prints a table and the games one node with ``maxmemory 1gb`` holds: finished games (a game
only grows, so this bounds the active ones too), with and without a day of records.

    python benchmarks/memory.py [--games 5] [--bot greedy|random]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass

from redis import Redis

from darkroad.api.app.service import GameService
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.redis_store import RedisStore, game_key
from darkroad.core import Engine, GameConfig

GIB = 1024**3
"""``maxmemory 1gb`` in Redis's units."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Footprint:
    """Bytes one finished game takes in Redis, by part."""

    players: int
    actions: int
    events: int
    state: int
    log: int
    action_list: int
    records: int

    @property
    def game(self) -> int:
        return self.state + self.log + self.action_list


async def play(service: GameService, engine: Engine, players: int, seed: int, bot: str) -> str:
    """Play one game to the end through ``service`` with the installed bot ``bot``; its id."""
    created = await service.seats.create(GameConfig(players=players, seed=seed))
    game = engine.loads((await service.store.load(created.id)).state)  # type: ignore[union-attr]
    rnd = random.Random(seed)
    while not game.finished:
        seat = rnd.choice(engine.awaiting(game))
        action = engine.bot_choice(game, seat, engine.bots[bot])
        token = created.tokens[seat]
        assert token is not None
        await service.acting.act(created.id, token, action, None, uuid.uuid4().hex)
        engine.apply(game, action)
    return created.id


def footprint(redis: Redis, engine: Engine, game_id: str) -> Footprint:
    key = game_key(game_id)

    def usage(name: str) -> int:
        return int(redis.memory_usage(name, samples=0) or 0)

    records = sum(usage(name) for name in redis.scan_iter(f"{key}:idem:*", count=1000))
    state = redis.hget(key, "state")
    assert state is not None
    return Footprint(
        players=engine.loads(state).config.players,
        actions=int(redis.llen(f"{key}:actions")),
        events=int(redis.xlen(f"{key}:events")),
        state=usage(key),
        log=usage(f"{key}:events"),
        action_list=usage(f"{key}:actions"),
        records=records,
    )


async def measure(engine: Engine, url: str, redis: Redis, games: int, bot: str) -> None:
    results: dict[int, list[Footprint]] = {}
    used: dict[int, float] = {}
    async with RedisStore.from_url(url) as store:
        service = GameService(engine, store, Settings(), Metrics())
        for players in (2, 3, 4):
            before = int(redis.info("memory")["used_memory"])
            ids = [await play(service, engine, players, 1000 * players + n, bot) for n in range(games)]
            used[players] = (int(redis.info("memory")["used_memory"]) - before) / games
            results[players] = [footprint(redis, engine, game_id) for game_id in ids]

    def mean(players: int, part: str) -> float:
        return float(statistics.mean(getattr(f, part) for f in results[players]))

    print(f"{games} finished games per player count, {bot} bots, every action with an Idempotency-Key")
    print(
        f"{'players':>7} {'actions':>8} {'events':>7} {'state':>9} {'event log':>10} {'actions':>9} "
        f"{'game':>9} {'records':>9} {'used_memory/game':>17}"
    )
    for players in (2, 3, 4):
        print(
            f"{players:>7} {mean(players, 'actions'):>8.0f} {mean(players, 'events'):>7.0f} "
            f"{kb(mean(players, 'state'))} {kb(mean(players, 'log')):>10} {kb(mean(players, 'action_list'))} "
            f"{kb(mean(players, 'game'))} {kb(mean(players, 'records'))} {kb(used[players]):>17}"
        )
    print("(KB = 1000 bytes; MEMORY USAGE per key; used_memory/game includes the records and Redis's bookkeeping)")
    print("games one node with maxmemory 1gb holds (finished games; active games are smaller):")
    for players in (2, 3, 4):
        game = mean(players, "game")
        with_records = used[players]
        print(
            f"  {players} players: {GIB / game:9,.0f} games   "
            f"(with a day of idempotency records: {GIB / with_records:9,.0f})"
        )


def kb(value: float) -> str:
    return f"{value / 1000:7.1f}KB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5, help="finished games per player count")
    engine = Engine.load()
    parser.add_argument("--bot", choices=sorted(engine.bots), default="greedy", help="who plays the seats")
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is not installed")
    port = free_port()
    with tempfile.TemporaryDirectory() as directory:
        server = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", directory],  # fmt: skip
            stdout=subprocess.DEVNULL,
        )
        try:
            redis = Redis(port=port)
            deadline = time.monotonic() + 10
            while True:
                try:
                    redis.ping()
                    break
                except Exception:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
            asyncio.run(measure(engine, f"redis://127.0.0.1:{port}/0", redis, args.games, args.bot))
        finally:
            server.terminate()
            server.wait(timeout=10)


if __name__ == "__main__":
    main()
