"""Run by ``test_api_redis_floor.py`` in a process whose ``redis`` and ``hiredis`` are the
floor versions of ``pyproject.toml``: the store's every kind of command against a real
Redis (``sys.argv[1]``). Prints the versions it ran with."""

from __future__ import annotations

import asyncio
import sys

import hiredis
import redis

from darkroad.api.store.base import Commit, IdempotencyRecord, NewGame, Outcome, StoredEvent
from darkroad.api.store.redis_store import RedisStore


def commit(expected: int, key: str) -> Commit:
    return Commit(
        game_id="g1", expected_version=expected, expected_tag=f"t{expected}", version=expected + 1,
        tag=f"t{expected + 1}", state=b"state", finished=False, action=b"{}",
        events=[StoredEvent(expected + 1, None, b"{}")], ttl=60, idempotency=IdempotencyRecord(key, b"r", 60),
    )  # fmt: skip


async def main(url: str) -> None:
    async with RedisStore.from_url(url) as store:
        await store.ping()
        game = NewGame(
            id="g1", version=0, state=b"state", finished=False, token_hashes=("a", "b"), tag="t0",
            events=[StoredEvent(0, None, b"{}")], ttl=60,
        )  # fmt: skip
        await store.create(game)
        loads = await asyncio.gather(*(store.load("g1") for _ in range(8)))  # one pipeline
        assert all(loaded is not None and loaded.version == 0 for loaded in loads)
        assert (await store.commit(commit(0, "a"))).outcome is Outcome.COMMITTED
        await store.topology.primaries()[0].client.script_flush()  # the commit script is gone: NOSCRIPT
        assert (await store.commit(commit(1, "b"))).outcome is Outcome.COMMITTED
        assert (await store.commit(commit(1, "b"))).outcome is Outcome.REPLAYED
        assert [event.n for event in await store.events("g1", -1, 10)] == [0, 1, 2]
        waiting = asyncio.create_task(store.wait_events("g1", 2, 10, 5.0))
        await asyncio.sleep(0.2)
        await store.commit(commit(2, "c"))
        assert [event.n for event in await waiting] == [3]
        assert await store.count("ratelimit:{floor}:1", 2, 10) == 2
        assert len(await store.actions("g1")) == 3
    print(f"redis {redis.__version__}, hiredis {hiredis.__version__}: ok")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
