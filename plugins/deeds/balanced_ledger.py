"""Balanced Ledger: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
Pays victory points because coins or prestige would move the very balance it measures.
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, ledger_balanced

ID = "balanced_ledger"
DEED = Deed(
    ID, "Balanced Ledger", "your coins and your prestige (before deeds) differ by 3 or less",
    ledger_balanced(3), need=1, reward="vp", amount=4,
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
