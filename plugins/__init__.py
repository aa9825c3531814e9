"""The base game's content and components, each a pluggy plugin registered through the
``darkroad`` entry-point group exactly as a fan-made plugin is."""

from importlib.resources import files

from darkroad.core import i18n

MESSAGES = i18n.Domain("darkroad_basegame", files(__name__) / "locale", package=__name__)
"""The base game's message catalog: its components' names and texts, its card data, the words of
its plugins (docs/plugins.md, "Translating a plugin")."""
