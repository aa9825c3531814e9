"""The action log: the records a game's history is made of, in the order they made its versions.

Every version of a game after its creation is made by one record of its log: a seat's answer
(an :class:`~darkroad.core.actions.Action`), an answer withdrawn after a plugin failed to
resolve it (:data:`WITHDRAWN`), an undo (:data:`UNDO`).
"""

from __future__ import annotations

WITHDRAWN = "withdrawn"
"""The type of the action :meth:`Engine.withdraw` records: ``option`` is ``"<type>:<option>"``
of the withdrawn answer."""
UNDO = "undo"
"""The type of the action an undo records in the action list; ``option`` is the version
whose position it restores."""
