"""Lamplighter: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
Counts the lantern slots the wagon really has (a wagon upgrade tile may cover one, p. 19), so
the deed stays reachable with that tile; it competes with shortcuts, travel-die rerolls and the
ruins die.
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, lantern_slots_full

ID = "lamplighter"
DEED = Deed(
    ID, "Lamplighter", "every lantern slot of your wagon holds a lantern",
    lantern_slots_full, need=1, reward="prestige", amount=5,
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
