"""The base game's rulebook: essential plugins, one module per part, in the rulebook's order.

As pytest's own behaviour is made of plugins (its ``essential_plugins``), the rules are
plugins, registered before every other one through the same hooks any plugin uses (each
module's ``darkroad_steps`` contributes its steps). They cannot be blocked; a fan plugin
clashing with one is told its name, as with any plugin; and a seat kind overrides only what
differs from them, with its own implementation of a rule point's ``firstresult`` hook.

Each module holds the steps (and the rule points) of one part of the published rulebook,
quoting it where a rule is subtle (docs/content.md has the project's own content decisions):

=====================  ===============================================================
``setup``              "Setting up the Game" and "Player Setup" (pp. 4–5), with the
                       drafting variant (p. 14) and the advanced deeds (p. 5)
``turn``               "Playing the Game" (p. 6): a turn, the rounds, the game's end (p. 13)
``plan``               "Step 1: Plan" (p. 6): the locked slots and their special actions
``move``               "Step 2: Move" (p. 7), with the horseshoe
``activate``           "Step 3: Act" (p. 7): the districts and the connected building
``rest``               "Step 4: Rest" (p. 7): the upkeep of the kingdom board
``great_bazaar``       "The Great Bazaar" (p. 8)
``queens_commissions`` "The Queen's Commissions" (p. 8)
``dark_market``        "The Dark Market" (p. 9)
``ringway_inn``        "The Ringway Inn" (p. 10)
``yurgs_excursions``   "Yurg's Excursions" (p. 11): the Ruins of Yin, or a caravan
``caravan``            "Traveling to the Outlying Towns", steps 1–2 (pp. 11–12)
``deliveries``         step 3, "Visit Towns" (p. 12), and the final travel (p. 13)
``good_fortune``       step 4, "Receive Good Fortune" (p. 13), and wagon upgrades (p. 19)
``effects``            the rewards and penalties printed on cards, dice and tiles
``overflow``           "Wagon Overview" (p. 18): what happens to a gain beyond a limit
``scoring``            "Final Scoring" (p. 13) and the tie-breakers
=====================  ===============================================================
"""

from __future__ import annotations

PARTS = ("setup", "turn", "plan", "move", "activate", "rest", "great_bazaar", "queens_commissions", "dark_market",
         "ringway_inn", "yurgs_excursions", "caravan", "deliveries", "good_fortune", "effects", "overflow", "scoring")
"""The rulebook's modules, in the rulebook's order: the essential plugins, registered before
any other as ``rulebook.<part>`` (:func:`~darkroad.core.plugins.make_plugin_manager`)."""
