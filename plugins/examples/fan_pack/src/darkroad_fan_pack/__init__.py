"""darkroad-fan-pack: an example fan pack for Merchants of the Dark Road.

Three components, one plugin module each (registered under the ``darkroad``
entry-point group in ``pyproject.toml``):

* :mod:`.lamplighters_guild`, a building: gain 1 lantern, then light street lamps,
  2 prestige for each lantern spent (at most 2). Shows a decision step of its own.
* :mod:`.frost_orchard`, a building: a good valued $1, plus 1 coin and 1 prestige per
  frost-fruit ripened since the last harvest. Shows plugin state kept in the game (``darkroad_setup``).
* :mod:`.snow_owl`, a loyal companion: look at the top 2 heroes and gain one / a lasting
  extra lantern slot. Shows companion abilities and a capacity hook.

The modules import only :mod:`darkroad.core` (and the Snow Owl the companion kit,
``darkroad.plugins.companions.kit``, as the base game's companions do); the tests only
:mod:`darkroad.testing`.
"""

from importlib.resources import files

from darkroad.core import i18n

__version__ = "0.1.0"

MESSAGES = i18n.Domain("darkroad_fan_pack", files(__name__) / "locale", package=__name__)
"""The pack's message catalog (``locale/<language>/LC_MESSAGES/darkroad_fan_pack.po``, compiled
to ``.mo``): its components' names and texts and its prompts, in every language it speaks."""
