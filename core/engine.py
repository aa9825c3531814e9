"""The engine: the public API of the rules core.

>>> engine = Engine.load()
>>> game, events = engine.create(GameConfig(players=3, seed=7))
>>> seat = engine.awaiting(game)[0]
>>> action = engine.legal_actions(game, seat)[0]
>>> events = engine.apply(game, action)          # mutates ``game``; ``game.version`` + 1

An engine is built once per process (plugins loaded, content merged, converter built)
and holds no game: every call takes the game it works on. ``apply`` validates the
action against the enumeration of legal answers *before* changing anything, so an
illegal action leaves the game exactly as it was.
"""

from __future__ import annotations

import itertools
import logging
import operator
import random
import threading
import warnings
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from . import undo
from .actionlog import WITHDRAWN, ActionLog
from .actions import Action
from .bots import Bot
from .content import Component
from .context import Ctx
from .errors import (
    BadConfig,
    DarkroadError,
    GameFinished,
    IllegalAction,
    MissingPlugin,
    NotYourDecision,
    PluginError,
    UnknownComponent,
)
from .hooks import PluginStep, is_bool, is_dict_list, is_extra_options, is_options
from .hooks import call as call_hook
from .i18n import Text, current_locale
from .memo import Memo
from .plugins import PluginSet, make_plugin_manager
from .registry import Registry
from .seats import HUMAN, SeatKind
from .serde import Serde
from .state import Event, Game, GameConfig, Task
from .steps import Option, Step
from .storage import Packer, StorageSpec
from .view import EncodedPlayers, view
from .wording import Words, plugin_namer

_CARD = operator.attrgetter("card")
_TASK_SEAT = Step.seats
"""The default :meth:`Step.seats` (the task's seat alone): a step keeping it needs no
:class:`Ctx` to say whom it waits for."""
logger = logging.getLogger("darkroad.core")
WITHDRAWN_KEY = "_withdrawn"
"""``task.data`` key of a decision's withdrawn answers: ``[seat, type, option]`` triples."""
BUILDING_SPACES = 4
_T = TypeVar("_T")
MARKET_DICE = 5
NIGHT_DICE = 7
_MARKET_SUMS = {dice: sum(dice) for dice in itertools.product(range(3), repeat=6)}
"""Every market of six wheel sections holding 0 to 2 dice each -> its number of dice: a market
found here passes :meth:`Engine.broken_invariants`' market check when its sum does."""
OWN_TURN_PHASES = ("plan", "move", "activate", "rest")
"""Phases in which the active seat may use companion abilities (after Rest: ``finish_turn``)."""


class _Memo:
    """What the engine worked out about one game at one decision."""

    __slots__ = ("game", "version", "height", "top", "options", "companions", "specs", "legal", "undo", "locale")

    def __init__(self, game: Game, options: dict[int, list[Option]]) -> None:
        self.game = weakref.ref(game)
        self.renew(game, options)

    def renew(self, game: Game, options: dict[int, list[Option]]) -> None:
        """What holds for ``game`` (this memo's) at the decision it waits for now: ``options``,
        and nothing worked out yet."""
        # _decision_key(game), kept field by field: compared without building a tuple.
        self.version, self.height, self.top = _decision_key(game)
        self.locale = current_locale()
        """The language of the labels of :attr:`options`, :attr:`companions` and :attr:`legal`
        (that of the call that worked them out: :meth:`relabel`)."""
        self.options = options
        """seat -> the options of the decision ``game`` waits for."""
        self.companions: dict[int, list[Option]] = {}
        """seat -> its companion abilities there."""
        self.specs: dict[int, StorageSpec] = {}
        """seat -> its storage (:meth:`Engine.storage_spec`) there: asked for by every view."""
        self.legal: dict[int, tuple[Action, ...]] = {}
        """seat -> the actions :meth:`Engine.legal_actions` gave it there: one of these very
        objects, applied, is legal without working its decision out again."""
        self.undo: tuple[int, tuple[Any, ...]] | None = None
        """The seat whose undoable action made this version, and what :mod:`undo` found hidden
        from it afterwards: its next action's starting point, not built again. Never carried to
        a copy (:meth:`_OptionsMemo.copied`)."""

    def relabel(self, locale: str) -> None:
        """Forget what is worded (the options, companion abilities and actions, whose labels
        are in :attr:`locale`) for a call in another language: labels worked out in one
        language are never shown in another."""
        self.locale = locale
        self.options, self.companions, self.legal = {}, {}, {}


def _decision_key(game: Game) -> tuple[int, int, int]:
    stack = game.stack
    return game.version, len(stack), id(stack[-1]) if stack else 0


class _OptionsMemo(threading.local):
    """The options of the decision a game waits for, per seat, as the engine worked them out
    when it settled the game there.

    Settling works them out (a decision without options is skipped), and the questions that
    follow ask for the same ones again: the legal actions, the view's awaited seats, the
    legality check of the next action (measured on random 4-player games: 3.3 times per
    action). The memo holds the last :data:`GAMES` games settled (the API and the bots ask
    about games they just changed), each valid while that very object is at the same version
    with the same task on top; the engine forgets a game before it changes it. A game changed
    by hand (a test setting up a position) must be announced with :meth:`Engine.edited`. One
    memo per thread (a ``threading.local``): threads playing other games never see another's.
    What is worded (labels) is in the language of the call that worked it out, and is worked
    out again for a call in another language (:meth:`_Memo.relabel`).
    """

    GAMES = 256

    def __init__(self) -> None:
        self.games: dict[int, _Memo] = {}

    def of(self, game: Game) -> _Memo | None:
        """``game``'s memo, if it still holds for the game as it is now."""
        memo = self.games.get(id(game))
        if memo is None or memo.version != game.version or memo.game() is not game:
            return None
        stack = game.stack
        if memo.height != len(stack) or memo.top != (id(stack[-1]) if stack else 0):
            return None
        locale = current_locale()
        if memo.locale != locale:
            memo.relabel(locale)
        return memo

    def keep(self, game: Game, options: dict[int, list[Option]], old: _Memo | None = None) -> _Memo:
        """Remember ``options`` (seat -> options) of the decision ``game`` waits for now.
        ``old``: the memo of ``game`` taken out of the table before it changed (:meth:`Engine.apply`),
        made new again rather than anew (its weak reference kept)."""
        games = self.games
        games.pop(id(game), None)
        if len(games) >= self.GAMES:
            del games[next(iter(games))]  # the oldest
        if old is not None and old.game() is game:
            old.renew(game, options)
            memo = games[id(game)] = old
        else:
            memo = games[id(game)] = _Memo(game, options)
        return memo

    def copied(self, game: Game, twin: Game) -> None:
        """``twin`` is a fresh copy of ``game``: what holds for ``game`` holds for it."""
        memo = self.of(game)
        if memo is not None:
            # Tables of their own (what the copy works out later is its own); the option lists
            # in them are never changed: shared.
            self.keep(twin, dict(memo.options))
            kept = self.games[id(twin)]
            kept.companions, kept.specs, kept.legal = dict(memo.companions), dict(memo.specs), dict(memo.legal)

    def forget(self, game: Game) -> None:
        self.games.pop(id(game), None)


class Engine:
    """Rules, content and plugins of one installation."""

    def __init__(self, plugins: PluginSet) -> None:
        registry = self.registry = Registry(plugins)
        """What the loaded plugins register, merged (:mod:`~darkroad.core.registry`); the
        attributes below are its, for short."""
        self.plugins = plugins
        self.pm = plugins.pm
        self.content = registry.content
        self.bots = registry.bots
        self.bot_plugins = registry.bot_plugins
        self.seat_kinds = registry.seat_kinds
        self.seat_kind_plugins = registry.seat_kind_plugins
        self.event_types = registry.event_types
        self.steps = registry.steps
        self._run_steps = registry.run_steps
        self.hook_impls = registry.hook_impls
        self._decision_options_impls = self.hook_impls["darkroad_decision_options"]  # asked at every decision
        self.monitors: list[Any] = []
        """Callables ``(hook name, kwargs, result)`` told of every rule-point hook call
        (the testing kit's :class:`HookRecorder`)."""
        self._companion_impls = registry.companion_impls
        self._companion_impls_of: Memo[tuple[str, ...], list[Any]] = Memo(4096)
        """The companion hook implementations asked for a hand of companion cards."""
        self.words = Words(self.content, plugin_namer(self.content, {n: p.module for n, p in plugins.plugins.items()}))
        """The engine's words for its content: every label and prompt names effects, cards and
        goods through them (:mod:`~darkroad.core.wording`)."""
        self.packer = Packer({g.id: g.footprint for g in self.content.goods})
        self.serde = Serde()
        self.log = ActionLog(self)
        """The action log of this engine's games: its records, read, made and replayed."""
        self._spec_cache: dict[tuple[Any, ...], StorageSpec] = {}
        self._memo = _OptionsMemo()
        self._made: Memo[tuple[str, int, str, str], Action] = Memo(65536)
        """The actions legal_actions made, by (type, seat, option, label): :meth:`_actions`."""
        self._memo_of = self._memo.of  # the per-thread tables still found per call, by the thread asking
        for name, reason in sorted(self.plugins.failed.items()):
            logger.warning("plugin %r failed to load and is skipped: %s", name, reason)

    @classmethod
    def load(cls, exclude: Iterable[str] = (), extra: Iterable[tuple[str, Any]] = (), strict: bool = False) -> Engine:
        """Build an engine from the installed ``darkroad`` entry points (plus ``extra``).

        A plugin that fails to load is skipped: ``engine.plugins.failed`` maps its name to
        the reason, and each is logged (logger ``darkroad.core``, warning). With ``strict``
        the load raises :class:`PluginError` instead.
        """
        return cls(make_plugin_manager(exclude=exclude, extra=extra, strict=strict))

    # -- catalogue ---------------------------------------------------------------------
    def catalog(self) -> list[dict[str, Any]]:
        """Every component of this installation with the plugin providing it."""
        out = []
        for comp in sorted(self.content.components.values(), key=lambda c: (c.kind, c.id)):
            plugin = self.plugins.plugins.get(comp.plugin)
            out.append({"kind": comp.kind, "id": comp.id, "name": comp.name, "text": comp.text,
                        "plugin": comp.plugin, "version": plugin.version if plugin else "0",
                        "data": dict(comp.data)})
        return out

    # -- creating a game ---------------------------------------------------------------
    def check_config(self, config: GameConfig) -> None:
        """Raise :class:`BadConfig` / :class:`UnknownComponent` for an unplayable config."""
        if not isinstance(config.players, int) or not 2 <= config.players <= 4:
            raise BadConfig("players must be 2 to 4, got %(players)r", players=config.players)
        self.seat_assignment(config)
        comps = self.content.components
        for b in config.buildings:
            if b not in comps:
                raise UnknownComponent("unknown building '%(id)s'%(hint)s", id=b, hint=self.failed_hint(b))
            if comps[b].kind != "building":
                raise BadConfig("'%(id)s' is a %(kind)s, not a building", id=b, kind=comps[b].kind)
        if config.buildings:
            if len(config.buildings) != BUILDING_SPACES or len(set(config.buildings)) != BUILDING_SPACES:
                raise BadConfig("choose exactly %(count)d different buildings, got %(ids)s", count=BUILDING_SPACES,
                                ids=str(config.buildings))
            sides: dict[Any, str] = {}
            for b in config.buildings:
                tile = comps[b].data.get("tile")
                if tile is not None and tile in sides:
                    raise BadConfig("'%(one)s' and '%(other)s' are the two sides of building tile %(tile)s: a game uses "
                                    "at most one side of each double-sided tile", one=sides[tile], other=b, tile=tile)
                sides.setdefault(tile, b)
        for c in config.companions:
            if c not in comps or comps[c].kind != "companion":
                raise UnknownComponent("unknown companion '%(id)s'%(hint)s", id=c, hint=self.failed_hint(c))
        unknown = set(config.variants) - {"drafting", "advanced_deeds"}
        if unknown:
            raise BadConfig("unknown variants %(names)s", names=str(sorted(unknown)))
        if len(self.content.of_kind("building")) < BUILDING_SPACES:
            raise BadConfig("this installation has fewer than 4 buildings")

    def seat_assignment(self, config: GameConfig) -> dict[int, SeatKind]:
        """The automated seats of a game created with ``config`` (seat -> its seat kind), or
        :class:`BadConfig` when its options do not make a playable game: an option no
        installed plugin reads, a seat kind's own checks, a game size it does not play, two
        kinds in one seat, no seat left for a player."""
        if not isinstance(config.options, dict):
            raise BadConfig("options must be an object, got %(options)r", options=config.options)
        readers = {option: kind for kind in self.seat_kinds.values() for option in kind.options}
        unknown = sorted(set(config.options) - readers.keys())
        if unknown:
            raise BadConfig("unknown option(s) %(names)s%(hint)s", names=str(unknown), hint=self.failed_hint(unknown[0]))
        seats: dict[int, SeatKind] = {}
        for kind in {readers[o].id: readers[o] for o in sorted(config.options)}.values():
            kind.check_config(self, config)
            for seat in kind.seats(config):
                if config.players not in kind.players:
                    sizes = ", ".join(map(str, kind.players))
                    raise BadConfig("the %(kind)s plays in games of %(sizes)s seats (itself included), not %(players)d",
                                    kind=Text(kind.name) if kind.name else kind.id, sizes=sizes, players=config.players)
                if seat in seats:
                    raise BadConfig("seat %(seat)d cannot be both '%(one)s' and '%(other)s'", seat=seat, one=seats[seat].id,
                                    other=kind.id)
                seats[seat] = kind
        if len(seats) >= config.players:
            raise BadConfig("a game needs at least one player's seat")
        return seats

    def failed_hint(self, component: str) -> str:
        """Why ``component`` may be unknown (:meth:`Registry.failed_hint`)."""
        return self.registry.failed_hint(component)
    def choose_buildings(self, ctx: Ctx) -> list[str]:
        cfg = ctx.game.config
        if cfg.buildings:
            chosen = list(cfg.buildings)
        elif not cfg.random_buildings:
            first = [b.id for b in self.content.of_kind("building") if b.data.get("first_game")]
            chosen = first if len(first) == BUILDING_SPACES else []
        else:
            chosen = []
        if not chosen:
            pool = self.base_game("building")
            ctx.shuffle(pool)
            tiles: set[Any] = set()
            for b in pool:
                tile = b.data.get("tile")
                if tile is None or tile not in tiles:
                    chosen.append(b.id)
                    if tile is not None:
                        tiles.add(tile)
                if len(chosen) == BUILDING_SPACES:
                    break
        ctx.shuffle(chosen)  # assigned randomly to the building spaces
        return chosen

    def step_is_builtin(self, kind: str) -> bool:
        """Whether step ``kind`` is the core's or a built-in plugin's."""
        return self.registry.step_is_builtin(kind)
    def step_plugin(self, kind: str) -> str | None:
        """The plugin providing step ``kind`` (``None`` for the core's steps)."""
        return self.registry.step_plugin(kind)
    def base_game(self, kind: str) -> list[Component]:
        """Components of ``kind`` a game uses unless told otherwise (:meth:`Registry.base_game`)."""
        return self.registry.base_game(kind)
    def companion_deck(self, config: GameConfig) -> list[str]:
        """The companion card ids of a new game: the base game's plus the chosen ones."""
        ids = {c.id for c in self.base_game("companion")} | set(config.companions)
        return sorted(card for card, comp in self.content.companion_cards.items() if comp in ids)

    def create(self, config: GameConfig) -> tuple[Game, list[Event]]:
        """A new game at its first decision, plus the setup events."""
        self.check_config(config)
        from .rng import seed_state

        game = Game(config=config, rng=seed_state(config.seed))
        ctx = Ctx(self, game)
        game.board.buildings = self.choose_buildings(ctx)
        comps = self.content.components
        used = {comps[b].plugin for b in game.board.buildings}
        used |= {c.plugin for c in self.base_game("companion")} | {comps[c].plugin for c in config.companions}
        used |= {c.plugin for c in comps.values() if c.kind not in ("building", "companion")}
        used |= {impl.plugin_name for impl in self.pm.hook.darkroad_content.get_hookimpls()}
        used |= {self.seat_kind_plugins[kind.id] for kind in self.seat_assignment(config).values()}
        config.plugins = {n: self.plugins.plugins[n].version for n in sorted(used) if n in self.plugins.plugins}
        def setup() -> None:
            ctx.push("setup")  # the rulebook's (rulebook.setup), the step every game begins with
            self._settle(ctx)

        self._guard(ctx, setup)
        self._remember(ctx)
        return game, ctx.events

    def _remember(self, ctx: Ctx, old: _Memo | None = None) -> _Memo | None:
        """Keep the options worked out while settling ``ctx.game`` (its version final); ``old``:
        the game's memo from before it changed, to make new again (:meth:`_OptionsMemo.keep`)."""
        if ctx.settled is not None:
            return self._memo.keep(ctx.game, ctx.settled, old)
        return None



    # -- the decision ------------------------------------------------------------------
    def _top(self, game: Game) -> tuple[Task, Step] | None:
        if not game.stack:
            return None
        task = game.stack[-1]
        return task, self._run_steps[task.kind]

    def _pending_options(self, ctx: Ctx, task: Task, step: Step, seat: int) -> list[Option]:
        """:meth:`_options` of the decision the game waits for (``task``, on top), through
        the memo when it holds the game (:class:`_OptionsMemo`)."""
        return self._at_rest(ctx, "options", seat, self._options, ctx, task, step, seat)

    def _at_rest(self, ctx: Ctx, table: str, seat: int, work: Callable[..., _T], *args: Any) -> _T:
        """``work(*args)`` for ``seat``, kept in table ``table`` of the memo of ``ctx.game`` when
        the memo holds the game (a game at rest: no action resolving, not changed since)."""
        return self._kept(self._rest_memo(ctx.game), table, seat, work, *args)

    def _rest_memo(self, game: Game) -> _Memo | None:
        """The memo of ``game`` when it holds (:meth:`_at_rest`), for several look-ups in a row."""
        return None if self.monitors else self._memo_of(game)  # a recorder sees every hook call

    @staticmethod
    def _kept(memo: _Memo | None, table: str, seat: int, work: Callable[..., _T], *args: Any) -> _T:
        """:meth:`_at_rest` with the memo looked up already (``None``: work it out)."""
        if memo is None:
            return work(*args)
        kept: dict[int, _T] = getattr(memo, table)
        got = kept.get(seat)
        if got is None:
            got = kept[seat] = work(*args)
        return got

    def edited(self, game: Game) -> None:
        """Tell the engine that ``game`` was changed other than through it (by hand: a test
        setting up a position), so that nothing it worked out about the game is reused."""
        self._memo.forget(game)

    def _options(self, ctx: Ctx, task: Task, step: Step, seat: int) -> list[Option]:
        opts = list(step.options(ctx, task, seat))
        if self._decision_options_impls or self.monitors or task.data.get(WITHDRAWN_KEY):
            opts = self._amended(ctx, task, step, seat, opts)
        return opts

    def _amended(self, ctx: Ctx, task: Task, step: Step, seat: int, opts: list[Option]) -> list[Option]:
        """A step's options ``opts`` with the plugins' extra options, less the withdrawn ones
        (:meth:`_options`: only called when there may be any)."""
        # An overflow is settled at once: its discard admits nothing else.
        if not step.settles_overflow and (self._decision_options_impls or self.monitors):
            for extra in ctx.call("darkroad_decision_options", is_extra_options, task=task, seat=seat):
                opts += [tuple(o) for o in extra]
        withdrawn = task.data.get(WITHDRAWN_KEY)
        if withdrawn:
            opts = [o for o in opts if [seat, task.kind, o[0]] not in withdrawn]
        return opts

    def _settle(self, ctx: Ctx) -> None:
        """Run automatic steps and skip empty decisions until a decision waits."""
        game = ctx.game
        automated = self.automated(game)
        run_steps = self._run_steps
        ctx.settled = None
        while True:
            if ctx.overflows:
                ctx.settle_overflows()  # an overflow is settled at once: before anything else
            stack = game.stack  # (read again: a step may have set another list)
            if not stack:
                return
            task = stack[-1]
            step = run_steps[task.kind]
            if step.begins_phase:
                game.phase = step.begins_phase  # where the step begins, not in its options
            if automated and self._intercept(ctx, task, step, automated):
                continue  # a step of an automated seat: resolved by its seat kind, never awaited
            if not step.decision:
                stack.pop()
                step.run(ctx, task)
                continue
            seen: dict[int, list[Option]] = {}
            for s in (task.seat,) if type(step).seats is _TASK_SEAT else step.seats(ctx, task):
                opts = seen[s] = self._options(ctx, task, step, s)
                if opts:
                    ctx.settled = seen  # kept by the memo once the action is done
                    return
            game.stack.pop()

    def automated(self, game: Game) -> dict[int, SeatKind]:
        """The automated seats of ``game`` (seat -> its seat kind); empty: players only."""
        out = {}
        for p in game.players:
            if p.kind != HUMAN:
                out[p.seat] = self.seat_kinds[p.kind]
        return out

    def _intercept(self, ctx: Ctx, task: Task, step: Step, automated: dict[int, SeatKind]) -> bool:
        """Hand the step on top to the seat kind of the automated seat it reaches, if any:
        ``True`` when the seat kind resolved it."""
        if not step.decision:
            seat = task.seat
            kind = automated.get(seat)
            if kind is None:
                return False
        else:
            seat = next((s for s in step.seats(ctx, task) if s in automated), -1)
            if seat < 0:
                return False
            kind = automated[seat]
        if step.decision and step.automated(ctx, task, seat):
            return True  # answered at the rule point's hook (a seat kind's implementation)
        plugin = self.seat_kind_plugins[kind.id]
        try:
            done = kind.intercept(ctx, task, step, seat)
        except DarkroadError:
            raise
        except Exception as exc:
            raise PluginError(f"plugin {plugin!r} failed in seat kind {kind.id!r} at step {task.kind!r}: "
                              f"{type(exc).__name__}: {exc}", plugin=plugin) from exc
        if done:
            ctx.answered.add(plugin)
        elif step.decision:
            raise PluginError(f"seat kind {kind.id!r} left decision {task.kind!r} of its seat {seat} unanswered "
                              "(an automated seat is never asked)", plugin=plugin)
        return bool(done)

    def is_automated(self, game: Game, seat: int) -> bool:
        """Whether ``seat`` is played by a seat kind (so it never has legal actions)."""
        return 0 <= seat < len(game.players) and game.players[seat].kind != HUMAN

    def awaiting(self, game: Game) -> list[int]:
        """The seats the game is waiting for (several for simultaneous steps)."""
        top = self._top(game)
        if top is None:
            return []
        task, step = top
        if type(step).seats is _TASK_SEAT:
            return [task.seat]  # one seat: settling skipped the decision if it had no option
        ctx = Ctx(self, game)
        seats = list(step.seats(ctx, task))
        if len(seats) == 1:
            return seats  # settling skipped the decision if it had no option
        return [s for s in seats if self._pending_options(ctx, task, step, s)]

    def decision(self, game: Game) -> dict[str, Any] | None:
        """The pending decision: its type, awaited seats and a human prompt."""
        top = self._top(game)
        if top is None:
            return None
        task, step = top
        return {"type": task.kind, "seats": self.awaiting(game), "prompt": step.describe(Ctx(self, game), task)}

    def details(self, game: Game, seat: int) -> dict[str, str]:
        """What ``seat``'s answers to the pending decision give, in words: option -> details
        (:meth:`Step.details`; the engine's words, :mod:`~darkroad.core.explain`), for those of
        its legal options that have any. Empty when it is not ``seat``'s decision."""
        top = self._top(game)
        if top is None:
            return {}
        task, step = top
        legal = {a.option for a in self.legal_actions(game, seat) if a.type == task.kind}
        if not legal:
            return {}
        found = step.details(Ctx(self, game), task, seat)
        return {option: text for option, text in found.items() if option in legal and text}

    def companion_options(self, ctx: Ctx, seat: int) -> list[Option]:
        cards = ctx.game.players[seat].companions
        if not cards:
            return []  # abilities belong to companion cards: no card, no ability
        held = tuple(map(_CARD, cards))
        impls = self._companion_impls_of.get(held)
        if impls is None:
            comps, owner = self.content.components, self.content.companion_cards
            plugins = sorted({comps[owner[c]].plugin for c in held if c in owner})
            impls = self._companion_impls_of.keep(held, [i for name in plugins for i in self._companion_impls.get(name, ())])
        out: list[Option] = []
        for opts in call_hook(ctx, "darkroad_companion_options", is_options, False, {"seat": seat}, impls):
            out += map(tuple, opts)
        return out

    def legal_actions(self, game: Game, seat: int) -> list[Action]:
        """Every legal answer of ``seat`` now (empty when it is not ``seat``'s decision)."""
        top = self._top(game)
        if top is None or game.finished:
            return []
        task, step = top
        ctx: Ctx | None = None  # made when something is worked out (not when all is in the memo)
        if type(step).seats is _TASK_SEAT:
            if seat != task.seat:
                return []
        else:
            ctx = Ctx(self, game)
            if seat not in step.seats(ctx, task):
                return []
        if self.is_automated(game, seat):
            return []
        memo = None if self.monitors else self._memo_of(game)  # as _rest_memo, inline: the hot path
        options = None if memo is None else memo.options.get(seat)
        if options is None:
            ctx = ctx or Ctx(self, game)
            options = self._options(ctx, task, step, seat)
            if memo is not None:
                memo.options[seat] = options
        acts = self._actions(task.kind, seat, options)
        if acts and seat == game.active and game.phase in OWN_TURN_PHASES and not step.settles_overflow \
                and not step.inside_gain:
            withdrawn = task.data.get(WITHDRAWN_KEY) or ()
            companions = None if memo is None else memo.companions.get(seat)
            if companions is None:
                if game.players[seat].companions:
                    ctx = ctx or Ctx(self, game)
                    companions = self.companion_options(ctx, seat)
                else:
                    companions = []  # no card, no ability (as companion_options says): no Ctx made
                if memo is not None:
                    memo.companions[seat] = companions
            if withdrawn:
                companions = [(o, lbl) for o, lbl in companions if [seat, "companion", o] not in withdrawn]
            if companions:
                acts += self._actions("companion", seat, companions)
        if acts and memo is not None:
            memo.legal[seat] = tuple(acts)  # a caller may change its list, never the actions
        return acts

    def apply(self, game: Game, action: Action, *, track_undo: bool = True) -> list[Event]:
        """Apply ``action`` to ``game`` in place and return the events it caused.

        Raises :class:`IllegalAction` (or a subclass) without touching the game when the
        action is not a legal answer now, and :class:`PluginError` when a plugin failed
        while resolving it (the game object is then unusable: reload it).

        ``track_undo=False`` is for a what-if copy no seat will ever undo on (a bot trying
        actions out, a search's rollouts): the engine skips classifying the action for undo
        (core/undo.py), about a tenth of a greedy bot's work. The copy's undo chain then no
        longer describes it (nothing can be undone on it), so such a copy is never stored.
        """
        task, step = self._answering(game, action)
        # edited(game), inline: what was worked out about the game is old; but what undo tracking
        # found hidden at this very version (the memo's, when it is this game's now) is where
        # probe starts from.
        old = self._memo.games.pop(id(game), None)
        ctx = Ctx(self, game)
        if track_undo:
            seen = old.undo if old is not None and old.version == game.version and old.game() is game else None
            seats = (task.seat,) if type(step).seats is _TASK_SEAT else step.seats(ctx, task)
            noted = undo.probe(self, game, action, seats, game.phase in OWN_TURN_PHASES, seen)
        else:
            noted = None
        # An answer to a plugin's decision (its step, an "x:" option, a companion ability) is in
        # the seat's log: the core's own decisions log what they do (moved, bought, ...).
        kind, option = action.type, action.option
        if (type(step) is PluginStep and not step.logs_answer) or kind == "companion" or option.startswith("x:"):
            ctx.emit("answered", action.seat, private=True, decision=kind, option=option)
        try:  # _guard, inline (no closure: its cells would slow every name it reads)
            if kind == "companion":
                if not ctx.first("darkroad_companion_use", is_bool, seat=action.seat, option=option):
                    raise PluginError(f"no plugin resolved companion option {option!r}")
            elif option.startswith("x:"):
                if not ctx.first("darkroad_decision_choose", is_bool, task=task, seat=action.seat, option=option):
                    raise PluginError(f"no plugin resolved option {option!r}")
            else:
                game.stack.pop()
                step.choose(ctx, task, action.seat, option)
            self._settle(ctx)
            broken = self.broken_invariants(game)
            if broken:
                blamed = sorted(ctx.answered - self.registry.essential)  # the plugins, not the rulebook
                raise PluginError(f"the game broke an invariant ({broken}) while resolving {kind}/"
                                  f"{option}; plugins involved: {blamed or 'none'}",
                                  plugin=blamed[0] if len(blamed) == 1 else "")
            game.version += 1
        except DarkroadError:
            raise
        except Exception as exc:
            raise self._failure(exc) from exc
        memo = self._remember(ctx, old)
        if noted is not None:
            seen = undo.track(self, game, action, noted, ctx)
            if seen is not None and memo is not None:
                memo.undo = seen  # this version of this game, this seat: probe's next start
        return ctx.events

    def withdraw(self, game: Game, action: Action, reason: str = "", plugin: str = "") -> tuple[Action, list[Event]]:
        """Take ``action`` out of the answers of the pending decision, after a plugin failed
        to resolve it: the way out of a game whose seat's only answer fails.

        ``game`` is the game as it was before the failed :meth:`apply` (the stored one: the
        failed apply spoilt its own copy), and ``action`` must be a legal answer of it. The
        answer is left out of this decision's options (for that seat, while the task is
        pending), a private ``option_withdrawn`` event tells the seat why, and the game
        settles: a decision left without options is skipped, as any decision without
        options is. ``game.version`` goes up by one. Returns the action to record in the
        game's action list in place of the failed one (:meth:`replay` applies it; no client
        may send it) and the events.
        """
        task, step = self._answering(game, action)
        self.edited(game)
        ctx = Ctx(self, game)
        task.data.setdefault(WITHDRAWN_KEY, []).append([action.seat, action.type, action.option])
        ctx.emit("option_withdrawn", action.seat, private=True, decision=action.type, option=action.option,
                 reason=reason, plugin=plugin)
        self._guard(ctx, lambda: self._settle(ctx))
        game.version += 1
        self._remember(ctx)
        return Action(WITHDRAWN, action.seat, f"{action.type}:{action.option}"), ctx.events

    def _actions(self, kind: str, seat: int, options: Iterable[Option]) -> list[Action]:
        """``Action(kind, seat, option, label)`` of each option. Actions are immutable: the same
        answer at another decision is the same object, made once (most decisions come back)."""
        made = self._made
        out = []
        for option, label in options:
            key = (kind, seat, option, label)
            action = made.get(key)
            if action is None:
                action = made.keep(key, Action(kind, seat, option, label))
            out.append(action)
        return out

    def _answering(self, game: Game, action: Action) -> tuple[Task, Step]:
        """The pending decision ``action`` legally answers, or the :class:`IllegalAction`
        (or subclass) saying why it does not; the game is not touched."""
        if game.finished:
            raise GameFinished("the game is over")
        top = self._top(game)
        if top is None:
            raise IllegalAction("the game is not waiting for any decision")
        task, step = top
        memo = None if self.monitors else self._memo_of(game)  # as _rest_memo, inline: the hot path
        if memo is not None:
            given = memo.legal.get(action.seat)
            if given is not None:
                for legal in given:
                    if legal is action:  # one legal_actions gave for this very decision
                        return task, step
        if not self._is_step_option(game, task, step, action, memo):
            self._check_legal(game, task, step, action)
        return task, step

    def _is_step_option(self, game: Game, task: Task, step: Step, action: Action, memo: _Memo | None) -> bool:
        """Fast path of the legality check: an answer of the pending step itself (``memo``: the
        game's memo, as :meth:`_answering` looked it up: :meth:`_pending_options` through it)."""
        seat = action.seat
        if action.type != task.kind or self.is_automated(game, seat):
            return False
        ctx = Ctx(self, game)
        if seat not in step.seats(ctx, task):
            return False
        option = action.option
        for o, _ in self._kept(memo, "options", seat, self._options, ctx, task, step, seat):
            if o == option:  # (a loop: a generator costs more, on every action)
                return True
        return False

    def _check_legal(self, game: Game, task: Task, step: Step, action: Action) -> None:
        """The full legality check (companion abilities), raising with the reason."""
        legal = {a.key(): a for a in self.legal_actions(game, action.seat)}
        if not legal:
            raise NotYourDecision("the game is waiting for seats %(seats)s (%(decision)s), not for seat %(seat)d",
                                  seats=", ".join(map(str, self.awaiting(game))), decision=step.describe(Ctx(self, game), task),
                                  seat=action.seat)
        if action.key() not in legal:
            options = ", ".join(sorted(f"{t}/{o}" for t, _, o in legal))
            raise IllegalAction("%(action)s is not a legal answer for seat %(seat)d now (%(decision)s); legal: %(legal)s",
                                action=action.type + "/" + action.option, seat=action.seat,
                                decision=step.describe(Ctx(self, game), task), legal=options)

    def broken_invariants(self, game: Game) -> str | None:
        """The first broken invariant of ``game``, or None (cheap: checked after every action)."""
        b = game.board
        market = b.market
        known = _MARKET_SUMS.get(tuple(market))  # a market of six sections of 0-2 dice: its sum
        if (known is None or known + b.set_aside != MARKET_DICE) and (  # else the check in full, as it was
                sum(market) + b.set_aside != MARKET_DICE or min(market) < 0 or max(market) > 2):
            return f"market dice {market} + {b.set_aside} set aside"
        for p in game.players:
            # A bool or a float is an int's impostor: exact types, compared one by one (a set of
            # types or a min() over a tuple costs twice as much, on every action).
            c, pr, la, q, h = p.coins, p.prestige, p.lanterns, p.quartz, p.horseshoes
            # (Ints are all >= 0 exactly when their bitwise or is: a negative int has the sign bit.)
            if not (type(c) is type(pr) is type(la) is type(q) is type(h) is int and c | pr | la | q | h >= 0):
                return f"seat {p.seat} has coins, prestige, lanterns, quartz, horseshoes {(c, pr, la, q, h)}"
            if p.kind == "human":
                night = 3 - p.locked.count(None) + len(p.reserve) + p.spent + p.removed
                for d in p.pool:  # (a loop: a generator costs more than the few dice it counts)
                    if d.kind == "night":
                        night += 1
                if night != NIGHT_DICE:
                    return f"seat {p.seat} has {night} night dice"
        steps = self.steps
        for t in game.stack:
            if t.kind not in steps:
                return f"unknown step {t.kind!r} on the stack"
        return None

    def _guard(self, ctx: Ctx, fn: Callable[[], object]) -> None:
        try:
            fn()
        except DarkroadError:
            raise
        except Exception as exc:
            raise self._failure(exc) from exc

    def _failure(self, exc: Exception) -> PluginError:
        """The :class:`PluginError` of an unexpected exception ``exc`` of a rule, naming the
        plugin whose code raised it (or the engine)."""
        plugin = self._blame(exc)
        where = f"plugin {plugin!r}" if plugin else "the engine"
        return PluginError(f"{where} failed: {type(exc).__name__}: {exc}", plugin=plugin or "")

    def _blame(self, exc: BaseException) -> str | None:
        """The plugin whose code raised (:meth:`Registry.blame`)."""
        return self.registry.blame(exc)
    def storage_spec(self, ctx: Ctx, seat: int) -> StorageSpec:
        # A game at rest (its memo holds: no action is resolving) has the storage it had when
        # the engine settled it: views ask for every seat's on every request.
        return self._at_rest(ctx, "specs", seat, self._storage_spec, ctx, seat)

    def storage_specs(self, ctx: Ctx) -> Callable[[int], StorageSpec]:
        """:meth:`storage_spec` of ``ctx.game`` for one seat after another (a view asks for
        every seat's): the memo of the game looked up once, not once per seat."""
        memo = self._rest_memo(ctx.game)
        if memo is None:
            return lambda seat: self._storage_spec(ctx, seat)
        specs, work = memo.specs, self._storage_spec

        def spec(seat: int) -> StorageSpec:
            got = specs.get(seat)
            if got is None:
                got = specs[seat] = work(ctx, seat)
            return got

        return spec

    def _storage_spec(self, ctx: Ctx, seat: int) -> StorageSpec:
        heroes = self.content.heroes
        any_slots = 0
        for h in ctx.game.players[seat].heroes:  # (a loop: a generator costs more, on every view)
            if heroes[h].bonus == "storage":
                any_slots += 1
        grids: list[tuple[int, int]] = []
        fixed: list[tuple[tuple[int, int], ...]] = []
        for exts in call_hook(ctx, "darkroad_storage_extensions", is_dict_list, False, {"seat": seat}):
            for ext in exts:
                any_slots += int(ext.get("any_slots", 0))
                if "extra_grid" in ext:
                    cols, rows = ext["extra_grid"]
                    grids.append((int(cols), int(rows)))
                if "fixed_tile" in ext:
                    fixed.append(tuple((int(r), int(c)) for r, c in ext["fixed_tile"]))
        key = (any_slots, tuple(grids), tuple(fixed))
        spec = self._spec_cache.get(key)
        if spec is None:
            spec = self._spec_cache[key] = StorageSpec(any_slots=any_slots, extra_grids=tuple(grids),
                                                       fixed_tiles=tuple(fixed))
        return spec

    # -- serialisation and views --------------------------------------------------------
    def dumps(self, game: Game) -> bytes:
        """``game`` as compact JSON."""
        return self.serde.dumps(game)

    def pack(self, game: Game) -> bytes:
        """``game`` as MessagePack, what the API stores (:meth:`Serde.pack`); :meth:`loads`
        reads it as it reads :meth:`dumps`'s JSON."""
        return self.serde.pack(game)

    def loads(self, blob: bytes | str) -> Game:
        game = self.serde.loads(blob)
        missing = [n for n in game.config.plugins if n not in self.plugins.plugins]
        if missing:
            failed = [n for n in missing if n in self.plugins.failed]
            if failed:
                raise MissingPlugin("this game needs %(plugins)s", plugins="; ".join(
                    f"plugin {n!r}, which failed to load on this server: {self.plugins.failed[n]}" for n in failed))
            raise MissingPlugin("this game needs plugin(s) %(plugins)s, which are not installed", plugins=str(missing))
        # A game stored before its seat kind's plugin was recorded in config.plugins.
        unknown = sorted({p.kind for p in game.players if p.kind != HUMAN and p.kind not in self.seat_kinds})
        if unknown:
            raise MissingPlugin("this game needs seat kind(s) %(kinds)s, which no installed plugin provides%(hint)s",
                                kinds=str(unknown), hint=self.failed_hint(unknown[0]))
        return game

    def copy(self, game: Game) -> Game:
        """A copy of ``game``, sharing what the engine worked out about it at rest (the pending
        decision's options: a bot's trial validates its action without working them out
        again). Change a copy by hand, and tell the engine (:meth:`edited`)."""
        twin = self.serde.copy(game)
        self._memo.copied(game, twin)
        return twin

    def determinize(self, game: Game, seat: int, rng: random.Random) -> Game:
        """A copy of ``game`` in which everything hidden from ``seat`` is drawn again with
        ``rng``, consistent with what ``seat`` sees: other seats' coins and deeds, the order
        of every face-down deck, seat kinds' hidden state (the Private Concern's deck) and the
        RNG. ``seat``'s view of the copy equals its view of ``game``; ``game`` is not changed.
        For bots that search (:mod:`darkroad.core.determinize` says what is drawn, and how)."""
        from .determinize import determinize

        return determinize(self, game, seat, rng)

    def bot_choice(self, game: Game, seat: int, bot: Bot) -> Action:
        """``bot``'s move for ``seat``: one of ``legal_actions(game, seat)``, chosen from what
        ``seat`` knows alone (its view, its legal actions, games drawn consistent with the view;
        never the real game). The one way to ask a bot: :func:`darkroad.core.bots.bot_choice`
        says how, docs/agents.md why."""
        from .bots import bot_choice

        return bot_choice(self, game, seat, bot)

    def action_from_json(self, obj: Any) -> Action:
        return self.serde.action_from_json(obj)

    def action_to_json(self, action: Action) -> dict[str, Any]:
        return self.serde.action_to_json(action)

    def event_to_json(self, event: Event) -> dict[str, Any]:
        return self.serde.event_to_json(event)

    def encode(self, obj: Event | Action) -> bytes:
        """``event_to_json`` / ``action_to_json`` as JSON bytes, faster."""
        return self.serde.encode(obj)

    @staticmethod
    def visible(event: Event, seat: int | None) -> bool:
        return event.private_to is None or event.private_to == seat

    def view(self, game: Game, seat: int | None, *, names: Sequence[str | None] | None = None,
             encoded: EncodedPlayers | None = None) -> dict[str, Any]:
        """``seat``'s view of ``game`` (``None``: a spectator's); ``names``: a display name per
        seat, each player's ``name``; ``encoded``: players' and config blocks kept encoded between
        views, for a caller that encodes every view (:class:`~darkroad.core.view.EncodedPlayers`) at
        once, before the game changes (the view then shares lists with the game)."""
        return view(self, game, seat, names, encoded)

    def action_schema(self) -> dict[str, Any]:
        from .view import action_schema

        return action_schema(self)

    def event_schema(self) -> dict[str, Any]:
        from .view import event_schema

        return event_schema(self)

    def replay(self, config: GameConfig, actions: Iterable[Any],
               other: Callable[[Game, Any], bool] | None = None) -> Game:
        """Rebuild a game from its config and its action log (:mod:`~darkroad.core.actionlog`:
        answers, withdrawn answers, undos and the service records whose kinds are registered
        with :attr:`log`; as records, :class:`Action` objects or their stored JSON, with or
        without their times). ``other`` is deprecated: register the service's record kind
        (``engine.log.register(kind)``) instead."""
        if other is not None:
            warnings.warn("Engine.replay(..., other=...) is deprecated: register the kind of record with "
                          "engine.log.register(kind)", DeprecationWarning, stacklevel=2)
        game, _ = self.create(GameConfig(**{**self.serde.unstructure(config), "plugins": {}}))
        return self.log.replay(game, actions, other=other)

    # -- undo (core/undo.py explains the rule) ---------------------------------------------
    def undo_refusal(self, game: Game, seat: int) -> str | None:
        """Why ``seat`` cannot undo now (a checkpoint, not its action, nothing to undo), or
        ``None`` when it can: then :meth:`undo` takes back its last action."""
        return undo.refusal(game, seat)

    def undo(self, game: Game, seat: int, actions: Sequence[Action | dict[str, Any]] | Callable[[int], Game],
             ) -> tuple[Game, Action, list[Event]]:
        """Take back ``seat``'s last undoable action: the game as it was before it, RNG
        included, rebuilt by replay (``game`` is not changed). ``actions``: the game's action
        list (as :meth:`replay` takes it), or a function giving the game at an earlier
        version. The new game counts on from ``game`` (version + 1, its events after
        ``game``'s, a public ``undone`` event naming the versions taken back). Returns it, the
        action to record in the action list (``type`` ``undo``, which :meth:`replay` reads)
        and the events. Raises :class:`~darkroad.core.undo.CannotUndo` with the reason."""
        k = undo.target(game, seat)
        earlier = actions(k) if callable(actions) else self.replay(game.config, list(actions)[:k])
        return undo.restore(self, game, seat, earlier)

    def position(self, game: Game) -> str:
        """SHA-256 of ``game``'s position: its state, RNG included, but the version, the event
        count and the undo chain (undoing an action and taking it again gives the position
        taking it once gives)."""
        return undo.position(self, game)
