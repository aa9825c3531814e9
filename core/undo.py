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

from .actionlog import UNDO as UNDO  # (re-exported: its home before the action log had one)
from .actions import Action
from .errors import CannotUndo, IllegalAction
from .i18n import N_, Text
from .seats import HUMAN

if TYPE_CHECKING:
    from .context import Ctx
    from .engine import Engine
    from .state import Event, Game

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


Probe = tuple[str, list[int], tuple[Any, ...], bytes]
"""What :func:`probe` notes before an action: a checkpoint reason known already (or ``""``),
the RNG state, what is hidden from the acting seat and the automated seats' state."""


def hidden(engine: Engine, game: Game, seat: int) -> tuple[Any, ...]:
    """What ``seat``'s view leaves out (but the RNG), as a value to compare: an action that
    changes it moved something hidden from ``seat``, or showed it. Cheap, as it runs on most
    actions: the face-down decks and the other seats' deeds as list copies (copied and compared
    in C, element by element), the rest (plugin state, other seats' pending tasks) encoded.
    Every sequence in it is a list, whatever its type in the game (a deck a plugin set to a
    tuple), so two values are equal exactly when their contents are.
    :func:`unchanged` compares it with the game as it is, without building it again."""
    b = game.board
    others = []
    for p in game.players:
        if p.seat != seat:
            others.append((p.coins, list(p.deeds), _encode(p.extra) if p.extra else b""))
    return (
        list(b.hero_deck), list(b.companion_deck), list(b.deed_deck),
        list(b.events), list(map(list, b.events.values())),
        list(b.commission_stacks), list(map(list, b.commission_stacks.values())),
        others,
        _hidden_tasks(game, seat),
        _hidden_extra(b.extra),
    )


def _hidden_tasks(game: Game, seat: int) -> list[bytes]:
    out = []
    for t in game.stack:
        if t.data and t.seat != -1 and t.seat != seat:
            out.append(_encode(t.data))
    return out


def _hidden_extra(extra: dict[str, Any]) -> bytes:
    """The board's hidden plugin state (keys starting with ``_``), encoded."""
    if not extra:
        return b""
    pairs = []
    for k, v in extra.items():
        if k[0] == "_":
            pairs.append((k, v))
    return _encode(pairs)


def unchanged(game: Game, seat: int, before: tuple[Any, ...]) -> bool:
    """Whether what is hidden from ``seat`` is still ``before`` (``hidden(engine, game, seat) ==
    before``, as lists), compared part by part with the live game: no copy of the decks, and the
    first difference ends it. ``False`` is only a hint (a deck a plugin set to a tuple holding the
    same cards differs from its list): compare :func:`hidden`'s values to be sure."""
    b = game.board
    events, stacks = b.events, b.commission_stacks
    if (before[0] != b.hero_deck or before[1] != b.companion_deck or before[2] != b.deed_deck
            or before[3] != list(events) or before[4] != list(events.values())
            or before[5] != list(stacks) or before[6] != list(stacks.values())):
        return False
    others = before[7]
    i = 0
    for p in game.players:
        if p.seat != seat:
            if i == len(others):
                return False
            coins, deeds, extra = others[i]
            if p.coins != coins or p.deeds != deeds or (_encode(p.extra) if p.extra else b"") != extra:
                return False
            i += 1
    if i != len(others) or before[8] != _hidden_tasks(game, seat):
        return False
    return bool(before[9] == _hidden_extra(b.extra))


def automated(game: Game) -> bytes:
    """The automated seats' whole state, encoded: it changes when one of them acts."""
    for player in game.players:
        if player.kind != HUMAN:
            return _encode([p for p in game.players if p.kind != HUMAN])
    return b""


def probe(engine: Engine, game: Game, action: Action, seats: Sequence[int], own_turn: bool) -> Probe:
    """Note, before ``action`` resolves, what :func:`track` compares afterwards. ``seats``:
    the seats the answered decision waits for; ``own_turn``: whether the game is in a phase of
    the active seat's own turn."""
    if action.seat != game.active:
        return "other-seat", [], (), b""
    if len(seats) != 1:
        return "simultaneous", [], (), b""
    if not own_turn:
        return "not-your-turn", [], (), b""
    return "", list(game.rng), hidden(engine, game, action.seat), automated(game)


def track(engine: Engine, game: Game, action: Action, noted: Probe, ctx: Ctx) -> None:
    """After ``action`` resolved (``game.version`` counted): extend the acting seat's undo
    chain, or mark the action a checkpoint."""
    turn = game.turn
    if game.finished:
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
    if automated(game) != noted[3]:
        return "automated"
    if not unchanged(game, seat, noted[2]) and hidden(engine, game, seat) != noted[2]:
        return "revealed"
    if game.active != seat or engine.awaiting(game) != [seat]:
        return "passed"
    return ""


def refusal(game: Game, seat: int) -> str | None:
    """Why ``seat`` cannot undo now (a :class:`~darkroad.core.i18n.Text`: English, translated
    where it is shown), or ``None`` when it can."""
    if game.finished:
        return Text("The game is over.")
    chain = game.turn.undo
    if not isinstance(chain, dict) or chain.get("at") != game.version:
        return Text("There is nothing to undo: the game's last move is not an action of yours this turn.")
    if chain.get("seat") != seat:
        return Text("The game's last move was seat %(seat)s's, not yours: only your own actions can be undone.",
                    seat=chain.get("seat"))
    if "checkpoint" in chain:
        why = REASONS.get(chain["checkpoint"])
        return Text("Your last action is a checkpoint and cannot be undone: %(why)s.",
                    why=chain["checkpoint"] if why is None else Text(why))
    return None


def available(game: Game, seat: int | None) -> bool:
    """Whether ``seat`` may undo now (never a spectator)."""
    return seat is not None and refusal(game, seat) is None


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
