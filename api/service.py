"""The API's use cases: create a game, read it, act on it, follow its events.

The routes (``games.py``) parse requests and shape responses; the use cases here raise
:class:`~darkroad.api.problems.Problem` (an RFC 9457 problem: type, status, detail) for a
client's mistake, which the app's exception handler turns into the response.

The store is the only truth: reads load the game, and every action is written back with
:meth:`GameStore.commit`, a compare-and-set on the version and its tag, so any number of
processes can serve one game. The one thing a process keeps between requests is
:class:`GameCache`, decoded games at the last version it saw. The state of a version
(named by its tag) never changes, so a cached game is either right or behind, and a commit
tells which: acting on a cached game costs one round trip to the store, and a read skips
decoding the state.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime
import functools
import hashlib
import itertools
import logging
import queue
import secrets
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from darkroad.api import lobby as lobbies
from darkroad.api.auth import bearer_token, hash_token, new_token, require_token, seat_of
from darkroad.api.bodies import parse_action
from darkroad.api.lobby import Lobby, LobbySeat
from darkroad.api.metrics import Metrics
from darkroad.api.problems import Problem
from darkroad.api.settings import Settings
from darkroad.api.store import (
    Commit,
    CommitResult,
    GameStore,
    IdempotencyRecord,
    NewGame,
    Outcome,
    StoredEvent,
    StoredGame,
    StoreUnavailable,
)
from darkroad.core import HUMAN, Action, Bot, Engine, Event, Game, GameConfig, errors

logger = logging.getLogger("darkroad.api")

GAME_ID_BYTES = 16
GAME_ID_LENGTH = 22
GAME_ID_PATTERN = r"^[A-Za-z0-9_-]{22}$"
"""Game ids are 16 random bytes in URL-safe base64 (no ``{}``: safe inside a Redis hash tag)."""
STREAM_BATCH = 500
"""Most events an event stream reads from the store at once."""
COMMIT_RECORD_TTL = 300
"""Seconds the store remembers a commit made without ``Idempotency-Key`` (retry safety only)."""
JOIN_IDEMPOTENCY_TTL = 600
"""Seconds a join's ``Idempotency-Key`` is remembered. Meanwhile a retry with the key and the
same name gets the seat again with a fresh token, so the key is a credential that long: kept
short (a retry after a lost answer comes within seconds or minutes)."""

_encode = msgspec.json.encode


class _IdempotentResult(msgspec.Struct, frozen=True):
    """What an ``Idempotency-Key`` remembers: which action it was, and the answer.

    Stored zlib-compressed (:func:`_pack_record`): the answer is the seat's whole view
    (about 5 KB of JSON, a third of that compressed at level 1, in about 30 us), kept for ``DARKROAD_IDEMPOTENCY_TTL``
    beside every keyed action, so these records, not the games, filled Redis.
    """

    fingerprint: str
    version: int
    view: msgspec.Raw


class _JoinRecord(msgspec.Struct, frozen=True):
    """What a join's ``Idempotency-Key`` remembers: no secret (a seat's token is never stored,
    only its hash; a retry gets a fresh one)."""

    name: str
    version: int
    """The version the join wrote (``LobbySeat.joined`` while the seat is that join's)."""
    nonce: str
    """Unique per request: tells the request's own commit, resent by the store's client after a
    lost reply, from another request's with the same key."""


class _KeyUsed(Exception):
    """A join's ``Idempotency-Key`` was recorded by another request meanwhile (nothing written)."""


def _pack_record(result: _IdempotentResult) -> bytes:
    # Level 1: most of level 9's saving (views repeat their keys) at a fraction of the time.
    return zlib.compress(_encode(result), 1)


def _unpack_record(recorded: bytes) -> _IdempotentResult:
    # Records written before compression are plain JSON objects ("{"); a zlib stream never
    # starts with that byte (its first byte is 0x78 for every level), so both read back
    # while old records live out their TTL.
    if not recorded.startswith(b"{"):
        recorded = zlib.decompress(recorded)
    return msgspec.json.decode(recorded, type=_IdempotentResult)


@dataclass(frozen=True, slots=True)
class Seating:
    """Who sits where in a new game (``NewGame.seats`` and the fields that go with it)."""

    seats: list[tuple[str, str | None, str | None]] | None = None
    """``(kind, name, bot)`` of every seat but the Private Concern's: ``human``, ``open`` or
    ``bot``; ``None``: every seat ``human``, without names."""
    listed: bool | None = None
    turn_timeout: int | None = None
    timeout_bot: str | None = None


@dataclass(frozen=True, slots=True)
class CreatedGame:
    """A new game: its id, version and one token per seat (shown once, never stored)."""

    id: str
    version: int
    tokens: list[str | None]
    seats: list[dict[str, Any]] = field(default_factory=list)
    """Each seat's ``SeatView``."""
    status: str = "active"


@dataclass(frozen=True, slots=True)
class JoinedSeat:
    """A seat joined: its token (shown once, never stored) and the game's version after it."""

    seat: int
    token: str
    version: int


@dataclass(frozen=True, slots=True)
class WaitingPage:
    """A page of the listing of waiting games."""

    games: list[dict[str, Any]]
    next: str | None


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is asking about which game: the loaded game and the caller's seat (``None`` = spectator)."""

    stored: StoredGame
    seat: int | None


@dataclass(frozen=True, slots=True)
class ActResult:
    """The answer to an action: the caller's view (JSON) at ``version``."""

    version: int
    view: bytes
    replayed: bool
    """True when this is the recorded answer to an earlier request with the same ``Idempotency-Key``."""


@dataclass(frozen=True, slots=True)
class LogPage:
    """A page of the caller's visible events."""

    events: list[StoredEvent]
    next: int
    """Pass as ``after`` to get the next page."""
    more: bool
    """True when the page was full: more events may follow."""
    finished: bool = False
    """The game is over: no event will follow (once ``more`` is false)."""


@dataclass(slots=True)
class CachedGame:
    """A decoded game, the tag of its version, its seat token hashes and its lobby record at
    that version."""

    game: Game
    token_hashes: tuple[str, ...]
    tag: str
    lobby: Lobby | None = None


class GameCache:
    """Least-recently-used decoded games of this process, each at the last version it saw.

    A version's state never changes, so a cached game is right for its version (and tag:
    after a failover that lost writes, one version number may name two states); it may be
    behind the store when another process acted since, which commits detect.
    """

    def __init__(self, size: int, metrics: Metrics) -> None:
        self._size = size
        self._metrics = metrics
        self._games: OrderedDict[str, CachedGame] = OrderedDict()

    def get(self, game_id: str, version: int, tag: str) -> Game | None:
        """The cached game if it is at ``version`` with ``tag`` (shared: callers must not mutate it)."""
        cached = self._games.get(game_id)
        if cached is None or cached.game.version != version or cached.tag != tag:
            self._metrics.cache.inc("miss")
            return None
        self._games.move_to_end(game_id)
        self._metrics.cache.inc("hit")
        return cached.game

    def peek(self, game_id: str) -> CachedGame | None:
        """The cached game, whatever its version, left in the cache (read it, never mutate it)."""
        return self._games.get(game_id)

    def take(self, game_id: str, version: int | None = None, tag: str = "") -> CachedGame | None:
        """Remove and return the cached game (at ``version`` with ``tag``, if given) for the caller
        to mutate."""
        cached = self._games.pop(game_id, None)
        if cached is not None and version is not None and (cached.game.version, cached.tag) != (version, tag):
            cached = None  # behind the store: useless
        self._metrics.cache.inc("miss" if cached is None else "hit")
        return cached

    def put(
        self, game_id: str, game: Game, token_hashes: tuple[str, ...], tag: str, lobby: Lobby | None = None
    ) -> None:
        """Cache ``game`` (at its current version, named ``tag``), evicting the least recently used."""
        self._games[game_id] = CachedGame(game, token_hashes, tag, lobby)
        self._games.move_to_end(game_id)
        while len(self._games) > self._size:
            self._games.popitem(last=False)


def _page(events: list[StoredEvent], after: int, limit: int, seat: int | None, finished: bool) -> LogPage:
    """The page of ``events`` (read after ``after``, at most ``limit``) that ``seat`` may see."""
    return LogPage(
        events=[event for event in events if event.visible_to(seat)],
        next=events[-1].n if events else after,
        more=len(events) == limit,
        finished=finished,
    )


class StreamSlots:
    """The event streams open in this process: at most ``limit``, ``per_client`` per client address.

    :meth:`take` reserves a slot before a stream starts (``too-many-streams``, 503 with
    ``Retry-After``, when none is free) and returns the function that frees it, which may
    be called any number of times.
    """

    RETRY_AFTER = "10"

    def __init__(self, limit: int, per_client: int) -> None:
        self.limit = limit
        self.per_client = per_client
        self.open = 0
        self.by_client: dict[str, int] = {}

    def take(self, client: str) -> Callable[[], None]:
        """Reserve a slot for a stream of ``client``; call the returned function to free it."""
        mine = self.by_client.get(client, 0)
        if self.open >= self.limit or mine >= self.per_client:
            whose = "this server process" if self.open >= self.limit else "your address"
            raise Problem(
                "too-many-streams",
                f"Every event stream slot of {whose} is taken; retry later, or read `GET .../log` without `wait`.",
                headers={"Retry-After": self.RETRY_AFTER},
            )
        self.open += 1
        self.by_client[client] = mine + 1
        taken = True

        def release() -> None:
            nonlocal taken
            if taken:
                taken = False
                self.open -= 1
                left = self.by_client[client] - 1
                if left:
                    self.by_client[client] = left
                else:
                    del self.by_client[client]

        return release


def entity_tag(version: int) -> str:
    """The ``ETag`` of a game at ``version``."""
    return f'"{version}"'


def _matches(header: str, version: int, *, weak: bool) -> bool:
    """Whether an ``If-Match`` / ``If-None-Match`` list names ``version`` (``*`` names any).

    A bare number is accepted as well as a quoted entity tag; weak tags (``W/"5"``) count
    only for ``If-None-Match`` (RFC 9110 weak comparison).
    """
    for tag in header.split(","):
        tag = tag.strip()
        if tag == "*":
            return True
        if tag.startswith("W/"):
            if not weak:
                continue
            tag = tag[2:]
        if tag.strip('"') == str(version):
            return True
    return False


def if_none_match(header: str | None, version: int) -> bool:
    """True when a conditional GET's ``If-None-Match`` already names ``version`` (answer 304)."""
    return header is not None and _matches(header, version, weak=True)


class Refusal(Problem):
    """A problem of the seats (the game waits for players, a bot plays the seat): a cached game
    may be behind the store, so only the store's word is final."""


@dataclass(frozen=True, slots=True)
class _SeatChange:
    """What a change of seats writes: the action list's record and the events."""

    kind: str
    seat: int
    events: list[tuple[str, int | None, dict[str, Any]]]
    token: str | None = None
    """A join's new token."""
    acted: bool = True
    """The seat's player acted (a turn timeout counts from now); not so for a rejoin, which only
    replaces the token."""


@dataclass(frozen=True, slots=True)
class _Committed:
    """A commit written: the game as stored now, and the committer's view of it (JSON)."""

    stored: StoredGame
    view: bytes


def _safe_choice(bot: Bot, engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> tuple[Action, str]:
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


class _BotThread:
    """The one thread the bots of a process think in, serving the earliest request first.

    A request plays its bots one move at a time (each committed before the next is chosen).
    In a first-come queue (``ThreadPoolExecutor``, which has no other order) each of those
    moves waits behind every other game's, so a request whose bot makes ten moves waits ten
    times for the whole queue, and under load runs out of its budget queueing. Here each
    choice is ranked by when its request began playing bots: a request's next move goes
    ahead of those of requests that came after it, and it waits for the work ahead of it
    once. Each result comes with the seconds it waited for the thread, which the request's
    budget does not count (see ``GameService._settle_now``).

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


class GameService:
    """Games over a :class:`GameStore`, through one :class:`Engine`."""

    def __init__(
        self,
        engine: Engine,
        store: GameStore,
        settings: Settings,
        metrics: Metrics,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.engine = engine
        self.seat_names = {kind_id: kind.name for kind_id, kind in engine.seat_kinds.items()}
        """Display name of each installed seat kind (the automated seats' names in views)."""
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.clock = clock
        """Wall-clock time (Unix seconds): creation times and turn timeouts, shared by processes."""
        self.cache = GameCache(settings.game_cache_size, metrics)
        self.streams = StreamSlots(settings.max_event_streams, settings.max_event_streams_per_client)
        # Tags of the versions this process writes, also naming the records of commits made
        # without Idempotency-Key: unique across processes (a random prefix per service) and
        # within one (a counter).
        self._commit_prefix = f"{secrets.token_hex(8)}."
        self._commits = itertools.count()
        # Bots think in a thread of their own: the event loop (other requests, other games)
        # keeps running while a bot searches. One thread: bots of all games take turns, so
        # they never take more than one core's share of the interpreter from the requests
        # (more threads would not think faster: the interpreter runs one at a time).
        self._bots = _BotThread(settings.bot_move_timeout)
        # Bots given up over a move still thinking (the thread left to them), by bot id: their
        # moves are made by the stand-in until it returns (one stuck thread per bot at most).
        self._stuck_bots: dict[str, threading.Thread] = {}
        # The bots' moves under way in this process, by game: one at a time per game, so that
        # requests reading a game at once (followers of its stream, say) share them rather than
        # each thinking the same moves (across processes, a stale commit is dropped instead).
        self._settling: dict[str, asyncio.Task[StoredGame]] = {}

    def close(self) -> None:
        """Stop the bots' thread (a bot still thinking finishes in the background)."""
        self._bots.close()

    # -- creating ------------------------------------------------------------------
    async def create(self, config: GameConfig, seating: Seating | None = None) -> CreatedGame:
        """Create a game (``bad-config`` / ``unknown-component`` for an unplayable config,
        ``unknown-bot`` for a bot this server does not have); with ``seating``, its seats.

        A game whose first decisions are its bots' is played up to a human's decision (or
        the end) before this returns, as after any action.
        """
        seating = seating or Seating()
        named = [bot for kind, _, bot in seating.seats or () if kind == "bot"]
        for bot in [*named, *([] if seating.timeout_bot is None else [seating.timeout_bot])]:
            if bot is None or bot not in self.engine.bots:
                raise self._unknown_bot(bot or "")
        game, events = self.engine.create(config)
        lobby = self._new_lobby(game, seating)
        # Only a human seat gets a token; the others never match one (an empty hash matches none).
        tokens = [
            new_token() if (p.kind == HUMAN if lobby is None else lobby.seats[p.seat].kind == "human") else None
            for p in game.players
        ]
        token_hashes = tuple("" if token is None else hash_token(token) for token in tokens)
        game_id = secrets.token_urlsafe(GAME_ID_BYTES)
        tag = self._new_tag()
        if lobby is not None:
            lobby.track(self.engine.awaiting(game), None, lobby.created)
        state = self.engine.dumps(game)
        raw_lobby = None if lobby is None else lobbies.encode(lobby)
        await self.store.create(
            NewGame(
                id=game_id,
                version=game.version,
                state=state,
                finished=game.finished,
                token_hashes=token_hashes,
                events=self._stored_events(game, events),
                ttl=self._ttl(game, lobby),
                tag=tag,
                lobby=raw_lobby,
            )
        )
        self.cache.put(game_id, game, token_hashes, tag, lobby)
        self.metrics.games_created.inc()
        stored = StoredGame(game_id, game.version, state, game.finished, token_hashes, tag, lobby=raw_lobby)
        if lobby is not None:
            await self._index(game_id, lobby, stored.version)
            stored = await self._settle(stored, None)
        return CreatedGame(
            id=game_id,
            version=stored.version,
            tokens=tokens,
            seats=lobbies.seat_views(lobby, [{"kind": p.kind} for p in game.players], self.seat_names),
            status=lobbies.status(lobby, stored.finished),
        )

    def _new_lobby(self, game: Game, seating: Seating) -> Lobby | None:
        """The lobby record of a new game: ``None`` for a game of creator-dealt seats without a
        turn timeout (its view is derived from the players)."""
        if seating.seats is None and seating.turn_timeout is None:
            return None
        specs = iter(seating.seats or [("human", None, None)] * len(game.players))
        seats = []
        for player in game.players:
            if player.kind != HUMAN:  # an automated seat (a seat kind's: the Private Concern) plays itself
                seats.append(LobbySeat(player.kind, name=self.engine.seat_kinds[player.kind].name))
                continue
            kind, name, bot = next(specs)
            if kind == "bot":
                assert bot is not None
                seats.append(LobbySeat("bot", name=name or self.engine.bots[bot].name or bot, bot=bot))
            else:
                seats.append(LobbySeat(kind, name=name if kind == "human" else None))
        opened = any(seat.kind == "open" for seat in seats)
        return Lobby(
            seats=seats,
            created=self.clock(),
            started=not opened,
            listed=opened and (seating.listed is None or seating.listed),
            turn_timeout=seating.turn_timeout,
            timeout_bot=seating.timeout_bot or lobbies.DEFAULT_TIMEOUT_BOT,
            config=lobbies.config_summary(game),
        )

    # -- reading -------------------------------------------------------------------
    async def caller(self, game_id: str, authorization: str | None) -> Caller:
        """Load the game and identify the caller (``unknown-game``, ``invalid-token``)."""
        token = bearer_token(authorization)
        stored = await self._load(game_id)
        return Caller(stored, None if token is None else seat_of(token, stored.token_hashes))

    async def advance(self, caller: Caller) -> Caller:
        """Before any read of a game is answered (view, actions, log, score, and again while a
        stream or long poll waits): the bots play what they are awaited for (a game of bots
        only goes on this way after the budget of the request that last acted ran out), and
        a seated caller's request hands a seat awaited longer than the turn timeout to a bot."""
        stored = caller.stored
        lobby = lobbies.decode(stored.lobby)
        if lobby is None or lobby.waiting or stored.finished:
            return caller  # a game without lobby (creator-dealt seats): nothing more to do
        if any(self._pending(stored, lobby, caller.seat)):
            return Caller(await self._settle(stored, caller.seat), caller.seat)
        return caller

    def _pending(
        self, stored: StoredGame, lobby: Lobby, caller: int | None
    ) -> tuple[list[int], list[tuple[int, str]]]:
        """What the bots must do in ``stored`` now: the seats awaited longer than the turn timeout
        that the seated ``caller`` hands to a bot (every awaited seat but the caller's), and the
        awaited seats bots play, each with its bot."""
        awaiting = self.engine.awaiting(self.game(stored))
        now = self.clock()
        overdue = [s for s in awaiting if caller is not None and s != caller and lobby.overdue(s, now)]
        bots = [(seat, bot) for seat in awaiting if (bot := lobby.bot_of(seat)) is not None]
        return overdue, bots

    def game(self, stored: StoredGame) -> Game:
        """The decoded game of ``stored``, shared with the cache: read it, never mutate it."""
        game = self.cache.get(stored.id, stored.version, stored.tag)
        if game is None:
            game = self.engine.loads(stored.state)
            self.cache.put(stored.id, game, stored.token_hashes, stored.tag, lobbies.decode(stored.lobby))
        return game

    def view(self, caller: Caller) -> bytes:
        """The caller's view of the game, as JSON."""
        return self._view(self.game(caller.stored), caller.seat, lobbies.decode(caller.stored.lobby))

    def _view(self, game: Game, seat: int | None, lobby: Lobby | None) -> bytes:
        return _encode(lobbies.decorate(self.engine.view(game, seat), lobby, self.seat_names))

    @staticmethod
    def status(caller: Caller) -> str:
        """``waiting``, ``active`` or ``finished``."""
        return lobbies.status(lobbies.decode(caller.stored.lobby), caller.stored.finished)

    def legal_actions(self, caller: Caller) -> list[dict[str, Any]]:
        """Every legal action of the caller's seat, ready to be submitted unchanged (none while
        the game waits for players, or while a bot plays the seat)."""
        if caller.seat is None:
            return []
        lobby = lobbies.decode(caller.stored.lobby)
        if lobby is not None and (lobby.waiting or lobby.bot_of(caller.seat) is not None):
            return []
        actions = self.engine.legal_actions(self.game(caller.stored), caller.seat)
        return [self.engine.action_to_json(action) for action in actions]

    def score(self, caller: Caller) -> dict[str, Any]:
        """The final score breakdown and winners (``game-not-finished`` before the end)."""
        game = self.game(caller.stored)
        if not game.finished:
            raise Problem("game-not-finished", "The game is still being played.")
        view = self.engine.view(game, caller.seat)
        return {"version": game.version, "score": view["score"], "winners": view["winners"]}

    async def waiting(self, cursor: str | None, limit: int) -> WaitingPage:
        """A page of the listed games waiting for players, newest first, after ``cursor``.

        Entries of the index are checked against their games; those that no longer name a
        listed waiting game (started, expired, unlisted) are removed as they are met.
        """
        expired = f"{max(0, round((self.clock() - self.settings.waiting_game_ttl) * 1000)):013d}:"
        shown: list[tuple[str, dict[str, Any]]] = []  # (entry, listing)
        before = cursor
        for _ in range(8):  # each pass removes what it found stale: a few are always enough
            want = limit + 1 - len(shown)
            entries = await self.store.waiting_page(before, want, expired)
            if not entries:
                break
            ids = [entry.partition(":")[2] for entry in entries]
            stale = []
            for entry, game_id, raw in zip(entries, ids, await self.store.lobbies(ids), strict=True):
                lobby = lobbies.decode(raw)
                if lobby is not None and lobby.waiting and lobby.listed and lobby.entry(game_id) == entry:
                    shown.append((entry, lobbies.listing(game_id, lobby)))
                else:
                    stale.append(entry)
            if stale:
                await self.store.unlist_waiting(*stale)
            before = entries[-1]
            if len(shown) > limit or len(entries) < want:
                break
        else:
            # Still short after many stale entries: let the client go on from here.
            return WaitingPage([listing for _, listing in shown], before)
        more = len(shown) > limit
        shown = shown[:limit]
        return WaitingPage([listing for _, listing in shown], shown[-1][0] if more else None)

    async def log(
        self, caller: Caller, after: int, limit: int, wait: float = 0.0, client: str = "unknown"
    ) -> LogPage:
        """Up to ``limit`` events after event ``after``, keeping those the caller may see.

        With ``wait`` > 0 and nothing to show yet, wait up to ``wait`` seconds for the next
        events the caller may see (a long poll), in one of ``client``'s event stream slots
        (a waiting read holds a store connection as a stream does); a finished game answers
        at once.
        """
        caller = await self.advance(caller)
        game_id, seat = caller.stored.id, caller.seat
        finished = caller.stored.finished
        events = await self.store.events(game_id, after, limit)
        page = _page(events, after, limit, seat, finished)
        if page.events or finished or wait <= 0:
            return page
        release = self.streams.take(client)
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + min(wait, self.settings.log_max_wait)
            while (remaining := deadline - loop.time()) > 0:
                events = await self.store.wait_events(game_id, page.next, limit, remaining)
                if not events:  # the wait timed out
                    break
                page = _page(events, page.next, limit, seat, finished)
                if page.events:
                    break
                # Only events the caller may not see (a bot's private ones, say): the bots
                # may be awaited again, with no other request to play them.
                stored = await self.store.load(game_id)
                if stored is None:
                    break
                caller = await self.advance(Caller(stored, seat))
        finally:
            release()
        return page

    async def stream_over(self, caller: Caller, after: int) -> bool:
        """True when a stream from ``after`` has nothing to send, ever: the game is finished
        and the caller has every event."""
        return caller.stored.finished and not await self.store.events(caller.stored.id, after, 1)

    async def follow(self, caller: Caller, after: int) -> AsyncIterator[StoredEvent | None]:
        """The caller's events after ``after`` as they are committed; ``None`` for a heartbeat.

        A heartbeat follows every ``Settings.stream_heartbeat`` seconds without an event the
        caller may see (events private to other seats do not keep the stream alive).
        Ends once the caller has every event of a finished (or expired) game, or after
        ``Settings.stream_max_duration`` (the client resumes from the last event it got).
        """
        loop = asyncio.get_running_loop()
        heartbeat = self.settings.stream_heartbeat
        deadline = loop.time() + self.settings.stream_max_duration
        game_id = caller.stored.id
        # The bots play what they are awaited for before each wait (the stream goes on with a
        # game of bots only, or one whose last request ran out of budget, by itself).
        caller = await self.advance(caller)
        finished = False
        sent = loop.time()  # when the caller last got something
        while (remaining := deadline - loop.time()) > 0:
            if finished:  # nothing more will be committed: read what is left, without waiting
                batch = await self.store.events(game_id, after, STREAM_BATCH)
            else:
                quiet = loop.time() - sent
                timeout = min(max(heartbeat - quiet, 0.001), remaining)
                batch = await self.store.wait_events(game_id, after, STREAM_BATCH, timeout)
            for event in batch:
                after = event.n
                if event.visible_to(caller.seat):
                    sent = loop.time()
                    yield event
            if len(batch) == STREAM_BATCH:
                continue
            if finished:
                return
            stored = await self.store.load(game_id)
            if stored is None:
                return
            if not stored.finished:
                stored = (await self.advance(Caller(stored, caller.seat))).stored
            # The game may have finished after the batch was read: its last events follow.
            finished = stored.finished
            if not finished and loop.time() - sent >= heartbeat:
                sent = loop.time()
                yield None

    # -- acting --------------------------------------------------------------------
    async def act(
        self,
        game_id: str,
        authorization: str | None,
        body: bytes,
        if_match: str | None,
        idempotency_key: str | None,
    ) -> ActResult:
        """Apply the action in ``body`` for the caller's seat; see ``POST /v1/games/{id}/actions``.

        When a plugin fails to resolve it (``plugin-error``), the answer is withdrawn from
        the decision in the stored game (:meth:`_withdraw`), so that a seat whose only
        answer fails is not stuck for good.
        """
        try:
            return await self._act(game_id, authorization, body, if_match, idempotency_key)
        except errors.PluginError as exc:
            withdrawn = await self._withdraw(game_id, self._parse_action(body), exc)
            if withdrawn is None:
                raise
            raise errors.PluginError(f"{exc.reason}; this answer is withdrawn from the decision (the game is now at "
                                     f"version {withdrawn})", plugin=exc.plugin) from exc

    async def _withdraw(self, game_id: str, action: Action, failure: errors.PluginError) -> int | None:
        """Withdraw ``action``, which a plugin failed to resolve, from the pending decision of
        the stored game (:meth:`Engine.withdraw`) and commit that as a version of its own;
        the new version, or ``None`` when there is nothing to withdraw any more (the game
        moved on meanwhile)."""
        try:
            stored = await self._load(game_id)
            game = self.engine.loads(stored.state)
            record, events = self.engine.withdraw(game, action, failure.reason, failure.plugin)
        except (errors.DarkroadError, Problem, StoreUnavailable):
            return None  # the client still learns of the plugin's failure
        tag = self._new_tag()
        commit = Commit(
            game_id=game_id,
            expected_version=stored.version,
            expected_tag=stored.tag,
            version=game.version,
            tag=tag,
            state=self.engine.dumps(game),
            finished=game.finished,
            action=self.engine.encode(record),
            events=self._stored_events(game, events),
            ttl=self._ttl(game),
            idempotency=IdempotencyRecord(f"commit:{tag}", b"", COMMIT_RECORD_TTL),
        )
        try:
            outcome = await self.store.commit(commit)
        except StoreUnavailable:
            return None
        if outcome.outcome is not Outcome.COMMITTED:
            return None
        self.cache.put(game_id, game, stored.token_hashes, tag)
        return game.version

    async def _act(
        self,
        game_id: str,
        authorization: str | None,
        body: bytes,
        if_match: str | None,
        idempotency_key: str | None,
    ) -> ActResult:
        """:meth:`act`, apart from withdrawing an answer a plugin failed to resolve.

        When this process has the game cached, the action is applied to it and committed
        at once: one store round trip, the commit's compare-and-set telling whether the
        cache was current. Otherwise, or when the cached game refuses the action (it may be
        behind), the game is read from the store. A stale commit comes back with the
        current game, to which the action is applied again, unless ``If-Match`` pinned
        the version. Once committed, the bots play what they are awaited for, and the
        answer is the caller's view after their moves.
        """
        token = require_token(authorization)
        action = self._parse_action(body)
        # Only an Idempotency-Key needs the action's fingerprint (to tell a retry from a reuse).
        if idempotency_key is None:
            fingerprint, record_key = "", None
        else:
            fingerprint = hashlib.sha256(_encode(action.key())).hexdigest()
            record_key = self._record_key(action.seat, idempotency_key)

        stored: StoredGame | None = None
        cached = self.cache.peek(game_id)
        if cached is not None and cached.lobby is not None and seat_of_or_none(token, cached.token_hashes) is None:
            cached = None  # a seat may have been joined since this process cached the game: ask the store
        if cached is not None and (if_match is None or _matches(if_match, cached.game.version, weak=False)):
            seat = self._seat(action, token, cached.token_hashes)
            # Taken out of the cache while it changes: other requests must not see an
            # uncommitted version.
            self.cache.take(game_id)
            try:
                attempt = await self._attempt(game_id, cached, seat, action, fingerprint, record_key)
            except (errors.IllegalAction, Refusal):
                self.cache.put(game_id, cached.game, cached.token_hashes, cached.tag, cached.lobby)  # untouched
            else:
                if isinstance(attempt, ActResult):
                    return attempt
                if isinstance(attempt, _Committed):
                    return await self._answer(attempt, seat)
                stored = attempt
        if stored is None:
            stored = await self._load(game_id, record_key)
            seat = self._seat(action, token, stored.token_hashes)
            if stored.replay is not None:
                result = self._replay(stored.replay, fingerprint)
                assert record_key is not None
                await self.store.confirm(game_id, record_key, self.settings.idempotency_ttl)
                return result

        for _ in range(self.settings.commit_attempts):
            if if_match is not None and not _matches(if_match, stored.version, weak=False):
                raise self._stale(stored.version)
            # Again on every version read: a rejoin replaces a seat's token, and the cached
            # version that accepted it may have been older than the rejoin.
            seat = self._seat(action, token, stored.token_hashes)
            game = self._take(stored)
            try:
                attempt = await self._attempt(game_id, game, seat, action, fingerprint, record_key)
            except (errors.IllegalAction, Refusal):
                self.cache.put(game_id, game.game, game.token_hashes, game.tag, game.lobby)  # untouched
                self.metrics.actions.inc("illegal")
                raise
            if isinstance(attempt, ActResult):
                return attempt
            if isinstance(attempt, _Committed):
                return await self._answer(attempt, seat)
            stored = attempt
        raise Problem(
            "stale-version",
            "The game kept changing while this action was applied; retry.",
            headers={"ETag": entity_tag(stored.version)},
            extra={"version": stored.version},
        )

    async def _answer(self, committed: _Committed, seat: int) -> ActResult:
        """The answer to a committed action: after the bots' moves it led to, if any."""
        stored = committed.stored
        if stored.lobby is None:
            return ActResult(stored.version, committed.view, replayed=False)
        settled = await self._settle(stored, seat)
        if settled.version == stored.version:
            return ActResult(stored.version, committed.view, replayed=False)
        return ActResult(settled.version, self._view(self.game(settled), seat, lobbies.decode(settled.lobby)), False)

    async def _attempt(
        self,
        game_id: str,
        cached: CachedGame,
        seat: int,
        action: Action,
        fingerprint: str,
        record_key: str | None,
    ) -> ActResult | _Committed | StoredGame:
        """Apply ``action`` to ``cached`` and commit it: committed, a recorded answer
        (``ActResult``), or the current game if stale.

        Raises ``IllegalAction`` (game untouched), a :class:`Refusal` (the game waits for
        players, a bot plays the seat: game untouched) and ``PluginError`` (game spoilt, dropped).
        """
        game = cached.game
        lobby = cached.lobby
        if lobby is not None:
            if lobby.waiting:
                open_seats = ", ".join(map(str, lobby.open_seats()))
                raise Refusal("game-not-started", f"The game waits for players to join seat(s) {open_seats}.")
            if lobby.bot_of(seat) is not None:
                raise Refusal(
                    "seat-replaced",
                    f"The {lobby.bot_of(seat)!r} bot plays seat {seat} since it timed out; reclaim it "
                    f"(POST .../seats/{seat}/reclaim) to act again.",
                )
        expected = game.version
        events = self.engine.apply(game, action)
        if lobby is not None and lobby.turn_timeout is not None:
            lobby = lobby.copy()
            lobby.track(self.engine.awaiting(game), seat, self.clock())
        else:
            lobby = None  # unchanged
        view = self._view(game, seat, lobby or cached.lobby)
        record = None
        if record_key is not None:
            result = _IdempotentResult(fingerprint, game.version, msgspec.Raw(view))
            record = IdempotencyRecord(record_key, _pack_record(result), self.settings.idempotency_ttl)
        # The client's label is not stored (replay needs only type, seat and option).
        applied = self.engine.encode(Action(action.type, action.seat, action.option) if action.label else action)
        outcome, stored = await self._commit(
            game_id, cached, game, expected, applied, events, record, lobby=lobby
        )
        if outcome.outcome is Outcome.STALE:
            return stored
        if outcome.outcome is Outcome.REPLAYED and record_key is not None:
            assert outcome.replay is not None
            return self._replay(outcome.replay, fingerprint)
        # Committed, or replayed without a client key: our own commit, whose reply was lost
        # and which the Redis client sent again.
        self.metrics.actions.inc("applied")
        return _Committed(stored, view)

    async def _commit(
        self,
        game_id: str,
        base: CachedGame,
        game: Game,
        expected: int,
        applied: bytes,
        events: Sequence[Event],
        record: IdempotencyRecord | None = None,
        *,
        token_hashes: tuple[str, ...] | None = None,
        lobby: Lobby | None = None,
    ) -> tuple[CommitResult, StoredGame]:
        """Write ``game`` (changed from version ``expected`` of ``base``): the outcome, and the
        game as stored now (the new version, or the current one when stale). The new version
        goes into the cache. ``record``: the client's ``Idempotency-Key`` record, if any;
        ``token_hashes``, ``lobby``: changed, else ``None``."""
        tag = self._new_tag()
        own = record is None
        if record is None:  # named by the new tag: only this commit can have written it
            record = IdempotencyRecord(f"commit:{tag}", b"", COMMIT_RECORD_TTL)
        state = self.engine.dumps(game)
        raw_lobby = None if lobby is None else lobbies.encode(lobby)
        outcome = await self.store.commit(
            Commit(
                game_id=game_id,
                expected_version=expected,
                expected_tag=base.tag,
                version=game.version,
                tag=tag,
                state=state,
                finished=game.finished,
                action=applied,
                events=self._stored_events(game, events),
                ttl=self._ttl(game, lobby or base.lobby),
                idempotency=record,
                token_hashes=token_hashes,
                lobby=raw_lobby,
            )
        )
        if outcome.outcome is Outcome.MISSING:
            raise self._unknown(game_id)
        if outcome.outcome is Outcome.STALE:
            self.metrics.conflicts.inc()
            if outcome.current is None:
                raise self._unknown(game_id)
            return outcome, outcome.current
        hashes = base.token_hashes if token_hashes is None else token_hashes
        new_lobby = base.lobby if lobby is None else lobby
        if outcome.outcome is Outcome.COMMITTED or own:
            self.cache.put(game_id, game, hashes, tag, new_lobby)
        if raw_lobby is None and new_lobby is not None:
            raw_lobby = lobbies.encode(new_lobby)
        return outcome, StoredGame(game_id, game.version, state, game.finished, hashes, tag, lobby=raw_lobby)

    @staticmethod
    def _seat(action: Action, token: str, token_hashes: tuple[str, ...]) -> int:
        """The token's seat, which must be the action's (``invalid-token``, ``wrong-seat``)."""
        seat = seat_of(token, token_hashes)
        if action.seat != seat:
            raise Problem("wrong-seat", f"Your token is seat {seat}'s; the action is for seat {action.seat}.")
        return seat

    # -- the seats -----------------------------------------------------------------
    async def join(self, game_id: str, seat: int, name: str, idempotency_key: str | None = None) -> JoinedSeat:
        """Take open seat ``seat`` under ``name``: its token, shown once. Exactly one of any
        number of racing joins of a seat gets it (``seat-taken`` for the others).

        With ``idempotency_key``, the join records (with the seat change, atomically) the key's
        hash, the name and the version written, for :data:`JOIN_IDEMPOTENCY_TTL`; a retry with
        the key while the record lives is a rejoin (:meth:`_rejoin`): the seat again, with a
        fresh token."""
        name = lobbies.clean_name(name)
        record_key = None if idempotency_key is None else self._join_key(seat, idempotency_key)
        stored = await self._load(game_id, record_key)
        change: _SeatChange | None = None
        if stored.replay is None:

            def decide(stored: StoredGame, game: Game, lobby: Lobby | None, tokens: list[str]) -> _SeatChange:
                self._check_seat(stored, seat)
                if stored.finished:
                    raise Problem("game-finished", "The game is over.")
                if lobby is None or lobby.seats[seat].kind != "open":
                    raise self._seat_taken(lobby, seat)
                token = new_token()
                tokens[seat] = hash_token(token)
                lobby.seats[seat] = LobbySeat("human", name=name, joined=game.version + 1)
                events: list[tuple[str, int | None, dict[str, Any]]] = [("seat_joined", seat, {"name": name})]
                if not lobby.open_seats():
                    lobby.started = True
                    events.append(("seats_filled", None, {}))
                return _SeatChange("joined", seat, events, token)

            record = None
            if record_key is not None:
                record = functools.partial(self._join_record, record_key, name, secrets.token_hex(8))
            try:
                stored, change = await self._change_seats(game_id, decide, stored, record)
            except _KeyUsed:  # a retry raced this first request, and won
                stored = await self._load(game_id, record_key)
                if stored.replay is None:  # and its record expired already: hardly
                    raise Problem("stale-version", "The game kept changing; retry.",
                                  extra={"version": stored.version}) from None
        if change is None:
            stored, change = await self._rejoin(game_id, seat, name, stored)
        assert change.token is not None
        self.metrics.seats.inc(change.kind)
        lobby = lobbies.decode(stored.lobby)
        assert lobby is not None
        await self._index(game_id, lobby, stored.version)
        stored = await self._settle(stored, seat)
        return JoinedSeat(seat, change.token, stored.version)

    async def _rejoin(self, game_id: str, seat: int, name: str, stored: StoredGame) -> tuple[StoredGame, _SeatChange]:
        """A join retried with its ``Idempotency-Key`` (recorded in ``stored.replay``): with the
        same name, while the seat is still that join's, the seat's token is replaced by a fresh
        one (the lost answer's plays nothing any more) as a version of its own, with a
        ``seat_rejoined`` event, like every change of seats (so a game still replays from its
        action list). Only the token's hash is ever stored: the first answer's cannot be sent again.
        """
        assert stored.replay is not None
        recorded = msgspec.json.decode(stored.replay, type=_JoinRecord)
        if recorded.name != name:
            raise Problem("idempotency-key-reused", "This Idempotency-Key was used to join under another name.")

        def decide(current: StoredGame, game: Game, lobby: Lobby | None, tokens: list[str]) -> _SeatChange:
            self._check_seat(current, seat)
            if current.finished:
                raise Problem("game-finished", "The game is over.")
            held = None if lobby is None else lobby.seats[seat]
            if held is not None and held.kind == "open":
                raise Problem(
                    "idempotency-key-reused",
                    f"The join made with this Idempotency-Key was undone (seat {seat} was left): "
                    "join again with a new key.",
                )
            if held is None or held.kind != "human" or held.joined != recorded.version:
                raise self._seat_taken(lobby, seat)
            token = new_token()
            tokens[seat] = hash_token(token)
            return _SeatChange("rejoined", seat, [("seat_rejoined", seat, {"name": name})], token, acted=False)

        stored, change = await self._change_seats(game_id, decide, stored)
        assert change is not None
        return stored, change

    @staticmethod
    def _join_record(key: str, name: str, nonce: str, game: Game) -> IdempotencyRecord:
        """The record of a join with an ``Idempotency-Key`` writing ``game``."""
        return IdempotencyRecord(key, _encode(_JoinRecord(name, game.version, nonce)), JOIN_IDEMPOTENCY_TTL)

    @staticmethod
    def _seat_taken(lobby: Lobby | None, seat: int) -> Problem:
        open_seats = [] if lobby is None else lobby.open_seats()
        return Problem(
            "seat-taken",
            f"Seat {seat} is not open; "
            + (f"open seats: {', '.join(map(str, open_seats))}." if open_seats else "no seat is open."),
        )

    async def leave(self, game_id: str, seat: int, authorization: str | None) -> None:
        """Leave ``seat`` (the caller's) while the game waits for players: it is open again."""
        token = require_token(authorization)

        def decide(stored: StoredGame, game: Game, lobby: Lobby | None, tokens: list[str]) -> _SeatChange:
            self._check_seat(stored, seat)
            self._own_seat(token, stored, seat, "leave")
            if stored.finished:
                raise Problem("game-finished", "The game is over.")
            if lobby is None or lobby.started:
                raise Problem("game-started", "The game has started: its seats can no longer be left.")
            tokens[seat] = ""
            lobby.seats[seat] = LobbySeat("open")
            return _SeatChange("left", seat, [("seat_left", seat, {})])

        stored, _ = await self._change_seats(game_id, decide)
        self.metrics.seats.inc("left")
        lobby = lobbies.decode(stored.lobby)
        assert lobby is not None
        await self._index(game_id, lobby, stored.version)

    async def timeout(self, game_id: str, seat: int, authorization: str | None) -> Caller:
        """Hand ``seat``, awaited longer than the game's turn timeout, to the game's timeout bot
        (the caller must hold another seat); the caller after the bots' moves."""
        token = require_token(authorization)
        caller_seat = -1

        def decide(stored: StoredGame, game: Game, lobby: Lobby | None, tokens: list[str]) -> _SeatChange:
            nonlocal caller_seat
            self._check_seat(stored, seat)
            caller_seat = seat_of(token, stored.token_hashes)
            if caller_seat == seat:
                raise Problem("wrong-seat", "A seat cannot be timed out by its own player.")
            if stored.finished:
                raise Problem("game-finished", "The game is over.")
            if lobby is not None and lobby.waiting:
                raise Problem("game-not-started", "The game waits for players: nobody is awaited yet.")
            if lobby is None or lobby.turn_timeout is None:
                raise Problem("not-overdue", "This game has no turn_timeout: no seat is ever overdue.")
            record = lobby.seats[seat]
            if record.kind != "human" or lobby.bot_of(seat) is not None:
                raise Problem("not-overdue", f"Seat {seat} is played by a bot (or the Private Concern).")
            if seat not in self.engine.awaiting(game) or record.since is None:
                raise Problem("not-overdue", f"The game does not wait for seat {seat}.")
            now = self.clock()
            if not lobby.overdue(seat, now):
                due = datetime.datetime.fromtimestamp(record.since + lobby.turn_timeout, datetime.UTC)
                raise Problem(
                    "not-overdue",
                    f"Seat {seat} has been awaited for {max(0.0, now - record.since):.0f} s of the "
                    f"{lobby.turn_timeout} s allowed: it is overdue at {due.isoformat(timespec='seconds')}.",
                )
            return self._replace(lobby, seat)

        stored, _ = await self._change_seats(game_id, decide)
        return Caller(await self._settle(stored, caller_seat), caller_seat)

    def _replace(self, lobby: Lobby, seat: int) -> _SeatChange:
        record = lobby.seats[seat]
        record.replaced, record.bot, record.since = True, lobby.timeout_bot, None
        self.metrics.seats.inc("replaced")
        return _SeatChange("replaced", seat, [("seat_replaced", seat, {"bot": lobby.timeout_bot})])

    async def reclaim(self, game_id: str, seat: int, authorization: str | None) -> Caller:
        """Take ``seat`` (the caller's) back from the bot that plays it since it timed out; a
        seat no bot plays is left as it is. The caller, after the bots' moves."""
        token = require_token(authorization)

        def decide(stored: StoredGame, game: Game, lobby: Lobby | None, tokens: list[str]) -> _SeatChange | None:
            self._check_seat(stored, seat)
            self._own_seat(token, stored, seat, "reclaim")
            if stored.finished:
                raise Problem("game-finished", "The game is over.")
            if lobby is None or not lobby.seats[seat].replaced:
                return None  # the player already plays it
            record = lobby.seats[seat]
            bot = record.bot
            record.replaced, record.bot = False, None
            return _SeatChange("reclaimed", seat, [("seat_reclaimed", seat, {"bot": bot})])

        stored, change = await self._change_seats(game_id, decide)
        if change is not None:
            self.metrics.seats.inc("reclaimed")
        return Caller(await self._settle(stored, seat), seat)

    def _check_seat(self, stored: StoredGame, seat: int) -> None:
        if not 0 <= seat < len(stored.token_hashes):
            raise Problem("unknown-seat", f"The game has seats 0 to {len(stored.token_hashes) - 1}.")

    @staticmethod
    def _own_seat(token: str, stored: StoredGame, seat: int, what: str) -> None:
        mine = seat_of(token, stored.token_hashes)
        if mine != seat:
            raise Problem("wrong-seat", f"Your token is seat {mine}'s: you cannot {what} seat {seat}.")

    async def _change_seats(
        self,
        game_id: str,
        decide: Callable[[StoredGame, Game, Lobby | None, list[str]], _SeatChange | None],
        stored: StoredGame | None = None,
        record: Callable[[Game], IdempotencyRecord] | None = None,
    ) -> tuple[StoredGame, _SeatChange | None]:
        """Commit the change of seats ``decide`` makes (on copies of the lobby and the token
        hashes, raising a problem when it refuses; ``None``: nothing to change) as a version
        of its own, with its events; on a stale version, decide again on the current one.
        ``stored``: the game as last read (else it is loaded). ``record``: the client's
        idempotency record for the changed game, committed with it (:class:`_KeyUsed` when
        another request's already exists)."""
        stored = stored or await self._load(game_id)
        for _ in range(self.settings.commit_attempts):
            lobby = lobbies.decode(stored.lobby)
            tokens = list(stored.token_hashes)
            change = decide(stored, self.game(stored), lobby, tokens)
            if change is None:
                return stored, None
            assert lobby is not None
            entry = self._take(stored)
            game = entry.game
            expected = game.version
            events = [lobbies.lobby_event(game, kind, seat, **data) for kind, seat, data in change.events]
            game.version += 1
            lobby.track(self.engine.awaiting(game), change.seat if change.acted else None, self.clock())
            changed = tuple(tokens)
            client_record = None if record is None else record(game)
            outcome, stored = await self._commit(
                game_id,
                entry,
                game,
                expected,
                lobbies.seat_change_record(change.kind, change.seat, len(events)),
                events,
                client_record,
                token_hashes=changed if changed != stored.token_hashes else None,
                lobby=lobby,
            )
            if (
                outcome.outcome is Outcome.REPLAYED
                and client_record is not None
                and outcome.replay != client_record.result
            ):
                raise _KeyUsed
            if outcome.outcome is not Outcome.STALE:
                return stored, change
        raise Problem("stale-version", "The game kept changing; retry.", extra={"version": stored.version})

    async def _index(self, game_id: str, lobby: Lobby, version: int) -> None:
        """Make the index of waiting games agree with ``lobby``, the game's at ``version``
        (idempotent).

        The index is written after the seat change's commit, so racing seat changes may write
        it out of order: a join that left the game waiting could list it after the join that
        started it unlisted it. A game leaves the waiting state only by starting, for good, so
        only a listing can be stale: after listing, the game is read again, and when it has
        moved on, the index follows its current state."""
        for _ in range(self.settings.commit_attempts):
            if not lobby.listed:
                return
            if not lobby.waiting:
                await self.store.unlist_waiting(lobby.entry(game_id))
                return
            await self.store.list_waiting(lobby.entry(game_id))
            current = await self.store.load(game_id)
            if current is None:  # expired meanwhile
                await self.store.unlist_waiting(lobby.entry(game_id))
                return
            if current.version == version:
                return
            fresh = lobbies.decode(current.lobby)
            if fresh is None:
                return
            lobby, version = fresh, current.version

    # -- bots ----------------------------------------------------------------------
    async def _settle(self, stored: StoredGame, caller: int | None) -> StoredGame:
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
        deadline = asyncio.get_running_loop().time() + 3 * self.settings.bot_time_per_request
        while (running := self._settling.get(stored.id)) is not None:
            if running.done():
                # Finished, but its done-callback (which forgets it) has not run yet: awaiting a
                # done task does not yield to the loop, so without this the loop would spin
                # here for ever and the whole process hang (it did, under load).
                self._settled(stored.id, running)
            settled = await self._until(running, deadline)
            if settled is None:
                return stored
            if settled.version > stored.version:
                stored = settled
        task = asyncio.create_task(self._settle_now(stored, caller))
        self._settling[stored.id] = task
        task.add_done_callback(lambda done: self._settled(stored.id, done))
        settled = await self._until(task, deadline)
        return stored if settled is None else settled

    @staticmethod
    async def _until(task: asyncio.Task[StoredGame], deadline: float) -> StoredGame | None:
        """The game ``task`` settled, or ``None`` if it is not done by ``deadline`` (loop time);
        the task is never cancelled (``asyncio.wait`` leaves it running)."""
        timeout = max(0.0, deadline - asyncio.get_running_loop().time())
        done, _ = await asyncio.wait({task}, timeout=timeout)
        return task.result() if done else None

    def _settled(self, game_id: str, task: asyncio.Task[StoredGame]) -> None:
        if self._settling.get(game_id) is task:
            del self._settling[game_id]
        if not task.cancelled():
            task.exception()  # retrieved: whoever awaited it got it (none may be left to)

    async def _settle_now(self, stored: StoredGame, caller: int | None) -> StoredGame:
        """:meth:`_settle`'s moves. At a stale version (another process changed the game) it
        goes on from the current one, the attempt counting as a move of the budget."""
        loop = asyncio.get_running_loop()
        # The budget counts the time spent playing (thinking, committing), not the time spent
        # waiting for the bot thread behind other games; a wall-clock bound of twice the
        # budget still caps how long a request may wait on busy bots.
        budget = self.settings.bot_time_per_request
        begun = loop.time()
        moves, queued = 0, [0.0]
        while not stored.finished:
            lobby = lobbies.decode(stored.lobby)
            assert lobby is not None
            overdue, bots = self._pending(stored, lobby, caller)
            if overdue:
                seat = overdue[0]

                def replace(
                    current: StoredGame, game: Game, lobby: Lobby | None, tokens: list[str], seat: int = seat
                ) -> _SeatChange | None:
                    now = self.clock()
                    if lobby is None or seat not in self.engine.awaiting(game) or not lobby.overdue(seat, now):
                        return None
                    return self._replace(lobby, seat)

                stored, change = await self._change_seats(stored.id, replace, stored)
                if change is None:
                    break
                continue
            spent = loop.time() - begun
            over = spent - queued[0] >= budget or spent >= 2 * budget
            if not bots or moves >= self.settings.bot_moves_per_request or over:
                break
            moved = await self._bot_move(stored, *bots[0], rank=begun, queued=queued)
            if moved is None:
                break
            stored = moved
            moves += 1
        return stored

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
            self.metrics.bot_moves.inc(bot_id, "missing")
            return None
        entry = self._take(stored)
        legal = self.engine.legal_actions(entry.game, seat)
        if not legal:
            self._untake(stored, entry)
            return None
        stuck = self._stuck_bots.get(bot_id)
        if stuck is not None and not stuck.is_alive():
            del self._stuck_bots[bot_id]  # its given-up move returned: it may play again
            stuck = None
        if len(legal) == 1:
            choice, how = legal[0], "chosen"
        elif stuck is not None:
            choice, how = legal[0], "timed_out"
        else:
            try:
                (choice, how), waited = await self._bots.submit(
                    rank, functools.partial(_safe_choice, bot, self.engine, entry.game, seat, legal)
                )
                queued[0] += waited
            except BotTimeout as exc:
                logger.error("game %s: bot %r gave no move for seat %d (%s); its first legal action stands in, "
                             "and its moves here until it returns", stored.id, bot_id, seat, exc)
                self._stuck_bots[bot_id] = exc.thread
                # The bot still holds the game it was given: play on a copy of our own.
                entry = CachedGame(self.engine.loads(stored.state), stored.token_hashes, stored.tag, entry.lobby)
                legal = self.engine.legal_actions(entry.game, seat)
                choice, how = legal[0], "timed_out"
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
                entry = CachedGame(self.engine.loads(stored.state), stored.token_hashes, stored.tag, entry.lobby)
                continue
            lobby = None
            if entry.lobby is not None and entry.lobby.turn_timeout is not None:
                lobby = entry.lobby.copy()
                lobby.track(self.engine.awaiting(game), seat, self.clock())
            applied = self.engine.encode(Action(action.type, action.seat, action.option))
            outcome, current = await self._commit(stored.id, entry, game, expected, applied, events, lobby=lobby)
            if outcome.outcome is Outcome.STALE:
                return current  # another process moved: go on from there
            self.metrics.bot_moves.inc(bot_id, how)
            return current
        self._untake(stored, entry)
        return None

    # -- helpers -------------------------------------------------------------------
    def _new_tag(self) -> str:
        return f"{self._commit_prefix}{next(self._commits)}"

    def _take(self, stored: StoredGame) -> CachedGame:
        """The game of ``stored`` to change: the cached one if current (taken out of the cache
        while it changes), else decoded."""
        return self.cache.take(stored.id, stored.version, stored.tag) or CachedGame(
            self.engine.loads(stored.state), stored.token_hashes, stored.tag, lobbies.decode(stored.lobby)
        )

    def _untake(self, stored: StoredGame, entry: CachedGame) -> None:
        """Put back a game :meth:`_take` took and left unchanged."""
        self.cache.put(stored.id, entry.game, entry.token_hashes, entry.tag, entry.lobby)

    async def _load(self, game_id: str, idempotency_key: str | None = None) -> StoredGame:
        stored = await self.store.load(game_id, idempotency_key)
        if stored is None:
            raise self._unknown(game_id)
        return stored

    def _parse_action(self, body: bytes) -> Action:
        return parse_action(body, self.engine.action_from_json)

    def _replay(self, recorded: bytes, fingerprint: str) -> ActResult:
        result = _unpack_record(recorded)
        if result.fingerprint != fingerprint:
            raise Problem("idempotency-key-reused", "This Idempotency-Key was used for a different action.")
        self.metrics.actions.inc("replayed")
        return ActResult(result.version, bytes(result.view), replayed=True)

    @staticmethod
    def _record_key(seat: int, idempotency_key: str) -> str:
        # Keys are per seat (two players may pick the same key) and hashed (any text is safe).
        return f"{seat}:{hashlib.sha256(idempotency_key.encode()).hexdigest()}"

    @staticmethod
    def _join_key(seat: int, idempotency_key: str) -> str:
        # A join's keys apart from the seat's actions' (the same text may name both).
        return f"join:{GameService._record_key(seat, idempotency_key)}"

    def _stored_events(self, game: Game, events: Sequence[Event]) -> list[StoredEvent]:
        seats = range(game.config.players)
        stored = []
        for event in events:
            audience = (
                None
                if self.engine.visible(event, None)
                else frozenset(seat for seat in seats if self.engine.visible(event, seat))
            )
            stored.append(StoredEvent(event.n, audience, self.engine.encode(event)))
        return stored

    def _ttl(self, game: Game, lobby: Lobby | None = None) -> int:
        if game.finished:
            return self.settings.finished_game_ttl
        if lobby is not None and lobby.waiting:
            # A game waiting for players expires waiting_game_ttl after its creation: joins do
            # not extend it, so the index can drop entries older than that unread.
            return max(1, round(lobby.created + self.settings.waiting_game_ttl - self.clock()))
        return self.settings.active_game_ttl

    def _unknown_bot(self, bot: str) -> Problem:
        installed = ", ".join(sorted(self.engine.bots)) or "none"
        return Problem("unknown-bot", f"No bot {bot!r} is installed here; installed bots: {installed}.")

    @staticmethod
    def _stale(version: int) -> Problem:
        return Problem(
            "stale-version",
            f"If-Match does not name the game's current version {version}.",
            headers={"ETag": entity_tag(version)},
            extra={"version": version},
        )

    @staticmethod
    def _unknown(game_id: str) -> Problem:
        return Problem("unknown-game", f"There is no game {game_id!r}.")


def seat_of_or_none(token: str, token_hashes: tuple[str, ...]) -> int | None:
    """The token's seat, or ``None`` when it matches none."""
    try:
        return seat_of(token, token_hashes)
    except Problem:
        return None
