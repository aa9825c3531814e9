"""Patron of the West: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
The west pays its heroes in prestige, so its patron pays coins: the other side of the final
minimum.
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, region_deliveries

ID = "western_patron"
DEED = Deed(
    ID, "Patron of the West",
    "you have delivered at least 3 commissions or heroes, in any mix, to Windglass and Farglen",
    region_deliveries("west"), need=3, reward="coins", amount=6,
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
