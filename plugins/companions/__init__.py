"""Base game companions: one plugin module each, registered through the darkroad entry-point group."""
