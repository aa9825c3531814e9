"""The bot interface: a computer player a plugin contributes with ``darkroad_bots``.

The core plays no bot itself. The base game's ``random`` and ``greedy`` bots are plugins
(``plugins/bots/``) registered through the entry points like any fan bot; ``darkroad
simulate`` and ``scripts/balance.py`` seat whatever bots are installed, and a server may
seat them in games (one bot object serves every game and seat of the process).

A bot is a function of the game's state: :meth:`Bot.choose` gets the game, the seat and
its legal actions and returns one of them. It keeps nothing between calls (any process
may make the next call) and takes its randomness from :meth:`Bot.random`, seeded by the
game's state, so the same position always gives the same answer and a game replays
identically.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from .actions import Action
    from .engine import Engine
    from .state import Game


class Bot:
    """A computer player. Subclass it, set ``id`` (unique among the installed bots),
    ``name`` and ``text``, implement :meth:`choose`, and return an instance from
    ``darkroad_bots``."""

    id: ClassVar[str] = ""
    name: ClassVar[str] = ""
    text: ClassVar[str] = ""
    """One sentence: how the bot plays."""
    options: ClassVar[Mapping[str, str]] = {}
    """The settings this bot takes (name -> what it sets), for :meth:`configured`: the
    search bot's ``think_time``, for one."""

    def configured(self, **options: Any) -> Bot:
        """This bot with ``options`` set (names from :attr:`options`): a new bot object, or
        this one when nothing is set. An unknown name raises :class:`ValueError`."""
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise ValueError(f"bot {self.id!r} takes no option(s) {unknown}; its options: {sorted(self.options)}")
        return self

    def choose(self, engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> Action:
        """One of ``legal`` (never empty: ``engine.legal_actions(game, seat)``) for ``seat``.

        Must not change ``game`` (try actions on ``engine.copy(game)``), must not keep
        state between calls, and must use :meth:`random` for any randomness.
        """
        raise NotImplementedError

    def random(self, game: Game, seat: int) -> random.Random:
        """A random generator seeded by the bot's id, the game's seed, its version (how
        many actions were applied) and ``seat``: the same at the same point of the game."""
        return random.Random(f"{self.id}:{game.config.seed}:{game.version}:{seat}")
