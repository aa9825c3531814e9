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
    engine.pack(game)                            # MessagePack, also read by loads

Everything a plugin uses is exported here (``__all__``); a plugin imports nothing else
from ``darkroad.core`` (a test enforces it for the base game's plugins), and its tests
use ``darkroad.testing``. docs/plugins.md ("What a plugin imports") lists the names.
"""

from . import errors, i18n, wording
from .actions import Action
from .bots import Bot, BotError, InfoState
from .content import Component, Content, ContentError
from .context import EFFECT_RESOURCE, Ctx
from .engine import Engine
from .errors import (
    BadAction,
    BadConfig,
    DarkroadError,
    GameFinished,
    IllegalAction,
    MissingPlugin,
    NotYourDecision,
    PluginError,
    UnknownComponent,
)
from .goods import good_type, is_upgraded, upgraded
from .goods import label as good_label
from .hooks import is_bool, is_int, is_int_list, is_str_list
from .plugins import hookimpl, make_plugin_manager
from .rulebook.activate import adjacent as adjacent_districts
from .rulebook.activate import connected_building
from .rulebook.caravan import declare as declare_caravan
from .rulebook.caravan import shortcut_cost
from .rulebook.dark_market import DARK_MARKET_SPACES
from .rulebook.deliveries import PRESTIGE_BY_COUNT as COMMISSION_PRESTIGE
from .rulebook.deliveries import deliver_commission, deliver_hero
from .rulebook.deliveries import prestige_for as commission_prestige
from .rulebook.effects import VERBS as EFFECT_VERBS
from .rulebook.effects import describe as describe_effect
from .rulebook.effects import expand as expand_effect
from .rulebook.effects import resolve as resolve_effect
from .rulebook.good_fortune import upgrade_limit
from .rulebook.overflow import hero_bonus
from .rulebook.plan import move_illuminated
from .rulebook.turn import ROUNDS
from .rulebook.yurgs_excursions import RUINS_SPACES, roll_ruins_die
from .seats import HUMAN, TIEBREAKERS, SeatKind, ViewBlock
from .state import (
    Board,
    Caravan,
    CompanionCard,
    Event,
    Game,
    GameConfig,
    Player,
    PoolDie,
    ScoreLine,
    Task,
    Turn,
)
from .steps import Choice, Option, Step
from .view import EventType

__all__ = [
    "COMMISSION_PRESTIGE",
    "DARK_MARKET_SPACES",
    "EFFECT_RESOURCE",
    "EFFECT_VERBS",
    "HUMAN",
    "ROUNDS",
    "RUINS_SPACES",
    "TIEBREAKERS",
    "Action",
    "BadAction",
    "BadConfig",
    "Board",
    "Bot",
    "BotError",
    "Caravan",
    "Choice",
    "CompanionCard",
    "Component",
    "Content",
    "ContentError",
    "Ctx",
    "DarkroadError",
    "Engine",
    "Event",
    "EventType",
    "Game",
    "GameConfig",
    "GameFinished",
    "IllegalAction",
    "InfoState",
    "MissingPlugin",
    "NotYourDecision",
    "Option",
    "Player",
    "PluginError",
    "PoolDie",
    "ScoreLine",
    "SeatKind",
    "Step",
    "Task",
    "Turn",
    "UnknownComponent",
    "ViewBlock",
    "adjacent_districts",
    "commission_prestige",
    "connected_building",
    "declare_caravan",
    "deliver_commission",
    "deliver_hero",
    "describe_effect",
    "errors",
    "i18n",
    "wording",
    "expand_effect",
    "good_label",
    "hero_bonus",
    "good_type",
    "hookimpl",
    "is_bool",
    "is_int",
    "is_int_list",
    "is_str_list",
    "is_upgraded",
    "make_plugin_manager",
    "move_illuminated",
    "resolve_effect",
    "roll_ruins_die",
    "shortcut_cost",
    "upgrade_limit",
    "upgraded",
]
