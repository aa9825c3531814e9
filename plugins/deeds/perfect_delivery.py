"""Perfect Delivery: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
Full deliveries already pay 6 prestige or more, so the deed pays coins. The merchant's log keeps
the commission, not the goods it received, so full deliveries are counted as they happen (deeds/history.py).
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import FULL_DELIVERIES, Deed, tracked

ID = "perfect_delivery"
DEED = Deed(
    ID, "Perfect Delivery", "you have delivered at least 2 commissions with all 3 requested goods",
    tracked(FULL_DELIVERIES), need=2, reward="coins", amount=6,
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
