"""Bot workers: the bots' moves and the turn clocks, played apart from every request.

A commit that leaves a decision awaited from a bot (a bot seat, or a seat handed to a bot
after its turn timeout) enqueues a job, the game's id and version, in the same atomic step
(``GameStore.commit``: inside ``commit.lua`` with Redis). A worker (:class:`BotWorker`,
``darkroad bots``, or the one ``darkroad serve`` runs in-process unless ``--bots 0``):

* takes jobs (``XREADGROUP`` on the shard's stream; jobs another worker took and never
  acknowledged within ``Settings.bot_claim_timeout`` first, ``XAUTOCLAIM``);
* loads the game and checks that the job is current: the version matches and a bot is
  still awaited; a stale or duplicate job is dropped (the commit that moved the game on
  enqueued its own job if a bot is awaited again);
* asks the bot in a process of its pool (a CPU-bound bot cannot stall the worker's event
  loop, and a bot that hangs can be killed), within ``Settings.bot_move_timeout``; a bot
  that raises, answers something not legal or thinks too long has the first legal action
  stand in for it;
* commits the move with compare-and-set like any client (its move appears in the log and
  the stream like anyone's), the job acknowledged in the same atomic step. A worker that
  dies before leaves the job to another; the compare-and-set makes a second commit of the
  same job impossible, so no move is lost or doubled;
* plays on, when a bot of this worker is awaited again, under the same job (up to
  :attr:`BotWorker.CHAIN` moves, each its own commit): the commit keeps the job instead of
  enqueuing one (``Commit.keep_job``; the game names it, so a worker claiming it after a
  crash finds it current). A worker told to stop ends such a run with the move in flight, whose
  commit hands the game's next move to the queue: stopping waits for one move of each running
  job, not for the rest of its run (up to ``CHAIN`` moves of ``Settings.bot_move_timeout`` each).

Its parts: the job loop here (:class:`BotWorker`), the bots' thinking in a pool of processes
(:mod:`~darkroad.api.app.bot_pool`), and the turn clocks (:mod:`~darkroad.api.app.turn_clocks`),
which the worker watches every :attr:`BotWorker.CLOCK_INTERVAL`. A move is committed as every
change of a game is (:mod:`~darkroad.api.app.changes`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from darkroad.api.app import lobby as lobbies
from darkroad.api.app.bot_pool import BotPool
from darkroad.api.app.changes import play
from darkroad.api.app.repository import GameRepository
from darkroad.api.app.seat_changes import SeatChanges
from darkroad.api.app.service_errors import ServiceError
from darkroad.api.app.stopping import cancel_and_wait
from darkroad.api.app.turn_clocks import TurnClocks
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.base import (
    BotJob,
    GameStore,
    Outcome,
    ReplicationTimeout,
    StoredGame,
    StoreUnavailable,
)
from darkroad.core import Engine, errors

logger = logging.getLogger("darkroad.api.bots")


@dataclass(frozen=True, slots=True)
class Played:
    """What became of a job: ``played``, ``stood_in`` (the first legal action stood in for a bot
    that failed or timed out), ``stale`` (dropped), ``missing`` (the bot is not installed here:
    left to a worker that has it), ``left`` (the game still awaits a bot under the job after
    every attempt of this worker: left unacknowledged, for a reclaim)."""

    outcome: str
    stored: StoredGame | None = None
    moves: int = 0
    """Bot moves committed under the job (several when bots were awaited again)."""
    acked: bool = False
    """The job was acknowledged with the last move's commit."""


def _current(stored: StoredGame, job: BotJob) -> bool:
    """Whether ``job`` is still the game's to play: at the job's version, or a later one of
    the run of moves keeping it (:attr:`StoredGame.job` names it)."""
    return not stored.finished and (stored.version == job.version or stored.job == job.ref)


class BotWorker:
    """Plays the bot jobs and watches the turn clocks of the games in ``store``.

    ``concurrency`` jobs at once, each bot thinking in one process of its :class:`BotPool`
    (``processes=False``: in a thread, for tests of the loop itself).
    """

    CLOCK_INTERVAL = 1.0
    """Seconds between looks at the turn clocks."""
    BACKLOG_INTERVAL = 5.0
    """Seconds between looks at the jobs waiting (metrics, the warning)."""
    BLOCK = 2.0
    """Seconds a read of jobs waits for one (then looks again: a stop, claimable jobs)."""
    CHAIN = 32
    """Bot moves one job may play in a row, when a bot of this worker is awaited again after
    its move (no round trips through the queue between them); then the game's next job goes
    to the queue's end, behind the other games' jobs."""

    def __init__(
        self,
        engine: Engine,
        store: GameStore,
        settings: Settings,
        metrics: Metrics,
        *,
        concurrency: int | None = None,
        processes: bool = True,
        name: str | None = None,
        clock: Callable[[], float] = time.time,
        chain: int | None = None,
    ) -> None:
        self.engine = engine
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.games = GameRepository(engine, store, settings, metrics, clock)
        self.seat_changes = SeatChanges(self.games)
        self.concurrency = concurrency or settings.bot_concurrency
        self.chain = max(1, chain or self.CHAIN)
        self.name = name or f"{os.uname().nodename}-{os.getpid()}-{secrets.token_hex(3)}"
        self.pool = BotPool(engine, settings, self.concurrency, processes)
        """Where the bots think."""
        self.clocks = TurnClocks(store, self.seat_changes)
        self._slots = asyncio.Semaphore(self.concurrency)
        self._running: set[asyncio.Task[None]] = set()
        self._room = asyncio.Event()
        """Set while fewer than ``concurrency`` jobs run."""
        self._room.set()
        self._stopping = False
        """Set when :meth:`run` is told to stop: the jobs still running keep no job for a next move."""

    # -- the loops ----------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Take and play jobs, and watch the clocks, until ``stop`` is set (or cancelled)."""
        stop = stop or asyncio.Event()
        self._stopping = False  # a worker run again after a stop keeps jobs between moves again
        loops = [asyncio.create_task(self._jobs(shard, stop)) for shard in self.store.job_shards()]
        loops += [asyncio.create_task(self._clocks(stop)), asyncio.create_task(self._backlog(stop))]
        try:
            await stop.wait()
        finally:
            self._stopping = True
            await cancel_and_wait(loops)
            if self._running:
                await asyncio.gather(*self._running, return_exceptions=True)
            self.close()

    def close(self) -> None:
        """Stop the pool's processes (every job is done by now: a hung bot's process was killed)."""
        self.pool.close()

    async def tick(self) -> list[str]:
        """Hand every seat past its deadline to its game's timeout bot (:meth:`TurnClocks.tick`);
        the games changed."""
        return await self.clocks.tick()

    async def _jobs(self, shard: str, stop: asyncio.Event) -> None:
        """Read the jobs of ``shard`` while this worker has room for more (one loop per shard:
        in a Cluster a blocking read names the streams of one slot only). Several shards' loops
        may read at once: jobs beyond ``concurrency`` then wait here for a slot."""
        while not stop.is_set():
            await self._room.wait()
            free = max(1, self.concurrency - len(self._running))
            try:
                jobs = await self.store.take_jobs(shard, self.name, free, self.BLOCK, self.settings.bot_claim_timeout)
            except (StoreUnavailable, ReplicationTimeout, OSError) as exc:  # a failover, a restart
                logger.warning("bot worker %s: cannot take jobs (%s); trying again", self.name, exc)
                jobs = []
                await asyncio.sleep(0.5)
            except Exception:
                logger.exception("bot worker %s: reading jobs failed", self.name)
                jobs = []
                await asyncio.sleep(0.5)
            for job in jobs:
                task = asyncio.create_task(self._run_job(job))
                self._running.add(task)
                task.add_done_callback(self._done)
            if len(self._running) >= self.concurrency:
                self._room.clear()

    def _done(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        if len(self._running) < self.concurrency:
            self._room.set()

    async def _run_job(self, job: BotJob) -> None:
        async with self._slots:
            try:
                await self.play(job)
            except (StoreUnavailable, ReplicationTimeout, ServiceError) as exc:  # a failover, a restart
                logger.warning("bot worker %s: job %s of game %s left for later (%s)", self.name, job.ref,
                               job.game_id, exc)
            except Exception:  # left unacknowledged: claimed again after the claim timeout
                logger.exception("bot worker %s: job %s of game %s failed", self.name, job.ref, job.game_id)

    async def _clocks(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.tick()
            except (StoreUnavailable, ReplicationTimeout, OSError) as exc:
                logger.warning("bot worker %s: cannot read the turn clocks (%s)", self.name, exc)
            except Exception:
                logger.exception("bot worker %s: the turn clocks failed", self.name)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.CLOCK_INTERVAL)

    async def _backlog(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.watch_backlog()
            except Exception:
                logger.debug("bot worker %s: cannot read the backlog", self.name, exc_info=True)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.BACKLOG_INTERVAL)

    async def watch_backlog(self) -> float:
        """Set the metrics of the jobs waiting (per bot, and the oldest's age) and warn when the
        oldest is older than ``Settings.bot_backlog_warning``; the oldest's age."""
        now = time.time()
        waiting: dict[str, int] = dict.fromkeys(self.engine.bots, 0)
        oldest = 0.0
        for shard in self.store.job_shards():
            for job in await self.store.waiting_jobs(shard, 1000):
                waiting[job.bot] = waiting.get(job.bot, 0) + 1
                oldest = max(oldest, now - job.enqueued)
        for bot, count in waiting.items():
            self.metrics.bot_jobs_waiting.set(count, bot)
        self.metrics.bot_oldest_job.set(oldest)
        if oldest > self.settings.bot_backlog_warning:
            logger.warning("the oldest bot job has waited %.1f s (%d waiting): too few bot workers take jobs "
                           "(darkroad bots)", oldest, sum(waiting.values()))
        return oldest

    # -- one job ------------------------------------------------------------------------------

    async def play(self, job: BotJob) -> Played:
        """Play ``job`` (if still current) and acknowledge it; what became of it."""
        self.metrics.bot_job_age.observe(max(0.0, time.time() - job.enqueued), job.bot)
        played = await self._play(job)
        if not played.acked and played.outcome not in ("missing", "left"):
            await self.store.ack_job(job)
        self.metrics.bot_jobs.inc(job.bot, played.outcome)
        return played

    async def _play(self, job: BotJob) -> Played:
        """The job's move, and the next ones while a bot of this worker is awaited again (up to
        :attr:`chain` moves: each its own commit, keeping the job instead of enqueuing one)."""
        stored = await self.store.load(job.game_id)
        moves, stood_in = 0, False
        # A stale commit does not end the run while the game is still the job's: a failover
        # that lost this worker's last commits (asynchronous replication) leaves the game at an
        # earlier version of the run, awaiting the bot under this very job. Acknowledging the
        # job then would leave that game with no job at all (played by nobody, ever).
        for _attempt in range(2 * self.chain):
            if stored is None or not _current(stored, job):
                break
            lobby = lobbies.decode(stored.lobby)
            awaiting = self.engine.awaiting(self.games.game(stored))
            bots = [] if lobby is None or lobby.waiting else [(s, b) for s in awaiting if (b := lobby.bot_of(s))]
            if not bots:
                break
            seat, bot_id = bots[0]
            if bot_id not in self.engine.bots:
                logger.warning("game %s: seat %d's bot %r is not installed in worker %s; another worker must play it",
                               stored.id, seat, bot_id, self.name)
                return Played("missing", stored, moves=moves)
            assert lobby is not None
            record = lobby.seats[seat]
            options = {}  # a think time is a budget: a bot that does not search against the clock is within it
            if record.think_time is not None and not record.replaced and "think_time" in self.engine.bots[bot_id].options:
                options["think_time"] = record.think_time
            outcome, stored, committed = await self._move(stored, seat, bot_id, options, job,
                                                          keep=moves + 1 < self.chain)
            if not committed:
                if outcome == "stale":  # the game as another commit left it: still the job's?
                    continue
                break
            moves += 1
            stood_in = stood_in or outcome == "stood_in"
            if stored.job != job.ref:  # not kept: acknowledged with this commit
                return Played("stood_in" if stood_in else "played", stored, moves=moves, acked=True)
        else:  # the game stayed the job's through every attempt: left for a reclaim
            logger.warning("game %s: job %s is still awaited after %d attempts of worker %s; left for "
                           "another claim", job.game_id, job.ref, 2 * self.chain, self.name)
            return Played("left", stored, moves=moves)
        if not moves:
            return Played("stale", stored)
        return Played("stood_in" if stood_in else "played", stored, moves=moves)

    async def _move(
        self, stored: StoredGame, seat: int, bot_id: str, options: dict[str, Any], job: BotJob, *, keep: bool
    ) -> tuple[str, StoredGame, bool]:
        """Ask the bot and commit its move (``keep``: keeping ``job`` for the next bot move, if
        a bot is awaited again); how it went (``played``, ``stood_in``, ``stale``: another commit came
        first, or ``no-move``: the seat has no legal action), the game as stored now, and whether
        the move was committed."""
        entry = self.games.take(stored)  # the cached game if current (out of the cache while it changes)
        legal = self.engine.legal_actions(entry.game, seat)
        if not legal:  # nothing for this seat to do now: the run ends
            self.games.put_back(stored.id, entry)
            return "no-move", stored, False
        begun = time.perf_counter()
        choice, how = await self.pool.choose(stored.id, stored.state, seat, bot_id, options, legal)
        self.metrics.bot_think.observe(time.perf_counter() - begun, bot_id)
        outcome = "played" if how == "chosen" else "stood_in"
        # A plugin failing to resolve the bot's choice must not wedge the game: the next legal
        # actions stand in (deterministically, so the game still replays identically).
        for action in [choice, *[a for a in legal if a != choice][:2]]:
            try:
                change = play(self.engine, entry, action, self.games.clock())
            except errors.DarkroadError:
                logger.exception("game %s: the %r bot's move %s/%s for seat %d failed", stored.id, bot_id,
                                 action.type, action.option, seat)
                how, outcome = "failed", "stood_in"
                entry = self.games.decoded(stored)
                continue
            # Decided at the commit, not when asked: a stop that came while the bot thought ends the run here.
            keep_job = keep and not self._stopping
            result, current = await self.games.commit(stored.id, entry, change, job=job, keep_job=keep_job)
            if result.outcome is Outcome.STALE:  # another worker (or a reclaim) moved the game
                return "stale", current, False
            self.metrics.bot_moves.inc(bot_id, how)
            return outcome, current, True
        return "stood_in", stored, False

