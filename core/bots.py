"""The bot interface: a computer player a plugin contributes with ``darkroad_bots``.

The core plays no bot itself. The base game's ``random``, ``greedy`` and ``search`` bots are
plugins (``plugins/bots/``) registered through the entry points like any fan bot; ``darkroad
simulate``, ``darkroad arena`` and the server's bot workers seat whatever bots are installed
(one bot object serves every game and seat of a process).

**A bot knows what its seat knows, by construction.** There is one way to ask a bot for a
move, :meth:`Engine.bot_choice` (:func:`bot_choice` here): it hands the bot an
:class:`InfoState`, the seat's information state, never the real game:

* the seat's view (:attr:`InfoState.view`: what the API would show that seat);
* its legal actions (:attr:`InfoState.legal`);
* games consistent with that view (:meth:`InfoState.sample`: :meth:`Engine.determinize`, the
  other seats' deeds and coins, the order of every face-down deck and the dice to come drawn
  again), to try actions on;
* the bot's own seeded randomness (:attr:`InfoState.rng`).

So two games the seat cannot tell apart get the same answer: no bot can peek at the next
roll or at an opponent's deeds, whether its author meant to or not (Board Game Arena's bots
and OpenSpiel's information-state bots see only what a player sees).

A bot implements :meth:`Bot.decide`. A bot written for the first interface,
``choose(engine, game, seat, legal)``, keeps working with a :class:`DeprecationWarning`; it
is handed a determinized sample in place of the real game, so it cannot peek either.

A bot keeps nothing between calls (any process may make the next call) and takes its
randomness from :attr:`InfoState.rng`, seeded by the bot's id and the position, so the same
position always gives the same answer and a game replays identically.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from .actions import Action
from .errors import IllegalAction, PluginError

if TYPE_CHECKING:
    from .engine import Engine
    from .state import Game


class BotError(PluginError):
    """A bot answered something that is not one of its seat's legal actions, or answered
    nothing."""

    code = "bot-error"


class InfoState:
    """What a seat knows when its bot is asked for a move: the seat's view, its legal
    actions, samples of the games consistent with that view, and the bot's own seeded
    randomness. Built by :meth:`Engine.bot_choice`; a bot reads it and never changes it.

    The real game is not among its attributes: :meth:`sample` draws games from what the seat
    sees (two games the seat cannot tell apart give the same samples from the same ``rng``).
    The view and the randomness are worked out when first read: a bot that needs only its
    legal actions pays for nothing else.
    """

    __slots__ = ("_draw", "_rng", "_rng_seed", "_view", "_view_of", "engine", "legal", "seat")

    def __init__(self, engine: Engine, seat: int, legal: Sequence[Action], rng_seed: str,
                 draw: Callable[[random.Random], Game], view: Callable[[], dict[str, Any]]) -> None:
        self.engine = engine
        """The engine: its content, and what a bot applies actions to samples with."""
        self.seat = seat
        """The seat the bot plays."""
        self.legal: tuple[Action, ...] = tuple(legal)
        """The seat's legal actions (never empty); the answer is one of them."""
        self._draw = draw
        self._view_of = view
        self._view: dict[str, Any] | None = None
        self._rng_seed = rng_seed
        self._rng: random.Random | None = None

    @property
    def view(self) -> dict[str, Any]:
        """The seat's view of the game (:meth:`Engine.view`): everything the seat may see."""
        if self._view is None:
            self._view = self._view_of()
        return self._view

    @property
    def rng(self) -> random.Random:
        """The bot's own random generator, seeded by the bot's id, the game's seed, its
        version (how many actions were applied) and the seat: the same at the same point of
        the game, so a game replays identically. :meth:`sample` draws from it by default."""
        if self._rng is None:
            self._rng = random.Random(self._rng_seed)
        return self._rng

    def sample(self, rng: random.Random | None = None) -> Game:
        """A game the seat cannot tell from the real one (:meth:`Engine.determinize`), drawn
        with ``rng`` (default: :attr:`rng`). A new game each call: try actions on it freely
        (``engine.apply(sample, action, track_undo=False)``), it is nobody else's."""
        return self._draw(self.rng if rng is None else rng)

    def samples(self, n: int, rng: random.Random | None = None) -> list[Game]:
        """``n`` games drawn by :meth:`sample`."""
        return [self.sample(rng) for _ in range(n)]


class Bot:
    """A computer player. Subclass it, set ``id`` (unique among the installed bots),
    ``name`` and ``text``, implement :meth:`decide`, and return an instance from
    ``darkroad_bots``. Ask it for a move with :meth:`Engine.bot_choice`."""

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

    def decide(self, state: InfoState) -> Action:
        """One of ``state.legal`` for ``state.seat``, from what the seat knows (``state``).

        Must not keep state between calls, and must use ``state.rng`` (or samples drawn with
        it) for any randomness. Try actions on ``state.sample()``: each is a game of its own.
        """
        raise NotImplementedError(f"bot {self.id!r} implements neither decide(state) nor choose(...)")

    def choose(self, engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> Action:
        """The first interface, deprecated: implement :meth:`decide`, and ask a bot with
        :meth:`Engine.bot_choice`.

        A bot that still overrides this is handed a game drawn from what its seat sees (a
        determinized sample), never the real game. Called on a bot that implements
        :meth:`decide`, it warns and asks the bot through :meth:`Engine.bot_choice`."""
        warnings.warn("Bot.choose(engine, game, seat, legal) is deprecated: ask a bot with "
                      "engine.bot_choice(game, seat, bot)", DeprecationWarning, stacklevel=2)
        return bot_choice(engine, game, seat, self)

    def random(self, game: Game, seat: int) -> random.Random:
        """A random generator seeded by the bot's id, the game's seed, its version (how
        many actions were applied) and ``seat``: the same at the same point of the game
        (:attr:`InfoState.rng` is this generator)."""
        return random.Random(rng_seed(self, game, seat))


def rng_seed(bot: Bot, game: Game, seat: int) -> str:
    """The seed of ``bot``'s randomness for ``seat`` at this point of ``game``."""
    return f"{bot.id}:{game.config.seed}:{game.version}:{seat}"


def is_legacy(bot: Bot) -> bool:
    """Whether ``bot`` is written for the deprecated ``choose(engine, game, seat, legal)``
    interface (it overrides :meth:`Bot.choose` and not :meth:`Bot.decide`)."""
    cls = type(bot)
    return cls.choose is not Bot.choose and cls.decide is Bot.decide


def info_state(engine: Engine, game: Game, seat: int, bot: Bot, legal: Sequence[Action]) -> InfoState:
    """``seat``'s information state in ``game`` for ``bot`` (see :class:`InfoState`)."""

    def draw(rng: random.Random) -> Game:
        return engine.determinize(game, seat, rng)

    def view() -> dict[str, Any]:
        return engine.view(game, seat)

    return InfoState(engine, seat, legal, rng_seed(bot, game, seat), draw, view)


def bot_choice(engine: Engine, game: Game, seat: int, bot: Bot) -> Action:
    """``bot``'s move for ``seat`` in ``game``: one of ``engine.legal_actions(game, seat)``
    (the very object), chosen from ``seat``'s information state alone (:class:`InfoState`).
    A forced move (one legal action) is played without asking the bot.

    :class:`IllegalAction` when ``seat`` has no decision now; :class:`BotError` when the bot
    answers something that is not one of the legal actions. Whatever the bot raises passes
    through. ``game`` is never changed."""
    legal = engine.legal_actions(game, seat)
    if not legal:
        raise IllegalAction("seat %(seat)d has no decision to make now", seat=seat)
    if len(legal) == 1:
        return legal[0]
    state = info_state(engine, game, seat, bot, legal)
    if is_legacy(bot):
        warnings.warn(f"bot {bot.id!r} implements choose(engine, game, seat, legal), which is deprecated: "
                      "implement decide(state); it is handed a game drawn from what its seat sees",
                      DeprecationWarning, stacklevel=3)
        answer = bot.choose(engine, state.sample(), seat, list(legal))
    else:
        answer = bot.decide(state)
    return _matching(engine, bot, answer, legal)


def _matching(engine: Engine, bot: Bot, answer: object, legal: Sequence[Action]) -> Action:
    """The legal action ``answer`` names (by type, seat and option: a label may differ)."""
    if isinstance(answer, Action):
        for action in legal:
            if (action.type, action.seat, action.option) == (answer.type, answer.seat, answer.option):
                return action
    raise BotError(f"bot {bot.id!r} answered {answer!r}, not one of the seat's {len(legal)} legal actions",
                   plugin=engine.bot_plugins.get(bot.id, ""))
