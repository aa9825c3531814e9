"""Purveyor of Fine Goods: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
A sliding deed: upgraded goods kept to the end forgo their extra coin and quartz at the inn and
their extra prestige on delivery.
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, upgraded_goods

ID = "fine_goods"
DEED = Deed(
    ID, "Purveyor of Fine Goods", "you have at least 3 upgraded goods in your storage",
    upgraded_goods, need=3, reward="coins", amount=4, per_extra=2, most=8, unit="upgraded good",
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
