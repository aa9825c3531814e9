"""Actions: the answers a seat gives to the decision the game is waiting for.

Every action is one ``Action``: the decision ``type`` it answers, the acting ``seat``
and the chosen ``option`` (a short machine-readable id such as ``"slot2:die1"`` or
``"good:potion"``). ``legal_actions`` enumerates them completely; a client picks one
and submits it unchanged (``label`` is a human-readable text and is ignored when
matching). Large choices are split into small sequential decisions, so no
enumeration explodes.
"""

from __future__ import annotations

import msgspec

MAX_TYPE_LENGTH = 100
MAX_OPTION_LENGTH = 200
MAX_LABEL_LENGTH = 500
"""Longest ``type``, ``option`` and ``label`` an action may have: clients' actions beyond
them are refused (``BadAction``), plugins' options beyond them are a ``PluginError``."""
MAX_DETAILS_LENGTH = 1000
"""Longest ``details`` a listed action has (what the answer gives, in words: the engine's
:meth:`~darkroad.core.engine.Engine.details`); a client may send it back, and it is ignored."""


class Action(msgspec.Struct, frozen=True):
    """An answer: the decision ``type`` it answers, the acting ``seat``, the chosen ``option``
    and its ``label`` (words for a reader; ignored when matching an answer: :meth:`key`).

    Immutable and hashable; equal to another ``Action`` of the same four fields; encoded (JSON,
    MessagePack) as the object ``{"type", "seat", "option", "label"}``. A ``msgspec.Struct``,
    whose ``__init__`` is C: ``legal_actions`` makes one per option at every decision, and an
    attrs frozen class's ``__init__`` (each field set through ``object.__setattr__``) cost six
    times as much. ``msgspec.structs.replace`` makes a changed copy (``attrs.evolve`` did)."""

    type: str
    seat: int
    option: str
    label: str = ""

    def key(self) -> tuple[str, int, str]:
        """What identifies the answer: ``(type, seat, option)``, the label aside."""
        return (self.type, self.seat, self.option)
