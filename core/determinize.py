"""Determinization: a copy of a game with everything hidden from one seat drawn again.

A bot that searches (rollouts, information-set Monte Carlo tree search) must not read what
its seat cannot see: :func:`determinize` gives it a game it may search instead, one of the
games the seat cannot tell from the real one. What is hidden from a seat is what its view
(:mod:`view`) leaves out; each is drawn again at random:

* **Other seats' deeds** (rulebook p. 13: deeds are kept secret until final scoring) and the
  **deed deck**: the deeds the seat cannot see (the other seats', the deck's, and those an
  opponent is choosing between in the advanced setup) are shuffled together and dealt back,
  each seat keeping its number of deeds and the deck its size.
* **Other seats' coins** (kept behind the player screen): each is drawn uniformly from 3
  below to 3 above the seat's own coins (at least 0), a prior of a symmetric game, not a
  reading of the real figure.
* **The order of every face-down deck**: the hero deck, the companion deck, the event decks
  of both routes, and each commission stack below its (visible) top. Their contents are
  public (every card that left them was seen), so each deck keeps its cards.
* **Seat kinds' hidden state** (the Private Concern's deck of action cards):
  :meth:`SeatKind.redraw_hidden`.
* **The RNG** (every future die roll and shuffle).

Limits: the state does not record which cards a seat saw go to the bottom of a deck (a
discarded hero, commission or starting deed), so the samples forget that too: they are
consistent with the seat's view, not with everything its event log told it.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from . import rng as game_rng
from .seats import HUMAN

if TYPE_CHECKING:
    from .engine import Engine
    from .state import Game

COIN_SPREAD = 3
"""Other seats' coins are drawn from the seat's own coins +- this much."""
STARTING_DEED_CHOICE = "choose_starting_deed"


def determinize(engine: Engine, game: Game, seat: int, rng: random.Random) -> Game:
    """A copy of ``game`` with everything hidden from ``seat`` drawn again with ``rng``
    (``game`` is not changed). ``seat``'s view of the copy equals its view of ``game``, and
    the copy depends only on what ``seat`` can see and on ``rng``: two games ``seat`` cannot
    tell apart give the same sample from the same ``rng`` state."""
    g = engine.copy(game)
    if g.finished:
        return g  # everything is revealed at the end
    b = g.board
    others = [p for p in g.players if p.seat != seat]
    # Deeds: every deed the seat cannot see, dealt back to where hidden deeds are.
    choosing = [t for t in g.stack if t.kind == STARTING_DEED_CHOICE and t.seat != seat]
    # Sorted before the shuffle: the sample depends on what the seat knows and on rng only,
    # not on where the hidden cards really are.
    unseen = sorted([d for p in others for d in p.deeds] + list(b.deed_deck)
                    + [d for t in choosing for d in t.data["deeds"]])
    rng.shuffle(unseen)
    for p in others:
        n = len(p.deeds)
        p.deeds, unseen = unseen[:n], unseen[n:]
    for t in choosing:
        n = len(t.data["deeds"])
        t.data = {**t.data, "deeds": unseen[:n]}
        unseen = unseen[n:]
    b.deed_deck = unseen
    # Coins behind the other screens.
    own = g.players[seat].coins
    for p in others:
        p.coins = rng.randint(max(0, own - COIN_SPREAD), own + COIN_SPREAD)
    # The order of the face-down decks.
    for deck in (b.hero_deck, b.companion_deck, *b.events.values()):
        deck.sort()
        rng.shuffle(deck)
    for stack in b.commission_stacks.values():
        below = sorted(stack[1:])
        rng.shuffle(below)
        stack[1:] = below
    for p in others:
        if p.kind != HUMAN and p.kind in engine.seat_kinds:
            engine.seat_kinds[p.kind].redraw_hidden(p, rng)
    # The RNG: what the dice and shuffles to come will give.
    g.rng = game_rng.seed_state(rng.getrandbits(64))
    return g
