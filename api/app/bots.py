"""The bots: the moves of bot seats and of seats handed to a bot after their turn timeout.

Today they play inside requests (until bot workers take them out of the request path): before
a read of a game is answered and after a change, the bots play what they are awaited for, each
move a commit of its own, within a budget per request (``Settings.bot_moves_per_request``,
``bot_time_per_request``). They think in one thread of the process (:class:`BotThread`), so
the event loop keeps serving other requests while a bot searches.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from darkroad.api.app import lobby as lobbies
from darkroad.api.app.cache import CachedGame
from darkroad.api.app.lobby import Lobby
from darkroad.api.app.repository import GameRepository
from darkroad.api.app.seat_changes import SeatChange, SeatChanges
from darkroad.api.app.values import Caller
from darkroad.api.store.base import Outcome, StoredGame
from darkroad.core import Action, Bot, Engine, Game, errors

logger = logging.getLogger("darkroad.api")


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


class BotTimeout(Exception):
    """A bot thought over one move longer than ``Settings.bot_move_timeout``; ``thread`` is
    the thread left thinking (alive while the bot has not returned)."""

    def __init__(self, seconds: float, thread: threading.Thread) -> None:
        super().__init__(f"no answer after {seconds:g} s")
        self.thread = thread


class BotThread:
    """The one thread the bots of a process think in, serving the earliest request first.

    A request plays its bots one move at a time (each committed before the next is chosen).
    In a first-come queue (``ThreadPoolExecutor``, which has no other order) each of those
    moves waits behind every other game's, so a request whose bot makes ten moves waits ten
    times for the whole queue, and under load runs out of its budget queueing. Here each
    choice is ranked by when its request began playing bots: a request's next move goes
    ahead of those of requests that came after it, and it waits for the work ahead of it
    once. Each result comes with the seconds it waited for the thread, which the request's
    budget does not count (see ``Bots._play``).

    A work running longer than ``timeout`` (a bot that hangs) is given up: its future fails
    with :class:`BotTimeout` and a new thread takes over the queue; the old one ends when the
    work returns, if ever (a thread cannot be stopped from outside, which is also why the
    executors of ``concurrent.futures`` offer no timeout of a running work).
    """

    def __init__(self, timeout: float = float("inf")) -> None:
        self._queue: queue.PriorityQueue[tuple[float, int, Callable[[], Any] | None, concurrent.futures.Future[Any]]]
        self._queue = queue.PriorityQueue()
        self._order = itertools.count()
        self._timeout = timeout
        self._lock = threading.Lock()
        self._current: tuple[concurrent.futures.Future[Any], float, threading.Thread] | None = None
        """The work running: its future, when it began (``perf_counter``), its thread."""
        self._closed = threading.Event()
        self._watching = timeout == float("inf")  # (no timeout: nothing to watch)
        self._thread = self._start()

    def _start(self) -> threading.Thread:
        thread = threading.Thread(target=self._run, name="darkroad-bot", daemon=True)
        self._thread = thread
        thread.start()
        return thread

    def submit(self, rank: float, work: Callable[[], Any]) -> asyncio.Future[tuple[Any, float]]:
        """Run ``work`` in the thread after every queued work of a lower ``rank``: its result
        and the seconds it waited (:class:`BotTimeout` if it runs past the timeout)."""
        future: concurrent.futures.Future[tuple[Any, float]] = concurrent.futures.Future()
        queued = time.perf_counter()

        def timed() -> tuple[Any, float]:
            waited = time.perf_counter() - queued
            return work(), waited

        if not self._watching:  # started with the first work: a service whose bots never play has none
            with self._lock:
                if not self._watching:
                    self._watching = True
                    threading.Thread(target=self._watch, name="darkroad-bot-watch", daemon=True).start()
        self._queue.put((rank, next(self._order), timed, future))
        return asyncio.wrap_future(future)

    def _run(self) -> None:
        me = threading.current_thread()
        while self._thread is me:  # a thread replaced while its work hung ends when it returns
            _, _, work, future = self._queue.get()
            if work is None:  # closed: what is left is cancelled
                while not self._queue.empty():
                    self._queue.get_nowait()[3].cancel()
                return
            if not future.set_running_or_notify_cancel():
                continue  # nobody waits for it any more
            with self._lock:
                self._current = (future, time.perf_counter(), me)
            try:
                result = work()
            except BaseException as exc:  # handed to the request that waits for it
                self._finish(future, exc, None)
            else:
                self._finish(future, None, result)

    def _finish(self, future: concurrent.futures.Future[Any], error: BaseException | None, result: Any) -> None:
        with self._lock:  # (the watchdog gives works up under it: never both)
            if self._current is not None and self._current[0] is future:
                self._current = None
            if future.done():
                return  # given up meanwhile: the request went on without it
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)

    def _watch(self) -> None:
        """Give up a work running past the timeout (within 1.25 times it), and start a thread
        in its place. It looks a few times per timeout, not at every work: a bot's move costs
        it nothing."""
        while not self._closed.wait(self._timeout / 4):
            with self._lock:
                current = self._current
                if current is None or time.perf_counter() - current[1] < self._timeout:
                    continue
                future, _, stuck = current
                self._current = None
                self._start()
                future.set_exception(BotTimeout(self._timeout, stuck))

    def close(self) -> None:
        """Stop the thread (a bot still thinking finishes in the background)."""
        self._closed.set()
        self._queue.put((float("-inf"), -1, None, concurrent.futures.Future()))


class Bots:
    """Plays the bots of the games of ``games``; seats overdue are handed over through ``seat_changes``."""

    def __init__(self, games: GameRepository, seat_changes: SeatChanges) -> None:
        self.games = games
        self.engine = games.engine
        self.seat_changes = seat_changes
        # Bots think in a thread of their own: the event loop (other requests, other games)
        # keeps running while a bot searches. One thread: bots of all games take turns, so
        # they never take more than one core's share of the interpreter from the requests
        # (more threads would not think faster: the interpreter runs one at a time).
        self._thread = BotThread(games.settings.bot_move_timeout)
        # Bots given up over a move still thinking (the thread left to them), by bot id: their
        # moves are made by the stand-in until it returns (one stuck thread per bot at most).
        self._stuck_bots: dict[str, threading.Thread] = {}
        # The bots' moves under way in this process, by game: one at a time per game, so that
        # requests reading a game at once (followers of its stream, say) share them rather than
        # each thinking the same moves (across processes, a stale commit is dropped instead).
        self._settling: dict[str, asyncio.Task[StoredGame]] = {}

    def close(self) -> None:
        """Stop the bots' thread (a bot still thinking finishes in the background)."""
        self._thread.close()

    async def advance(self, caller: Caller) -> Caller:
        """Before any read of a game is answered (view, actions, log, score, and again while a
        stream or long poll waits): the bots play what they are awaited for (a game of bots
        only goes on this way after the budget of the request that last acted ran out), and
        a seated caller's request hands a seat awaited longer than the turn timeout to a bot."""
        stored = caller.stored
        lobby = lobbies.decode(stored.lobby)
        if lobby is None or lobby.waiting or stored.finished:
            return caller  # a game without lobby (creator-dealt seats): nothing more to do
        if any(self.pending(stored, lobby, caller.seat)):
            return Caller(await self.settle(stored, caller.seat), caller.seat)
        return caller

    def pending(
        self, stored: StoredGame, lobby: Lobby, caller: int | None
    ) -> tuple[list[int], list[tuple[int, str]]]:
        """What the bots must do in ``stored`` now: the seats awaited longer than the turn timeout
        that the seated ``caller`` hands to a bot (every awaited seat but the caller's), and the
        awaited seats bots play, each with its bot."""
        awaiting = self.engine.awaiting(self.games.game(stored))
        now = self.games.clock()
        overdue = [s for s in awaiting if caller is not None and s != caller and lobby.overdue(s, now)]
        bots = [(seat, bot) for seat in awaiting if (bot := lobby.bot_of(seat)) is not None]
        return overdue, bots

    async def settle(self, stored: StoredGame, caller: int | None) -> StoredGame:
        """Play every decision bots are awaited for, as commits of their own, until a human is
        awaited or the game ends (within ``Settings.bot_moves_per_request`` and
        ``bot_time_per_request``); before that, a seated ``caller`` hands any other seat
        awaited longer than the turn timeout to the timeout bot. The game as stored after.

        In this process, one request at a time settles a game: the others wait for it, then
        go on from where it left the game (most often: nothing left to play). The moves are
        made in a task of their own, so that a request that goes away (a follower leaving)
        does not cut them off in the middle."""
        lobby = lobbies.decode(stored.lobby)
        if lobby is None or lobby.waiting:
            return stored
        # However long a bot thinks (a fan's bot may never answer at all), the request waits
        # for the bots at most three times the budget: the moves stop beginning at twice the
        # budget, and one begun just then may finish. A bot still thinking after that goes on
        # in the settle's task, and its move is there for the next read.
        deadline = asyncio.get_running_loop().time() + 3 * self.games.settings.bot_time_per_request
        while (running := self._settling.get(stored.id)) is not None:
            if running.done():
                # Finished, but its done-callback (which forgets it) has not run yet: awaiting a
                # done task does not yield to the loop, so without this the loop would spin
                # here for ever and the whole process hang (it did, under load).
                self._forget(stored.id, running)
            settled = await self._result_by(running, deadline)
            if settled is None:
                return stored
            if settled.version > stored.version:
                stored = settled
        task = asyncio.create_task(self._play(stored, caller))
        self._settling[stored.id] = task
        task.add_done_callback(lambda done: self._forget(stored.id, done))
        settled = await self._result_by(task, deadline)
        return stored if settled is None else settled

    @staticmethod
    async def _result_by(task: asyncio.Task[StoredGame], deadline: float) -> StoredGame | None:
        """The game ``task`` settled, or ``None`` if it is not done by ``deadline`` (loop time);
        the task is never cancelled (``asyncio.wait`` leaves it running)."""
        timeout = max(0.0, deadline - asyncio.get_running_loop().time())
        done, _ = await asyncio.wait({task}, timeout=timeout)
        return task.result() if done else None

    def _forget(self, game_id: str, task: asyncio.Task[StoredGame]) -> None:
        if self._settling.get(game_id) is task:
            del self._settling[game_id]
        if not task.cancelled():
            task.exception()  # retrieved: whoever awaited it got it (none may be left to)

    async def _play(self, stored: StoredGame, caller: int | None) -> StoredGame:
        """:meth:`settle`'s moves. At a stale version (another process changed the game) it
        goes on from the current one, the attempt counting as a move of the budget."""
        loop = asyncio.get_running_loop()
        # The budget counts the time spent playing (thinking, committing), not the time spent
        # waiting for the bot thread behind other games; a wall-clock bound of twice the
        # budget still caps how long a request may wait on busy bots.
        budget = self.games.settings.bot_time_per_request
        begun = loop.time()
        moves, queued = 0, [0.0]
        while not stored.finished:
            lobby = lobbies.decode(stored.lobby)
            assert lobby is not None
            overdue, bots = self.pending(stored, lobby, caller)
            if overdue:
                stored, handed = await self._hand_over(stored, overdue[0])
                if not handed:
                    break
                continue
            spent = loop.time() - begun
            over = spent - queued[0] >= budget or spent >= 2 * budget
            if not bots or moves >= self.games.settings.bot_moves_per_request or over:
                break
            moved = await self._bot_move(stored, *bots[0], rank=begun, queued=queued)
            if moved is None:
                break
            stored = moved
            moves += 1
        return stored

    async def _hand_over(self, stored: StoredGame, seat: int) -> tuple[StoredGame, bool]:
        """Hand ``seat``, overdue in ``stored``, to the game's timeout bot: the game after, and
        whether it was handed (not if it is no longer overdue in the current game)."""

        def replace(current: StoredGame, game: Game, lobby: Lobby | None, tokens: list[str]) -> SeatChange | None:
            if lobby is None or seat not in self.engine.awaiting(game) or not lobby.overdue(seat, self.games.clock()):
                return None
            return self.seat_changes.hand_to_bot(lobby, seat)

        stored, change = await self.seat_changes.change(stored.id, replace, stored)
        return stored, change is not None

    async def _bot_move(
        self, stored: StoredGame, seat: int, bot_id: str, rank: float, queued: list[float]
    ) -> StoredGame | None:
        """One move of ``bot_id`` for ``seat``, committed: the game after it (or as another
        process left it, when stale); ``None`` when it could not be made (a bot this process
        does not have, every candidate failing). ``rank``: the bot thread's order (when the
        request began playing bots); the seconds the choice waited for it add to ``queued``."""
        bot = self.engine.bots.get(bot_id)
        if bot is None:
            logger.warning("game %s: seat %d's bot %r is not installed here; another replica must play it",
                           stored.id, seat, bot_id)
            self.games.metrics.bot_moves.inc(bot_id, "missing")
            return None
        entry = self.games.take(stored)
        legal = self.engine.legal_actions(entry.game, seat)
        if not legal:
            self.games.put_back(stored.id, entry)
            return None
        entry, legal, choice, how = await self._choose(stored, entry, seat, bot, legal, rank, queued)
        # A plugin failing to resolve the bot's choice must not wedge the game: the next legal
        # actions stand in (deterministically, so the game still replays identically).
        candidates = [choice, *[a for a in legal if a is not choice][:2]]
        for action in candidates:
            game = entry.game
            expected = game.version
            try:
                events = self.engine.apply(game, action)
            except errors.DarkroadError:
                logger.exception("game %s: the %r bot's move %s/%s for seat %d failed", stored.id, bot_id,
                                 action.type, action.option, seat)
                how = "failed"
                entry = self.games.decoded(stored)
                continue
            lobby = None
            if entry.lobby is not None and entry.lobby.turn_timeout is not None:
                lobby = entry.lobby.copy()
                lobby.track(self.engine.awaiting(game), seat, self.games.clock())
            applied = self.engine.encode(Action(action.type, action.seat, action.option))
            outcome, current = await self.games.commit(
                stored.id, entry, game, applied, events, expected=expected, lobby=lobby
            )
            if outcome.outcome is not Outcome.STALE:  # (stale: another process moved, go on from there)
                self.games.metrics.bot_moves.inc(bot_id, how)
            return current
        self.games.put_back(stored.id, entry)
        return None

    async def _choose(
        self,
        stored: StoredGame,
        entry: CachedGame,
        seat: int,
        bot: Bot,
        legal: list[Action],
        rank: float,
        queued: list[float],
    ) -> tuple[CachedGame, list[Action], Action, str]:
        """The bot's choice for ``seat`` among ``legal`` in ``entry`` and how it went
        (``chosen``, ``failed``, ``timed_out``), with the game and legal actions to play it on
        (a copy of the game when the bot was given up while still holding it)."""
        stuck = self._stuck_bots.get(bot.id)
        if stuck is not None and not stuck.is_alive():
            del self._stuck_bots[bot.id]  # its given-up move returned: it may play again
            stuck = None
        if len(legal) == 1:
            return entry, legal, legal[0], "chosen"
        if stuck is not None:
            return entry, legal, legal[0], "timed_out"
        try:
            (choice, how), waited = await self._thread.submit(
                rank, functools.partial(safe_choice, bot, self.engine, entry.game, seat, legal)
            )
        except BotTimeout as exc:
            logger.error("game %s: bot %r gave no move for seat %d (%s); its first legal action stands in, "
                         "and its moves here until it returns", stored.id, bot.id, seat, exc)
            self._stuck_bots[bot.id] = exc.thread
            # The bot still holds the game it was given: play on a copy of our own.
            entry = self.games.decoded(stored)
            legal = self.engine.legal_actions(entry.game, seat)
            return entry, legal, legal[0], "timed_out"
        queued[0] += waited
        return entry, legal, choice, how
