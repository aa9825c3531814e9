"""Base game buildings: one plugin module each, registered through the darkroad entry-point group."""
