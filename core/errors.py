"""Typed errors of the rules core. Each carries a stable ``code`` (the API's problem ``type``).

An error's reason is a whole English sentence with named placeholders, its values given apart
(``IllegalAction("seat %(seat)d has no decision to make now", seat=2)``): ``reason`` is the English
text (logs, the CLI), :meth:`DarkroadError.translated` the text in the language of the call (a
problem's ``detail``), from the catalogs, whose tooling extracts every error class's message
(``scripts/i18n.py``'s ``KEYWORDS``). Never an f-string: it could not be translated.
"""

from __future__ import annotations

from typing import Any

from . import i18n


class DarkroadError(Exception):
    """Base of every error the core raises on purpose: ``message`` (with ``%(name)s``
    placeholders) and the ``params`` filling them."""

    code = "darkroad-error"

    def __init__(self, message: str, /, **params: Any) -> None:
        if isinstance(message, i18n.Text) and not params:  # a reason made elsewhere (undo's refusal)
            params = message.params
            message = message.message
        self.message = message
        self.params = params
        self.reason = i18n.fill(message, params)
        """The reason in English."""
        super().__init__(self.reason)

    def translated(self) -> str:
        """The reason in the language of the call (English where no catalog translates it)."""
        return i18n.translated(self.message, **self.params)


class BadConfig(DarkroadError):
    """A game cannot be created from this configuration."""

    code = "bad-config"


class UnknownComponent(BadConfig):
    """The configuration names a component no loaded plugin provides."""

    code = "unknown-component"


class UnknownBot(BadConfig):
    """A game's setup names a bot no loaded plugin provides (:func:`darkroad.core.game_setup.bot_problems`)."""

    code = "unknown-bot"


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

    def __init__(self, message: str, /, plugin: str = "", **params: Any) -> None:
        super().__init__(message, **params)
        self.plugin = plugin


class MissingPlugin(DarkroadError):
    """A stored game needs a plugin that is not installed."""

    code = "missing-plugin"
