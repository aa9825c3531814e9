"""The cost of stepping through a game's history (``GET .../history/{version}``), against a
plain read of the game's view (``GET /v1/games/{id}``), in the service layer.

Plays ``--games`` finished games of ``--players`` seats, every seat the first legal action (through
``GameService``, on the memory store), then, per game:

* cold: the first history request, which replays the whole game (kept by the process);
* step: every version in turn, for one seat, as a replay in the browser steps through it
  (the states kept, each view rendered);
* view: the seat's view of the current game, as many times (the baseline: every read renders it).

Steps and views alternate round by round (``--rounds``), so that the machine's noise hits both;
prints medians and p99 in milliseconds and the ratio step / view.

    python benchmarks/history.py [--games 3] [--players 4] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from darkroad.api.app.service import GameService
from darkroad.api.app.values import Seating, SeatSpec
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.memory import MemoryStore
from darkroad.core import Engine, GameConfig


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(games: int, players: int, rounds: int) -> None:
    engine = Engine.load()
    service = GameService(engine, MemoryStore(), Settings(), Metrics())
    cold: list[float] = []
    steps: list[float] = []
    views: list[float] = []
    versions = 0
    for n in range(games):
        seats = [SeatSpec("human", f"P{i}") for i in range(players)]
        created = await service.seats.create(GameConfig(players=players, seed=100 + n), Seating(seats=seats))
        # Every seat's moves: the first legal action of an awaited seat each time, until the end.
        tokens = [token or "" for token in created.tokens]
        token = tokens[0]
        while True:
            caller = await service.reading.caller(created.id, token)
            if caller.stored.finished:
                break
            seat = engine.awaiting(service.games.game(caller.stored))[0]
            mover = await service.reading.caller(created.id, tokens[seat])
            legal = service.reading.legal_actions(mover)
            await service.acting.act(created.id, tokens[seat], engine.action_from_json(legal[0]), None, None)
        caller = await service.reading.caller(created.id, token)
        last = caller.stored.version
        versions += last + 1
        started = time.perf_counter()
        await service.history.at(caller, 0)
        cold.append(time.perf_counter() - started)
        for _ in range(rounds):
            for version in range(last + 1):
                started = time.perf_counter()
                await service.history.at(caller, version)
                steps.append(time.perf_counter() - started)
            for _ in range(last + 1):
                started = time.perf_counter()
                service.reading.view(caller)
                views.append(time.perf_counter() - started)
    service.close()

    def ms(value: float) -> str:
        return f"{value * 1000:7.2f} ms"

    print(f"{games} games of {players} seats (random bots and one player), {versions} versions, {rounds} rounds")
    print(f"cold (the first request, replaying the game): median {ms(statistics.median(cold))}")
    step, view = statistics.median(steps), statistics.median(views)
    print(f"step  (history/{{version}}, seat's view + events): median {ms(step)}  p99 {ms(quantile(steps, 0.99))}")
    print(f"view  (the current view, the baseline):           median {ms(view)}  p99 {ms(quantile(views, 0.99))}")
    print(f"step / view: {step / view:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(measure(args.games, args.players, args.rounds))


if __name__ == "__main__":
    main()
