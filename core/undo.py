"""Undo: a seat takes back its own most recent actions of the turn, back to the last checkpoint.

The rule is Board Game Arena's: an undo never changes the active player, never takes back
another seat's action, and never goes back across hidden information revealed or a random
event seen. A seat may undo its own actions of its turn one by one, most recent first, until
the last *checkpoint*; neither the checkpoint nor anything before it can be undone.

An action is a checkpoint when, while it resolved:

* it drew on the RNG (a die rolled, a card drawn or revealed, a deck shuffled): the game's
  RNG state moved (``chance``);
* it told a seat something privately, other than the acting seat (an event private to
  another seat: ``private``);
* it touched what the acting seat cannot see (``revealed``): what views hide from it
  (:mod:`view`): the order and contents of the face-down decks (heroes, companions, deeds,
  the route events), the commission stacks below their tops, the other seats' coins, deeds
  and plugin state (``Player.extra``), the board's hidden plugin state (``board.extra``
  keys starting with ``_``). A card leaving a face-down deck is a card turned up;
* it was not a decision of the active seat's own turn alone: a caravan member's answer
  (another seat's decision on the active seat's turn), a simultaneous decision, a decision
  of the setup or of the final travel (``other-seat``, ``simultaneous``, ``not-your-turn``);
* an automated seat (a seat kind) acted during it (``automated``);
* afterwards the game no longer waits for the acting seat alone, or the turn passed
  (``passed``: an undo never changes who is to act);
* a plugin declared it: a step class with ``checkpoint = True`` ran or was answered, or a
  hook or step called :meth:`Ctx.checkpoint` (``declared``).

The engine finds them itself after every :meth:`Engine.apply`, so plugins are covered
without any work from their authors; none of it needs the views, so it costs a few
microseconds. What the acting seat could learn is what changed in what is hidden from it;
``tests/test_undo.py`` checks the rule against the views themselves, over random games: an
undoable action gives every seat the same view in every game it cannot tell from the real
one (:func:`determinize`).

**Where the engine keeps it.** The state keeps, in ``game.turn.undo`` (per-turn
bookkeeping, so a new turn starts with none), the acting seat, the version it is current at
(``at``), and either the versions before each of its undoable actions since the last
checkpoint (``versions``), or the reason of the checkpoint (``checkpoint``). Anything else
that makes a version (a withdrawn answer, a change of seats, a bot's move recorded by the
service) leaves it behind ``game.version``, so nothing can be undone across it.

**Based on replay.** The state does not keep the earlier states: :meth:`Engine.undo` takes
the game's action list and rebuilds the game at the version before the undone action by
replaying it, RNG included. The undo itself is recorded in the action list as
``{"type": "undo", "seat": s, "option": "<version restored>"}`` (:data:`UNDO`), a version
of its own: :meth:`Engine.replay` reads it, so replays and game records reproduce undone
games exactly. The restored game keeps counting versions and events forward, and a public
``undone`` event names the versions taken back.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from . import tracked
from .actionlog import UNDO as UNDO  # (re-exported: its home before the action log had one)
from .actions import Action
from .errors import CannotUndo, IllegalAction
from .i18n import N_, Text
from .seats import HUMAN
from .state import FINISHED
from .steps import Step
from .tracked import Journal, TrackedDict, TrackedList

if TYPE_CHECKING:
    from contextvars import Token

    from .context import Ctx
    from .engine import Engine
    from .state import Board, Event, Game, Player

REASONS = {
    "chance": N_("it drew on chance (a die roll, a card drawn or a shuffle)"),
    "private": N_("it told another seat something privately"),
    "revealed": N_("it revealed hidden information (a face-down card, or what another seat keeps hidden)"),
    "other-seat": N_("it answered a decision on another seat's turn"),
    "simultaneous": N_("it answered a decision several seats take at once"),
    "not-your-turn": N_("it was not taken on your own turn"),
    "automated": N_("an automated seat acted"),
    "passed": N_("the game then waited for another seat (an undo never changes who is to act)"),
    "declared": N_("a rule of the game makes it a checkpoint"),
}
"""Why an action is a checkpoint, by code (the reasons a refused undo gives)."""

_encode = msgspec.json.Encoder().encode
_snapshot = msgspec.msgpack.Encoder().encode
"""A value noted to compare after an action, encoded: MessagePack, which costs less to write
than JSON and is as faithful to what it encodes."""


Probe = tuple[str, list[int], tuple[Any, ...], bytes, "Token[Any] | None"]
"""What :func:`probe` notes before an action: a checkpoint reason known already (or ``""``),
the RNG state, what is hidden from the acting seat (:func:`hidden`), the automated seats' state,
and the journal's watch (:func:`done` ends it)."""


_TRACKED = (TrackedList, TrackedList, TrackedList, TrackedDict, TrackedDict)
"""The types of the board's hidden sequences once :func:`hidden` has tracked them."""


def hidden(engine: Engine, game: Game, seat: int) -> tuple[Any, ...]:
    """What ``seat``'s view leaves out (but the RNG), noted to compare after an action
    (:func:`unchanged`): an action that changes it moved something hidden from ``seat``, or
    showed it. It runs before most actions, and its cost is the interpreter's work per object
    made and per call, so it copies nothing it need not: the face-down decks, the route events'
    and commission stacks' lists and the other seats' deeds are put in tracked lists and dicts
    (:mod:`~darkroad.core.tracked`; a plain list or dict is replaced by an equal tracked one) and
    noted as references, with the journal that keeps what any of them held before it changed;
    a sequence of another type (a plugin's tuple) is copied as a list. The other seats' coins
    are noted as they are, and the plugin state hidden from ``seat`` encoded
    (:func:`_plugin_state`). The value is ``(journal, marks, encoded, automated)``, ``marks``
    being the five decks' then each other seat's deeds and coins, and ``automated`` the
    automated seats' state (:func:`automated`), read in the same pass."""
    b: Any = game.board  # (its sequences' types are checked here, by comparison: mypy cannot follow)
    hero, companion, deed, events, stacks = b.hero_deck, b.companion_deck, b.deed_deck, b.events, b.commission_stacks
    if (type(hero), type(companion), type(deed), type(events), type(stacks)) != _TRACKED \
            or not (events.tracked and stacks.tracked):
        hero, companion, deed = _list_mark(b, "hero_deck"), _list_mark(b, "companion_deck"), _list_mark(b, "deed_deck")
        events, stacks = _map_mark(b, "events"), _map_mark(b, "commission_stacks")
    marks: list[Any] = [hero, companion, deed, events, stacks]
    state: list[Any] = []  # the other seats' own plugin state (read in the same pass)
    auto = False
    for p in game.players:
        if p.seat != seat:
            deeds = p.deeds
            marks.append(deeds if type(deeds) is TrackedList else _deeds_mark(p))
            marks.append(p.coins)
            if p.extra:
                state.append((p.seat, p.extra))
        if p.kind != HUMAN:
            auto = True
    return [], marks, _plugin_state(game, seat, state), automated(game) if auto else b""


def _plugin_state(game: Game, seat: int, state: list[Any]) -> bytes:
    """The plugin state hidden from ``seat``, encoded as one value: ``state``, the other seats'
    own state (``(seat, Player.extra)`` of each that has some), then the other seats' pending
    tasks' data, and last the board's hidden keys (``board.extra`` keys starting with ``_``;
    ``None`` when it has none)."""
    for t in game.stack:
        if t.seat != seat and t.seat != -1 and t.data:
            state.append(t.data)
    extra = game.board.extra
    if extra:
        for k in extra:
            if k[0] != "_":
                state.append([(k, v) for k, v in extra.items() if k[0] == "_"])
                break
        else:
            state.append(extra)  # (the usual case: every key is a plugin's hidden bookkeeping)
    else:
        state.append(None)
    return _snapshot(state)


def _deeds_mark(player: Player) -> list[str]:
    """A seat's deeds as noted: the tracked list itself, or a list copy."""
    if type(player.deeds) is TrackedList:
        return player.deeds
    if type(player.deeds) is list:
        player.deeds = TrackedList(player.deeds)
        return player.deeds
    return list(player.deeds)


def _list_mark(board: Board, name: str) -> list[Any]:
    """The board's sequence ``name`` as noted: the tracked list itself, or a list copy."""
    value = getattr(board, name)
    if type(value) is TrackedList:
        return value
    if type(value) is list:
        value = TrackedList(value)
        setattr(board, name, value)
        return value
    return list(value)


def _map_mark(board: Board, name: str) -> Any:
    """The board's map of sequences ``name`` as noted: the tracked dict itself (every sequence in
    it tracked), or a copy (its keys, and its sequences as lists)."""
    value = getattr(board, name)
    if type(value) is TrackedDict and value.tracked:
        return value
    if type(value) is dict or type(value) is TrackedDict:
        items = [(k, TrackedList(v) if type(v) is list else v) for k, v in value.items()]
        if all(type(v) is TrackedList for _, v in items):
            value = TrackedDict(items)
            setattr(board, name, value)
            return value
    return list(value), [list(v) for v in value.values()]


def unchanged(game: Game, seat: int, before: tuple[Any, ...]) -> bool:
    """Whether what is hidden from ``seat`` is what :func:`hidden` noted as ``before``, compared
    by value (sequences as lists): :func:`_compare`'s answer."""
    return _compare(game, seat, before)[0]


def _compare(game: Game, seat: int, before: tuple[Any, ...]) -> tuple[bool, bytes]:
    """Whether what is hidden from ``seat`` is what :func:`hidden` noted as ``before``, and the
    automated seats' state now (:func:`automated`; read in the same pass). When no tracked
    object changed (the journal is empty) and the noted decks and deeds are still in place, their
    contents are unchanged without a look; otherwise each is compared with what the journal says
    it held (or its copy)."""
    journal, marks, state = before[:3]
    b = game.board
    if not journal and marks[0] is b.hero_deck and marks[1] is b.companion_deck and marks[2] is b.deed_deck \
            and marks[3] is b.events and marks[4] is b.commission_stacks:
        i = 5
        now: list[Any] = []
        auto = False
        for p in game.players:
            if p.seat != seat:
                if i == len(marks) or marks[i] is not p.deeds or marks[i + 1] != p.coins:
                    break
                i += 2
                if p.extra:
                    now.append((p.seat, p.extra))
            if p.kind != HUMAN:
                auto = True
        else:
            if i == len(marks):
                return state == _plugin_state(game, seat, now), automated(game) if auto else b""
    return _unchanged_by_value(game, seat, before), automated(game)


def _unchanged_by_value(game: Game, seat: int, before: tuple[Any, ...]) -> bool:
    journal, marks, state = before[:3]
    b = game.board
    hero, companion, deed, events, stacks = marks[:5]
    if not (_same_list(hero, b.hero_deck, journal) and _same_list(companion, b.companion_deck, journal)
            and _same_list(deed, b.deed_deck, journal) and _same_map(events, b.events, journal)
            and _same_map(stacks, b.commission_stacks, journal)):
        return False
    i = 5
    now: list[Any] = []
    for p in game.players:
        if p.seat != seat:
            if i == len(marks) or not _same_list(marks[i], p.deeds, journal) or marks[i + 1] != p.coins:
                return False
            i += 2
            if p.extra:
                now.append((p.seat, p.extra))
    return i == len(marks) and bool(state == _plugin_state(game, seat, now))


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else list(value)


def _same_list(mark: list[Any], now: Any, journal: Journal) -> bool:
    """Whether the sequence noted as ``mark`` holds what ``now`` holds (as lists)."""
    if type(mark) is TrackedList:
        if now is mark and not (journal and tracked.changed(mark, journal)):
            return True
        return bool(tracked.before(mark, journal) == _as_list(now))
    return mark == _as_list(now)


def _same_map(mark: Any, now: Any, journal: Journal) -> bool:
    """Whether the map of sequences noted as ``mark`` holds what ``now`` holds: the same keys
    in the same order, the same sequences (as lists)."""
    if type(mark) is TrackedDict:
        if now is mark and not (journal and (tracked.changed(mark, journal)
                                             or any(tracked.changed(v, journal) for v in mark.values()))):
            return True
        was = tracked.before(mark, journal)
        keys, values = list(was), [_as_list(tracked.before(v, journal)) for v in was.values()]
    else:
        keys, values = mark
    return bool(keys == list(now) and values == [_as_list(v) for v in now.values()])


def automated(game: Game) -> bytes:
    """The automated seats' whole state, encoded: it changes when one of them acts."""
    for player in game.players:
        if player.kind != HUMAN:
            return _snapshot([p for p in game.players if p.kind != HUMAN])
    return b""


def probe(engine: Engine, game: Game, action: Action, seats: Sequence[int], own_turn: bool) -> Probe:
    """Note, before ``action`` resolves, what :func:`track` compares afterwards. ``seats``:
    the seats the answered decision waits for; ``own_turn``: whether the game is in a phase of
    the active seat's own turn."""
    if action.seat != game.active:
        return "other-seat", [], (), b"", None
    if len(seats) != 1:
        return "simultaneous", [], (), b"", None
    if not own_turn:
        return "not-your-turn", [], (), b"", None
    noted = hidden(engine, game, action.seat)
    if not noted:  # (nothing noted: benchmarks/instructions.py switching the snapshot off)
        return "", game.rng[:], noted, b"", None
    return "", game.rng[:], noted, noted[3], tracked.watch(noted[0])


def done(noted: Probe) -> None:
    """The action resolved (or failed): stop the journal :func:`probe` started."""
    if noted[4] is not None:
        tracked.unwatch(noted[4])


def track(engine: Engine, game: Game, action: Action, noted: Probe, ctx: Ctx) -> None:
    """After ``action`` resolved (``game.version`` counted): extend the acting seat's undo
    chain, or mark the action a checkpoint."""
    turn = game.turn
    if game.phase == FINISHED:  # (game.finished, read here: every action asks)
        turn.undo = None
        return
    seat = action.seat
    before = game.version - 1
    reason = noted[0] or checkpoint_reason(engine, game, seat, noted, ctx)
    if reason:
        turn.undo = {"seat": seat, "at": game.version, "checkpoint": reason}
        return
    chain = turn.undo
    if isinstance(chain, dict) and chain.get("seat") == seat and chain.get("at") == before:
        versions = [*chain.get("versions", ()), before]  # none before it after a checkpoint
    else:
        versions = [before]
    turn.undo = {"seat": seat, "at": game.version, "versions": versions}


def checkpoint_reason(engine: Engine, game: Game, seat: int, noted: Probe, ctx: Ctx) -> str:
    """Why the action ``seat`` just took is a checkpoint, or ``""`` (see the module)."""
    if game.rng != noted[1]:
        return "chance"
    for event in ctx.events:
        if event.private_to is not None and event.private_to != seat:
            return "private"
    if ctx.checkpoints:
        return "declared"
    same, auto = _compare(game, seat, noted[2])
    if auto != noted[3]:
        return "automated"
    if not same:
        return "revealed"
    if game.active != seat:
        return "passed"
    stack = game.stack
    if stack and stack[-1].seat == seat and type(engine.kernel.steps[stack[-1].kind]).seats is Step.seats:
        return ""  # a decision of the seat alone (what awaiting answers without a look)
    return "passed" if engine.kernel.awaiting(game) != [seat] else ""


def refusal(game: Game, seat: int) -> str | None:
    """Why ``seat`` cannot undo now (a :class:`~darkroad.core.i18n.Text`: English, translated
    where it is shown), or ``None`` when it can."""
    why = _why_not(game, seat)
    if why is None:
        return None
    message, value = why
    if message == _NOT_YOURS:
        return Text(_NOT_YOURS, seat=value)
    if message == _CHECKPOINT:
        reason = REASONS.get(value)
        return Text(_CHECKPOINT, why=value if reason is None else Text(reason))
    return Text(message)


_OVER = N_("The game is over.")
_NOTHING = N_("There is nothing to undo: the game's last move is not an action of yours this turn.")
_NOT_YOURS = N_("The game's last move was seat %(seat)s's, not yours: only your own actions can be undone.")
_CHECKPOINT = N_("Your last action is a checkpoint and cannot be undone: %(why)s.")


def _why_not(game: Game, seat: int) -> tuple[str, Any] | None:
    """Why ``seat`` cannot undo now, unworded: one of the refusals' messages and its value (the
    seat whose move it was, the checkpoint's code), or ``None`` when it can. :func:`available`
    asks it on every view, where the refusal's words are not read."""
    if game.phase == FINISHED:  # (game.finished, read here: every view asks)
        return _OVER, None
    chain = game.turn.undo
    if not isinstance(chain, dict) or chain.get("at") != game.version:
        return _NOTHING, None
    if chain.get("seat") != seat:
        return _NOT_YOURS, chain.get("seat")
    if "checkpoint" in chain:
        return _CHECKPOINT, chain["checkpoint"]
    return None


def available(game: Game, seat: int | None) -> bool:
    """Whether ``seat`` may undo now (never a spectator)."""
    return seat is not None and _why_not(game, seat) is None


def target(game: Game, seat: int) -> int:
    """The version whose position an undo by ``seat`` restores (:class:`CannotUndo` if none)."""
    reason = refusal(game, seat)
    if reason is not None:
        raise CannotUndo(reason)
    chain = game.turn.undo
    assert chain is not None  # refusal() found one
    return int(chain["versions"][-1])


def restore(engine: Engine, game: Game, seat: int, earlier: Game) -> tuple[Game, Action, list[Event]]:
    """The undo of ``seat``'s last undoable action of ``game``: ``earlier`` (the game as it was
    at :func:`target`'s version, rebuilt by replay; not kept) counted on from ``game``'s
    version and events, with the public ``undone`` event. Returns the game, the action to
    record and the events."""
    from .context import Ctx

    k = target(game, seat)
    if earlier.version != k:
        raise IllegalAction("seat %(seat)d's undo returns to version %(version)d; the game given is at %(given)d",
                            seat=seat, version=k, given=earlier.version)
    _counted_on(earlier, game)
    ctx = Ctx(engine, earlier)
    ctx.emit("undone", seat, versions=list(range(k + 1, game.version + 1)), restored=k)
    return earlier, Action(UNDO, seat, str(k)), ctx.events


def _counted_on(earlier: Game, game: Game) -> None:
    """``earlier`` (a position of ``game``'s past) made ``game``'s next version: versions and
    events count on, and an undo chain current at ``earlier`` stays current."""
    chain = earlier.turn.undo
    current = isinstance(chain, dict) and chain.get("at") == earlier.version
    earlier.version = game.version + 1
    earlier.events = game.events
    if isinstance(chain, dict) and current:
        earlier.turn.undo = {**chain, "at": earlier.version}


def position(engine: Engine, game: Game) -> str:
    """SHA-256 of the game's position: its whole state, RNG included, but for what only counts
    the moves made (the version, the event count, the undo chain). Undoing an action and
    taking it again gives the position taking it once gives."""
    blob = msgspec.json.decode(engine.dumps(game))
    blob.update(version=0, events=0)
    blob["turn"]["undo"] = None
    return hashlib.sha256(_encode(_sorted(blob))).hexdigest()


def _sorted(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _sorted(obj[k]) for k in sorted(obj)}
    if isinstance(obj, list):
        return [_sorted(v) for v in obj]
    return obj
