"""Base game steeds: one plugin module each, registered through the darkroad entry-point group."""
