"""Master Courier: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
Commissions are the main source of prestige; five deliveries with only 3 commission slots takes
a steady supply of commissions from early on.
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, commissions_delivered

ID = "master_courier"
DEED = Deed(
    ID, "Master Courier", "you have delivered at least 5 commissions",
    commissions_delivered, need=5, reward="vp", amount=4,
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
