"""The base game's content and components, each a pluggy plugin registered through the
``darkroad`` entry-point group exactly as a fan-made plugin is."""
