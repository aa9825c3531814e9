"""Quartz Hoarder: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
Blazing quartz is otherwise worth nothing at the end; the deed competes with companion gifts for
it and with horseshoes for the inventory slots. Counts the slots the wagon really has (a wagon
upgrade tile may cover one, p. 19), like Lamplighter.
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, inventory_full_of_quartz

ID = "quartz_hoarder"
DEED = Deed(
    ID, "Quartz Hoarder", "every inventory slot of your wagon holds a blazing quartz",
    inventory_full_of_quartz, need=1, reward="prestige", amount=5,
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
