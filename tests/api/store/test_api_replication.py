"""``DARKROAD_REDIS_WAIT_REPLICAS``: writes acknowledged only once replicas confirm them.

A primary and a replica on loopback; the replica is stopped to make ``WAIT`` time out and
started again to let it succeed. The timed-out write stays on the primary; the retry with
the same ``Idempotency-Key`` answers with the first answer once a replica confirms it,
and never applies the action twice.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from apiutil import RedisServer, assert_problem, create_game, legal, serve
from litestar import Litestar
from test_api_store import commit, new_game

from darkroad.api.settings import Settings
from darkroad.api.store.base import Outcome, ReplicationTimeout
from darkroad.api.store.redis_store import RedisStore

# Long enough that a replica in sync confirms in time on a loaded 2-core CI machine (0.2 s
# was not: the first create of a test sometimes timed out); each refused write waits it out.
WAIT_TIMEOUT = 1.0
CONFIRMED = 30.0
"""How long a write may wait for a live replica's confirmation (a bound, not a wait)."""


@dataclasses.dataclass
class Replicated:
    primary: RedisServer
    replica: RedisServer | None
    directory: Path

    def stop_replica(self) -> None:
        assert self.replica is not None
        self.replica.stop()
        self.replica = None
        # The primary notices a dead replica only when the link times out; tell it now.
        self.primary.client.client_kill_filter(_type="replica")

    def start_replica(self) -> None:
        self.replica = RedisServer(self.directory, replica_of=self.primary.port)
        self.replica.wait_in_sync()


@pytest.fixture
def replicated(tmp_path: Path) -> Iterator[Replicated]:
    (tmp_path / "primary").mkdir()
    (tmp_path / "replica").mkdir()
    pair = Replicated(RedisServer(tmp_path / "primary"), None, tmp_path / "replica")
    pair.start_replica()
    yield pair
    if pair.replica is not None:
        pair.replica.stop()
    pair.primary.stop()


async def test_commits_wait_for_the_replica(replicated: Replicated) -> None:
    # Writes a live replica confirms go through a store that waits long enough for a loaded
    # machine (a create once timed out after 1 s in a CI run at load ~20); those meant to time
    # out through one that gives up after WAIT_TIMEOUT.
    async with (
        RedisStore.from_url(replicated.primary.url, wait_replicas=1, wait_timeout=CONFIRMED) as store,
        RedisStore.from_url(replicated.primary.url, wait_replicas=1, wait_timeout=WAIT_TIMEOUT) as hasty,
    ):
        await store.create(new_game())
        assert (await store.commit(commit(0, key="a"))).outcome is Outcome.COMMITTED
        assert replicated.replica is not None
        assert replicated.replica.client.hget("game:{g1}", "version") == b"1"  # WAIT returned: it is there

        replicated.stop_replica()
        started = time.monotonic()
        with pytest.raises(ReplicationTimeout):
            await hasty.commit(commit(1, key="b"))
        assert time.monotonic() - started >= WAIT_TIMEOUT * 0.9
        # The write is on the primary; reads neither wait for replicas nor fail.
        started = time.monotonic()
        stored = await hasty.load("g1", "b")
        assert time.monotonic() - started < WAIT_TIMEOUT * 0.9  # a WAIT would take WAIT_TIMEOUT
        assert stored is not None and stored.version == 2 and stored.replay == b"result-2"
        # Retrying (same record) replays, and is not confirmed either while no replica is there.
        with pytest.raises(ReplicationTimeout):
            await hasty.commit(commit(1, key="b"))
        with pytest.raises(ReplicationTimeout):
            await hasty.confirm("g1", "b", 60)
        with pytest.raises(ReplicationTimeout):
            await hasty.create(new_game("g2"))

        replicated.start_replica()
        result = await store.commit(commit(1, key="b"))
        assert (result.outcome, result.replay) == (Outcome.REPLAYED, b"result-2")
        await store.confirm("g1", "b", 60)
        assert await store.actions("g1") == [b'{"action":1}', b'{"action":2}']
        # Not stale, not written: a stale commit is answered as usual.
        assert (await store.commit(commit(0, key="c"))).outcome is Outcome.STALE


async def test_the_api_answers_503_and_the_retry_is_safe(
    replicated: Replicated, make_app: Callable[[Settings], Litestar]
) -> None:
    settings = Settings(redis_url=replicated.primary.url, redis_wait_replicas=1, redis_wait_timeout=WAIT_TIMEOUT)
    async with serve(make_app(settings)) as client:
        game = await create_game(client)
        view = (await client.get(game.url)).json()
        seat = view["awaiting"][0]
        action = (await legal(client, game, seat))[0]
        headers = {**game.auth(seat), "Idempotency-Key": "first-move"}

        replicated.stop_replica()
        response = await client.post(f"{game.url}/actions", json=action, headers=headers)
        body = assert_problem(response, 503, "replication-timeout")
        assert "Idempotency-Key" in body["detail"]
        assert response.headers["retry-after"] == "1"
        # Still no replica: the retry (answered from the record) is not acknowledged either.
        assert_problem(await client.post(f"{game.url}/actions", json=action, headers=headers), 503, "replication-timeout")
        assert_problem(await client.post("/v1/games", json={"players": 2}), 503, "replication-timeout")

        replicated.start_replica()
        retried = await client.post(f"{game.url}/actions", json=action, headers=headers)
        assert retried.status_code == 200, retried.text
        assert retried.json()["version"] == game.version + 1
        assert (await client.get(game.url)).json()["version"] == game.version + 1  # applied once
        key = f"game:{{{game.id}}}:actions"
        assert replicated.primary.client.llen(key) == 1
        assert replicated.replica is not None and replicated.replica.client.llen(key) == 1


async def test_a_join_answered_503_is_recovered_with_its_key(
    replicated: Replicated, make_app: Callable[[Settings], Litestar]
) -> None:
    """The join was written but not confirmed (``503``, no token): the retry with its key gets
    the seat, once, with a token that plays (issue 14)."""
    settings = Settings(redis_url=replicated.primary.url, redis_wait_replicas=1, redis_wait_timeout=WAIT_TIMEOUT)
    async with serve(make_app(settings)) as client:
        body = {"players": 2, "seed": 1, "seats": [{"kind": "human"}, {"kind": "open"}]}
        created = (await client.post("/v1/games", json=body)).json()
        url = f"/v1/games/{created['id']}"
        join = {"url": f"{url}/seats/1/join", "json": {"name": "Bob"}, "headers": {"Idempotency-Key": "j"}}

        replicated.stop_replica()
        assert_problem(await client.post(**join), 503, "replication-timeout")
        assert (await client.get(url)).json()["seats"][1]["name"] == "Bob"  # written, on the primary
        replicated.start_replica()
        retried = await client.post(**join)
        assert retried.status_code == 201, retried.text
        token = {"Authorization": f"Bearer {retried.json()['token']}"}
        view = (await client.get(url, headers=token)).json()
        assert view["seat"] == 1 and view["status"] == "active"
        assert view["version"] == created["version"] + 2  # joined once, then its token replaced
        assert (await client.get(f"{url}/actions", headers=token)).status_code == 200
        assert_problem(await client.post(f"{url}/seats/1/join", json={"name": "Bob"}), 409, "seat-taken")


async def test_the_waiting_list_does_not_wait_for_replicas(
    replicated: Replicated, make_app: Callable[[Settings], Litestar]
) -> None:
    """Reading the listing drops entries of games that expired; that cleanup must not wait for
    a replica (it answered 500 after the WAIT timeout): readers check every entry anyway."""
    settings = Settings(redis_url=replicated.primary.url, redis_wait_replicas=1, redis_wait_timeout=WAIT_TIMEOUT)
    async with serve(make_app(settings)) as client:
        body = {"players": 2, "seats": [{"kind": "human"}, {"kind": "open"}]}
        gone, kept = [(await client.post("/v1/games", json=body)).json()["id"] for _ in range(2)]
        replicated.primary.client.delete(f"game:{{{gone}}}")  # as its expiry would
        replicated.stop_replica()
        started = time.monotonic()
        response = await client.get("/v1/games", params={"status": "waiting"})
        assert response.status_code == 200, response.text
        assert time.monotonic() - started < WAIT_TIMEOUT * 0.9  # a WAIT would take WAIT_TIMEOUT
        assert [game["id"] for game in response.json()["games"]] == [kept]


async def test_without_replicas_to_wait_for_nothing_waits(redis_url: str) -> None:
    async with RedisStore.from_url(redis_url) as store:  # no replica at all, WAIT 0
        await store.create(new_game())
        started = time.monotonic()
        await asyncio.gather(*(store.commit(commit(0, key=f"k{n}")) for n in range(10)))
        assert time.monotonic() - started < 1
