"""Collector: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
Goods are worth nothing at the end; keeping one of each type costs storage space and deliveries.
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, good_types

ID = "collector"
DEED = Deed(
    ID, "Collector", "your storage holds a good of every one of the 6 types",
    good_types, need=6, reward="vp", amount=3,
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
