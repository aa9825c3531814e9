"""Renowned: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
Famous merchants earn patrons: the coins lift the side of the final minimum that high prestige
leaves behind. Prestige is counted before any deed is added, so the order deeds are revealed in
never matters.
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, prestige

ID = "renowned"
DEED = Deed(
    ID, "Renowned", "you have at least 20 prestige (before deeds)",
    prestige, need=20, reward="coins", amount=5,
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
