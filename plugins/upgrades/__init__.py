"""Base game upgrades: one plugin module each, registered through the darkroad entry-point group."""
