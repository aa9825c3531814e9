"""The commands of every request go through a :class:`Batcher`: the commands that the event
loop's requests issue in one turn travel together, one pipeline per Redis node. A busy process
then pays one socket write, one read and one connection checkout per node and turn instead of
per request; an idle one sends each command at once, alone. ``MOVED``, ``ASK``,
``TRYAGAIN``, a script not loaded and a dropped connection are sent again within the retry
window.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from redis import exceptions as redis_errors

from darkroad.api.store.topology import REFRESH, RETRY, UNAVAILABLE, Node, Topology, reason, refusal

logger = logging.getLogger("darkroad.api.redis")



_Failure = tuple["_Command", BaseException]
_Result = tuple[list[Any], int | None] | BaseException
"""What a pipeline of a group gives (:meth:`Batcher._send_group`)."""


def _resend_reason(error: BaseException) -> str:
    for kind, name in (
        (redis_errors.MovedError, "moved"),
        (redis_errors.AskError, "ask"),
        (redis_errors.TryAgainError, "tryagain"),
        (redis_errors.ClusterDownError, "clusterdown"),
        (redis_errors.NoScriptError, "noscript"),
        (redis_errors.ReadOnlyError, "readonly"),
    ):
        if isinstance(error, kind):
            return name
    return "connection"


class Unreplicated(Exception):
    """A write that ran on the primary, but fewer replicas than asked for confirmed it in time."""

    def __init__(self, reply: Any, acknowledged: int, wanted: int) -> None:
        super().__init__(f"{acknowledged} of {wanted} replicas confirmed the write in time")
        self.reply = reply


@dataclass(slots=True, eq=False)
class _Command:
    route: str
    """The key whose slot decides the node."""
    args: tuple[Any, ...]
    write: bool
    future: asyncio.Future[Any]
    ask: Node | None = field(default=None)
    """The node an ``ASK`` redirection named, for the next attempt only."""


class Batcher:
    """Sends the commands issued during one event-loop turn together, one pipeline per node.

    :meth:`call` queues a command and waits for its reply; the caller of the first command of
    a turn sends everything queued by then (on the next turn while other batches are on their
    way; at once when none is) in one non-transactional pipeline per Redis node and hands each
    caller its own reply or error.
    Pipelines of successive turns overlap on separate pooled connections, so a slow reply
    never holds up later commands. Commands of one caller keep their order (a caller awaits
    each reply before its next command); commands of different callers were concurrent
    anyway, and each is atomic on its own (a script, or a single read).

    A redirection means the command did not run; after a dropped connection it may have:
    sending again is safe for the store's commands all the same (reads, and scripts whose
    idempotency record makes a second delivery answer ``replayed``; a rate-limit count
    may count twice). So the batcher follows what a deployment in motion answers: ``MOVED`` (the slot has a new owner: the
    map is corrected and the command sent there), ``ASK`` (the slot is migrating: the
    command goes to the target once, after ``ASKING``), ``NOSCRIPT`` (a node without the
    script: it is loaded there), and, after a pause growing from 10 ms, ``TRYAGAIN``
    (keys of a migrating slot split between two nodes), ``CLUSTERDOWN`` and dropped or
    refused connections (a failover: the topology is refreshed). A dropped connection is
    resent at once the first time. Past ``retry_window`` seconds the caller gets the error;
    a command redirected just then is sent once more first.

    ``on_resend`` is told why each command is sent again (``moved``, ``ask``, ``tryagain``,
    ``clusterdown``, ``noscript``, ``readonly``, ``connection``).

    ``wait_replicas`` > 0 ends each pipeline carrying writes with ``WAIT wait_replicas
    timeout``; when fewer replicas confirm, each write's caller gets :class:`Unreplicated`
    (with its reply). Reads then travel in pipelines of their own, so that they never
    wait for replication.
    """

    def __init__(
        self,
        topology: Topology,
        scripts: dict[str, str],
        *,
        retry_window: float = 2.0,
        wait_replicas: int = 0,
        wait_timeout: float = 1.0,
        on_resend: Callable[[str], None] | None = None,
    ) -> None:
        self._topology = topology
        self._on_resend = on_resend
        self._scripts = scripts
        self._retry_window = retry_window
        self._wait_replicas = wait_replicas
        self._wait = ("WAIT", wait_replicas, max(1, round(wait_timeout * 1000))) if wait_replicas else None
        self._pending: list[_Command] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        """The running loop of the batch pending (:meth:`call`)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._flying = 0
        """Batches on their way (sent by their callers, replies not all read)."""

    async def call(self, route: str, *args: Any, write: bool = False) -> Any:
        """Send one command (``"HMGET", key, field, ...``) to the node of key ``route`` with the
        other commands of this turn of the event loop, and return its reply (or raise its error).
        ``write``: the command may write (see ``wait_replicas``).

        The first command of a turn leads its batch, sent by its caller, who hands each command
        its reply: at once when no batch is on its way (an idle process: nothing to wait for),
        else after one turn of the loop, in which the turn's other callers queue theirs (a busy
        process: one pipeline for them all); the leader then takes its reply on the turn its
        followers take theirs. A task per batch, as the batcher had, cost an
        action a task and two more turns of the loop (docs/performance.md). A caller cancelled
        while it leads hands the rest of its batch to a task, which sends it again (safe: see
        the class docstring)."""
        pending = self._pending
        if pending:
            # The batch's first command read the running loop in this very turn of it: this
            # one is in the same turn. (Python 3.11's asyncio.get_running_loop makes a system
            # call each time, to notice a fork.)
            loop = self._loop
            assert loop is not None
            future: asyncio.Future[Any] = loop.create_future()
            pending.append(_Command(route, args, write, future))
            return await future
        if not self._flying and (alone := self._topology.single) is not None and self._wait is None:
            return await self._alone(alone, route, args, write)
        loop = self._loop = asyncio.get_running_loop()
        future = loop.create_future()
        batch = [_Command(route, args, write, future)]
        if self._flying:  # pipelines on their way (a busy process): the turn's other commands join
            self._pending = batch
            try:
                await asyncio.sleep(0)
            except BaseException:  # cancelled before sending: the others' commands go on
                future.cancel()
                self._hand_over(batch)
                raise
            finally:
                if self._pending is batch:
                    self._pending = []
        self._flying += 1
        try:
            await self._deliver(batch)
            if len(batch) > 1:
                # The followers wake on the next turn: so does the leader, so that the batch's
                # callers answer together and their next commands meet in one batch again
                # (answered a turn ahead, the leader's next command led a batch of its own: the
                # waves split into ever smaller pipelines; docs/performance.md, session 18).
                await asyncio.sleep(0)
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):  # this caller gave up: the others' commands go on
                future.cancel()
                self._hand_over(batch)
                raise
            self._fail_all(batch, exc)  # a bug: every caller learns of it
            if not isinstance(exc, Exception):
                raise
        finally:
            self._flying -= 1
        return future.result()

    async def _alone(self, node: Node, route: str, args: tuple[Any, ...], write: bool) -> Any:
        """:meth:`call` of a command no other joins (no batch on its way) to the one ``node``, which
        never redirects, without ``WAIT``: its pipeline of one sent at once, and a reply that is no
        error handed back as it came, with no future, no command and no grouping (one request at a
        time, each action's commit is such a command). What is not a reply (an error reply, a failed
        connection) is that batch's first attempt, from which :meth:`_deliver` goes on as it does
        from its own first."""
        self._flying += 1
        try:
            try:
                replies = await node.pipeline([args])
            except Exception as exc:  # the connection failed: sent again by _deliver
                result: _Result = exc
            else:
                if not isinstance(replies[0], Exception):
                    return replies[0]
                result = (replies, None)
            future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            command = _Command(route, args, write, future)
            await self._deliver([command], (node, result))
        finally:
            self._flying -= 1
        return future.result()

    def _hand_over(self, batch: list[_Command]) -> None:
        """Send what is left of ``batch`` (the commands whose callers still wait) from a task."""
        rest = [command for command in batch if not command.future.done()]
        if rest:
            task = asyncio.get_running_loop().create_task(self._send(rest))
            self._tasks.add(task)  # the loop keeps only weak references to tasks
            task.add_done_callback(self._tasks.discard)

    async def _send(self, batch: list[_Command]) -> None:
        try:
            await self._deliver(batch)
        except BaseException as exc:  # a bug, or this task cancelled at shutdown
            self._fail_all(batch, exc)
            if not isinstance(exc, Exception):
                raise

    @staticmethod
    def _fail_all(batch: list[_Command], exc: BaseException) -> None:
        for command in batch:
            if command.future.done():
                continue
            if isinstance(exc, asyncio.CancelledError):
                command.future.cancel()
            else:
                command.future.set_exception(exc)

    def _route(self, commands: list[_Command]) -> tuple[list[tuple[Node, bool, list[_Command]]], list[_Failure]]:
        """``commands`` grouped by the node to send them to (and whether their pipeline ends
        with ``WAIT``), and those that have no node now."""
        single = self._topology.single
        if single is not None and self._wait is None:  # one node (never redirects), no WAIT: one group
            return [(single, False, commands)], []
        groups: dict[tuple[Node, bool], list[_Command]] = {}
        unrouted: list[_Failure] = []
        waits = self._wait is not None
        for command in commands:
            try:
                node = command.ask or self._topology.node_for(command.route)
            except redis_errors.ClusterDownError as exc:  # a slot without a known primary
                unrouted.append((command, exc))
                continue
            groups.setdefault((node, waits and command.write), []).append(command)
        return [(node, wait, group) for (node, wait), group in groups.items()], unrouted

    async def _deliver(self, commands: list[_Command], tried: tuple[Node, _Result] | None = None) -> None:
        """Send ``commands`` (``tried``: the node and result of a first attempt made already)."""
        deadline: float | None = None
        overtime = False
        pause = 0.0
        while True:
            redirected: list[_Failure] = []  # sent again at once
            results: list[_Result]
            failed: list[_Failure]  # sent again after a pause
            if tried is not None:  # a first attempt made already (_alone)
                groups, failed, results, tried = [(tried[0], False, commands)], [], [tried[1]], None
            else:
                groups, failed = self._route(commands)
                if len(groups) == 1:  # the usual case: no gather
                    node, wait, group = groups[0]
                    results = [await self._send_group(node, group, wait)]
                else:
                    results = await asyncio.gather(*(self._send_group(n, g, w) for n, w, g in groups))
            for (node, _, group), result in zip(groups, results, strict=True):
                if isinstance(result, BaseException):  # the connection failed: every command again
                    for command in group:
                        command.ask = None
                        failed.append((command, result))
                    continue
                replies, short = result
                for command, reply in zip(group, replies, strict=True):
                    if not isinstance(reply, Exception):
                        self._answer(command, reply, short)
                    else:
                        await self._refused(node, command, reply, failed, redirected)
            if not failed and not redirected:
                return
            loop = asyncio.get_running_loop()  # only now: a system call in Python 3.11
            now = loop.time()
            first = deadline is None
            if deadline is None:
                deadline = now + self._retry_window
            elif now >= deadline:
                # Past the window, what failed fails. A command just redirected (its script
                # loaded on a newly promoted primary, its slot's owner learned) has what it
                # needs to land: it goes once more, at once, rather than failing on the brink.
                for command, error in failed if not overtime else failed + redirected:
                    self._fail(command, error)
                if overtime or not redirected:
                    return
                overtime, failed = True, []
            if any(isinstance(error, REFRESH) for _, error in failed):
                await self._topology.refresh()
            # A dropped pooled connection (Redis restarted, an idle timeout) is resent at once.
            if failed and not (first and all(isinstance(e, redis_errors.ConnectionError) for _, e in failed)):
                pause = min(max(pause * 2, 0.01), 0.25)
                await asyncio.sleep(max(0.0, min(pause, deadline - loop.time())))
            again = [(command, error) for command, error in redirected + failed if not command.future.done()]
            if self._on_resend is not None:
                for _, error in again:
                    self._on_resend(_resend_reason(error))
            commands = [command for command, _ in again]
            if not commands:
                return

    def _answer(self, command: _Command, reply: Any, short: int | None) -> None:
        """Hand ``reply`` to the command's caller (``Unreplicated`` for a write fewer replicas
        than asked confirmed: ``short``)."""
        future = command.future
        if future.done():  # the caller gave up (cancelled); its command still ran
            return
        if short is not None and command.write:
            future.set_exception(Unreplicated(reply, short, self._wait_replicas))
        else:
            future.set_result(reply)

    async def _refused(
        self, node: Node, command: _Command, reply: Exception, failed: list[_Failure], redirected: list[_Failure]
    ) -> None:
        """Sort a command ``node`` refused: to send again at once (``redirected``: MOVED, ASK, a
        script loaded again), after a pause (``failed``), or failed for good."""
        command.ask = None
        if isinstance(reply, redis_errors.AskError):  # MOVED (a subclass) or ASK
            try:
                target = self._topology.moved(reply, node)
            except redis_errors.ClusterDownError as exc:
                failed.append((command, exc))
                return
            except redis_errors.AskError as exc:  # not a cluster: no redirection to follow
                self._fail(command, exc)
                return
            if not isinstance(reply, redis_errors.MovedError):
                command.ask = target
            redirected.append((command, reply))
        elif isinstance(reply, redis_errors.NoScriptError) and command.args[0] == "EVALSHA":
            trouble = await self._load_script(node, command.args[1])
            if trouble is None:
                redirected.append((command, reply))
            else:  # loading failed (a failover under way): again after a pause, for that reason
                failed.append((command, trouble))
        elif isinstance(reply, RETRY):
            failed.append((command, reply))
        else:
            self._fail(command, refusal(reply))

    @staticmethod
    def _fail(command: _Command, error: BaseException) -> None:
        if not command.future.done():
            command.future.set_exception(error)

    async def _send_group(self, node: Node, group: list[_Command], wait: bool) -> _Result:
        """The replies to ``group`` sent to ``node`` and, when fewer replicas than asked for
        confirmed its writes, how many did (else ``None``); or the exception that failed
        the connection."""
        asking = any(command.ask is not None for command in group)
        if asking:
            commands: list[tuple[Any, ...]] = []
            for command in group:
                if command.ask is not None:
                    commands.append(("ASKING",))
                commands.append(command.args)
        else:
            commands = [command.args for command in group]
        if wait:
            assert self._wait is not None
            commands.append(self._wait)
        try:
            replies = await node.pipeline(commands)
        except Exception as exc:
            return exc
        short: int | None = None
        if wait:
            acknowledged = replies.pop()
            if isinstance(acknowledged, Exception):
                # The node is no primary (any more): none of its writes can be confirmed.
                logger.warning("WAIT on %s failed: %s", node.name, reason(acknowledged))
                await self._topology.refresh()
                acknowledged = 0
            if int(acknowledged) < self._wait_replicas:
                short = int(acknowledged)
        if asking:  # drop the replies to ASKING
            kept, i = [], 0
            for command in group:
                i += command.ask is not None
                kept.append(replies[i])
                i += 1
            replies = kept
        return replies, short

    async def _load_script(self, node: Node, sha: str) -> Exception | None:
        """Load a script on ``node``; the error if that failed."""
        try:
            await node.client.script_load(self._scripts[sha])
        except (*UNAVAILABLE, redis_errors.ResponseError) as exc:
            logger.warning("loading a script on %s failed: %s", node.name, exc)
            return exc
        return None


