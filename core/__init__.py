"""darkroad.core: the rules core of Merchants of the Dark Road.

Public API::

    from darkroad.core import Engine, GameConfig, Action
    engine = Engine.load()                       # plugins from the "darkroad" entry points
    game, events = engine.create(GameConfig(players=3, seed=1))
    engine.awaiting(game)                        # seats the game waits for
    engine.legal_actions(game, seat)             # every legal answer, as Action objects
    engine.apply(game, action)                   # mutate + events; illegal -> IllegalAction
    engine.view(game, seat_or_None)              # redacted JSON-able view
    engine.dumps(game) / engine.loads(blob)      # compact JSON
"""

from . import errors
from .actions import Action
from .content import Component, Content
from .context import Ctx
from .engine import Engine
from .plugins import hookimpl, make_plugin_manager
from .state import Event, Game, GameConfig, Player, ScoreLine, Task
from .steps import Choice, Step

__all__ = [
    "Action",
    "Choice",
    "Component",
    "Content",
    "Ctx",
    "Engine",
    "Event",
    "Game",
    "GameConfig",
    "Player",
    "ScoreLine",
    "Step",
    "Task",
    "errors",
    "hookimpl",
    "make_plugin_manager",
]
