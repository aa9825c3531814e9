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
  crash finds it current).

Turn clocks: every version with awaited human seats under a ``turn_timeout`` sets the
game's deadline in a sorted set (same atomic step); the workers look for deadlines passed
every :attr:`BotWorker.CLOCK_INTERVAL` and hand the overdue seat to the game's timeout bot,
a seat change whose commit then enqueues the bot's job. Nobody needs to read the game.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import pickle
import secrets
import signal
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from darkroad.api.app import lobby as lobbies
from darkroad.api.app.errors import ServiceError
from darkroad.api.app.lobby import Lobby
from darkroad.api.app.repository import GameRepository
from darkroad.api.app.seat_changes import SeatChange, SeatChanges
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
from darkroad.core import Action, Bot, Engine, Game, errors

logger = logging.getLogger("darkroad.api.bots")


def safe_choice(bot: Bot, engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> tuple[Action, str]:
    """The bot's choice among ``legal``, and how it went (``chosen``, or ``failed``: the bot raised
    or answered something not legal, and the first legal action stands in for it)."""
    try:
        choice = bot.choose(engine, game, seat, legal)
    except Exception:
        logger.exception("bot %r failed choosing for seat %d; its first legal action stands in", bot.id, seat)
        return legal[0], "failed"
    for action in legal:
        if isinstance(choice, Action) and (choice.type, choice.seat, choice.option) == (
            action.type,
            action.seat,
            action.option,
        ):
            return action, "chosen"
    logger.error("bot %r answered %r, not a legal action; its first legal action stands in", bot.id, choice)
    return legal[0], "failed"


# -- the pool's processes ----------------------------------------------------------------------
# The engine of a child: inherited from the worker when the pool forks (tests pass engines
# with plugins of their own), else loaded from the installed plugins like the worker's.
_ENGINES: dict[int, Engine] = {}
_CHILD: Engine | None = None


def _child_start(key: int, exclude: tuple[str, ...], strict: bool) -> None:
    global _CHILD
    _release_sockets()
    _CHILD = _ENGINES.get(key) or Engine.load(exclude=exclude, strict=strict)


def _release_sockets() -> None:
    """In a forked child: let go of the sockets inherited from the worker (an API server's
    clients' connections, its Redis connections). A child holding a connection's socket keeps
    it open after the server closed it: a client then sends a request on a keep-alive
    connection nobody reads, and waits for ever. Each socket's descriptor is pointed at
    ``/dev/null`` rather than closed, so that no object of the parent's copied into the child
    can close a descriptor number reused since (the pool's own pipes are pipes, not sockets)."""
    try:
        descriptors = [int(fd) for fd in os.listdir("/proc/self/fd")]
    except OSError:  # no /proc: nothing to do but hope
        return
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in descriptors:
            with contextlib.suppress(OSError):
                if fd != null and stat.S_ISSOCK(os.fstat(fd).st_mode):
                    os.dup2(null, fd)
    finally:
        os.close(null)


def _child_main(requests: Connection, answers: Connection, key: int, exclude: tuple[str, ...], strict: bool) -> None:
    """A thinker's process: answer each request (a game's state, a seat, a bot) with the bot's
    choice, until the worker closes its end. The worker's signal handlers are not its own:
    SIGTERM ends it (the worker stops it so), SIGINT (a terminal's Ctrl-C) is the worker's."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _child_start(key, exclude, strict)
    while True:
        try:
            state, seat, bot_id, options = pickle.loads(requests.recv_bytes())
        except (EOFError, OSError):
            return
        answers.send_bytes(pickle.dumps(_child_choose(state, seat, bot_id, options)))


def seat_bot(engine: Engine, bot_id: str, options: dict[str, Any]) -> Bot:
    """The bot ``bot_id`` with the seat's ``options`` (a bot seat's ``think_time``)."""
    bot = engine.bots[bot_id]
    return bot.configured(**options) if options else bot


def _child_choose(state: bytes, seat: int, bot_id: str, options: dict[str, Any]) -> tuple[int, str]:
    """In a child: the bot's choice for ``seat`` in the game ``state``, as its index among the
    seat's legal actions (the worker computes the same list), and how it went."""
    engine = _CHILD
    assert engine is not None
    game = engine.loads(state)
    legal = engine.legal_actions(game, seat)
    choice, how = safe_choice(seat_bot(engine, bot_id, options), engine, game, seat, legal)
    return legal.index(choice), how


class ThinkerGone(Exception):
    """A thinker's process ended before answering (killed: its bot hung, or from outside)."""


class Thinker:
    """One process of a worker's pool, spoken to over two pipes read by the event loop: a
    request costs two pipe writes and no thread (a ``ProcessPoolExecutor`` hands each call
    through a manager thread and a queue's feeder thread: ~0.5 ms of the worker's CPU per
    move, a third of what a greedy move costs the worker besides the bot's own thinking).
    Pipes, not a socket pair: the child lets go of every socket it inherits."""

    def __init__(self, context: Any, key: int, exclude: tuple[str, ...], strict: bool) -> None:
        requests_out, self._requests = context.Pipe(duplex=False)
        self._answers, answers_in = context.Pipe(duplex=False)
        self.process = context.Process(
            target=_child_main, args=(requests_out, answers_in, key, exclude, strict), daemon=True,
            name="darkroad-bot",
        )  # fmt: skip
        self.process.start()
        requests_out.close()
        answers_in.close()

    async def choose(self, state: bytes, seat: int, bot_id: str, options: dict[str, Any]) -> tuple[int, str]:
        """The bot's choice (index among the legal actions, how it went); :class:`ThinkerGone`."""
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[None] = loop.create_future()
        fd = self._answers.fileno()

        def readable() -> None:
            if not answered.done():
                answered.set_result(None)

        try:
            self._requests.send_bytes(pickle.dumps((state, seat, bot_id, options)))
            loop.add_reader(fd, readable)
            try:
                await answered
            finally:
                loop.remove_reader(fd)
            index, how = pickle.loads(self._answers.recv_bytes())
        except (EOFError, OSError) as exc:
            raise ThinkerGone(str(exc)) from exc
        return int(index), str(how)

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()
        self.close()

    def close(self) -> None:
        """Close the pipes and end the process (idle, or killed: nothing of it is lost; its
        siblings forked later hold copies of its pipes, so it may never see them close)."""
        for connection in (self._requests, self._answers):
            with contextlib.suppress(Exception):
                connection.close()
        with contextlib.suppress(Exception):
            self.process.terminate()
            self.process.join(timeout=5)
            if self.process.is_alive():
                self.process.kill()
                self.process.join(timeout=5)


@dataclass(frozen=True, slots=True)
class Played:
    """What became of a job: ``played``, ``stood_in`` (the first legal action stood in for a bot
    that failed or timed out), ``stale`` (dropped), ``missing`` (the bot is not installed here:
    left to a worker that has it)."""

    outcome: str
    stored: StoredGame | None = None
    moves: int = 0
    """Bot moves committed under the job (several when bots were awaited again)."""
    acked: bool = False
    """The job was acknowledged with the last move's commit."""


class BotWorker:
    """Plays the bot jobs and turn clocks of the games in ``store``.

    ``concurrency`` jobs at once, each bot thinking in one process of the pool (created on
    the first move that needs it). ``processes=False`` thinks in a thread instead (tests of
    the loop itself; a hung bot cannot be killed there).
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
        self._processes = processes
        self._threads: concurrent.futures.Executor | None = None
        """``processes=False``: the threads the bots think in."""
        self._idle: list[Thinker] = []
        """Processes of the pool waiting for a move to think over (at most ``concurrency``: one
        per job playing)."""
        self._slots = asyncio.Semaphore(self.concurrency)
        self._running: set[asyncio.Task[None]] = set()
        self._room = asyncio.Event()
        """Set while fewer than ``concurrency`` jobs run."""
        self._room.set()
        self._skipped: dict[str, float] = {}
        """Clocks looked at and found not overdue (game id -> deadline): not loaded again."""

    # -- the loops ----------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Take and play jobs, and watch the clocks, until ``stop`` is set (or cancelled)."""
        stop = stop or asyncio.Event()
        loops = [asyncio.create_task(self._jobs(shard, stop)) for shard in self.store.job_shards()]
        loops += [asyncio.create_task(self._clocks(stop)), asyncio.create_task(self._backlog(stop))]
        try:
            await stop.wait()
        finally:
            for task in loops:
                task.cancel()
            await asyncio.gather(*loops, return_exceptions=True)
            if self._running:
                await asyncio.gather(*self._running, return_exceptions=True)
            self.close()

    def close(self) -> None:
        """Stop the pool's processes (every job is done by now: a hung bot's process was killed)."""
        threads, self._threads = self._threads, None
        if threads is not None:
            threads.shutdown(wait=True, cancel_futures=True)
        idle, self._idle = self._idle, []
        for thinker in idle:
            thinker.close()

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
        if not played.acked and played.outcome != "missing":
            await self.store.ack_job(job)
        self.metrics.bot_jobs.inc(job.bot, played.outcome)
        return played

    async def _play(self, job: BotJob) -> Played:
        """The job's move, and the next ones while a bot of this worker is awaited again (up to
        :attr:`chain` moves: each its own commit, keeping the job instead of enqueuing one)."""
        stored = await self.store.load(job.game_id)
        moves, stood_in = 0, False
        while True:
            current = stored is not None and (stored.version == job.version or stored.job == job.ref)
            if stored is None or stored.finished or not current:
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
                break
            moves += 1
            stood_in = stood_in or outcome == "stood_in"
            if stored.job != job.ref:  # not kept: acknowledged with this commit
                return Played("stood_in" if stood_in else "played", stored, moves=moves, acked=True)
        if not moves:
            return Played("stale", stored)
        return Played("stood_in" if stood_in else "played", stored, moves=moves)

    async def _move(
        self, stored: StoredGame, seat: int, bot_id: str, options: dict[str, Any], job: BotJob, *, keep: bool
    ) -> tuple[str, StoredGame, bool]:
        """Ask the bot and commit its move (``keep``: keeping ``job`` for the next bot move, if
        a bot is awaited again); how it went (``played``, ``stood_in`` or ``stale``), the game as
        stored now, and whether the move was committed."""
        entry = self.games.take(stored)  # the cached game if current (out of the cache while it changes)
        legal = self.engine.legal_actions(entry.game, seat)
        if not legal:
            self.games.put_back(stored.id, entry)
            return "stale", stored, False
        begun = time.perf_counter()
        choice, how = await self._choose(stored, seat, bot_id, options, legal)
        self.metrics.bot_think.observe(time.perf_counter() - begun, bot_id)
        outcome = "played" if how == "chosen" else "stood_in"
        # A plugin failing to resolve the bot's choice must not wedge the game: the next legal
        # actions stand in (deterministically, so the game still replays identically).
        for action in [choice, *[a for a in legal if a is not choice][:2]]:
            game = entry.game
            expected = game.version
            try:
                events = self.engine.apply(game, action)
            except errors.DarkroadError:
                logger.exception("game %s: the %r bot's move %s/%s for seat %d failed", stored.id, bot_id,
                                 action.type, action.option, seat)
                how, outcome = "failed", "stood_in"
                entry = self.games.decoded(stored)
                continue
            lobby = None
            if entry.lobby is not None and entry.lobby.turn_timeout is not None:
                lobby = entry.lobby.copy()
                lobby.track(self.engine.awaiting(game), seat, self.games.clock())
            applied = self.engine.encode(Action(action.type, action.seat, action.option))
            result, current = await self.games.commit(
                stored.id, entry, game, applied, events, expected=expected, lobby=lobby, job=job, keep_job=keep
            )
            if result.outcome is Outcome.STALE:  # another worker (or a reclaim) moved the game
                return "stale", current, False
            self.metrics.bot_moves.inc(bot_id, how)
            return outcome, current, True
        return "stood_in", stored, False

    async def _choose(
        self, stored: StoredGame, seat: int, bot_id: str, options: dict[str, Any], legal: list[Action]
    ) -> tuple[Action, str]:
        if len(legal) == 1:
            return legal[0], "chosen"
        timeout = self.settings.bot_move_timeout
        if not self._processes:
            if self._threads is None:
                self._threads = concurrent.futures.ThreadPoolExecutor(self.concurrency, thread_name_prefix="darkroad-bot")
            game = self.engine.loads(stored.state)
            call = asyncio.get_running_loop().run_in_executor(
                self._threads, safe_choice, seat_bot(self.engine, bot_id, options), self.engine, game, seat, legal
            )
            try:
                return await asyncio.wait_for(call, timeout)
            except TimeoutError:
                return self._timed_out(stored, seat, bot_id, legal)
        for attempt in range(2):
            thinker = self._idle.pop() if self._idle else self._thinker()
            try:
                index, how = await asyncio.wait_for(thinker.choose(stored.state, seat, bot_id, options), timeout)
            except TimeoutError:  # kill the stuck process: the next move gets a new one
                thinker.kill()
                return self._timed_out(stored, seat, bot_id, legal)
            except ThinkerGone:  # killed from outside: a new one tries once more
                thinker.kill()
                if attempt:
                    raise
                continue
            except BaseException:  # cancelled (the worker stops) mid-request: its answer is lost
                thinker.kill()
                raise
            self._idle.append(thinker)
            return legal[index], how
        raise AssertionError("unreachable")

    def _timed_out(self, stored: StoredGame, seat: int, bot_id: str, legal: list[Action]) -> tuple[Action, str]:
        logger.error("game %s: bot %r gave no move for seat %d within %g s; its first legal action stands in",
                     stored.id, bot_id, seat, self.settings.bot_move_timeout)
        return legal[0], "timed_out"

    def _thinker(self) -> Thinker:
        """A new process of the pool: forked from the worker (with its engine and plugins)
        where the platform can, else started afresh (it loads the installed plugins)."""
        key = id(self.engine)
        _ENGINES[key] = self.engine
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        return Thinker(context, key, self.settings.exclude_plugins, self.settings.strict_plugins)

    # -- the turn clocks ----------------------------------------------------------------------

    async def tick(self) -> list[str]:
        """Hand every seat past its deadline to its game's timeout bot; the games changed."""
        now = self.games.clock()
        handed = []
        for shard in self.store.job_shards():
            for game_id, deadline in await self.store.due_clocks(shard, now, 100):
                if self._skipped.get(game_id) == deadline:
                    continue
                if await self.hand_over(shard, game_id, deadline):
                    handed.append(game_id)
        return handed

    async def hand_over(self, shard: str, game_id: str, deadline: float) -> bool:
        """Hand the overdue seats of ``game_id`` to its timeout bot (a seat change each)."""
        stored = await self.store.load(game_id)
        if stored is None or stored.finished:
            await self.store.stop_clock(shard, game_id, deadline)
            return False

        def replace(current: StoredGame, game: Game, lobby: Lobby | None, tokens: list[str]) -> SeatChange | None:
            if lobby is None or current.finished:
                return None
            now = self.games.clock()
            overdue = [seat for seat in self.engine.awaiting(game) if lobby.overdue(seat, now)]
            return self.seat_changes.hand_to_bot(lobby, overdue[0]) if overdue else None

        changed = False
        try:
            while True:
                stored, change = await self.seat_changes.change(game_id, replace, stored)
                if change is None:
                    break
                changed = True
        except ServiceError as exc:  # kept changing (players acting): the next tick tries again
            logger.info("game %s: hand-over postponed (%s)", game_id, exc)
            return changed
        if not changed:
            self._skipped[game_id] = deadline
            if len(self._skipped) > 10_000:
                self._skipped.clear()
        return changed
