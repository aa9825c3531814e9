"""The base game's bots (computer players), each a plugin contributing one :class:`Bot`
through ``darkroad_bots``, registered through the ``darkroad`` entry points exactly as a
fan-made bot is."""
