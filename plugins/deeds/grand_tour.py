"""Grand Tour: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
A caravan reaches one region (its leader one declared town), so four towns take deliveries on
caravans to at least two regions plus the final travel.
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, towns_delivered_to

ID = "grand_tour"
DEED = Deed(
    ID, "Grand Tour", "you have delivered commissions or heroes to at least 4 different towns",
    towns_delivered_to, need=4, reward="vp", amount=4,
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
