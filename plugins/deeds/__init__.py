"""Base game deeds: one plugin module each, registered through the darkroad entry-point group."""
