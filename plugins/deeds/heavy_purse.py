"""Heavy Purse: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
Rich merchants earn renown: the prestige lifts the side of the final minimum that a full purse
leaves behind. Coins are counted before any deed is added, so the order deeds are revealed in
never matters.
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, coins

ID = "heavy_purse"
DEED = Deed(
    ID, "Heavy Purse", "you have at least 20 coins (before deeds)",
    coins, need=20, reward="prestige", amount=5,
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
