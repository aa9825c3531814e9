"""The games of the services: load, take, commit, over one :class:`GameStore`.

The store is the only truth: reads load the game, and every change is written back with
:meth:`GameStore.commit`, a compare-and-set on the version and its tag, so any number of
processes can serve one game. Decoded games are kept in this process's :class:`GameCache`
at the last version it saw; a game taken to be changed leaves the cache until its commit, so
no other request sees an uncommitted version.
"""

from __future__ import annotations

import functools
import itertools
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from darkroad.api.app import lobby as lobbies
from darkroad.api.app.auth import hash_token
from darkroad.api.app.cache import CachedGame, GameCache
from darkroad.api.app.changes import Change
from darkroad.api.app.lobby import Lobby
from darkroad.api.app.plugin_events import event_payload, known_event_types
from darkroad.api.app.service_errors import unknown_game
from darkroad.api.app.webhook_messages import notice
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.base import (
    BotJob,
    Commit,
    CommitResult,
    GameStore,
    IdempotencyRecord,
    NewGame,
    Outcome,
    StoredEvent,
    StoredGame,
)
from darkroad.core import Engine, Event, Game
from darkroad.core.actionlog import stamp

GAME_ID_BYTES = 16
"""Game ids are 16 random bytes in URL-safe base64 (22 characters)."""
COMMIT_RECORD_TTL = 300
"""Seconds the store remembers a commit made without ``Idempotency-Key`` (retry safety only)."""


@dataclass(slots=True)  # not frozen: see darkroad.api.store.base
class NewVersion:
    """What every version of a game the store keeps carries besides the game's flags, whether it
    is created (:meth:`GameRepository.create`) or committed (:meth:`GameRepository.commit_of`):
    made by :meth:`GameRepository.new_version`, so that both write the same."""

    tag: str
    """Names the version (see ``StoredGame.tag``)."""
    state: bytes
    """The game packed (``Engine.pack``)."""
    events: list[StoredEvent]
    """Its new events with their audiences."""
    ttl: int
    bot_job: str | None
    """The bot the version awaits (a job is enqueued with it)."""
    deadline: float | None
    """The turn clock's deadline the version leaves."""


class GameRepository:
    """Load, take and commit the games of ``store``, decoded by ``engine`` and cached."""

    def __init__(
        self,
        engine: Engine,
        store: GameStore,
        settings: Settings,
        metrics: Metrics,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.engine = engine
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.clock = clock
        """Wall-clock time (Unix seconds): creation times and turn timeouts, shared by processes."""
        self.cache = GameCache(settings.game_cache_size, metrics)
        # Tags of the versions this process writes, also naming the records of commits made
        # without Idempotency-Key: unique across processes (a random prefix per process) and
        # within one (a counter).
        self._tag_prefix = f"{secrets.token_hex(8)}."
        self._tags = itertools.count()
        self._known_events = known_event_types(engine)
        lobbies.register(engine)  # changes of seats are records of the game's log
        """The event types ``engine`` documents (:func:`known_event_types`), for every commit."""

    def new_tag(self) -> str:
        """A tag naming a version this process is about to write."""
        return f"{self._tag_prefix}{next(self._tags)}"

    async def load(self, game_id: str, idempotency_key: str | None = None) -> StoredGame:
        """The stored game (``unknown-game`` when there is none), with the record of
        ``idempotency_key`` if the store has one."""
        stored = await self.store.load(game_id, idempotency_key)
        if stored is None:
            raise unknown_game(game_id)
        return stored

    def game(self, stored: StoredGame) -> Game:
        """The decoded game of ``stored``, shared with the cache: read it, never mutate it."""
        game = self.cache.get(stored.id, stored.version, stored.tag)
        if game is None:
            game = self.engine.loads(stored.state)
            self.cache.put(stored.id, CachedGame(game, stored.token_hashes, stored.tag, lobbies.decode(stored.lobby)))
        return game

    def take(self, stored: StoredGame) -> CachedGame:
        """The game of ``stored`` to change: the cached one if current (taken out of the cache
        while it changes), else decoded."""
        return self.cache.take(stored.id, stored.version, stored.tag) or self.decoded(stored)

    def decoded(self, stored: StoredGame) -> CachedGame:
        """A fresh copy of the game of ``stored``, the cache untouched."""
        return CachedGame(self.engine.loads(stored.state), stored.token_hashes, stored.tag, lobbies.decode(stored.lobby))

    async def create(self, game: Game, events: Sequence[Event], tokens: Sequence[str | None], lobby: Lobby | None,
                     actions: Sequence[bytes] = ()) -> StoredGame:
        """Store ``game`` as a new game (a fresh id) with its ``events``, the hashes of its seats'
        ``tokens`` (``None``: a seat no token plays), its ``lobby`` and the action list it starts
        with; the game as stored, also put in the cache.

        ``actions`` (a game imported from a record: the entries replayed) are stored as given,
        not stamped like a commit's entry: an entry's ``time`` is when it was committed, which
        only the record knows. A record's action without one is ``null`` ("unknown") in the
        record exported again, and changes no time bank in a clock game's history
        (``clock_history``); the time of the import would be neither."""
        token_hashes = tuple("" if token is None else hash_token(token) for token in tokens)
        game_id = self.store.new_game_id()
        made = self.new_version(game, events, lobby)
        raw_lobby = None if lobby is None else lobbies.encode(lobby)
        await self.store.create(
            NewGame(
                id=game_id,
                version=game.version,
                state=made.state,
                finished=game.finished,
                token_hashes=token_hashes,
                events=made.events,
                ttl=made.ttl,
                tag=made.tag,
                lobby=raw_lobby,
                bot_job=made.bot_job,
                deadline=made.deadline,
                actions=actions,
            )
        )
        self.cache.put(game_id, CachedGame(game, token_hashes, made.tag, lobby))
        self.metrics.games_created.inc()
        return StoredGame(game_id, game.version, made.state, game.finished, token_hashes, made.tag, lobby=raw_lobby)

    def put_back(self, game_id: str, entry: CachedGame) -> None:
        """Put back a game taken and left unchanged."""
        self.cache.put(game_id, entry)

    async def commit(
        self,
        game_id: str,
        base: CachedGame,
        change: Change,
        record: IdempotencyRecord | None = None,
        *,
        job: BotJob | None = None,
        keep_job: bool = False,
    ) -> tuple[CommitResult, StoredGame]:
        """Write ``change``, made on ``base`` (the game as taken, at version ``change.expected``):
        the outcome, and the game as stored now (the new version, or the current one when
        stale). The one way every kind of change is committed (:mod:`~darkroad.api.app.changes`).
        The new version goes into the cache.

        ``record``: the client's ``Idempotency-Key`` record, if any (else one named by the new
        version's tag, so that a commit the Redis client sends again is known as its own).
        ``job``: the bot job this commit plays (a bot worker's move), acknowledged with it
        unless ``keep_job`` and the new version awaits a bot this process has
        (:attr:`Commit.keep_job`: the worker plays that move too)."""
        own = record is None
        made = self.commit_of(game_id, base, change, record, job=job, keep_job=keep_job)
        outcome = await self.store.commit(made)
        if outcome.outcome is Outcome.MISSING:
            raise unknown_game(game_id)
        if outcome.outcome is Outcome.STALE:
            self.metrics.conflicts.inc()
            if outcome.current is None:
                raise unknown_game(game_id)
            return outcome, outcome.current
        game, tag = change.game, made.tag
        hashes = base.token_hashes if change.token_hashes is None else change.token_hashes
        new_lobby = base.lobby if change.lobby is None else change.lobby
        if outcome.outcome is Outcome.COMMITTED or own:
            self.cache.put(game_id, CachedGame(game, hashes, tag, new_lobby, hooked=outcome.hooked))
        raw_lobby = made.lobby if made.lobby is not None or new_lobby is None else lobbies.encode(new_lobby)
        kept = job.ref if outcome.kept and job is not None else None
        return outcome, StoredGame(game_id, game.version, made.state, game.finished, hashes, tag, lobby=raw_lobby,
                                   job=kept)

    def commit_of(
        self,
        game_id: str,
        base: CachedGame,
        change: Change,
        record: IdempotencyRecord | None = None,
        *,
        job: BotJob | None = None,
        keep_job: bool = False,
    ) -> Commit:
        """The store's :class:`Commit` of ``change`` (made on ``base``): the one function that
        decides what a commit carries for every kind of change (arguments as :meth:`commit`):
        the state packed, the action list's entry stamped with its time, the events with their
        audiences, the bot job and turn deadline the new version leaves, its expiry, the
        idempotency record (named by the new version's tag when the client sent none) and the
        webhooks' notice."""
        game, lobby = change.game, change.lobby
        new_lobby = base.lobby if lobby is None else lobby
        made = self.new_version(game, change.events, new_lobby)
        if record is None:  # named by the new tag: only this commit can have written it
            record = IdempotencyRecord(f"commit:{made.tag}", b"", COMMIT_RECORD_TTL)
        keep_job = keep_job and job is not None and made.bot_job is not None and made.bot_job in self.engine.bots
        now = self.clock() if change.at is None else change.at
        return Commit(
            game_id=game_id,
            expected_version=change.expected,
            expected_tag=base.tag,
            version=game.version,
            tag=made.tag,
            state=made.state,
            finished=game.finished,
            action=stamp(change.entry, now),  # the time: for the game's record (see create)
            events=made.events,
            ttl=made.ttl,
            idempotency=record,
            token_hashes=change.token_hashes,
            lobby=None if lobby is None else lobbies.encode(lobby),
            bot_job=made.bot_job,
            deadline=made.deadline,
            job=job,
            keep_job=keep_job,
            # A game's messages' notice, made when the game has seats subscribed to webhooks
            # (as its last commit here found, or as the store finds: it asks for it then).
            hooks=notice(self.engine, game, new_lobby, now, change.events) if base.hooked else None,
            notice=functools.partial(notice, self.engine, game, new_lobby, now, change.events),
        )

    def new_version(self, game: Game, events: Sequence[Event], lobby: Lobby | None) -> NewVersion:
        """What the store keeps with ``game`` (its ``events`` new, its seats as ``lobby`` has
        them) as a new version, created or committed: a fresh tag, the state packed, the events
        with their audiences, its expiry, the bot job and the turn deadline it leaves."""
        bot_job, deadline = self.awaited(game, lobby)
        return NewVersion(self.new_tag(), self.engine.pack(game), self.stored_events(game, events), self.ttl(game, lobby),
                       bot_job, deadline)

    def awaited(self, game: Game, lobby: Lobby | None) -> tuple[str | None, float | None]:
        """What a version of ``game`` leaves to the bot workers: the bot awaited (a job is
        enqueued with the version) and the turn clock's deadline."""
        if lobby is None or game.finished:
            return None, None
        return lobby.awaited_bot(self.engine.awaiting(game)), lobby.deadline()

    def stored_events(self, game: Game, events: Sequence[Event]) -> list[StoredEvent]:
        """``events`` as the store keeps them: encoded, each with its audience."""
        players = game.config.players
        engine, known = self.engine, self._known_events
        stored = []
        for event in events:
            # The seats Engine.visible shows it to: every seat (None), or the one it is private to.
            private_to = event.private_to
            audience = None if private_to is None else frozenset((private_to,) if 0 <= private_to < players else ())
            stored.append(StoredEvent(event.n, audience, event_payload(engine, event, known)))
        return stored

    def ttl(self, game: Game, lobby: Lobby | None = None) -> int:
        """Seconds the store keeps ``game`` from now."""
        if game.finished:
            return self.settings.finished_game_ttl
        if lobby is not None and lobby.waiting:
            # A game waiting for players expires waiting_game_ttl after its creation: joins do
            # not extend it, so the index can drop entries older than that unread.
            return max(1, round(lobby.created + self.settings.waiting_game_ttl - self.clock()))
        return self.settings.active_game_ttl
