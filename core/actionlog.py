"""The action log: the records a game's history is made of, one per version, and the one loop
that replays them.

A game is its config and its log. Every version after creation is made by one record:

* :class:`Answer`: a seat's answer to the pending decision (an :class:`~darkroad.core.actions.Action`,
  :meth:`Engine.apply`);
* :class:`Withdrawn`: an answer a plugin failed to resolve, taken out of the decision's
  options (:meth:`Engine.withdraw`);
* :class:`Undo`: a seat taking back its last actions (:meth:`Engine.undo`, core/undo.py);
* :class:`ServiceRecord`: a record a service keeps of its own, which changes no rule state
  but counts a version and logs events (the API's changes of seats). Its kind is registered
  with the engine's log (:meth:`ActionLog.register`), so that a replay knows it.

Any record may carry the time it was committed (``time``, Unix seconds): a replay ignores it,
a game record shows it.

**Only the core numbers versions.** ``apply``, ``withdraw`` and ``undo`` count the version
they make, and a service's record is made by :meth:`ActionLog.record`, which numbers its
events after the game's last and counts its version: no caller adds to ``game.version``.

**The one replay loop** is :meth:`ActionLog.replay`: every record of a log, in order, on a
game (freshly created, or one at an earlier version of the same log), with a callback after
each version for a caller that keeps something per version (the API's history of views, an
import's checks).

The stored form of each record (its JSON) is the one the API has written since version 1 of
its store: :meth:`ActionLog.read` reads it, ``record.encode()`` writes it byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import msgspec
from attrs import frozen

from .actions import Action
from .errors import BadAction, IllegalAction
from .state import Event

if TYPE_CHECKING:
    from .engine import Engine
    from .state import Game

WITHDRAWN = "withdrawn"
"""The type of the action :meth:`Engine.withdraw` records: ``option`` is ``"<type>:<option>"``
of the withdrawn answer."""
UNDO = "undo"
"""The type of the action an undo records in the action list; ``option`` is the version
whose position it restores."""
TIME = "time"
"""The member of a stored record holding the time it was committed (Unix seconds)."""

_encode = msgspec.json.encode


@frozen
class Answer:
    """A seat's answer to the pending decision."""

    action: Action
    time: float | None = None

    @property
    def seat(self) -> int:
        return self.action.seat

    def encode(self) -> bytes:
        """The stored form: the action without its label (a label is the client's to choose)."""
        return _stamped(answer_entry(self.action), self.time)


def answer_entry(action: Action) -> bytes:
    """:meth:`Answer.encode` of an answer without its time, with no :class:`Answer` made (a
    frozen attrs class sets each field through ``object.__setattr__``): the entry every action
    through the API records, stamped with its time when committed (:func:`stamp`)."""
    return _encode(Action(action.type, action.seat, action.option) if action.label else action)


@frozen
class Withdrawn:
    """Seat ``seat``'s answer ``type``/``option`` withdrawn from the pending decision after a
    plugin failed to resolve it."""

    seat: int
    type: str
    option: str
    time: float | None = None

    @property
    def action(self) -> Action:
        """The answer withdrawn."""
        return Action(self.type, self.seat, self.option)

    def encode(self) -> bytes:
        return _stamped(_encode(Action(WITHDRAWN, self.seat, f"{self.type}:{self.option}")), self.time)


@frozen
class Undo:
    """Seat ``seat`` took back its last undoable actions: the game is at the position of
    version ``restores`` again (counting on from the version before the undo)."""

    seat: int
    restores: int
    time: float | None = None

    def encode(self) -> bytes:
        return _stamped(_encode(Action(UNDO, self.seat, str(self.restores))), self.time)


@frozen
class ServiceRecord:
    """A service's own record (kind ``kind``, registered with :meth:`ActionLog.register`): what
    happened (``what``) to seat ``seat``, and the number of events it logged. It changes no
    rule state: replayed, it counts its version and its events. Stored as
    ``{"<kind>": what, "seat": seat, "events": events}``."""

    kind: str
    what: str
    seat: int
    events: int
    time: float | None = None

    def encode(self) -> bytes:
        return _stamped(_encode({self.kind: self.what, "seat": self.seat, "events": self.events}), self.time)


Record = Answer | Withdrawn | Undo | ServiceRecord
"""One record of the action log."""
Each = Callable[["Game", Record, list[Event]], object]
"""Told of every record a replay applied: the game after it (its new version), the record and
the events it made (none for a service record: its events are the service's)."""


def _stamped(entry: bytes, time: float | None) -> bytes:
    """``entry`` (a JSON object) with the member ``"time"`` (3 decimals) when ``time`` is given."""
    if time is None:
        return entry
    return entry[:-1] + (b',"time":%.3f}' % time if len(entry) > 2 else b'"time":%.3f}' % time)


def stamp(entry: bytes, time: float) -> bytes:
    """A stored record (``record.encode()``) stamped with the time it was committed, unless it
    has one."""
    if not entry.endswith(b"}") or b'"time"' in entry:
        return entry
    return _stamped(entry, time)


class ActionLog:
    """The action log of one engine's games: its record kinds, how records are read and made,
    and the replay (the module says how)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.kinds: set[str] = set()
        """The kinds of service records this log reads (:meth:`register`)."""

    def register(self, kind: str) -> None:
        """Read records ``{"<kind>": what, "seat": n, "events": k}`` as a service's own
        (:class:`ServiceRecord`), replayed as a version that logged ``k`` events. Registering a
        kind twice is harmless; a kind must not be a field of an action."""
        if kind in ("type", "seat", "option", "label", "events", TIME):
            raise ValueError(f"{kind!r} is a field of the action log's records, not a kind of record")
        self.kinds.add(kind)

    # -- reading ---------------------------------------------------------------------------
    def read(self, entry: Record | Action | Mapping[str, Any] | bytes) -> Record:
        """A record from its stored form (JSON bytes or decoded), an :class:`Action` (an answer,
        a withdrawn answer or an undo, by its type) or a record. Raises :class:`BadAction` for
        anything else."""
        if isinstance(entry, Answer | Withdrawn | Undo | ServiceRecord):
            return entry
        if isinstance(entry, Action):
            return self._of_action(entry, None)
        if isinstance(entry, bytes | bytearray | memoryview):
            try:
                entry = msgspec.json.decode(entry)
            except msgspec.DecodeError as exc:
                raise BadAction("a record of the action log must be JSON: %(reason)s", reason=str(exc)) from exc
        if not isinstance(entry, Mapping):
            raise BadAction("a record of the action log is a JSON object, got %(type)s", type=type(entry).__name__)
        time = entry.get(TIME)
        if time is not None and (not isinstance(time, int | float) or isinstance(time, bool)):
            raise BadAction("a record's time is a number of seconds, got %(time)r", time=time)
        time = None if time is None else float(time)
        if "type" not in entry:
            for kind in self.kinds:
                if kind in entry:
                    return self._service(kind, entry, time)
        fields = {k: v for k, v in entry.items() if k != TIME} if TIME in entry else dict(entry)
        return self._of_action(self.engine.serde.action_from_json(fields), time)

    @staticmethod
    def _of_action(action: Action, time: float | None) -> Record:
        if action.type == WITHDRAWN:
            kind, _, option = action.option.partition(":")
            return Withdrawn(action.seat, kind, option, time)
        if action.type == UNDO:
            if not action.option.isdigit():
                raise BadAction("an undo names the version it restores, got '%(option)s'", option=action.option)
            return Undo(action.seat, int(action.option), time)
        return Answer(action, time)

    @staticmethod
    def _service(kind: str, entry: Mapping[str, Any], time: float | None) -> ServiceRecord:
        what, seat, events = entry.get(kind), entry.get("seat"), entry.get("events", 0)
        if not isinstance(what, str) or type(seat) is not int or type(events) is not int or events < 0:
            raise BadAction("a %(kind)s record is {'%(kind)s': what, 'seat': n, 'events': k}, got %(entry)s", kind=kind,
                            entry=repr(dict(entry)))
        return ServiceRecord(kind, what, seat, events, time)

    # -- making versions -------------------------------------------------------------------
    def record(self, game: Game, kind: str, what: str, seat: int,
               events: Iterable[tuple[str, int | None, dict[str, Any]]] = ()) -> tuple[ServiceRecord, list[Event]]:
        """A service's own record (``kind``: registered) made on ``game``: its events ``(type,
        seat, data)``, public, numbered after the game's last, and a version of its own. Returns
        the record to append to the action list and the events. The game's rule state is not
        touched (an undo chain ends with it: core/undo.py)."""
        if kind not in self.kinds:
            raise ValueError(f"{kind!r} is not a registered kind of record (ActionLog.register)")
        made = []
        for type_, event_seat, data in events:
            made.append(Event(n=game.events, type=type_, seat=event_seat, data=data))
            game.events += 1
        game.version += 1
        return ServiceRecord(kind, what, seat, len(made)), made

    def apply(self, game: Game, record: Record, earlier: Callable[[int], Game] | None = None,
              ) -> tuple[Game, list[Event]]:
        """Make the version ``record`` made: the game after it (``game`` itself, changed, but
        for an undo: a game of its own) and the events. ``earlier(k)``: a fresh game at version
        ``k`` of the same log (an undo's position); ``None``: no undo can be applied."""
        engine = self.engine
        if isinstance(record, Answer):
            return game, engine.apply(game, record.action)
        if isinstance(record, Withdrawn):
            return game, engine.withdraw(game, record.action)[1]
        if isinstance(record, Undo):
            if earlier is None:
                raise IllegalAction("the undo at version %(version)d needs the game's earlier versions",
                                    version=game.version + 1)
            undone, made, events = engine.undo(game, record.seat, earlier)
            if made.option != str(record.restores):
                raise IllegalAction("the undo at version %(version)d returns to version %(made)s, not %(restores)d",
                                    version=game.version + 1, made=made.option, restores=record.restores)
            return undone, events
        if record.kind not in self.kinds:
            raise BadAction("'%(kind)s' is not a registered kind of record", kind=record.kind)
        game.events += record.events
        game.version += 1
        return game, []  # its events are the service's: the core never saw their content

    # -- replaying -------------------------------------------------------------------------
    def replay(self, game: Game, records: Iterable[Record | Action | Mapping[str, Any] | bytes], *,
               earlier: Callable[[int], Game] | None = None, each: Each | None = None,
               other: Callable[[Game, Any], bool] | None = None) -> Game:
        """``game`` (freshly created, or at an earlier version of the same log) with ``records``
        applied in order; returns the game at the end (another object after an undo).

        An undo restores a position of the log: ``earlier(k)`` gives a fresh game at version
        ``k``; without it, the replay keeps a copy of each position an undo of ``records``
        returns to as it passes it. ``each(game, record, events)`` is told of every version made.
        Raises what the engine raises for a record that does not apply there.

        ``other`` (deprecated: :meth:`register` the kind instead) applies a record this log
        does not read and returns ``True``, else ``False``."""
        items = list(records)
        read: list[Record | None] = []
        for raw in items:
            try:
                read.append(self.read(raw))
            except BadAction:
                if other is None:
                    raise
                read.append(None)  # the other callback's, or refused when it is met
        kept: dict[int, Game] = {}
        targets = set() if earlier is not None else {r.restores for r in read if isinstance(r, Undo)}
        restore = earlier or self._kept(kept)
        for raw, record in zip(items, read, strict=True):
            if game.version in targets:
                kept[game.version] = self.engine.copy(game)
            if other is not None and other(game, raw):
                continue
            if record is None:
                record = self.read(raw)  # raises, as it did above
            game, events = self.apply(game, record, restore)
            if each is not None:
                each(game, record, events)
        return game

    def _kept(self, kept: dict[int, Game]) -> Callable[[int], Game]:
        """``earlier`` of a replay that keeps the positions undos return to in ``kept``."""
        copy = self.engine.copy

        def earlier(k: int) -> Game:
            if k not in kept:
                raise IllegalAction("an undo returns to version %(version)d, which this action list never reached", version=k)
            return copy(kept[k])

        return earlier
