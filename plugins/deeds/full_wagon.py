"""Full Wagon: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
Heroes still on the wagon at the end forgo their town rewards; the coins make up for them.
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, heroes_on_wagon

ID = "full_wagon"
DEED = Deed(
    ID, "Full Wagon", "you have at least 3 heroes on your wagon",
    heroes_on_wagon, need=3, reward="coins", amount=6,
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
