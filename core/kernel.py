"""The kernel: the decision stack machine every game runs on.

A game's pending work is its stack (``Game.stack``): :class:`~darkroad.core.state.Task`
entries, each handled by the :class:`~darkroad.core.steps.Step` of its kind. The kernel:

* **settles** a game (:meth:`Kernel.settle`): runs the automatic step on top, hands a step
  that reaches an automated seat to its seat kind, and skips a decision that has no option
  for any seat, until a decision with options waits (or the stack is empty: the game is over);
* says **who it waits for** (:meth:`Kernel.awaiting`, :meth:`Kernel.decision`) and **what each
  seat may answer** (:meth:`Kernel.legal_actions`): the step's options, the plugins' extra
  options (``darkroad_decision_options``) less the answers withdrawn, and, on the active
  seat's own turn, its companions' abilities;
* **applies** an answer (:meth:`Kernel.apply`): checks it against those options *before*
  changing anything (an illegal action leaves the game as it was), resolves it, settles, checks
  the invariants (core/invariants.py), counts the version and classifies the action for undo
  (core/undo.py); or **withdraws** an answer a plugin failed to resolve (:meth:`Kernel.withdraw`);
* **creates** a game (:meth:`Kernel.create`) and **replays** one from its action log
  (:meth:`Kernel.replay`, through :meth:`ActionLog.replay <darkroad.core.actionlog.ActionLog.replay>`).

**What the kernel remembers about a game: nothing, between two calls.** Every call works out
what it needs from the game as it is when it is called, so a game changed by hand (a test, the
testing kit, a plugin author's experiment) is answered as it is, with nothing to announce, and
no answer depends on an object surviving from one call to the next. Remembering would need a
key that says the position is the same, and the only key that says so is the position itself:
its MessagePack costs more instructions than working out the options it would key
(docs/performance.md gives the figures). Within one call, what it worked out is passed along,
not looked up. And what a call needs is asked of the steps as narrowly as it is needed:
settling asks a decision only whether a seat has an answer (:meth:`Step.has_options`), checking
an answer only whether its id is one (:meth:`Step.allows`); only :meth:`legal_actions` lists and
words every option. What the core does remember is keyed by values that are the whole input of a
pure function (the storage search, :mod:`~darkroad.core.storage`), each with its measured worth
in its docstring.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from . import configs, i18n, invariants, undo
from .actionlog import WITHDRAWN
from .actions import Action
from .context import Ctx
from .errors import DarkroadError, GameFinished, IllegalAction, NotYourDecision, PluginError
from .hooks import SEAT_ARGS, call_with, is_bool, is_extra_options, is_options
from .rng import seed_state
from .seats import HUMAN, SeatKind
from .state import FINISHED, Event, Game, GameConfig, Task
from .steps import Option, Step

if TYPE_CHECKING:
    from .engine import Engine

_A = TypeVar("_A")
"""What :meth:`Kernel._legal` lists an answer (or a group of answers) as."""
_OPTION = operator.itemgetter(0)
"""An option's id (``(id, label)``)."""
_TASK_SEAT = Step.seats
"""The default :meth:`Step.seats` (the task's seat alone): a step keeping it needs no
:class:`Ctx` to say whom it waits for."""
WITHDRAWN_KEY = "_withdrawn"
"""``task.data`` key of a decision's withdrawn answers: ``[seat, type, option]`` triples."""
OWN_TURN_PHASES = ("plan", "move", "activate", "rest")
"""Phases in which the active seat may use companion abilities (after Rest: ``finish_turn``)."""


def _option_ids(kind: str, seat: int, options: Iterable[Option]) -> list[tuple[str, list[str]]]:
    """``[(kind, [id of each option])]``, or ``[]`` when there is no option (what
    :meth:`Kernel.legal_options` lists of a decision)."""
    ids = list(map(_OPTION, options))
    return [(kind, ids)] if ids else []


class Kernel:
    """The decision stack machine of one installation (the module says what it does). It
    works for an :class:`~darkroad.core.engine.Engine`, whose registry it reads and which it
    hands to every rule as ``ctx.engine``."""

    def __init__(self, engine: Engine) -> None:
        registry = engine.registry
        self.engine = engine
        self.registry = registry
        self.steps = registry.run_steps
        """Step kind -> the step that runs it (a plugin's wrapped to name it when it fails)."""
        self.seat_kinds = registry.seat_kinds
        self.seat_kind_plugins = registry.seat_kind_plugins
        self.monitors: list[Any] = engine.monitors
        self._extra_options = registry.hook_impls["darkroad_decision_options"]
        self._companion_impls = registry.companion_impls
        self._card_plugins = registry.card_plugins
        fan = frozenset(name for name, p in engine.plugins.plugins.items() if not p.builtin)
        with_components = {c.plugin for c in registry.content.components.values()}
        with_components |= {impl.plugin_name for impl in engine.pm.hook.darkroad_content.get_hookimpls()}
        self._fan = fan
        """The plugins not shipped with darkroad (fans', tests'): code the property tests do not cover."""
        self._fan_everywhere = bool(fan - with_components)
        """Whether a fan plugin without components is installed: its hooks may act in any game."""

    # -- a new game ------------------------------------------------------------------------
    def create(self, config: GameConfig) -> tuple[Game, list[Event]]:
        """A new game at its first decision, and the setup's events."""
        engine = self.engine
        configs.check(engine, config)
        game = Game(config=config, rng=seed_state(config.seed))
        ctx = Ctx(engine, game)
        game.board.buildings = configs.buildings(engine, ctx)
        config.plugins = configs.plugins_used(engine, game)
        try:
            ctx.push("setup")  # the rulebook's (rulebook.setup), the step every game begins with
            self.settle(ctx)
        except DarkroadError:
            raise
        except Exception as exc:
            raise self.failure(exc) from exc
        return game, ctx.events

    def replay(self, config: GameConfig, records: Iterable[Any], other: Any = None) -> Game:
        """A game rebuilt from its config and its action log (:meth:`Engine.replay`)."""
        game, _ = self.create(GameConfig(**{**self.engine.serde.unstructure(config), "plugins": {}}))
        return self.engine.log.replay(game, records, other=other)

    # -- settling --------------------------------------------------------------------------
    def settle(self, ctx: Ctx) -> None:
        """Run automatic steps and skip decisions without options until a decision waits.
        An overflow called for is settled first, before anything else."""
        game = ctx.game
        automated: dict[int, SeatKind] = {}
        for p in game.players:  # (players only, as a rule: no call to make the empty answer)
            if p.kind != HUMAN:
                automated = self.automated(game)
                break
        steps = self.steps
        while True:
            if ctx.overflows:
                ctx.settle_overflows()
            stack = game.stack  # (read again: a step may have set another list)
            if not stack:
                return
            task = stack[-1]
            step = steps[task.kind]
            if step.begins_phase:
                game.phase = step.begins_phase  # where the step begins, not in its options
            if automated and self._intercept(ctx, task, step, automated):
                continue  # a step of an automated seat: resolved by its seat kind, never awaited
            if not step.decision:
                stack.pop()
                step.run(ctx, task)
                continue
            for s in (task.seat,) if type(step).seats is _TASK_SEAT else step.seats(ctx, task):
                if self.has_option(ctx, task, step, s):
                    return
            stack.pop()

    def automated(self, game: Game) -> dict[int, SeatKind]:
        """The automated seats of ``game`` (seat -> its seat kind); empty: players only."""
        out = {}
        for p in game.players:
            if p.kind != HUMAN:
                out[p.seat] = self.seat_kinds[p.kind]
        return out

    def is_automated(self, game: Game, seat: int) -> bool:
        """Whether ``seat`` is played by a seat kind (so it never has legal actions)."""
        return 0 <= seat < len(game.players) and game.players[seat].kind != HUMAN

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

    # -- the decision ----------------------------------------------------------------------
    def top(self, game: Game) -> tuple[Task, Step] | None:
        """The task on top of the stack and its step, or ``None`` when the stack is empty."""
        stack = game.stack
        if not stack:
            return None
        task = stack[-1]
        return task, self.steps[task.kind]

    def options(self, ctx: Ctx, task: Task, step: Step, seat: int) -> list[Option]:
        """``seat``'s options at ``task`` (the step's, the plugins' extra ones, less those
        withdrawn): its answers but its companion abilities."""
        opts = list(step.options(ctx, task, seat))
        if self._extra_options or self.monitors or task.data.get(WITHDRAWN_KEY):
            # An overflow is settled at once: its discard admits nothing else.
            if not step.settles_overflow and (self._extra_options or self.monitors):
                for extra in ctx.call("darkroad_decision_options", is_extra_options, task=task, seat=seat):
                    opts += [tuple(o) for o in extra]
            withdrawn = task.data.get(WITHDRAWN_KEY)
            if withdrawn:
                opts = [o for o in opts if [seat, task.kind, o[0]] not in withdrawn]
        return opts

    def has_option(self, ctx: Ctx, task: Task, step: Step, seat: int) -> bool:
        """Whether ``seat`` has an answer at ``task`` (``bool(options(...))``): the step says so
        without wording its options (:meth:`Step.has_options`) unless plugins may add options
        or some were withdrawn."""
        if self._extra_options or self.monitors or task.data.get(WITHDRAWN_KEY):
            return bool(self.options(ctx, task, step, seat))
        return step.has_options(ctx, task, seat)

    def awaiting(self, game: Game) -> list[int]:
        """The seats the game is waiting for (several for simultaneous steps)."""
        stack = game.stack  # (the top, read here: asked before every answer)
        if not stack:
            return []
        task, step = stack[-1], self.steps[stack[-1].kind]
        if type(step).seats is _TASK_SEAT:
            return [task.seat]  # one seat: settling skipped the decision if it had no option
        return self._awaited(Ctx(self.engine, game), task, step)

    def _awaited(self, ctx: Ctx, task: Task, step: Step) -> list[int]:
        """:meth:`awaiting` of the decision ``task`` on top of ``ctx``'s game, its step's seats
        asked."""
        seats = list(step.seats(ctx, task))
        if len(seats) == 1:
            return seats  # settling skipped the decision if it had no option
        return [s for s in seats if self.has_option(ctx, task, step, s)]

    def decision(self, game: Game, ctx: Ctx | None = None) -> dict[str, Any] | None:
        """The pending decision: its type, awaited seats and a human prompt; ``ctx``: the
        game's context, when the caller has one (a view asks several things of one game)."""
        stack = game.stack
        if not stack:
            return None
        task = stack[-1]
        step = self.steps[task.kind]
        if ctx is None:
            ctx = Ctx(self.engine, game)
        seats = [task.seat] if type(step).seats is _TASK_SEAT else self._awaited(ctx, task, step)
        return {"type": task.kind, "seats": seats, "prompt": step.describe(ctx, task)}

    def companion_options(self, ctx: Ctx, seat: int) -> list[Option]:
        """``seat``'s companion abilities usable now, asked of the plugins providing a
        companion card it holds, in the order of their names (abilities belong to cards: no
        card, no ability)."""
        cards = ctx.game.players[seat].companions
        if not cards:
            return []
        card_plugins = self._card_plugins
        if len(cards) == 1:
            name = card_plugins.get(cards[0].card)
            asked = self._companion_impls.get(name, []) if name is not None else []
        else:
            asked = []
            for name in sorted({n for card in cards if (n := card_plugins.get(card.card)) is not None}):
                asked += self._companion_impls.get(name, ())
        results = call_with(ctx, "darkroad_companion_options", is_options, False, SEAT_ARGS, (ctx, seat), asked)
        out: list[Option] = []
        for opts in results:
            if opts:  # (usually none: no ability usable now)
                out += map(tuple, opts)
        return out

    def legal_actions(self, game: Game, seat: int, *, words: bool = True) -> list[Action]:
        """Every legal answer of ``seat`` now (empty when it is not ``seat``'s decision);
        ``words=False``: with no labels (``""``), which are then not worded."""
        if words:
            return self._legal(game, seat, self._actions)
        token = i18n.set_wordless()
        try:
            return self._legal(game, seat, self._bare)
        finally:
            i18n.reset_locale(token)

    def legal_options(self, game: Game, seat: int) -> list[tuple[str, list[str]]]:
        """``seat``'s legal answers as ``(type, [option ids])`` groups, unworded
        (:meth:`Engine.legal_options`)."""
        token = i18n.set_wordless()
        try:
            return self._legal(game, seat, _option_ids)
        finally:
            i18n.reset_locale(token)

    def _legal(self, game: Game, seat: int, actions: Callable[[str, int, Iterable[Option]], list[_A]]) -> list[_A]:
        stack = game.stack  # (the top, read here: asked before every answer)
        if not stack or game.phase == FINISHED:
            return []
        task, step = stack[-1], self.steps[stack[-1].kind]
        ctx = Ctx(self.engine, game)
        if (seat != task.seat if type(step).seats is _TASK_SEAT else seat not in step.seats(ctx, task)) \
                or (0 <= seat < len(game.players) and game.players[seat].kind != HUMAN):  # (is_automated)
            return []
        acts = actions(task.kind, seat, self.options(ctx, task, step, seat))
        if acts and seat == game.active and game.phase in OWN_TURN_PHASES and not step.settles_overflow \
                and not step.inside_gain and game.players[seat].companions:
            companions = self.companion_options(ctx, seat)
            withdrawn = task.data.get(WITHDRAWN_KEY)
            if withdrawn:
                companions = [(o, lbl) for o, lbl in companions if [seat, "companion", o] not in withdrawn]
            if companions:
                acts += actions("companion", seat, companions)
        return acts

    def details(self, game: Game, seat: int) -> dict[str, str]:
        """What ``seat``'s answers to the pending decision give, in words (:meth:`Engine.details`)."""
        top = self.top(game)
        if top is None:
            return {}
        task, step = top
        legal = {a.option for a in self.legal_actions(game, seat) if a.type == task.kind}
        if not legal:
            return {}
        found = step.details(Ctx(self.engine, game), task, seat)
        return {option: text for option, text in found.items() if option in legal and text}

    @staticmethod
    def _actions(kind: str, seat: int, options: Iterable[Option]) -> list[Action]:
        """``Action(kind, seat, option, label)`` of each option."""
        return [Action(kind, seat, option, label) for option, label in options]

    @staticmethod
    def _bare(kind: str, seat: int, options: Iterable[Option]) -> list[Action]:
        """``Action(kind, seat, option)`` of each option: no label."""
        return [Action(kind, seat, option) for option, _ in options]

    # -- answering -------------------------------------------------------------------------
    def answering(self, ctx: Ctx, action: Action) -> tuple[Task, Step]:
        """The pending decision of ``ctx.game`` that ``action`` legally answers, or the
        :class:`IllegalAction` (or subclass) saying why it does not; the game is not touched."""
        game = ctx.game
        if game.phase == FINISHED:  # (game.finished, read here: every answer asks)
            raise GameFinished("the game is over")
        stack = game.stack
        if not stack:
            raise IllegalAction("the game is not waiting for any decision")
        task, step = stack[-1], self.steps[stack[-1].kind]
        if not self._is_step_option(ctx, task, step, action):
            self._check_legal(game, task, step, action)
        ctx.answered.clear()  # who answered the questions is not who resolved the action
        return task, step

    def _is_step_option(self, ctx: Ctx, task: Task, step: Step, action: Action) -> bool:
        """The usual case of the legality check: an answer of the pending step itself."""
        seat = action.seat
        players = ctx.game.players
        if action.type != task.kind or (0 <= seat < len(players) and players[seat].kind != HUMAN):  # (is_automated)
            return False
        if seat not in ((task.seat,) if type(step).seats is _TASK_SEAT else step.seats(ctx, task)):
            return False
        option = action.option
        if option.startswith("x:") or self.monitors:  # a plugin's extra option (or calls watched)
            return option in map(_OPTION, self.options(ctx, task, step, seat))
        withdrawn = task.data.get(WITHDRAWN_KEY)
        if withdrawn and [seat, task.kind, option] in withdrawn:
            return False
        return step.allows(ctx, task, seat, option)

    def _check_legal(self, game: Game, task: Task, step: Step, action: Action) -> None:
        """The full legality check (companion abilities), raising with the reason."""
        legal = {a.key(): a for a in self.legal_actions(game, action.seat)}
        if not legal:
            raise NotYourDecision("the game is waiting for seats %(seats)s (%(decision)s), not for seat %(seat)d",
                                  seats=", ".join(map(str, self.awaiting(game))),
                                  decision=step.describe(Ctx(self.engine, game), task), seat=action.seat)
        if action.key() not in legal:
            options = ", ".join(sorted(f"{t}/{o}" for t, _, o in legal))
            raise IllegalAction("%(action)s is not a legal answer for seat %(seat)d now (%(decision)s); legal: %(legal)s",
                                action=action.type + "/" + action.option, seat=action.seat,
                                decision=step.describe(Ctx(self.engine, game), task), legal=options)

    def apply(self, game: Game, action: Action, *, track_undo: bool = True) -> list[Event]:
        """Apply ``action`` to ``game`` in place and return the events it caused
        (:meth:`Engine.apply`)."""
        engine = self.engine
        ctx = Ctx(engine, game)
        task, step = self.answering(ctx, action)
        noted = None
        if track_undo:
            seats = (task.seat,) if type(step).seats is _TASK_SEAT else step.seats(ctx, task)
            noted = undo.probe(engine, game, action, seats, game.phase in OWN_TURN_PHASES)
        try:
            self._resolve(ctx, task, step, action)
            self.settle(ctx)
            broken = invariants.broken(game, self.steps) if self.checks_invariants(game) else None
            if broken:
                blamed = sorted(ctx.answered - self.registry.essential)  # the plugins, not the rulebook
                raise PluginError(f"the game broke an invariant ({broken}) while resolving {action.type}/"
                                  f"{action.option}; plugins involved: {blamed or 'none'}",
                                  plugin=blamed[0] if len(blamed) == 1 else "")
            game.version += 1
        except DarkroadError:
            raise
        except Exception as exc:
            raise self.failure(exc) from exc
        finally:
            if noted is not None:
                undo.done(noted)
        if noted is not None:
            undo.track(engine, game, action, noted, ctx)
        return ctx.events

    def checks_invariants(self, game: Game) -> bool:
        """Whether :meth:`apply` checks the invariants (core/invariants.py) after an action of
        ``game``: when code the property tests do not cover can touch it (a fan plugin the game
        uses, or one without components: its hooks may act in any game), when the testing kit
        watches the engine (a plugin author's tests), and in every game when
        ``engine.check_invariants`` is set (``DARKROAD_CHECK_INVARIANTS=1``, ``darkroad
        simulate --check``). The rulebook and darkroad's own plugins are proven instead by
        ``tests/test_properties.py`` (``--random-games 5000``: no violation), not at every
        action of every game."""
        return self.engine.check_invariants or bool(self.monitors) or self._fan_everywhere \
            or not self._fan.isdisjoint(game.config.plugins)

    def _resolve(self, ctx: Ctx, task: Task, step: Step, action: Action) -> None:
        """Resolve ``action``, a legal answer of ``task`` (on top, ``step``'s): an answer of the
        step itself, a plugin's extra option (``x:``) or a companion ability."""
        kind, option, seat = action.type, action.option, action.seat
        # An answer is in the seat's log, in words, unless its step says its own events name it
        # (``logs_answer``: the rulebook's decisions log what they do, moved, bought, ...); an "x:"
        # option and a companion ability are a plugin's answer to whatever decision is on top.
        if not step.logs_answer or kind == "companion" or option.startswith("x:"):
            ctx.emit("answered", seat, private=True, decision=kind, option=option,
                     **_answer_words(self, ctx, task, step, action))
        if kind == "companion":
            if not ctx.first("darkroad_companion_use", is_bool, seat=seat, option=option):
                raise PluginError(f"no plugin resolved companion option {option!r}")
        elif option.startswith("x:"):
            if not ctx.first("darkroad_decision_choose", is_bool, task=task, seat=seat, option=option):
                raise PluginError(f"no plugin resolved option {option!r}")
        else:
            ctx.game.stack.pop()
            step.choose(ctx, task, seat, option)

    def withdraw(self, game: Game, action: Action, reason: str = "", plugin: str = "") -> tuple[Action, list[Event]]:
        """Take ``action`` out of the answers of the pending decision, after a plugin failed
        to resolve it (:meth:`Engine.withdraw`)."""
        ctx = Ctx(self.engine, game)
        task, _ = self.answering(ctx, action)
        task.data.setdefault(WITHDRAWN_KEY, []).append([action.seat, action.type, action.option])
        ctx.emit("option_withdrawn", action.seat, private=True, decision=action.type, option=action.option,
                 reason=reason, plugin=plugin)
        try:
            self.settle(ctx)
        except DarkroadError:
            raise
        except Exception as exc:
            raise self.failure(exc) from exc
        game.version += 1
        return Action(WITHDRAWN, action.seat, f"{action.type}:{action.option}"), ctx.events

    def failure(self, exc: Exception) -> PluginError:
        """The :class:`PluginError` of an unexpected exception ``exc`` of a rule, naming the
        plugin whose code raised it (or the engine)."""
        plugin = self.registry.blame(exc)
        where = f"plugin {plugin!r}" if plugin else "the engine"
        return PluginError(f"{where} failed: {type(exc).__name__}: {exc}", plugin=plugin or "")


def _answer_words(kernel: Kernel, ctx: Ctx, task: Task, step: Step, action: Action) -> dict[str, Any]:
    """``{"labels": {language: label}}``: the answer's label as its decision lists it (the one
    wording of the option, its plugin's) in every language the engine speaks, so that the
    event is the same whoever's call applied it and is read in its reader's language (the
    seat's log after a reload, a replay); empty when no label is found. A companion ability
    has none: its card names it ("chose an ability of <card>"), and its label would ask every
    companion the seat holds whether its abilities are usable again, once per language, at
    every ability used."""
    if action.type == "companion":
        return {}
    labels = {}
    for locale in i18n.LOCALES:
        with i18n.use_locale(locale):
            options = kernel.options(ctx, task, step, action.seat)
        label = next((label for option, label in options if option == action.option), None)
        if label is None:
            return {}
        labels[locale] = label
    return {"labels": labels}
