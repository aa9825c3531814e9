"""Where games live between requests: the store contract.

A store keeps, per game: the current ``version`` and state blob, the sha256 hashes of
the seat tokens, the list of applied actions (for replay), the event log, and
short-lived idempotency records. It knows nothing about the rules: the service hands it
bytes. Its one promise is :meth:`GameStore.commit`, an atomic compare-and-set on the
version (and its tag) that appends the action and events and records the idempotency
result in the same step, so any number of API processes can serve one game without a
lost update.

A version's *tag* names the commit that wrote it. Versions alone would do if a
store never lost an acknowledged write, but a Redis failover with asynchronous
replication can: the game falls back to version ``n - 1`` and a different action makes a
different version ``n``. Comparing the tag as well keeps a process that cached the lost
version ``n`` from taking it for the new one.

:class:`MemoryStore <darkroad.api.store.memory.MemoryStore>` is the embedded default (one process); :class:`RedisStore
<darkroad.api.store.redis_store.RedisStore>` is the shared one. Both pass the same contract
tests (``tests/api/store/test_api_store.py``).

The values made for every action (:class:`Commit`, :class:`StoredGame`, :class:`StoredEvent`,
:class:`IdempotencyRecord`, :class:`CommitResult`, and the services' own) are plain slotted
dataclasses, never changed once made: ``frozen=True`` would cost an ``object.__setattr__``
call per field in every ``__init__``, and several are made for every action.
"""

from __future__ import annotations

import abc
import enum
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Self

from darkroad.api.store.webhook_queue import HookNotice, HookStore


class StoreUnavailable(Exception):
    """The store cannot be reached right now (the API answers ``503``)."""


class StoreConfigError(Exception):
    """The store reached is not the deployment the settings describe (checked at start-up)."""


class ReplicationTimeout(Exception):
    """The write landed on the primary, but fewer replicas than required confirmed it in time
    (the API answers ``503 replication-timeout``; a retry with the same ``Idempotency-Key``
    answers once the write is confirmed, or applies the action again if it was lost)."""


class GameExists(Exception):
    """A game with this id already exists (ids are random; this means a bug or an attack)."""


@dataclass(slots=True)  # not frozen: see darkroad.api.store.base
class StoredEvent:
    """One event of a game's log, with the seats allowed to see it."""

    n: int
    """Position in the game's event log (0, 1, 2, ...)."""
    audience: frozenset[int] | None
    """Seats that may see the event; ``None`` means everyone, spectators included."""
    payload: bytes
    """The event as JSON."""

    def visible_to(self, seat: int | None) -> bool:
        """Whether a caller at ``seat`` (``None`` = spectator) may see this event."""
        return self.audience is None or (seat is not None and seat in self.audience)


@dataclass(slots=True)  # not frozen: see darkroad.api.store.base
class StoredGame:
    """A game as loaded from the store."""

    id: str
    version: int
    state: bytes
    """The engine's serialised game (``Engine.dumps``)."""
    finished: bool
    token_hashes: tuple[str, ...]
    """sha256 hex digest of each seat's token, by seat."""
    tag: str
    """Names the commit that wrote this version (see the module's docstring)."""
    replay: bytes | None = None
    """The recorded first result for the idempotency key asked for in :meth:`GameStore.load`."""
    lobby: bytes | None = None
    """The game's seats as the lobby keeps them (``darkroad.api.app.lobby.Lobby`` as JSON); ``None``
    for a game created without ``seats`` or ``turn_timeout``."""
    job: str | None = None
    """The bot job a worker plays this game's bot moves under (:attr:`Commit.keep_job`): the
    :attr:`BotJob.ref` of a job the version's commit kept instead of enqueuing a new one;
    ``None`` after any other commit."""


@dataclass(frozen=True, slots=True)
class NewGame:
    """A game to create: its first version, its tokens' hashes and its setup events."""

    id: str
    version: int
    state: bytes
    finished: bool
    token_hashes: tuple[str, ...]
    events: Sequence[StoredEvent]
    ttl: int
    """Seconds until the game expires unless touched again."""
    tag: str
    """Names this first version."""
    lobby: bytes | None = None
    """The lobby's record of the seats (see :attr:`StoredGame.lobby`)."""
    bot_job: str | None = None
    """The bot awaited in this first version, if any: a :class:`BotJob` is enqueued with it."""
    deadline: float | None = None
    """The earliest turn deadline of the seats awaited in this version (Unix seconds), if any:
    the game's clock (see :meth:`GameStore.due_clocks`)."""
    actions: Sequence[bytes] = ()
    """The action list it starts with (a game imported from a record: the actions replayed)."""


@dataclass(frozen=True, slots=True)
class BotJob:
    """A decision awaited from a bot: a game at a version, as the queue of jobs hands it out.

    A commit that leaves a bot awaited enqueues one atomically with the write (``commit.lua``,
    ``create.lua``), so a crash cannot strand a game between the two. A worker takes it
    (:meth:`GameStore.take_jobs`), plays the move with a compare-and-set commit like any
    client, then acknowledges it (:meth:`GameStore.ack_job`); a job not acknowledged within
    the claim timeout goes to another worker. A job whose version is no longer the game's
    is stale and dropped: the commit that moved the game enqueued its own job if needed,
    unless that commit kept this very job (:attr:`Commit.keep_job`: :attr:`StoredGame.job`
    names it), for the worker to play the next bot move under it.
    """

    game_id: str
    version: int
    bot: str
    """The bot awaited when the job was enqueued (for the per-bot metrics)."""
    enqueued: float
    """Unix seconds."""
    shard: str
    """The queue's shard holding the job (see :meth:`GameStore.job_shards`)."""
    ref: str
    """The job's id in its shard (acknowledging it names it)."""
    deliveries: int = 1
    """1 when first handed out, 2 when handed out again (a worker died or was slow), however many
    times: Redis's ``XAUTOCLAIM`` does not say how many, and both stores answer alike."""
    consumer: str = ""
    """The worker it was handed out to (a commit keeping it hands it to that worker again, its
    claim timeout restarting: see :attr:`Commit.keep_job`)."""


@dataclass(slots=True)  # not frozen: see darkroad.api.store.base
class IdempotencyRecord:
    """Remembers that one request was committed, and the result to answer its retries with."""

    key: str
    """Unique within the game (the service namespaces client keys by seat)."""
    result: bytes
    ttl: int
    """Seconds to remember it."""


@dataclass(slots=True)  # not frozen: see darkroad.api.store.base
class Commit:
    """One applied action, to be written if and only if the game is still at ``expected_version``
    with ``expected_tag``."""

    game_id: str
    expected_version: int
    expected_tag: str
    version: int
    tag: str
    """Names the version written (unique: a new one for every commit)."""
    state: bytes
    finished: bool
    action: bytes
    """The applied action as JSON, appended to the game's action list."""
    events: Sequence[StoredEvent]
    ttl: int
    """Seconds until the game expires unless touched again."""
    idempotency: IdempotencyRecord
    """Recorded atomically with the write; a commit whose record already exists is not
    written again (this makes retries of the commit itself safe, too)."""
    token_hashes: tuple[str, ...] | None = None
    """The seats' token hashes from this version on (a player joined or left); ``None``: unchanged."""
    lobby: bytes | None = None
    """The lobby's record of the seats from this version on; ``None``: unchanged."""
    bot_job: str | None = None
    """The bot awaited in the new version, if any: a :class:`BotJob` for the game at ``version``
    is enqueued in the same atomic step."""
    deadline: float | None = None
    """The earliest turn deadline of the seats awaited in the new version (Unix seconds), set
    as the game's clock in the same atomic step; ``None``: the game has no clock running."""
    job: BotJob | None = None
    """The bot job this commit plays (a bot worker's move): acknowledged in the same atomic
    step (with Redis, when the job's stream shares the game's slot; else right after), unless
    :attr:`keep_job`."""
    keep_job: bool = False
    """With :attr:`job` and :attr:`bot_job`: the worker plays the next bot move too, under the
    same job. No job is enqueued and :attr:`job` stays unacknowledged, handed to its worker
    again (its claim timeout restarts with each move); if the worker dies, it is claimed by
    another, which finds it current by :attr:`StoredGame.job`. Any commit without it ends
    that: :attr:`StoredGame.job` is cleared. A store that cannot keep the job in the same
    atomic step (a Cluster game whose slot has no shard of jobs) does not: see
    :attr:`CommitResult.kept`."""
    hooks: HookNotice | None = None
    """What the new version means to the seats' webhooks: their messages are enqueued in the
    same atomic step, for the seats subscribed (``darkroad.api.store.webhook_queue``)."""
    notice: Callable[[], HookNotice] | None = None
    """Makes :attr:`hooks` when it is ``None``: the store calls it (and sends the commit again
    with it) only when the game has seats subscribed, so that a game without webhooks pays
    nothing for them."""


class Outcome(enum.Enum):
    """How a :class:`Commit` ended."""

    COMMITTED = "committed"
    STALE = "stale"
    """The game is no longer at the expected version; nothing was written."""
    REPLAYED = "replayed"
    """The idempotency record already existed; nothing was written."""
    MISSING = "missing"
    """The game does not exist (or expired); nothing was written."""


@dataclass(slots=True)  # not frozen: see darkroad.api.store.base
class CommitResult:
    """The answer to :meth:`GameStore.commit`."""

    outcome: Outcome
    current: StoredGame | None = None
    """The game as it is now, when ``STALE`` (so the caller can retry without loading it)."""
    replay: bytes | None = None
    """The recorded result when ``REPLAYED``."""
    kept: bool = False
    """``COMMITTED`` with :attr:`Commit.keep_job`, and the job was kept (else it was
    acknowledged, and the new version's job enqueued)."""
    hooked: bool = False
    """``COMMITTED``, and the game has seats subscribed to webhooks."""


class GameStore(HookStore, abc.ABC):
    """The storage contract the API is written against. Use as ``async with store: ...``."""

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def open(self) -> None:  # noqa: B027 - optional hook, not every store needs it
        """Acquire connections; called once before the first request."""

    async def close(self) -> None:  # noqa: B027 - optional hook, not every store needs it
        """Release connections; called once after the last request."""

    @abc.abstractmethod
    async def ping(self) -> None:
        """Return when the store answers; raise :class:`StoreUnavailable` otherwise."""

    @abc.abstractmethod
    async def create(self, game: NewGame) -> None:
        """Store a new game with its setup events; :class:`GameExists` if the id is taken by another
        game. The same create made again (its first version's ``tag``: a create whose reply was lost
        is sent again) is its own: nothing changes, and no error."""

    @abc.abstractmethod
    async def load(self, game_id: str, idempotency_key: str | None = None) -> StoredGame | None:
        """The game's current version, state, status and token hashes, or ``None`` if there is no such
        game. With ``idempotency_key``, :attr:`StoredGame.replay` carries that record's result
        if one exists (read in the same round trip)."""

    @abc.abstractmethod
    async def commit(self, commit: Commit) -> CommitResult:
        """Atomically: unless the idempotency record exists (``REPLAYED``, its expiry refreshed)
        or the version or its tag moved (``STALE``, with the game as it is now), write the new
        version, tag and state, append the action and events, record the idempotency result
        and refresh the game's expiry (``COMMITTED``). :class:`ReplicationTimeout` when it
        was written (or replayed) but not confirmed by the replicas the store must wait for."""

    async def confirm(self, game_id: str, idempotency_key: str, ttl: int) -> None:  # noqa: B027
        """Before an idempotency record read by :meth:`load` is answered again: make sure it
        is as durable as a new commit would be (:class:`ReplicationTimeout` if not), keeping
        it ``ttl`` seconds more. Nothing to do unless the store waits for replicas."""

    @abc.abstractmethod
    async def events(self, game_id: str, after: int, limit: int) -> list[StoredEvent]:
        """Up to ``limit`` events with ``n > after``, in order (all audiences)."""

    @abc.abstractmethod
    async def wait_events(self, game_id: str, after: int, limit: int, timeout: float) -> list[StoredEvent]:
        """Like :meth:`events`, but when there is none yet, wait up to ``timeout`` seconds for
        one to be committed (empty list on timeout)."""

    @abc.abstractmethod
    async def count(self, key: str, amount: int, ttl: float) -> int:
        """Add ``amount`` (0: just read) to counter ``key``, shared by every process using this
        store, and return its total; the counter expires ``ttl`` seconds after the last
        addition. Rate limits count with it (``key`` carries its own Redis hash tag)."""

    @abc.abstractmethod
    async def actions(self, game_id: str) -> list[bytes]:
        """Every applied action of the game, in order (for replay and audits)."""

    # -- the index of listed waiting games ---------------------------------------------
    # One ordered set of entries ``<created, ms, 13 digits>:<game id>``, newest last. It is
    # kept beside the games, not with them (in Redis Cluster a script touches one slot
    # only): each change is idempotent and made after the game's own atomic step, and
    # readers check every entry against its game (:meth:`lobbies`) and remove those that
    # no longer name a listed waiting game. See ``darkroad.api.app.lobby``.

    @abc.abstractmethod
    async def list_waiting(self, entry: str) -> None:
        """Add ``entry`` to the index (no-op if present)."""

    @abc.abstractmethod
    async def unlist_waiting(self, *entries: str) -> None:
        """Remove ``entries`` from the index (no-op for those absent)."""

    @abc.abstractmethod
    async def waiting_page(self, before: str | None, count: int, expired_before: str) -> list[str]:
        """Up to ``count`` entries, newest first, older than ``before`` (``None``: from the
        newest); entries older than ``expired_before`` are removed first (their games have
        expired)."""

    # -- bot jobs and turn clocks ---------------------------------------------------------
    # Written by ``create`` and ``commit`` with the game (``bot_job``, ``deadline``), read by
    # the bot workers (``darkroad.api.app.bot_worker``). Split in shards (one in a single
    # Redis or in memory; several in a Cluster, each in one slot with the games it serves).

    def new_game_id(self) -> str:
        """A fresh random game id (a Cluster store picks one whose slot has a shard of jobs)."""
        return secrets.token_urlsafe(16)

    @abc.abstractmethod
    def job_shards(self) -> list[str]:
        """The shards of the queue of bot jobs and of the turn clocks."""

    @abc.abstractmethod
    async def take_jobs(
        self, shard: str, consumer: str, count: int, block: float, claim_after: float
    ) -> list[BotJob]:
        """Up to ``count`` jobs of ``shard`` for worker ``consumer``: first those handed out
        more than ``claim_after`` seconds ago and never acknowledged (their worker died),
        then new ones, waiting up to ``block`` seconds for one (empty list on timeout)."""

    @abc.abstractmethod
    async def ack_job(self, job: BotJob) -> None:
        """The job is done (played, or stale): it is never handed out again."""

    @abc.abstractmethod
    async def waiting_jobs(self, shard: str, limit: int) -> list[BotJob]:
        """Up to ``limit`` jobs of ``shard`` not handed out yet, oldest first (for metrics)."""

    @abc.abstractmethod
    async def due_clocks(self, shard: str, now: float, limit: int) -> list[tuple[str, float]]:
        """Up to ``limit`` games of ``shard`` whose clock (turn deadline) is at or before ``now``:
        (game id, deadline), earliest first."""

    @abc.abstractmethod
    async def stop_clock(self, shard: str, game_id: str, deadline: float) -> None:
        """Remove the game's clock if it is still ``deadline`` (a game gone or finished)."""

    @abc.abstractmethod
    async def lobbies(self, game_ids: Sequence[str]) -> list[bytes | None]:
        """The lobby record of each game (``None``: no such game, or no lobby)."""
