"""The events the Private Concern emits, documented for the event log's schema (OpenAPI)."""

from __future__ import annotations

from typing import Any

from darkroad.core import EventType

STR, INT, BOOL = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}
NSTR, NINT = {"type": ["string", "null"]}, {"type": ["integer", "null"]}
SEAT = {"type": "integer", "minimum": 0, "maximum": 3}


def _d(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {**schema, "description": description}


EVENTS: dict[str, EventType] = {
    "companion_discarded": EventType("The Private Concern discarded the companion it took.", {
        "card": STR, "travel_die": _d(BOOL, "The card carried the extra travel die.")}),
    "companion_returned": EventType("The Private Concern returned a companion card.", {"card": STR}),
    "concern_action": EventType(
        "The Private Concern resolved a district action of its card (all null: none applied).", {
            "card": STR, "index": _d(NINT, "The action's position on the card."), "action": NSTR,
            "district": NSTR}),
    "concern_card": EventType("The Private Concern drew an action card.", {"card": STR, "name": STR}),
    "concern_choice": EventType("A player made a choice for the Private Concern.", {
        "concern": _d(SEAT, "The Private Concern's seat."), "what": STR, "option": STR}),
    "concern_deck_shuffled": EventType("The Private Concern's deck was reshuffled.", {"cards": INT}),
    "concern_sold": EventType("The Private Concern sold goods to a hero at the Ringway Inn.", {
        "hero": STR, "goods_count": INT, "coins": INT}),
    "illuminated_returned": EventType("The Private Concern returned an illuminated die."),
    "solo_upgrade": EventType("The Private Concern took a wagon upgrade.", {"upgrade": STR}),
}
"""Event type -> what it means and its ``data`` (``darkroad_event_types``)."""
