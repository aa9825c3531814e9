"""The in-memory store: the embedded default, for one process."""

from __future__ import annotations

import asyncio
import bisect
import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from darkroad.api.store.base import (
    BotJob,
    Commit,
    CommitResult,
    GameExists,
    GameStore,
    NewGame,
    Outcome,
    StoredEvent,
    StoredGame,
)
from darkroad.api.store.memory_groups import MemoryGroup
from darkroad.api.store.memory_hooks import MemoryHooks


@dataclass(slots=True)
class _MemoryGame:
    version: int
    tag: str
    state: bytes
    finished: bool
    token_hashes: tuple[str, ...]
    expires_at: float
    events: list[StoredEvent]
    lobby: bytes | None = None
    actions: list[bytes] = field(default_factory=list)
    job: str | None = None
    created: str = ""
    """The tag of the game's first version: a create made again is known as its own by it."""
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    """Set (and replaced) on every commit, to wake the waiting event streams."""


class MemoryStore(MemoryHooks, GameStore):
    """Games in this process's memory: the embedded default for one process.

    Every method runs without awaiting in between its reads and writes, so on one event
    loop each is atomic, exactly as a Redis script is.
    """

    SWEEP_INTERVAL = 60.0
    """Seconds between scans for expired games and idempotency records."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._games: dict[str, _MemoryGame] = {}
        self._idempotency: dict[tuple[str, str], tuple[bytes, float]] = {}
        self._waiting: list[str] = []
        """The index of listed waiting games, sorted (see :meth:`GameStore.list_waiting`)."""
        self._next_sweep = clock() + self.SWEEP_INTERVAL
        self._counters: dict[str, tuple[int, float]] = {}
        # The queue of bot jobs, as a Redis stream with one consumer group: a job handed out
        # again (its worker did not acknowledge it in time) says so (BotJob.deliveries).
        self._job_group: MemoryGroup[BotJob] = MemoryGroup(
            lambda job, consumer, claimed: dataclasses.replace(
                job, consumer=consumer, deliveries=2 if claimed else job.deliveries
            )
        )
        self._clocks: dict[str, float] = {}
        """The turn clocks: game id -> deadline (Unix seconds)."""
        MemoryHooks.__init__(self, lambda game_id: self._live(game_id) is not None)

    def clear(self) -> None:
        """Forget every game, record and index entry (tests that need a fresh store)."""
        self._games.clear()
        self._idempotency.clear()
        self._waiting.clear()
        self._job_group.clear()
        self._clocks.clear()
        self.clear_hooks()

    async def ping(self) -> None:
        """The memory store is always reachable."""

    async def create(self, game: NewGame) -> None:
        self._sweep()
        there = self._live(game.id)
        if there is not None:
            if there.created == game.tag:
                return  # this very create, made again (as Redis's is when its reply was lost)
            raise GameExists(game.id)
        self._games[game.id] = _MemoryGame(
            version=game.version,
            tag=game.tag,
            created=game.tag,
            state=game.state,
            finished=game.finished,
            token_hashes=game.token_hashes,
            expires_at=self._clock() + game.ttl,
            events=list(game.events),
            lobby=game.lobby,
            actions=list(game.actions),
        )
        self._after_write(game.id, game.version, game.bot_job, game.deadline)

    def _after_write(self, game_id: str, version: int, bot_job: str | None, deadline: float | None) -> None:
        """Enqueue the bot job and set the clock of a version just written (same step)."""
        if bot_job is not None:
            self._job_group.add(lambda ref: BotJob(game_id, version, bot_job, time.time(), self.SHARD, ref))
        if deadline is None:
            self._clocks.pop(game_id, None)
        else:
            self._clocks[game_id] = deadline

    async def load(self, game_id: str, idempotency_key: str | None = None) -> StoredGame | None:
        record = self._live(game_id)
        if record is None:
            return None
        replay = None if idempotency_key is None else self._recorded(game_id, idempotency_key)
        return self._stored(game_id, record, replay)

    async def commit(self, commit: Commit) -> CommitResult:
        self._sweep()
        record = self._live(commit.game_id)
        if record is None:
            return CommitResult(Outcome.MISSING)
        replay = self._recorded(commit.game_id, commit.idempotency.key)
        if replay is not None:
            self._idempotency[(commit.game_id, commit.idempotency.key)] = (
                replay,
                self._clock() + commit.idempotency.ttl,
            )
            return CommitResult(Outcome.REPLAYED, replay=replay)
        if record.version != commit.expected_version or record.tag != commit.expected_tag:
            return CommitResult(Outcome.STALE, current=self._stored(commit.game_id, record))
        hooked = self.hooked(commit.game_id)
        if hooked and commit.hooks is None and commit.notice is not None:
            commit = dataclasses.replace(commit, hooks=commit.notice(), notice=None)
        now = self._clock()
        record.version = commit.version
        record.tag = commit.tag
        record.state = commit.state
        record.finished = commit.finished
        if commit.token_hashes is not None:
            record.token_hashes = commit.token_hashes
        if commit.lobby is not None:
            record.lobby = commit.lobby
        record.actions.append(commit.action)
        record.events.extend(commit.events)
        record.expires_at = now + commit.ttl
        self._idempotency[(commit.game_id, commit.idempotency.key)] = (
            commit.idempotency.result,
            now + commit.idempotency.ttl,
        )
        record.changed.set()
        record.changed = asyncio.Event()
        job = commit.job
        keep = job is not None and commit.keep_job and commit.bot_job is not None
        record.job = job.ref if keep and job is not None else None
        self._after_write(commit.game_id, commit.version, None if keep else commit.bot_job, commit.deadline)
        self.notify(commit.game_id, commit.version, commit.finished, commit.hooks)
        if job is not None and not keep:
            self._job_group.ack(job.ref)
        elif job is not None:  # handed to its worker again
            self._job_group.keep([job.ref], job.consumer)
        return CommitResult(Outcome.COMMITTED, kept=keep, hooked=hooked)

    SHARD = "memory"

    def job_shards(self) -> list[str]:
        return [self.SHARD]

    async def take_jobs(
        self, shard: str, consumer: str, count: int, block: float, claim_after: float
    ) -> list[BotJob]:
        return await self._job_group.take(consumer, count, block, claim_after)

    async def ack_job(self, job: BotJob) -> None:
        self._job_group.ack(job.ref)

    async def waiting_jobs(self, shard: str, limit: int) -> list[BotJob]:
        return self._job_group.waiting(limit)

    async def due_clocks(self, shard: str, now: float, limit: int) -> list[tuple[str, float]]:
        due = sorted((deadline, game_id) for game_id, deadline in self._clocks.items() if deadline <= now)
        return [(game_id, deadline) for deadline, game_id in due[:limit]]

    async def stop_clock(self, shard: str, game_id: str, deadline: float) -> None:
        if self._clocks.get(game_id) == deadline:
            del self._clocks[game_id]

    async def events(self, game_id: str, after: int, limit: int) -> list[StoredEvent]:
        record = self._live(game_id)
        return [] if record is None else self._slice(record, after, limit)

    async def wait_events(self, game_id: str, after: int, limit: int, timeout: float) -> list[StoredEvent]:
        record = self._live(game_id)
        if record is None:
            return []
        found = self._slice(record, after, limit)
        if found:
            return found
        try:
            await asyncio.wait_for(record.changed.wait(), timeout)
        except TimeoutError:
            return []
        return self._slice(record, after, limit)

    async def count(self, key: str, amount: int, ttl: float) -> int:
        self._sweep()
        now = self._clock()
        total, expires_at = self._counters.get(key, (0, now))
        if expires_at <= now:
            total = 0
        if amount:
            total += amount
            self._counters[key] = (total, now + ttl)
        return total

    async def actions(self, game_id: str) -> list[bytes]:
        record = self._live(game_id)
        return [] if record is None else list(record.actions)

    async def list_waiting(self, entry: str) -> None:
        at = bisect.bisect_left(self._waiting, entry)
        if at == len(self._waiting) or self._waiting[at] != entry:
            self._waiting.insert(at, entry)

    async def unlist_waiting(self, *entries: str) -> None:
        for entry in entries:
            at = bisect.bisect_left(self._waiting, entry)
            if at < len(self._waiting) and self._waiting[at] == entry:
                del self._waiting[at]

    async def waiting_page(self, before: str | None, count: int, expired_before: str) -> list[str]:
        del self._waiting[: bisect.bisect_left(self._waiting, expired_before)]
        end = len(self._waiting) if before is None else bisect.bisect_left(self._waiting, before)
        return self._waiting[max(0, end - count) : end][::-1]

    async def lobbies(self, game_ids: Sequence[str]) -> list[bytes | None]:
        return [None if (record := self._live(game_id)) is None else record.lobby for game_id in game_ids]

    @staticmethod
    def _stored(game_id: str, record: _MemoryGame, replay: bytes | None = None) -> StoredGame:
        return StoredGame(
            id=game_id,
            version=record.version,
            state=record.state,
            finished=record.finished,
            token_hashes=record.token_hashes,
            tag=record.tag,
            replay=replay,
            lobby=record.lobby,
            job=record.job,
        )

    @staticmethod
    def _slice(record: _MemoryGame, after: int, limit: int) -> list[StoredEvent]:
        start = bisect.bisect_right(record.events, after, key=lambda event: event.n)
        return record.events[start : start + limit]

    def _live(self, game_id: str) -> _MemoryGame | None:
        record = self._games.get(game_id)
        if record is not None and record.expires_at <= self._clock():
            del self._games[game_id]
            return None
        return record

    def _recorded(self, game_id: str, key: str) -> bytes | None:
        entry = self._idempotency.get((game_id, key))
        if entry is None:
            return None
        result, expires_at = entry
        if expires_at <= self._clock():
            del self._idempotency[(game_id, key)]
            return None
        return result

    def _sweep(self) -> None:
        """Forget expired games and records, at most once per :attr:`SWEEP_INTERVAL`."""
        now = self._clock()
        if now < self._next_sweep:
            return
        self._next_sweep = now + self.SWEEP_INTERVAL
        for game_id in [gid for gid, record in self._games.items() if record.expires_at <= now]:
            del self._games[game_id]
        for key in [key for key, (_, expires_at) in self._idempotency.items() if expires_at <= now]:
            del self._idempotency[key]
        for name in [name for name, (_, expires_at) in self._counters.items() if expires_at <= now]:
            del self._counters[name]
