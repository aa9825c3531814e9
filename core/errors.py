"""Typed errors of the rules core. Each carries a stable ``code`` (the API's problem ``type``)."""

from __future__ import annotations


class DarkroadError(Exception):
    """Base of every error the core raises on purpose."""

    code = "darkroad-error"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class BadConfig(DarkroadError):
    """A game cannot be created from this configuration."""

    code = "bad-config"


class UnknownComponent(BadConfig):
    """The configuration names a component no loaded plugin provides."""

    code = "unknown-component"


class BadAction(DarkroadError):
    """The submitted action is not a well-formed action object."""

    code = "bad-action"


class IllegalAction(DarkroadError):
    """The action is well-formed but not a legal answer to the pending decision."""

    code = "illegal-action"


class NotYourDecision(IllegalAction):
    """The action's seat is not one the game is waiting for."""

    code = "not-your-decision"


class GameFinished(IllegalAction):
    """The game is over; no action can be applied."""

    code = "game-finished"


class CannotUndo(IllegalAction):
    """The seat has nothing it may undo now: its last action is a checkpoint, the game's last
    move is not its action, or there is nothing (the reason says which; core/undo.py)."""

    code = "cannot-undo"


class PluginError(DarkroadError):
    """A plugin raised, returned a wrong type or broke an invariant."""

    code = "plugin-error"

    def __init__(self, reason: str, plugin: str = "") -> None:
        super().__init__(reason)
        self.plugin = plugin


class MissingPlugin(DarkroadError):
    """A stored game needs a plugin that is not installed."""

    code = "missing-plugin"
