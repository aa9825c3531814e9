"""The bots' thinking, apart from the bot worker's event loop: a pool of processes (or, for
tests of the loop itself, threads) that each answer "which of these legal actions does this bot
choose for this seat?".

A CPU-bound bot cannot stall the worker's event loop, and a bot that hangs is given up after
``Settings.bot_move_timeout`` (its process killed: the next move gets a new one). A bot that
raises, answers something not legal or thinks too long has the first legal action stand in for
it (:func:`safe_choice`), so a game never waits on a broken bot.

A process that ends before answering (killed from outside: an operator, the OOM killer, a
signal to the worker's process group as it stops) is let go and a new process thinks over the
same move (choosing changes nothing, so asking again is safe) within what is left of the move's
time; a process found ended while idle is let go before it is asked. A move whose second
process ends too (a bot that ends its own process) is the bot's failure: the first legal action
stands in, as for a bot that raises, and the job is not lost.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import pickle
import signal
import stat
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

from darkroad.api.settings import Settings
from darkroad.core import Action, Bot, Engine, Game

logger = logging.getLogger("darkroad.api.bots")


def safe_choice(bot: Bot, engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> tuple[Action, str]:
    """The bot's choice among ``legal``, and how it went (``chosen``, or ``failed``: the bot raised
    or answered something not legal, and the first legal action stands in for it)."""
    try:
        choice = engine.bot_choice(game, seat, bot)
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
_CHILD: Engine | None = None


def _child_start(inherited: Engine | None, exclude: tuple[str, ...], strict: bool) -> None:
    global _CHILD
    _release_sockets()
    _CHILD = inherited or Engine.load(exclude=exclude, strict=strict)


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


def _child_main(requests: Connection, answers: Connection, inherited: Engine | None, exclude: tuple[str, ...],
                strict: bool) -> None:
    """A thinker's process: answer each request (a game's state, a seat, a bot) with the bot's
    choice, until the worker closes its end. The worker's signal handlers are not its own:
    SIGTERM ends it (the worker stops it so), SIGINT (a terminal's Ctrl-C) is the worker's."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _child_start(inherited, exclude, strict)
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
    through a manager thread and a queue's feeder thread, which costs the worker more than the
    move's own bookkeeping: docs/performance.md). Pipes, not a socket pair: the child lets go
    of every socket it inherits."""

    def __init__(self, context: Any, inherited: Engine | None, exclude: tuple[str, ...], strict: bool) -> None:
        requests_out, self._requests = context.Pipe(duplex=False)
        self._answers, answers_in = context.Pipe(duplex=False)
        self.process = context.Process(
            target=_child_main, args=(requests_out, answers_in, inherited, exclude, strict), daemon=True,
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


class BotPool:
    """The processes (``processes=True``) or threads the bots of one worker think in: at most
    ``concurrency`` at once, one per job playing, each created on the first move that needs it
    and kept for the next. ``processes=False`` thinks in a thread instead (tests of the job
    loop itself; a hung bot cannot be killed there)."""

    def __init__(self, engine: Engine, settings: Settings, concurrency: int, processes: bool = True) -> None:
        self.engine = engine
        self.settings = settings
        self.concurrency = concurrency
        self._processes = processes
        self._threads: concurrent.futures.Executor | None = None
        """``processes=False``: the threads the bots think in."""
        self._idle: list[Thinker] = []
        """Processes waiting for a move to think over (at most ``concurrency``)."""

    def close(self) -> None:
        """Stop the pool's processes (every job is done by now: a hung bot's process was killed)."""
        threads, self._threads = self._threads, None
        if threads is not None:
            threads.shutdown(wait=True, cancel_futures=True)
        idle, self._idle = self._idle, []
        for thinker in idle:
            thinker.close()

    async def choose(
        self, game_id: str, state: bytes, seat: int, bot_id: str, options: dict[str, Any], legal: list[Action]
    ) -> tuple[Action, str]:
        """The choice of the bot ``bot_id`` (with the seat's ``options``) for ``seat`` among
        ``legal``, the seat's legal actions in the game ``state`` (of ``game_id``), and how it
        went: ``chosen``, ``failed`` (the bot raised or answered something not legal) or
        ``timed_out``; for the last two the first legal action stands in."""
        if len(legal) == 1:
            return legal[0], "chosen"
        timeout = self.settings.bot_move_timeout
        if not self._processes:
            if self._threads is None:
                self._threads = concurrent.futures.ThreadPoolExecutor(self.concurrency, thread_name_prefix="darkroad-bot")
            game = self.engine.loads(state)
            call = asyncio.get_running_loop().run_in_executor(
                self._threads, safe_choice, seat_bot(self.engine, bot_id, options), self.engine, game, seat, legal
            )
            try:
                return await asyncio.wait_for(call, timeout)
            except TimeoutError:
                return self._timed_out(game_id, seat, bot_id, legal)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        for attempt in range(2):
            # A retry always forks a new process: the idle ones may have ended of the same cause
            # (a signal to the worker's whole process group ends them all at once).
            thinker = self._thinker() if attempt else self._idle_thinker()
            try:
                index, how = await asyncio.wait_for(thinker.choose(state, seat, bot_id, options),
                                                    max(0.0, deadline - loop.time()))
            except TimeoutError:  # kill the stuck process: the next move gets a new one
                thinker.kill()
                return self._timed_out(game_id, seat, bot_id, legal)
            except ThinkerGone as gone:  # it ended before answering: killed, or its bot ended it
                thinker.kill()
                if not attempt:
                    logger.warning("game %s: the process thinking for seat %d (bot %r) ended before answering "
                                   "(%s); a new process thinks again", game_id, seat, bot_id, gone)
                    continue
                logger.error("game %s: bot %r's process ended again before answering for seat %d (%s); its "
                             "first legal action stands in", game_id, bot_id, seat, gone)
                return legal[0], "failed"
            except BaseException:  # cancelled (the worker stops) mid-request: its answer is lost
                thinker.kill()
                raise
            self._idle.append(thinker)
            return legal[index], how
        raise AssertionError("unreachable")

    def _idle_thinker(self) -> Thinker:
        """An idle process still alive (one that ended while idle is let go), or a new one."""
        while self._idle:
            thinker = self._idle.pop()
            if thinker.process.is_alive():
                return thinker
            thinker.close()
        return self._thinker()

    def _timed_out(self, game_id: str, seat: int, bot_id: str, legal: list[Action]) -> tuple[Action, str]:
        logger.error("game %s: bot %r gave no move for seat %d within %g s; its first legal action stands in",
                     game_id, bot_id, seat, self.settings.bot_move_timeout)
        return legal[0], "timed_out"

    def _thinker(self) -> Thinker:
        """A new process of the pool: forked from the worker (with its engine and plugins)
        where the platform can, else started afresh (it loads the installed plugins)."""
        fork = "fork" in multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if fork else None)
        # A forked child gets the worker's engine as it is (a fork pickles no argument).
        inherited = self.engine if fork else None
        return Thinker(context, inherited, self.settings.exclude_plugins, self.settings.strict_plugins)
