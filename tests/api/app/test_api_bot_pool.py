"""The bot worker's pool of thinking processes (``darkroad.api.app.bot_pool``): a process that
ends before answering (killed mid-move, or while idle with its siblings, as a signal to the
worker's process group ends them all) is replaced and the move is thought over again; a bot
that ends its own process is stood in for. Never a job lost, never a traceback."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from darkroad.api.app.bot_pool import BotPool
from darkroad.api.settings import Settings
from darkroad.core import Action, Bot, Engine, GameConfig, InfoState, hookimpl

MARKS: Path | None = None
"""Where the test's bots write the pid of the process they think in (set before the pool forks)."""


class SlowBot(Bot):
    """Says where it thinks (a file named by its process id), thinks a while, takes the last action."""

    id = "slow"
    name = "Slow"
    text = "Thinks for a second, then takes the last legal action."

    def decide(self, state: InfoState) -> Action:
        assert MARKS is not None
        (MARKS / str(os.getpid())).touch()
        time.sleep(1.0)
        return state.legal[-1]


class SelfEndingBot(Bot):
    """Ends the process it thinks in."""

    id = "self_ending"
    name = "Self-ending"
    text = "Ends its own process."

    def decide(self, state: InfoState) -> Action:
        os._exit(3)


class PoolBots:
    @hookimpl
    def darkroad_bots(self) -> list[Bot]:
        return [SlowBot(), SelfEndingBot()]


@pytest.fixture(scope="module")
def bots_engine() -> Engine:
    return Engine.load(extra=[("pool-test-bots", PoolBots())])


@pytest.fixture
def marks(tmp_path: Path) -> Iterator[Path]:
    global MARKS
    MARKS = tmp_path
    yield tmp_path
    MARKS = None


def position(engine: Engine) -> tuple[bytes, list[Action]]:
    """A game's state at a decision of several answers for seat 0, and those answers."""
    game, _ = engine.create(GameConfig(players=2, seed=1))
    legal = engine.legal_actions(game, 0)
    assert len(legal) > 1
    return engine.pack(game), legal


async def until_marked(marks: Path, count: int) -> list[int]:
    deadline = time.monotonic() + 20
    while len(found := list(marks.iterdir())) < count:
        assert time.monotonic() < deadline, "the bot never began to think"
        await asyncio.sleep(0.02)
    return [int(p.name) for p in found]


async def test_a_process_killed_mid_move_is_replaced_and_the_move_thought_over(
        bots_engine: Engine, marks: Path, caplog: pytest.LogCaptureFixture) -> None:
    state, legal = position(bots_engine)
    pool = BotPool(bots_engine, Settings(), concurrency=1)
    try:
        move = asyncio.create_task(pool.choose("g", state, 0, "slow", {}, legal))
        (first,) = await until_marked(marks, 1)
        os.kill(first, signal.SIGKILL)  # mid-move: the bot is thinking
        assert await move == (legal[-1], "chosen")  # thought over by a new process: not stood in
        pids = await until_marked(marks, 2)
        (second,) = set(pids) - {first}
        (idle,) = pool._idle
        assert idle.process.pid == second and idle.process.is_alive()
        assert await pool.choose("g", state, 0, "slow", {}, legal) == (legal[-1], "chosen")  # kept for the next
    finally:
        pool.close()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


async def test_idle_processes_ended_together_are_replaced(
        bots_engine: Engine, marks: Path, caplog: pytest.LogCaptureFixture) -> None:
    """As a signal to the worker's process group ends its pool: every idle process ended, the
    next moves are chosen by new ones (the old pool asked a second ended process, and failed)."""
    state, legal = position(bots_engine)
    pool = BotPool(bots_engine, Settings(), concurrency=2)
    try:
        both = [pool.choose("g", state, 0, "slow", {}, legal) for _ in range(2)]
        assert await asyncio.gather(*both) == [(legal[-1], "chosen")] * 2
        ended = [thinker.process for thinker in pool._idle]
        assert len(ended) == 2
        for process in ended:
            assert process.pid is not None
            os.kill(process.pid, signal.SIGTERM)
        for process in ended:
            process.join(5)
        for _ in range(2):  # one move at a time: each may find both ended processes
            assert await pool.choose("g", state, 0, "slow", {}, legal) == (legal[-1], "chosen")
        assert all(t.process.is_alive() and t.process not in ended for t in pool._idle)
    finally:
        pool.close()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


async def test_an_idle_process_ended_unseen_is_replaced_at_the_next_move(
        bots_engine: Engine, marks: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A process that ended after the pool last looked (its pipe broken at the request): the
    same move is asked of a new process, with a warning and no traceback."""
    state, legal = position(bots_engine)
    pool = BotPool(bots_engine, Settings(), concurrency=1)
    try:
        assert await pool.choose("g", state, 0, "slow", {}, legal) == (legal[-1], "chosen")
        (thinker,) = pool._idle
        thinker.process.kill()
        thinker.process.join(5)
        thinker.process.is_alive = lambda: True  # type: ignore[method-assign]  # as if it ended just after the look
        with caplog.at_level(logging.WARNING, "darkroad.api.bots"):
            assert await pool.choose("g", state, 0, "slow", {}, legal) == (legal[-1], "chosen")
        assert any("ended before answering" in r.getMessage() for r in caplog.records)
    finally:
        pool.close()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


async def test_a_bot_that_ends_its_own_process_is_stood_in_for(
        bots_engine: Engine, caplog: pytest.LogCaptureFixture) -> None:
    state, legal = position(bots_engine)
    pool = BotPool(bots_engine, Settings(), concurrency=1)
    try:
        assert await pool.choose("g", state, 0, "self_ending", {}, legal) == (legal[0], "failed")
        assert not pool._idle
        assert await pool.choose("g", state, 0, "random", {}, legal) in [(a, "chosen") for a in legal]
    finally:
        pool.close()
    assert not [r for r in caplog.records if r.exc_info]
    assert any("ended again before answering" in r.getMessage() for r in caplog.records)
