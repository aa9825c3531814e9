"""Acting: a seat's action applied and committed, once, whatever the retries and the races.

When this process has the game cached, the action is applied to it and committed at once:
one store round trip, the commit's compare-and-set telling whether the cache was current.
Otherwise, or when the cached game refuses the action (it may be behind), the game is read
from the store. A stale commit comes back with the current game, to which the action is
applied again, unless the request expected a version (``If-Match``). An ``Idempotency-Key``
records the answer with the commit, atomically, so that a retry gets the first answer and
never acts twice. A record is small (the version the action made, the seat, the request's
fingerprint): a retry's answer is rebuilt from the game's history at that version.
"""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass

import msgspec

from darkroad.api.app import lobby as lobbies
from darkroad.api.app.auth import hash_token, holds, invalid_token, seat_of, whose
from darkroad.api.app.cache import CachedGame
from darkroad.api.app.changes import Change, play
from darkroad.api.app.reading import Reading
from darkroad.api.app.repository import GameRepository
from darkroad.api.app.service_errors import Refusal, ServiceError, stale
from darkroad.api.app.timelines import History
from darkroad.api.app.values import ActResult, Expected, admits
from darkroad.api.store.base import IdempotencyRecord, Outcome, StoredGame, StoreUnavailable
from darkroad.core import Action, Game, errors, i18n
from darkroad.core.undo import UNDO

_encode = msgspec.json.encode


class _IdempotentResult(msgspec.Struct, frozen=True):
    """What an ``Idempotency-Key`` remembered before records were small: which action it was,
    and the whole answer (the seat's view, about 5 KB of JSON, zlib-compressed to a third).
    Still read while such records live out their ``DARKROAD_IDEMPOTENCY_TTL``."""

    fingerprint: str
    version: int
    view: msgspec.Raw


class _TimedRecord(msgspec.Struct, frozen=True):
    """A small record of a game with a turn timeout: also the seats' turn clocks at that
    version, which its answer shows (``timeout_at``) and nothing else keeps."""

    f: int
    """The fingerprint (:data:`FINGERPRINT_BITS` of the action's digest)."""
    v: int
    s: int
    t: list[float | None]
    """Each seat's ``LobbySeat.since``."""
    b: list[float | None] | None = None
    """In a game with a clock, each seat's ``LobbySeat.bank`` (its answer shows the banks)."""


@dataclass(slots=True)  # not frozen: see darkroad.api.store.base
class SmallRecord:
    """What an ``Idempotency-Key`` remembers: the version the action made, the seat, the
    request's fingerprint (and in a game with a turn timeout, the seats' clocks). The answer
    is rebuilt from the game's history at that version, byte for byte the first one."""

    fingerprint: int
    version: int
    seat: int
    since: list[float | None] | None = None
    banks: list[float | None] | None = None
    """In a game with a clock: each seat's bank at that version."""


FINGERPRINT_BITS = 40
"""Bits of the action's digest a record keeps: it only tells a retry from a key reused for
another action (a reuse passes for a retry once in 2**40)."""
_SEAT_BITS = 3
_MAX_VERSION = 1 << (63 - FINGERPRINT_BITS - _SEAT_BITS)
_TIMED = b"t"


def fingerprint_of(digest: str) -> int:
    """A record's fingerprint of an action's sha256 (hex)."""
    return int(digest[: FINGERPRINT_BITS // 4], 16)


def _pack_record(record: SmallRecord) -> bytes:
    # One decimal integer below 2**63: Redis keeps such a value inside the key's object (no
    # string of its own), about 150 bytes a record with its key and expiry.
    if record.since is None and record.version < _MAX_VERSION:
        packed = (record.version << (FINGERPRINT_BITS + _SEAT_BITS)) | (record.seat << FINGERPRINT_BITS)
        return b"%d" % (packed | record.fingerprint)
    return _TIMED + _encode(_TimedRecord(record.fingerprint, record.version, record.seat, record.since or [],
                                         record.banks))


def _unpack_record(recorded: bytes) -> SmallRecord | _IdempotentResult:
    """A record of any format written since records existed."""
    if recorded[:1].isdigit():
        packed = int(recorded)
        return SmallRecord(packed & ((1 << FINGERPRINT_BITS) - 1), packed >> (FINGERPRINT_BITS + _SEAT_BITS),
                           (packed >> FINGERPRINT_BITS) & ((1 << _SEAT_BITS) - 1))
    if recorded.startswith(_TIMED):
        timed = msgspec.json.decode(recorded[1:], type=_TimedRecord)
        return SmallRecord(timed.f, timed.v, timed.s, timed.t, timed.b)
    # Whole answers: plain JSON objects ("{") at first, then zlib streams (whose first byte is
    # 0x78 at every level).
    if not recorded.startswith(b"{"):
        recorded = zlib.decompress(recorded)
    return msgspec.json.decode(recorded, type=_IdempotentResult)


def record_key(seat: int, idempotency_key: str) -> str:
    """The store's name of a seat's ``Idempotency-Key``: per seat (two players may pick the
    same key) and hashed (any text is safe)."""
    return f"{seat}:{hashlib.sha256(idempotency_key.encode()).hexdigest()}"


@dataclass(slots=True)  # not frozen: see darkroad.api.store.base
class _Committed:
    """A commit written: the game as stored now, and the committer's view of it (JSON)."""

    stored: StoredGame
    view: bytes


@dataclass(slots=True)  # not frozen: see darkroad.api.store.base
class _Request:
    """An action to apply: who asks, what, for which versions, and its idempotency record's key."""

    game_id: str
    presented: str
    """The caller's token, hashed (:func:`~darkroad.api.app.auth.hash_token`): once, however many
    versions it is checked against."""
    action: Action
    expected: Expected | None
    fingerprint: str
    """The action's digest (only with an ``Idempotency-Key``: it tells a retry from a reuse)."""
    record_key: str | None
    minimal: bool = False
    """The caller wants no view in the answer (it follows the game's stream)."""


_Attempt = ActResult | _Committed | StoredGame
"""An attempt's outcome: a recorded answer, a commit, or the current game when stale."""


class Acting:
    """Applies and commits seats' actions (the bots answer in bot workers, after the answer)."""

    def __init__(self, games: GameRepository, reading: Reading, history: History | None = None) -> None:
        self.games = games
        self.engine = games.engine
        self.reading = reading
        self.history = history or History(games, reading)
        """Rebuilds the answers of retried requests (their records keep no view)."""

    async def act(
        self,
        game_id: str,
        token: str,
        action: Action,
        expected: Expected | None,
        idempotency_key: str | None,
        minimal: bool = False,
    ) -> ActResult:
        """Apply ``action`` for the seat of ``token``, on one of the ``expected`` versions (or
        the current one); with ``idempotency_key``, once whatever the retries. ``minimal``:
        the answer's view is left empty (not even worked out), for a caller that follows
        the game's stream.

        When a plugin fails to resolve it (``plugin-error``), the answer is withdrawn from
        the decision in the stored game (:meth:`_withdraw`), so that a seat whose only
        answer fails is not stuck for good.
        """
        if idempotency_key is None:
            fingerprint, key = "", None
        else:
            fingerprint, key = hashlib.sha256(_encode(action.key())).hexdigest(), record_key(action.seat, idempotency_key)
        request = _Request(game_id, hash_token(token), action, expected, fingerprint, key, minimal)
        try:
            return await self._act(request)
        except errors.PluginError as exc:
            withdrawn = await self._withdraw(game_id, action, exc)
            if withdrawn is None:
                raise
            raise errors.PluginError(f"{exc.reason}; this answer is withdrawn from the decision (the game is now at "
                                     f"version {withdrawn})", plugin=exc.plugin) from exc

    async def undo(
        self, game_id: str, token: str, expected: Expected | None, idempotency_key: str | None
    ) -> ActResult:
        """Take back the last action of the seat of ``token`` (``Engine.undo``, core/undo.py):
        a commit like an action (version + 1, recorded in the action list as an ``undo``), on
        one of the ``expected`` versions (or the current one), once per ``idempotency_key``.
        ``cannot-undo`` with the reason when the seat has nothing it may undo; a seat a bot
        plays is refused as its actions are (``seat-replaced``). The turn clock is left as it
        is: an undo is no action of the seat's."""
        cached = self.games.cache.peek(game_id)
        seat = None if cached is None else cached.seat_of_token(token)
        if seat is None:  # not cached, or a token newer than the cached game's: ask the store
            seat = seat_of(token, (await self.games.load(game_id)).token_hashes)
        return await self.act(game_id, token, Action(UNDO, seat, ""), expected, idempotency_key)

    async def _undone(self, game_id: str, cached: CachedGame, seat: int) -> Change:
        """The undo of ``seat``'s last undoable action of ``cached`` (not changed): the game
        before it, rebuilt by replaying the stored action list up to it, as a new game. The
        turn clock is left as it is: an undo is no action of the seat's."""
        game = cached.game
        reason = self.engine.undo_refusal(game, seat)
        if reason is not None:
            raise errors.CannotUndo(reason)
        records = [msgspec.json.decode(record) for record in await self.games.store.actions(game_id)]

        def earlier(version: int) -> Game:
            return lobbies.replay(self.engine, game.config, records[:version])

        undone, record, events = self.engine.undo(game, seat, earlier)
        return Change(undone, game.version, self.engine.encode(record), events)

    async def _act(self, request: _Request) -> ActResult:
        """:meth:`act`, apart from withdrawing an answer a plugin failed to resolve: on the
        cached game first, then on the stored one, again while the commits find it stale."""
        stored: StoredGame | None = None
        taken = self._take_cached(request)
        if taken is not None:  # the action on this process's cached game (awaited here: one frame less)
            cached, seat = taken
            try:
                attempt = await self._attempt(request, cached, seat)
            except (errors.IllegalAction, Refusal):
                self.games.put_back(request.game_id, cached)  # untouched; the store decides
            else:
                if not isinstance(attempt, StoredGame):
                    return self._answer(attempt, seat)
                stored = attempt  # the cache was behind: the current game
        if stored is None:
            stored = await self.games.load(request.game_id, request.record_key)
            self._seat(request, stored.token_hashes)
            if stored.replay is not None:
                assert request.record_key is not None
                result = await self._replay(request, stored.replay, stored)
                await self.games.store.confirm(request.game_id, request.record_key, self.games.settings.idempotency_ttl)
                return result
        for _ in range(self.games.settings.commit_attempts):
            if not admits(request.expected, stored.version):
                raise stale(stored.version)
            # Again on every version read: a rejoin replaces a seat's token, and the cached
            # version that accepted it may have been older than the rejoin.
            seat = self._seat(request, stored.token_hashes)
            entry = self.games.take(stored)
            try:
                attempt = await self._attempt(request, entry, seat)
            except (errors.IllegalAction, Refusal):
                self.games.put_back(request.game_id, entry)  # untouched
                self.games.metrics.actions.inc("illegal")
                raise
            if not isinstance(attempt, StoredGame):
                return self._answer(attempt, seat)
            stored = attempt
        raise stale(stored.version, "The game kept changing while this action was applied; retry.")

    def _take_cached(self, request: _Request) -> tuple[CachedGame, int] | None:
        """This process's cached game, taken out of the cache to act on, and the seat, if the
        cache has the game at an expected version (``None``: no use, read the store)."""
        cached = self.games.cache.peek(request.game_id)
        if cached is None or not admits(request.expected, cached.game.version):
            return None
        seat = request.action.seat
        if not holds(request.presented, cached.token_hashes, seat):  # not the action's seat's token: whose, then?
            found = whose(request.presented, cached.token_hashes)
            if found is None and cached.lobby is not None:
                return None  # a seat may have been joined since this process cached the game: ask the store
            seat = self._own(request, found)
        # Taken out of the cache while it changes: other requests must not see an uncommitted version.
        self.games.cache.take(request.game_id)
        return cached, seat

    @staticmethod
    def _answer(attempt: ActResult | _Committed, seat: int) -> ActResult:
        """The answer to a committed action: the state after it. A bot it leaves awaited plays
        in a bot worker, after the answer (clients follow the log or the stream for its move)."""
        if isinstance(attempt, ActResult):
            return attempt
        return ActResult(attempt.stored.version, attempt.view, replayed=False)

    async def _attempt(self, request: _Request, cached: CachedGame, seat: int) -> _Attempt:
        """Apply the action to ``cached`` and commit it.

        Raises ``IllegalAction`` (game untouched), a :class:`Refusal` (the game waits for
        players, a bot plays the seat: game untouched) and ``PluginError`` (game spoilt, dropped).
        """
        lobby, action = cached.lobby, request.action
        if lobby is not None:
            if lobby.waiting:
                open_seats = ", ".join(map(str, lobby.open_seats()))
                raise Refusal("game-not-started", "The game waits for players to join seats %(seats)s.", seats=open_seats)
            if lobby.bot_of(seat) is not None:
                raise Refusal(
                    "seat-replaced",
                    "The '%(bot)s' bot plays seat %(seat)d since it timed out; reclaim it "
                    "(POST .../seats/%(seat)d/reclaim) to act again.",
                    bot=lobby.bot_of(seat), seat=seat,
                )
        if action.type == UNDO:  # a new game object: the stored one rebuilt, cached left as it was
            change = await self._undone(request.game_id, cached, seat)
        else:
            change = play(self.engine, cached, action, self.games.clock())
        game = change.game
        # A minimal answer needs no view at all (a record keeps none: a retry rebuilds it).
        view = b"" if request.minimal else self.reading.view_of(game, seat, change.lobby or lobby)
        record = None
        if request.record_key is not None:
            since = None if change.lobby is None else [record.since for record in change.lobby.seats]
            banks = None if change.lobby is None or change.lobby.clock is None else [
                record.bank for record in change.lobby.seats]
            small = SmallRecord(fingerprint_of(request.fingerprint), game.version, seat, since, banks)
            record = IdempotencyRecord(request.record_key, _pack_record(small), self.games.settings.idempotency_ttl)
        outcome, stored = await self.games.commit(request.game_id, cached, change, record)
        if outcome.outcome is Outcome.STALE:
            return stored
        if outcome.outcome is Outcome.REPLAYED and request.record_key is not None:
            assert outcome.replay is not None
            return await self._replay(request, outcome.replay)
        # Committed, or replayed without a client key: our own commit, whose reply was lost
        # and which the Redis client sent again.
        self.games.metrics.actions.inc("applied")
        return _Committed(stored, view)

    async def _withdraw(self, game_id: str, action: Action, failure: errors.PluginError) -> int | None:
        """Withdraw ``action``, which a plugin failed to resolve, from the pending decision of
        the stored game (:meth:`Engine.withdraw`) and commit that as a version of its own;
        the new version, or ``None`` when there is nothing to withdraw any more (the game
        moved on meanwhile)."""
        games = self.games
        try:
            stored = await games.load(game_id)
            taken = games.decoded(stored)
            expected = taken.game.version
            record, events = self.engine.withdraw(taken.game, action, failure.reason, failure.plugin)
            outcome, _ = await games.commit(game_id, taken, Change(taken.game, expected, self.engine.encode(record), events))
        except (errors.DarkroadError, ServiceError, StoreUnavailable):
            return None  # the client still learns of the plugin's failure
        if outcome.outcome is not Outcome.COMMITTED:
            return None
        return taken.game.version

    async def _replay(self, request: _Request, recorded: bytes, stored: StoredGame | None = None) -> ActResult:
        """The first answer to a request with this record (``idempotency-key-reused`` when it was
        for another action), in the language of the retry: rebuilt from the game's history at the
        version the action made, or kept whole in an old record."""
        result = _unpack_record(recorded)
        if isinstance(result, _IdempotentResult):
            if result.fingerprint != request.fingerprint:
                raise ServiceError("idempotency-key-reused", "This Idempotency-Key was used for a different action.")
            view = bytes(result.view)
            if i18n.current_locale() != i18n.DEFAULT_LOCALE:
                stored = stored or await self.games.load(request.game_id)
                view = await self._translated(stored, view, result.version, request.action.seat)
        else:
            if result.fingerprint != fingerprint_of(request.fingerprint):
                raise ServiceError("idempotency-key-reused", "This Idempotency-Key was used for a different action.")
            stored = stored or await self.games.load(request.game_id)
            view = await self.history.answer(stored, result.version, result.seat, result.since, result.banks)
        self.games.metrics.actions.inc("replayed")
        return ActResult(result.version, view, replayed=True)

    async def _translated(self, stored: StoredGame, answer: bytes, version: int, seat: int) -> bytes:
        """An answer an old record kept whole, in the language of the call: records of that format
        were written before darkroad spoke any language but English, so in another language the
        answer is the seat's view at ``version`` made again from the game's history, with the seats
        of the kept answer (their turn clocks, which the history does not keep)."""
        kept = msgspec.json.decode(answer)
        view = msgspec.json.decode(await self.history.answer(stored, version, seat, None))
        if isinstance(kept, dict) and "seats" in kept:
            view["seats"] = kept["seats"]
        return _encode(view)

    @staticmethod
    def _seat(request: _Request, token_hashes: tuple[str, ...]) -> int:
        """The token's seat, which must be the action's (``invalid-token``, ``wrong-seat``)."""
        if holds(request.presented, token_hashes, request.action.seat):
            return request.action.seat
        return Acting._own(request, whose(request.presented, token_hashes))

    @staticmethod
    def _own(request: _Request, seat: int | None) -> int:
        """``seat``, the token's (``None``: no seat's, ``invalid-token``), which must be the
        action's (``wrong-seat``)."""
        if seat is None:
            raise invalid_token()
        if request.action.seat != seat:
            raise ServiceError("wrong-seat", "Your token is seat %(mine)d's; the action is for seat %(seat)d.",
                               mine=seat, seat=request.action.seat)
        return seat
