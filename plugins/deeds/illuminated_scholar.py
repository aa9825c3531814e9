"""Illuminated Scholar: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
Each unused illuminated die already scores 1 VP (p. 13); holding the most a wagon may hold (2)
at the end gives up their building activations.
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, unused_illuminated

ID = "illuminated_scholar"
DEED = Deed(
    ID, "Illuminated Scholar", "you have 2 unused illuminated dice",
    unused_illuminated, need=2, reward="vp", amount=3,
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
