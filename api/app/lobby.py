"""The lobby: seats chosen at creation, games waiting for players, joining and leaving,
seats played by bots, and seats handed to a bot when their player walks away.

Who sits in a seat is the API's business, not the rules': the rules core knows players
(``human``, or a seat kind's automated seat), this module knows that seat 2 is open, that a stranger
called "Ann" joined seat 1, that the ``greedy`` bot plays seat 3, or plays seat 0 for a
player who timed out. That record, :class:`Lobby`, is kept in the store beside the game's
state (``StoredGame.lobby``, a small JSON) and written by the same atomic commits.

**Every change of a seat is a version of the game**, like an action: a join, a leave, the
table filling up, a seat handed to a bot or reclaimed each commit ``version + 1`` with
the compare-and-set every action uses, emit their events into the game's log (so streams
and long polls see them, and ``ETag`` / ``If-None-Match`` cover them), and append a record
``{"seat_change": ..., "seat": n, "events": k}`` to the action list, which :func:`replay`
understands. So two joins racing for one seat are two commits on one version: one is
written, the other finds the seat taken (``409 seat-taken``), across any number of API
processes, in every Redis mode (the commit touches only the game's own ``{id}`` keys).
A join retried with its ``Idempotency-Key`` (its answer was lost) is such a change too,
``rejoined``: the seat's token hash replaced, see ``GameService.join``.

**The index of waiting games** (``GET /v1/games?status=waiting``) is one ordered set of
entries ``<created ms>:<game id>`` (Redis: ``lobby:{waiting}``, a key with a hash tag of
its own, so in a Redis Cluster it lives apart from the games). It cannot change in the
game's own atomic step, so it is kept correct the other way round: entries are added
and removed with idempotent commands after the game's step (add while a listed game
waits, remove once it starts), and every entry a reader is about to show is checked
against the game's lobby record; an entry whose game has started, expired or is unlisted
is removed there and then. A reader never shows a game that is not waiting when it
reads, and a lost update (a process that died between the two steps) is repaired by the
next reader. A waiting game expires ``waiting_game_ttl`` after its creation (joins do
not extend it), so entries older than that are removed without reading their games.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import msgspec

from darkroad.core import Engine, Game, GameConfig, actionlog, i18n
from darkroad.core.view import EncodedPlayers

MAX_NAME_LENGTH = 32
NAME_PATTERN = r"^\s*[^\x00-\x1f\x7f]*[^\s\x00-\x1f\x7f][^\x00-\x1f\x7f]*\s*$"
"""A name: at least one visible character, no control character but in the surrounding
whitespace (which is trimmed when stored)."""
DEFAULT_TIMEOUT_BOT = "search"
"""The strongest fair bot that answers within 100 ms a decision on a worker (docs/bots.md, issue 40)."""
MAX_TURN_TIMEOUT = 30 * 24 * 60 * 60
ENTRY_PATTERN = r"^[0-9]{13}:[A-Za-z0-9_-]{22}$"
"""An index entry (and the listing's cursor): creation time in ms, then the game id."""


class LobbySeat(msgspec.Struct, omit_defaults=True):
    """One seat as the lobby keeps it."""

    kind: str
    """``human`` (a player holds its token), ``open`` (waiting for a player), ``bot`` or an
    installed seat kind's id (an automated seat)."""
    name: str | None = None
    bot: str | None = None
    """The bot playing the seat: a bot seat's, or the one playing for a player who timed out."""
    replaced: bool = False
    """A human seat a bot plays since its player timed out (until they reclaim it)."""
    think_time: float | None = None
    """A bot seat's seconds per decision (its bot's ``think_time`` option); ``None``: the default."""
    joined: int | None = None
    """A human seat taken by a join: the version that join wrote (a retry of the join with its
    ``Idempotency-Key`` names it, see ``GameService.join``)."""
    since: float | None = None
    """While the seat is awaited (games with a turn timeout or a clock): since when, in Unix
    seconds (the decision opened, or the seat's last action)."""
    bank: float | None = None
    """Games with a clock: the seconds left in the seat's time bank at ``since`` (while it
    runs) or now (while it does not); ``None``: the clock's ``initial``, untouched."""
    warned: bool = False
    """Games with a clock: the seat was told its bank fell under a tenth (``seat_clock_low``),
    and its bank has not risen above a tenth since."""


class Clock(msgspec.Struct):
    """A game's time banks (``NewGame.clock``)."""

    initial: float
    """Seconds in every seat's bank at the start (and the most a bank holds)."""
    increment: float = 0.0
    """Seconds added to a seat's bank for each decision it makes."""


class Lobby(msgspec.Struct, omit_defaults=True):
    """A game's seats, as the lobby keeps them (``StoredGame.lobby``)."""

    seats: list[LobbySeat]
    created: float
    """Unix seconds."""
    started: bool = True
    """Every seat has been filled; before that the game is ``waiting``."""
    listed: bool = False
    turn_timeout: int | None = None
    timeout_bot: str = DEFAULT_TIMEOUT_BOT
    config: dict[str, Any] = msgspec.field(default_factory=dict)
    """The summary the listing shows (``WaitingGame.config``)."""
    clock: Clock | None = None
    """The seats' time banks, if the game has them."""

    @property
    def waiting(self) -> bool:
        return not self.started

    @property
    def timed(self) -> bool:
        """Whether the seats are timed (a turn timeout or a clock): :meth:`track` keeps time."""
        return self.turn_timeout is not None or self.clock is not None

    def bank(self, seat: int, now: float | None = None) -> float:
        """The seconds left in ``seat``'s bank (at ``now``: less what its running bank spent since
        ``since``; else as of ``since``). Games with a clock only."""
        assert self.clock is not None
        record = self.seats[seat]
        left = self.clock.initial if record.bank is None else record.bank
        if now is not None and record.since is not None:
            left -= now - record.since
        return max(0.0, left)

    def open_seats(self) -> list[int]:
        return [n for n, seat in enumerate(self.seats) if seat.kind == "open"]

    def bot_of(self, seat: int) -> str | None:
        """The bot that plays ``seat`` now, if any."""
        record = self.seats[seat]
        return record.bot if record.kind == "bot" or record.replaced else None

    def bot_after_timeout(self) -> str | None:
        """The bot that takes over a seat awaited past ``turn_timeout`` (or whose bank ran out);
        None without a timeout or a clock."""
        return None if not self.timed else self.timeout_bot

    def entry(self, game_id: str) -> str:
        """The game's entry in the index of waiting games."""
        return f"{round(self.created * 1000):013d}:{game_id}"

    def overdue(self, seat: int, now: float) -> bool:
        """Whether ``seat`` is a human seat awaited for ``turn_timeout`` seconds or more, or whose
        running time bank is empty."""
        record = self.seats[seat]
        if record.kind != "human" or record.replaced or record.since is None:
            return False
        if self.clock is not None and self.bank(seat, now) <= 0:
            return True
        return self.turn_timeout is not None and now - record.since >= self.turn_timeout

    def low(self, seat: int, now: float) -> bool:
        """Whether ``seat``'s running bank fell under a tenth of the clock's ``initial`` and the
        seat was not told yet (``seat_clock_low``)."""
        record = self.seats[seat]
        return (self.clock is not None and record.since is not None and not record.warned and not record.replaced
                and record.kind == "human" and self.bank(seat, now) < self.clock.initial / 10)

    def spend(self, seat: int, now: float) -> None:
        """Stop ``seat``'s bank at ``now`` (what it spent since ``since`` taken off)."""
        record = self.seats[seat]
        if self.clock is not None and record.since is not None:
            record.bank = self.bank(seat, now)

    def track(self, awaiting: Iterable[int], acted: int | None, now: float) -> None:
        """Note which human seats are awaited since when (only with a turn timeout or a clock): a
        seat newly awaited, or awaited again after its own action, starts counting now. With a
        clock, a bank runs only while its seat is awaited, and each decision of the seat
        (``acted``), its player's or the bot's playing it, adds the increment, up to
        ``initial``: so a seat handed to its bot when its bank ran out can be reclaimed with the
        time its bot's decisions earned (a hand-over and a reclaim are no decision: ``None``)."""
        if not self.timed or not self.started:
            return
        waited = set(awaiting)
        clock = self.clock
        for n, record in enumerate(self.seats):
            playing = n in waited and record.kind == "human" and not record.replaced
            if clock is not None and record.kind == "human" and (n == acted or not playing):
                self.spend(n, now)
                if n == acted:  # a decision, whoever made it
                    record.bank = min(clock.initial, self.bank(n) + clock.increment)
                    record.warned = record.warned and record.bank < clock.initial / 10
            if playing:
                if record.since is None or n == acted:
                    record.since = now
            else:
                record.since = None

    def awaited_bot(self, awaiting: Iterable[int]) -> str | None:
        """The bot of the first of the ``awaiting`` seats a bot plays (``None``: none), while
        the game runs: a bot job is then due."""
        if self.waiting:
            return None
        return next((bot for seat in awaiting if (bot := self.bot_of(seat)) is not None), None)

    def deadline(self) -> float | None:
        """The earliest deadline of the awaited human seats (Unix seconds), if any: the game's
        clock, which the bot workers watch to hand an overdue seat to the timeout bot (a turn
        timeout passed, a time bank empty), or to tell a seat its bank runs low."""
        if not self.timed or self.waiting:
            return None
        times = []
        for n, record in enumerate(self.seats):
            if record.since is None or record.replaced or record.kind != "human":
                continue
            if self.turn_timeout is not None:
                times.append(record.since + self.turn_timeout)
            if self.clock is not None:
                left = self.bank(n)
                times.append(record.since + left)
                if not record.warned and left >= self.clock.initial / 10:
                    times.append(record.since + left - self.clock.initial / 10)
        return min(times) if times else None

    def copy(self) -> Lobby:
        return msgspec.json.decode(encode(self), type=Lobby)


def encode(lobby: Lobby) -> bytes:
    return msgspec.json.encode(lobby)


def decode(raw: bytes | None) -> Lobby | None:
    return None if raw is None else msgspec.json.decode(raw, type=Lobby)


def clean_name(name: str) -> str:
    """A name as stored: without surrounding whitespace (the schema already bounds it)."""
    return name.strip()


def _when(seconds: float) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(round(seconds, 3), datetime.UTC)


def created_at(lobby: Lobby) -> datetime.datetime:
    return _when(lobby.created)


class SeatNames(Mapping[str, str]):
    """The names of the seats nobody named: each installed seat kind's display name, by its id
    (its automated seats'), and each installed bot's (:meth:`bot`: a bot seat created without a
    name), worded at read time, in the language of the call (a stored game keeps no name for it)."""

    def __init__(self, engine: Engine) -> None:
        self._kinds = {kind_id: (kind.name, type(kind).__module__) for kind_id, kind in engine.seat_kinds.items()}
        self._bots = {bot_id: (bot.name, engine.plugins.plugins.get(engine.bot_plugins.get(bot_id, "")))
                      for bot_id, bot in engine.bots.items()}

    def __getitem__(self, kind: str) -> str:
        """Seat kind ``kind``'s name in the language of the call, from its plugin's catalog."""
        name, module = self._kinds[kind]
        return i18n.messages(module).gettext(name) if name else name

    def get(self, kind: str, default: str | None = None) -> str | None:  # type: ignore[override]
        """Seat kind ``kind``'s name (:meth:`__getitem__`), ``default`` for a kind without one (a
        human's): asked for every seat of every view, so without ``Mapping.get``'s raised and
        caught ``KeyError``."""
        found = self._kinds.get(kind)
        if found is None:
            return default
        name, module = found
        return i18n.messages(module).gettext(name) if name else name

    def __iter__(self) -> Iterator[str]:
        return iter(self._kinds)

    def __len__(self) -> int:
        return len(self._kinds)

    def bot(self, bot_id: str) -> str:
        """Bot ``bot_id``'s name in the language of the call, from its plugin's catalog (as the
        catalogue's ``bots`` say it); its id when it has none or is not installed."""
        name, plugin = self._bots.get(bot_id, ("", None))
        if not name:
            return bot_id
        return i18n.messages(plugin.module if plugin is not None else "").gettext(name)


def _name(record: LobbySeat, seat_names: Mapping[str, str] | None) -> str | None:
    """A seat's name as shown: the one it was given; a bot seat given none, its bot's (worded now)."""
    if record.name is not None or record.kind != "bot" or record.bot is None:
        return record.name
    return seat_names.bot(record.bot) if isinstance(seat_names, SeatNames) else record.bot


def seat_views(lobby: Lobby | None, kinds: Sequence[str],
               seat_names: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The ``SeatView`` of every seat (``kinds``: the players' seat kinds, for a game without
    lobby; ``seat_names``: the display name of each seat kind, naming its automated seats, and
    with :class:`SeatNames` the bots', naming the bot seats created without a name)."""
    if lobby is None:
        return [
            {
                "seat": n,
                "kind": kind,
                "name": None if seat_names is None else seat_names.get(kind),
                "bot": None,
                "replaced": False,
                "timeout_at": None,
            }
            for n, kind in enumerate(kinds)
        ]
    views = []
    for n, record in enumerate(lobby.seats):
        timeout_at = None
        if lobby.turn_timeout is not None and record.since is not None and not record.replaced:
            timeout_at = _when(record.since + lobby.turn_timeout)
        views.append(
            {
                "seat": n,
                "kind": record.kind,
                "name": _name(record, seat_names),
                "bot": lobby.bot_of(n),
                "replaced": record.replaced,
                "timeout_at": timeout_at,
                # Only where set: every other seat's view stays as it was, byte for byte.
                **({} if record.think_time is None else {"think_time": record.think_time}),
                **({} if lobby.clock is None or record.kind != "human" else {"clock": _seat_clock(lobby, n)}),
            }
        )
    return views


def _seat_clock(lobby: Lobby, seat: int) -> dict[str, Any]:
    """A seat's ``SeatClock``: its bank as of the version (counting down from then while it runs)."""
    record = lobby.seats[seat]
    running = record.since is not None and not record.replaced
    left = lobby.bank(seat)
    return {"remaining": round(left, 3), "running": running,
            "ends_at": _when(record.since + left) if running and record.since is not None else None}


def game_view(engine: Engine, game: Game, seat: int | None, lobby: Lobby | None,
              seat_names: Mapping[str, str] | None = None, encoded: EncodedPlayers | None = None) -> dict[str, Any]:
    """``seat``'s view of ``game`` as the API shows it: the engine's, with the seats' names
    (``players[i].name``), ``seats``, ``turn_timeout``, ``timeout_bot`` and the ``waiting``
    status. ``encoded``: the players' and config blocks kept encoded between views (the view is
    then for msgspec to encode: :class:`~darkroad.core.view.EncodedPlayers`)."""
    seats = seat_views(lobby, [p.kind for p in game.players], seat_names)
    names = [s["name"] for s in seats]
    view = engine.view(game, seat, names=names, encoded=encoded)
    view["seats"] = seats
    view["turn_timeout"] = None if lobby is None else lobby.turn_timeout
    view["timeout_bot"] = None if lobby is None else lobby.bot_after_timeout()
    if lobby is not None and lobby.clock is not None:  # only then: other games' views as they were
        view["clock"] = {"initial": lobby.clock.initial, "increment": lobby.clock.increment}
    if lobby is not None and lobby.waiting:
        view["status"] = "waiting"
    return view


def status(lobby: Lobby | None, finished: bool) -> str:
    if finished:
        return "finished"
    return "waiting" if lobby is not None and lobby.waiting else "active"


def config_summary(game: Game, seat_kinds: Iterable[str]) -> dict[str, Any]:
    """What the listing says about a game's setup (``GameSummary``); ``seat_kinds``: the
    installed seat kinds' ids, each naming its seat (null without it), as the view's ``config``."""
    config = game.config
    return {
        "players": config.players,
        **{kind: next((p.seat for p in game.players if p.kind == kind), None) for kind in seat_kinds},
        "buildings": list(game.board.buildings),
        "variants": dict(config.variants),
        "companions": list(config.companions),
    }


def listing(game_id: str, lobby: Lobby, seat_names: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A ``WaitingGame`` of the listing (``seat_names``: :func:`seat_views`')."""
    return {
        "id": game_id,
        "players": len(lobby.seats),
        "open_seats": lobby.open_seats(),
        "seats": seat_views(lobby, [], seat_names),
        "config": lobby.config,
        "created": created_at(lobby),
        "turn_timeout": lobby.turn_timeout,
        "timeout_bot": lobby.bot_after_timeout(),
    }


SEAT_CHANGE = "seat_change"
"""The kind of the action log's records of changes of seats (``core.actionlog.ServiceRecord``:
``{"seat_change": what, "seat": n, "events": k}``), registered with an engine's log by
:func:`register`."""


def register(engine: Engine) -> None:
    """Let ``engine``'s action log read and make the records of changes of seats (harmless twice)."""
    engine.log.register(SEAT_CHANGE)


def seat_change(record: actionlog.Record) -> str | None:
    """What changed of the seats (``joined``, ``left``, ...) if ``record`` is a change of seats."""
    return record.what if isinstance(record, actionlog.ServiceRecord) and record.kind == SEAT_CHANGE else None


def replay(engine: Engine, config: GameConfig, records: Iterable[dict[str, Any] | bytes]) -> Game:
    """The game again from its config and its action list (``GameStore.actions``), changes of
    seats included (:meth:`Engine.replay`, the core's one replay loop)."""
    register(engine)
    return engine.replay(config, records)


# -- the lobby's events, documented with the engine's (``darkroad.api.http.openapi``) ---------

_NAME = {"type": "string", "maxLength": MAX_NAME_LENGTH, "description": "The player's name."}
_BOT = {"type": "string", "description": "The bot's id (`GET /v1/catalog`: `bots`)."}
EVENTS: dict[str, tuple[str, dict[str, dict[str, Any]]]] = {
    "seat_joined": ("A player joined an open seat (`seat`).", {"name": _NAME}),
    "seat_rejoined": (
        "The player of `seat` repeated their join with its `Idempotency-Key` (its answer was lost): "
        "the seat has a new token, the one of the first answer plays nothing any more.",
        {"name": _NAME},
    ),
    "seat_left": ("The player of `seat` left it while the game was waiting: it is open again.", {}),
    "seats_filled": ("Every seat is filled: the game has started (actions are accepted from now on).", {}),
    "seat_replaced": (
        "A bot plays `seat` from now on: its player did not decide within the game's `turn_timeout` (or "
        "its `clock`'s bank ran out). "
        "The player may reclaim the seat with their token.",
        {"bot": _BOT},
    ),
    "seat_reclaimed": ("The player of `seat` took it back from the bot that played it.", {"bot": _BOT}),
    "seat_clock_low": (
        "The time bank of `seat` (a game with a `clock`) fell under a tenth of its initial time.",
        {"remaining": {"type": "number", "description": "Seconds left in the seat's bank then."}},
    ),
}
"""The events of the lobby: type -> (description, data fields)."""
