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
import hashlib
import itertools
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from darkroad.api.auth import bearer_token, hash_token, new_token, require_token, seat_of
from darkroad.api.bodies import parse_json
from darkroad.api.metrics import Metrics
from darkroad.api.problems import Problem
from darkroad.api.settings import Settings
from darkroad.api.store import (
    Commit,
    GameStore,
    IdempotencyRecord,
    NewGame,
    Outcome,
    StoredEvent,
    StoredGame,
    StoreUnavailable,
)
from darkroad.core import Action, Engine, Event, Game, GameConfig, errors

GAME_ID_BYTES = 16
GAME_ID_LENGTH = 22
GAME_ID_PATTERN = r"^[A-Za-z0-9_-]{22}$"
"""Game ids are 16 random bytes in URL-safe base64 (no ``{}``: safe inside a Redis hash tag)."""
STREAM_BATCH = 500
"""Most events an event stream reads from the store at once."""
COMMIT_RECORD_TTL = 300
"""Seconds the store remembers a commit made without ``Idempotency-Key`` (retry safety only)."""

_encode = msgspec.json.encode


class _IdempotentResult(msgspec.Struct, frozen=True):
    """What an ``Idempotency-Key`` remembers: which action it was, and the answer."""

    fingerprint: str
    version: int
    view: msgspec.Raw


@dataclass(frozen=True, slots=True)
class CreatedGame:
    """A new game: its id, version and one token per seat (shown once, never stored)."""

    id: str
    version: int
    tokens: list[str | None]


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
    """A decoded game, the tag of its version and its seat token hashes (which never change)."""

    game: Game
    token_hashes: tuple[str, ...]
    tag: str


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

    def put(self, game_id: str, game: Game, token_hashes: tuple[str, ...], tag: str) -> None:
        """Cache ``game`` (at its current version, named ``tag``), evicting the least recently used."""
        self._games[game_id] = CachedGame(game, token_hashes, tag)
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


class GameService:
    """Games over a :class:`GameStore`, through one :class:`Engine`."""

    def __init__(self, engine: Engine, store: GameStore, settings: Settings, metrics: Metrics) -> None:
        self.engine = engine
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.cache = GameCache(settings.game_cache_size, metrics)
        self.streams = StreamSlots(settings.max_event_streams, settings.max_event_streams_per_client)
        # Tags of the versions this process writes, also naming the records of commits made
        # without Idempotency-Key: unique across processes (a random prefix per service) and
        # within one (a counter).
        self._commit_prefix = f"{secrets.token_hex(8)}."
        self._commits = itertools.count()

    # -- creating ------------------------------------------------------------------
    async def create(self, config: GameConfig) -> CreatedGame:
        """Create a game (``bad-config`` / ``unknown-component`` for an unplayable config)."""
        game, events = self.engine.create(config)
        # The Private Concern plays itself: its seat gets no token (an empty hash matches none).
        tokens = [None if p.kind != "human" else new_token() for p in game.players]
        token_hashes = tuple("" if token is None else hash_token(token) for token in tokens)
        game_id = secrets.token_urlsafe(GAME_ID_BYTES)
        tag = self._new_tag()
        await self.store.create(
            NewGame(
                id=game_id,
                version=game.version,
                state=self.engine.dumps(game),
                finished=game.finished,
                token_hashes=token_hashes,
                events=self._stored_events(game, events),
                ttl=self._ttl(game),
                tag=tag,
            )
        )
        self.cache.put(game_id, game, token_hashes, tag)
        self.metrics.games_created.inc()
        return CreatedGame(id=game_id, version=game.version, tokens=tokens)

    # -- reading -------------------------------------------------------------------
    async def caller(self, game_id: str, authorization: str | None) -> Caller:
        """Load the game and identify the caller (``unknown-game``, ``invalid-token``)."""
        token = bearer_token(authorization)
        stored = await self._load(game_id)
        return Caller(stored, None if token is None else seat_of(token, stored.token_hashes))

    def game(self, stored: StoredGame) -> Game:
        """The decoded game of ``stored``, shared with the cache: read it, never mutate it."""
        game = self.cache.get(stored.id, stored.version, stored.tag)
        if game is None:
            game = self.engine.loads(stored.state)
            self.cache.put(stored.id, game, stored.token_hashes, stored.tag)
        return game

    def view(self, caller: Caller) -> bytes:
        """The caller's view of the game, as JSON."""
        return _encode(self.engine.view(self.game(caller.stored), caller.seat))

    def legal_actions(self, caller: Caller) -> list[dict[str, Any]]:
        """Every legal action of the caller's seat, ready to be submitted unchanged."""
        if caller.seat is None:
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

    async def log(
        self, caller: Caller, after: int, limit: int, wait: float = 0.0, client: str = "unknown"
    ) -> LogPage:
        """Up to ``limit`` events after event ``after``, keeping those the caller may see.

        With ``wait`` > 0 and nothing to show yet, wait up to ``wait`` seconds for the next
        events the caller may see (a long poll), in one of ``client``'s event stream slots
        (a waiting read holds a store connection as a stream does); a finished game answers
        at once.
        """
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
        the version.
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
        if cached is not None and (if_match is None or _matches(if_match, cached.game.version, weak=False)):
            seat = self._seat(action, token, cached.token_hashes)
            # Taken out of the cache while it changes: other requests must not see an
            # uncommitted version.
            self.cache.take(game_id)
            try:
                attempt = await self._attempt(game_id, cached, seat, action, fingerprint, record_key)
            except errors.IllegalAction:
                self.cache.put(game_id, cached.game, cached.token_hashes, cached.tag)  # untouched
            else:
                if isinstance(attempt, ActResult):
                    return attempt
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
            game = self.cache.take(game_id, stored.version, stored.tag) or CachedGame(
                self.engine.loads(stored.state), stored.token_hashes, stored.tag
            )
            try:
                attempt = await self._attempt(game_id, game, seat, action, fingerprint, record_key)
            except errors.IllegalAction:
                self.cache.put(game_id, game.game, game.token_hashes, game.tag)  # untouched
                self.metrics.actions.inc("illegal")
                raise
            if isinstance(attempt, ActResult):
                return attempt
            stored = attempt
        raise Problem(
            "stale-version",
            "The game kept changing while this action was applied; retry.",
            headers={"ETag": entity_tag(stored.version)},
            extra={"version": stored.version},
        )

    async def _attempt(
        self,
        game_id: str,
        cached: CachedGame,
        seat: int,
        action: Action,
        fingerprint: str,
        record_key: str | None,
    ) -> ActResult | StoredGame:
        """Apply ``action`` to ``cached`` and commit it: the answer, or the current game if stale.

        Raises ``IllegalAction`` (game untouched) and ``PluginError`` (game spoilt, dropped).
        """
        game = cached.game
        expected = game.version
        events = self.engine.apply(game, action)
        view = _encode(self.engine.view(game, seat))
        tag = self._new_tag()
        if record_key is None:
            record = IdempotencyRecord(f"commit:{tag}", b"", COMMIT_RECORD_TTL)
        else:
            result = _IdempotentResult(fingerprint, game.version, msgspec.Raw(view))
            record = IdempotencyRecord(record_key, _encode(result), self.settings.idempotency_ttl)
        outcome = await self.store.commit(
            Commit(
                game_id=game_id,
                expected_version=expected,
                expected_tag=cached.tag,
                version=game.version,
                tag=tag,
                state=self.engine.dumps(game),
                finished=game.finished,
                # The client's label is not stored (replay needs only type, seat and option).
                action=self.engine.encode(Action(action.type, action.seat, action.option) if action.label else action),
                events=self._stored_events(game, events),
                ttl=self._ttl(game),
                idempotency=record,
            )
        )
        if outcome.outcome is Outcome.MISSING:
            raise self._unknown(game_id)
        if outcome.outcome is Outcome.STALE:
            self.metrics.conflicts.inc()
            if outcome.current is None:
                raise self._unknown(game_id)
            return outcome.current
        if outcome.outcome is Outcome.REPLAYED and record_key is not None:
            assert outcome.replay is not None
            return self._replay(outcome.replay, fingerprint)
        # Committed, or replayed without a client key: our own commit, whose reply was lost
        # and which the Redis client sent again.
        self.cache.put(game_id, game, cached.token_hashes, tag)
        self.metrics.actions.inc("applied")
        return ActResult(game.version, view, replayed=False)

    @staticmethod
    def _seat(action: Action, token: str, token_hashes: tuple[str, ...]) -> int:
        """The token's seat, which must be the action's (``invalid-token``, ``wrong-seat``)."""
        seat = seat_of(token, token_hashes)
        if action.seat != seat:
            raise Problem("wrong-seat", f"Your token is seat {seat}'s; the action is for seat {action.seat}.")
        return seat

    # -- helpers -------------------------------------------------------------------
    def _new_tag(self) -> str:
        return f"{self._commit_prefix}{next(self._commits)}"

    async def _load(self, game_id: str, idempotency_key: str | None = None) -> StoredGame:
        stored = await self.store.load(game_id, idempotency_key)
        if stored is None:
            raise self._unknown(game_id)
        return stored

    def _parse_action(self, body: bytes) -> Action:
        return self.engine.action_from_json(parse_json(body))

    def _replay(self, recorded: bytes, fingerprint: str) -> ActResult:
        result = msgspec.json.decode(recorded, type=_IdempotentResult)
        if result.fingerprint != fingerprint:
            raise Problem("idempotency-key-reused", "This Idempotency-Key was used for a different action.")
        self.metrics.actions.inc("replayed")
        return ActResult(result.version, bytes(result.view), replayed=True)

    @staticmethod
    def _record_key(seat: int, idempotency_key: str) -> str:
        # Keys are per seat (two players may pick the same key) and hashed (any text is safe).
        return f"{seat}:{hashlib.sha256(idempotency_key.encode()).hexdigest()}"

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

    def _ttl(self, game: Game) -> int:
        return self.settings.finished_game_ttl if game.finished else self.settings.active_game_ttl

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
