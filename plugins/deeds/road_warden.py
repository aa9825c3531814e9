"""Road Warden: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
A sliding deed: every caravan beyond the third adds 1 VP, up to 5 VP. The game keeps no record
of past caravans, so the caravans a player leads are counted as they set out from Yurg's
Excursions (deeds/history.py).
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import CARAVANS_LED, Deed, tracked

ID = "road_warden"
DEED = Deed(
    ID, "Road Warden", "you have led at least 3 caravans",
    tracked(CARAVANS_LED), need=3, reward="vp", amount=3, per_extra=1, most=5, unit="caravan",
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
