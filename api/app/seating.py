"""The seats: creating a game with its seats, the listing of games waiting for players,
joining (once, whatever the races and retries), leaving, handing an overdue seat to a bot and
taking it back. Each change of seats is a version of its own (:mod:`.seat_changes`)."""

from __future__ import annotations

import dataclasses
import datetime
import functools
import secrets
from typing import Any

import msgspec

from darkroad.api.app import lobby as lobbies
from darkroad.api.app.acting import record_key
from darkroad.api.app.auth import hash_token, new_token, seat_of
from darkroad.api.app.lobby import Lobby, LobbySeat
from darkroad.api.app.reading import Reading
from darkroad.api.app.repository import GameRepository
from darkroad.api.app.seat_changes import KeyUsed, SeatChange, SeatChanges
from darkroad.api.app.service_errors import ServiceError
from darkroad.api.app.values import Caller, CreatedGame, JoinedSeat, Seating, SeatSpec, WaitingPage
from darkroad.api.store.base import IdempotencyRecord, StoredGame
from darkroad.core import HUMAN, Game, GameConfig, game_setup

_encode = msgspec.json.encode

GAME_ID_LENGTH = 22
GAME_ID_PATTERN = r"^[A-Za-z0-9_-]{22}$"
"""Game ids are 16 random bytes in URL-safe base64 (no ``{}``: safe inside a Redis hash tag)."""
JOIN_IDEMPOTENCY_TTL = 600
"""Seconds a join's ``Idempotency-Key`` is remembered. Meanwhile a retry with the key and the
same name gets the seat again with a fresh token, so the key is a credential that long: kept
short (a retry after a lost answer comes within seconds or minutes)."""


class _JoinRecord(msgspec.Struct, frozen=True):
    """What a join's ``Idempotency-Key`` remembers: no secret (a seat's token is never stored,
    only its hash; a retry gets a fresh one)."""

    name: str
    version: int
    """The version the join wrote (``LobbySeat.joined`` while the seat is that join's)."""
    nonce: str
    """Unique per request: tells the request's own commit, resent by the store's client after a
    lost reply, from another request's with the same key."""


def join_key(seat: int, idempotency_key: str) -> str:
    """The store's name of a join's ``Idempotency-Key``: apart from the seat's actions' (the
    same text may name both)."""
    return f"join:{record_key(seat, idempotency_key)}"


class Seats:
    """Creates games with their seats, lists those waiting for players, and changes seats."""

    def __init__(self, games: GameRepository, reading: Reading, changes: SeatChanges) -> None:
        self.games = games
        self.engine = games.engine
        self.reading = reading
        self.changes = changes
        self._last_created = 0
        """The creation time of the last lobby this process made, in ms (see :meth:`_created`)."""

    async def create(self, config: GameConfig, seating: Seating | None = None) -> CreatedGame:
        """Create a game (``bad-config`` / ``unknown-component`` for an unplayable config); with
        ``seating``, its seats, whose bots must be installed ones (``unknown-bot``: core's check,
        :func:`darkroad.core.game_setup.bot_problems`, which ``POST /v1/games`` already asked with
        the rest of the setup; asked again here for the app's other callers).

        A game whose first decisions are its bots' has its first bot job enqueued with it: the
        bot workers play it after this returns, as after any action.
        """
        seating = seating or Seating()
        if seating.seats is not None:  # plain (kind, name, bot) tuples too
            seating = dataclasses.replace(seating, seats=[SeatSpec(*spec) for spec in seating.seats])
        named = [(spec.bot or "") if spec.kind == "bot" else None for spec in seating.seats or ()]
        if unknown := game_setup.bot_problems(self.engine, named, seating.timeout_bot):
            raise unknown[0].error()
        for spec in seating.seats or ():
            if spec.think_time is not None:
                self._check_think_time(spec.bot or "", spec.think_time)
        game, events = self.engine.create(config)
        lobby = self._new_lobby(game, seating)
        # Only a human seat gets a token; the others never match one (an empty hash matches none).
        tokens = [
            new_token() if (p.kind == HUMAN if lobby is None else lobby.seats[p.seat].kind == "human") else None
            for p in game.players
        ]
        if lobby is not None:
            lobby.track(self.engine.awaiting(game), None, lobby.created)
        stored = await self.games.create(game, events, tokens, lobby)
        game_id = stored.id
        if lobby is not None:
            await self.changes.index(game_id, lobby, stored.version)
        return CreatedGame(
            id=game_id,
            version=stored.version,
            tokens=tokens,
            seats=lobbies.seat_views(lobby, [p.kind for p in game.players], self.reading.seat_names),
            status=lobbies.status(lobby, stored.finished),
        )

    def _new_lobby(self, game: Game, seating: Seating) -> Lobby | None:
        """The lobby record of a new game: ``None`` for a game of creator-dealt seats without a
        turn timeout (its view is derived from the players)."""
        if seating.seats is None and seating.turn_timeout is None and seating.clock is None:
            return None
        specs = iter(seating.seats or [SeatSpec("human")] * len(game.players))
        seats = []
        for player in game.players:
            if player.kind != HUMAN:  # an automated seat (a seat kind's) plays itself
                seats.append(LobbySeat(player.kind, name=self.engine.seat_kinds[player.kind].name))
                continue
            kind, name, bot, think_time = next(specs)
            if kind == "bot":
                assert bot is not None
                # No name given: none stored; views name it after its bot, in the reader's language.
                seats.append(LobbySeat("bot", name=name, bot=bot, think_time=think_time))
            else:
                seats.append(LobbySeat(kind, name=name if kind == "human" else None))
        opened = any(seat.kind == "open" for seat in seats)
        return Lobby(
            seats=seats,
            created=self._created(),
            started=not opened,
            listed=opened and (seating.listed is None or seating.listed),
            turn_timeout=seating.turn_timeout,
            timeout_bot=seating.timeout_bot or lobbies.DEFAULT_TIMEOUT_BOT,
            config=lobbies.config_summary(game, self.engine.seat_kinds),
            clock=None if seating.clock is None else lobbies.Clock(*seating.clock),
        )

    def _created(self) -> float:
        """A new lobby's creation time: now, but at least a millisecond after the last lobby this
        process made. The index of waiting games orders its entries by creation time in ms
        (:meth:`Lobby.entry`), and games made in the same millisecond would be listed in the
        order of their ids rather than newest first (as games two processes make in the same
        millisecond still are)."""
        created = max(round(self.games.clock() * 1000), self._last_created + 1)
        self._last_created = created
        return created / 1000

    async def waiting(self, cursor: str | None, limit: int) -> WaitingPage:
        """A page of the listed games waiting for players, newest first, after ``cursor``.

        Entries of the index are checked against their games; those that no longer name a
        listed waiting game (started, expired, unlisted) are removed as they are met.
        """
        expired = f"{max(0, round((self.games.clock() - self.games.settings.waiting_game_ttl) * 1000)):013d}:"
        shown: list[tuple[str, dict[str, Any]]] = []  # (entry, listing)
        before = cursor
        for _ in range(8):  # each pass removes what it found stale: a few are always enough
            want = limit + 1 - len(shown)
            entries = await self.games.store.waiting_page(before, want, expired)
            if not entries:
                break
            ids = [entry.partition(":")[2] for entry in entries]
            stale = []
            for entry, game_id, raw in zip(entries, ids, await self.games.store.lobbies(ids), strict=True):
                lobby = lobbies.decode(raw)
                if lobby is not None and lobby.waiting and lobby.listed and lobby.entry(game_id) == entry:
                    shown.append((entry, lobbies.listing(game_id, lobby, self.reading.seat_names)))
                else:
                    stale.append(entry)
            if stale:
                await self.games.store.unlist_waiting(*stale)
            before = entries[-1]
            if len(shown) > limit or len(entries) < want:
                break
        else:
            # Still short after many stale entries: let the client go on from here.
            return WaitingPage([listing for _, listing in shown], before)
        more = len(shown) > limit
        shown = shown[:limit]
        return WaitingPage([listing for _, listing in shown], shown[-1][0] if more else None)

    async def join(self, game_id: str, seat: int, name: str, idempotency_key: str | None = None) -> JoinedSeat:
        """Take open seat ``seat`` under ``name``: its token, shown once. Exactly one of any
        number of racing joins of a seat gets it (``seat-taken`` for the others).

        With ``idempotency_key``, the join records (with the seat change, atomically) the key's
        hash, the name and the version written, for :data:`JOIN_IDEMPOTENCY_TTL`; a retry with
        the key while the record lives is a rejoin (:meth:`_rejoin`): the seat again, with a
        fresh token."""
        name = lobbies.clean_name(name)
        key = None if idempotency_key is None else join_key(seat, idempotency_key)
        stored = await self.games.load(game_id, key)
        change: SeatChange | None = None
        if stored.replay is None:

            def decide(stored: StoredGame, game: Game, lobby: Lobby | None, tokens: list[str]) -> SeatChange:
                self._check_seat(stored, seat)
                if stored.finished:
                    raise ServiceError("game-finished", "The game is over.")
                if lobby is None or lobby.seats[seat].kind != "open":
                    raise self._seat_taken(lobby, seat)
                token = new_token()
                tokens[seat] = hash_token(token)
                lobby.seats[seat] = LobbySeat("human", name=name)  # joined: the version the log gives (seat_change)
                events: list[tuple[str, int | None, dict[str, Any]]] = [("seat_joined", seat, {"name": name})]
                if not lobby.open_seats():
                    lobby.started = True
                    events.append(("seats_filled", None, {}))
                return SeatChange("joined", seat, events, token)

            record = None
            if key is not None:
                record = functools.partial(self._join_record, key, name, secrets.token_hex(8))
            try:
                stored, change = await self.changes.change(game_id, decide, stored, record)
            except KeyUsed:  # a retry raced this first request, and won
                stored = await self.games.load(game_id, key)
                if stored.replay is None:  # and its record expired already: hardly
                    raise ServiceError("stale-version", "The game kept changing; retry.", version=stored.version) from None
        if change is None:
            stored, change = await self._rejoin(game_id, seat, name, stored)
        assert change.token is not None
        self.games.metrics.seats.inc(change.kind)
        lobby = lobbies.decode(stored.lobby)
        assert lobby is not None
        await self.changes.index(game_id, lobby, stored.version)
        return JoinedSeat(seat, change.token, stored.version)

    async def _rejoin(self, game_id: str, seat: int, name: str, stored: StoredGame) -> tuple[StoredGame, SeatChange]:
        """A join retried with its ``Idempotency-Key`` (recorded in ``stored.replay``): with the
        same name, while the seat is still that join's, the seat's token is replaced by a fresh
        one (the lost answer's plays nothing any more) as a version of its own, with a
        ``seat_rejoined`` event, like every change of seats (so a game still replays from its
        action list). Only the token's hash is ever stored: the first answer's cannot be sent again.
        """
        assert stored.replay is not None
        recorded = msgspec.json.decode(stored.replay, type=_JoinRecord)
        if recorded.name != name:
            raise ServiceError("idempotency-key-reused", "This Idempotency-Key was used to join under another name.")

        def decide(current: StoredGame, game: Game, lobby: Lobby | None, tokens: list[str]) -> SeatChange:
            self._check_seat(current, seat)
            if current.finished:
                raise ServiceError("game-finished", "The game is over.")
            held = None if lobby is None else lobby.seats[seat]
            if held is not None and held.kind == "open":
                raise ServiceError(
                    "idempotency-key-reused",
                    "The join made with this Idempotency-Key was undone (seat %(seat)d was left): join again with a "
                    "new key.", seat=seat,
                )
            if held is None or held.kind != "human" or held.joined != recorded.version:
                raise self._seat_taken(lobby, seat)
            token = new_token()
            tokens[seat] = hash_token(token)
            return SeatChange("rejoined", seat, [("seat_rejoined", seat, {"name": name})], token, acted=False)

        stored, change = await self.changes.change(game_id, decide, stored)
        assert change is not None
        return stored, change

    @staticmethod
    def _join_record(key: str, name: str, nonce: str, game: Game) -> IdempotencyRecord:
        """The record of a join with an ``Idempotency-Key`` writing ``game``."""
        return IdempotencyRecord(key, _encode(_JoinRecord(name, game.version, nonce)), JOIN_IDEMPOTENCY_TTL)

    @staticmethod
    def _seat_taken(lobby: Lobby | None, seat: int) -> ServiceError:
        open_seats = [] if lobby is None else lobby.open_seats()
        if open_seats:
            return ServiceError("seat-taken", "Seat %(seat)d is not open; open seats: %(seats)s.", seat=seat,
                                seats=", ".join(map(str, open_seats)))
        return ServiceError("seat-taken", "Seat %(seat)d is not open; no seat is open.", seat=seat)

    async def leave(self, game_id: str, seat: int, token: str) -> None:
        """Leave ``seat`` (the caller's) while the game waits for players: it is open again."""

        def decide(stored: StoredGame, game: Game, lobby: Lobby | None, tokens: list[str]) -> SeatChange:
            self._check_seat(stored, seat)
            self._own_seat(token, stored, seat, "leave")
            if stored.finished:
                raise ServiceError("game-finished", "The game is over.")
            if lobby is None or lobby.started:
                raise ServiceError("game-started", "The game has started: its seats can no longer be left.")
            tokens[seat] = ""
            lobby.seats[seat] = LobbySeat("open")
            return SeatChange("left", seat, [("seat_left", seat, {})])

        stored, _ = await self.changes.change(game_id, decide)
        self.games.metrics.seats.inc("left")
        lobby = lobbies.decode(stored.lobby)
        assert lobby is not None
        await self.changes.index(game_id, lobby, stored.version)

    async def timeout(self, game_id: str, seat: int, token: str) -> Caller:
        """Hand ``seat``, awaited longer than the game's turn timeout, to the game's timeout bot
        (the caller must hold another seat); the caller, after the hand-over (the bot then plays
        in a bot worker)."""
        caller_seat = -1

        def decide(stored: StoredGame, game: Game, lobby: Lobby | None, tokens: list[str]) -> SeatChange:
            nonlocal caller_seat
            self._check_seat(stored, seat)
            caller_seat = seat_of(token, stored.token_hashes)
            if caller_seat == seat:
                raise ServiceError("wrong-seat", "A seat cannot be timed out by its own player.")
            if stored.finished:
                raise ServiceError("game-finished", "The game is over.")
            if lobby is not None and lobby.waiting:
                raise ServiceError("game-not-started", "The game waits for players: nobody is awaited yet.")
            if lobby is None or lobby.turn_timeout is None:
                raise ServiceError("not-overdue", "This game has no turn_timeout: no seat is ever overdue.")
            record = lobby.seats[seat]
            if record.kind != "human" or lobby.bot_of(seat) is not None:
                raise ServiceError("not-overdue", "Seat %(seat)d is played by a bot (or is an automated seat).", seat=seat)
            if seat not in self.engine.awaiting(game) or record.since is None:
                raise ServiceError("not-overdue", "The game does not wait for seat %(seat)d.", seat=seat)
            now = self.games.clock()
            if not lobby.overdue(seat, now):
                due = datetime.datetime.fromtimestamp(record.since + lobby.turn_timeout, datetime.UTC)
                raise ServiceError(
                    "not-overdue",
                    "Seat %(seat)d has been awaited for %(waited).0f s of the %(allowed)s s allowed: it is overdue "
                    "at %(due)s.",
                    seat=seat, waited=max(0.0, now - record.since), allowed=lobby.turn_timeout,
                    due=due.isoformat(timespec="seconds"),
                )
            return self.changes.hand_to_bot(lobby, seat)

        stored, _ = await self.changes.change(game_id, decide)
        return Caller(stored, caller_seat)

    async def reclaim(self, game_id: str, seat: int, token: str) -> Caller:
        """Take ``seat`` (the caller's) back from the bot that plays it since it timed out; a
        seat no bot plays is left as it is. The caller, after the reclaim."""

        def decide(stored: StoredGame, game: Game, lobby: Lobby | None, tokens: list[str]) -> SeatChange | None:
            self._check_seat(stored, seat)
            self._own_seat(token, stored, seat, "reclaim")
            if stored.finished:
                raise ServiceError("game-finished", "The game is over.")
            if lobby is None or not lobby.seats[seat].replaced:
                return None  # the player already plays it
            record = lobby.seats[seat]
            bot = record.bot
            clock = lobby.clock
            if clock is not None and clock.increment <= 0 and lobby.bank(seat) <= 0:
                # Awaited again, it would be handed straight back: its bank can never fill (issue 41).
                raise ServiceError("bank-empty", "Seat %(seat)d's time bank is empty, and this game's clock adds "
                                                 "nothing for a decision: the seat would be handed to the bot again "
                                                 "as soon as the game waits for it. The bot `%(bot)s` plays it to the end.",
                                   seat=seat, bot=bot)
            record.replaced, record.bot = False, None
            return SeatChange("reclaimed", seat, [("seat_reclaimed", seat, {"bot": bot})], acted=False)

        stored, change = await self.changes.change(game_id, decide)
        if change is not None:
            self.games.metrics.seats.inc("reclaimed")
        return Caller(stored, seat)

    def _check_seat(self, stored: StoredGame, seat: int) -> None:
        if not 0 <= seat < len(stored.token_hashes):
            raise ServiceError("unknown-seat", "The game has seats 0 to %(last)d.", last=len(stored.token_hashes) - 1)

    @staticmethod
    def _own_seat(token: str, stored: StoredGame, seat: int, what: str) -> None:
        mine = seat_of(token, stored.token_hashes)
        if mine != seat:
            # One whole sentence per verb: a translation words each its own way.
            message = ("Your token is seat %(mine)d's: you cannot leave seat %(seat)d." if what == "leave" else
                       "Your token is seat %(mine)d's: you cannot reclaim seat %(seat)d.")
            raise ServiceError("wrong-seat", message, mine=mine, seat=seat)

    def _check_think_time(self, bot: str, think_time: float) -> None:
        """A bot seat's ``think_time`` (a budget a bot without that option is always within):
        below the move timeout, or every move would be given up."""
        limit = self.games.settings.bot_move_timeout
        if think_time >= limit:
            raise ServiceError("bad-bot-option", "think_time %(think)g s is not below this server's bot move timeout "
                                                 "(%(limit)g s): the bot would be given up on every move.",
                               think=think_time, limit=limit)
