"""What the Private Concern adds to views, documented for the API's schema (OpenAPI): its
seat's ``concern`` block (:meth:`PrivateConcern.public`) and the caravan's
``concern_fortunes``. A fan seat kind declares its own the same way
(:attr:`SeatKind.view_blocks`; docs/plugins.md, "Seat kinds")."""

from __future__ import annotations

from darkroad.core import ViewBlock

from . import rules

COUNT = {"type": "integer", "minimum": 0}
STRS = {"type": "array", "items": {"type": "string"}}

CONCERN_VIEW = {
    "title": "ConcernView",
    "description": "The Private Concern's public state.",
    "type": "object",
    "properties": {
        "goods": {**COUNT, "description": "The goods it holds: a count (its goods have no tiles)."},
        "deck": {**COUNT, "description": "Cards left in its deck of action cards (their order is secret)."},
        "discard": {**STRS, "description": "Its discard pile: the action cards drawn since its deck was last "
                                           "shuffled, in the order drawn."},
    },
    "required": ["goods", "deck", "discard"],
}
"""The JSON Schema of :func:`rules.public`."""

FORTUNES = rules.FORTUNES_KEY
"""The caravan's key naming the good fortunes its action card lets it take (:mod:`.rules`)."""

VIEW_BLOCKS = (
    ViewBlock(rules.STATE, CONCERN_VIEW, "The Private Concern's public state (its seat only): goods held, cards "
                                         "left in its deck, its discard pile."),
    ViewBlock(FORTUNES, STRS, "The good fortunes the Private Concern's card lets it take.", where="caravan"),
)
