"""Friend of Companions: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
A companion joins the leader of each caravan (p. 11); stray companions count while you hold
them.
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, companion_cards

ID = "companion_friend"
DEED = Deed(
    ID, "Friend of Companions", "you have at least 3 companion cards",
    companion_cards, need=3, reward="prestige", amount=5,
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
