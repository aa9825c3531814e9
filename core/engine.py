"""The engine: the public API of the rules core.

>>> engine = Engine.load()
>>> game, events = engine.create(GameConfig(players=3, seed=7))
>>> seat = engine.awaiting(game)[0]
>>> action = engine.legal_actions(game, seat)[0]
>>> events = engine.apply(game, action)          # mutates ``game``; ``game.version`` + 1

An engine is built once per process (plugins loaded, content merged, converter built)
and holds no game: every call takes the game it works on, and works it out as it is then
(a game changed by hand needs no announcement). ``apply`` validates the action against the
enumeration of legal answers *before* changing anything, so an illegal action leaves the game
exactly as it was.

:class:`Engine` is a façade over the parts of the core, each a module of its own: the plugins
merged (:mod:`~darkroad.core.registry`), the decision stack machine
(:mod:`~darkroad.core.kernel`), the action log (:mod:`~darkroad.core.actionlog`), configs
(:mod:`~darkroad.core.configs`), undo (:mod:`~darkroad.core.undo`), the invariants
(:mod:`~darkroad.core.invariants`), storage (:mod:`~darkroad.core.storage`), serialisation
(:mod:`~darkroad.core.serde`) and views (:mod:`~darkroad.core.view`).
"""

from __future__ import annotations

import logging
import os
import random
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from . import configs, invariants, undo
from .actionlog import WITHDRAWN as WITHDRAWN  # (re-exported: where it was defined before the action log)
from .actionlog import ActionLog
from .actions import Action
from .bots import Bot
from .content import Component
from .context import Ctx
from .errors import MissingPlugin
from .hooks import SEAT_ARGS, call_with, is_dict_list
from .kernel import OWN_TURN_PHASES as OWN_TURN_PHASES  # (re-exported, as WITHDRAWN)
from .kernel import WITHDRAWN_KEY as WITHDRAWN_KEY
from .kernel import Kernel
from .plugins import PluginSet, make_plugin_manager
from .registry import Registry
from .seats import HUMAN, SeatKind
from .serde import Serde
from .state import Event, Game, GameConfig
from .steps import Option
from .storage import Packer, StorageSpec
from .view import EncodedPlayers, view
from .wording import NoWords, Words, plugin_namer

logger = logging.getLogger("darkroad.core")
BUILDING_SPACES = configs.BUILDING_SPACES


class Engine:
    """Rules, content and plugins of one installation (the module says how it is made)."""

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
        self.hook_impls = registry.hook_impls
        self.check_invariants = os.environ.get("DARKROAD_CHECK_INVARIANTS", "") not in ("", "0")
        """Check the invariants after every action of every game (:meth:`Kernel.checks_invariants
        <darkroad.core.kernel.Kernel.checks_invariants>` says when they are checked otherwise);
        ``DARKROAD_CHECK_INVARIANTS=1`` sets it."""
        self.monitors: list[Any] = []
        """Callables ``(hook name, kwargs, result)`` told of every rule-point hook call
        (the testing kit's :class:`HookRecorder`)."""
        self.packer = Packer({g.id: g.footprint for g in self.content.goods})
        self.words = Words(self.content, plugin_namer(self.content, {n: p.module for n, p in plugins.plugins.items()}))
        """The engine's words for its content: every label and prompt names effects, cards and
        goods through them (:mod:`~darkroad.core.wording`)."""
        self.no_words = NoWords(self.content)
        """The words where none are read (:meth:`legal_actions` with ``words=False``)."""
        self.serde = Serde()
        self.log = ActionLog(self)
        """The action log of this engine's games: its records, read, made and replayed."""
        self.kernel = Kernel(self)
        """The decision stack machine (:mod:`~darkroad.core.kernel`)."""
        self._specs: dict[tuple[int, tuple[tuple[int, int], ...], tuple[tuple[tuple[int, int], ...], ...]],
                          StorageSpec] = {}
        """The storage specs made, by value (:meth:`storage_spec`): a few per installation (any-slots
        and the extensions' grids and tiles), and a :class:`StorageSpec` costs several times a
        look-up to make (its fields are validated and normalised). Saves 17.5% of the ``view``
        workload and 2.2% of the ``engine`` one (``benchmarks/instructions.py --workloads
        view,engine --without specs``)."""
        self._storage_heroes = frozenset(h for h, card in self.content.heroes.items() if card.bonus == "storage")
        """The heroes whose storage icon gives an any-slot (:meth:`storage_spec`)."""
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

    # -- the installation ------------------------------------------------------------------
    def catalog(self) -> list[dict[str, Any]]:
        """Every component of this installation with the plugin providing it."""
        out = []
        for comp in sorted(self.content.components.values(), key=lambda c: (c.kind, c.id)):
            plugin = self.plugins.plugins.get(comp.plugin)
            out.append({"kind": comp.kind, "id": comp.id, "name": comp.name, "text": comp.text,
                        "plugin": comp.plugin, "version": plugin.version if plugin else "0",
                        "data": dict(comp.data)})
        return out

    def failed_hint(self, component: str) -> str:
        """Why ``component`` may be unknown (:meth:`Registry.failed_hint`)."""
        return self.registry.failed_hint(component)

    def step_is_builtin(self, kind: str) -> bool:
        """Whether step ``kind`` is the rulebook's or a built-in plugin's."""
        return self.registry.step_is_builtin(kind)

    def step_plugin(self, kind: str) -> str | None:
        """The plugin providing step ``kind`` (``None`` for the rulebook's steps)."""
        return self.registry.step_plugin(kind)

    def base_game(self, kind: str) -> list[Component]:
        """Components of ``kind`` a game uses unless told otherwise (:meth:`Registry.base_game`)."""
        return self.registry.base_game(kind)

    # -- configs (core/configs.py) ---------------------------------------------------------
    def check_config(self, config: GameConfig) -> None:
        """Raise :class:`BadConfig` / :class:`UnknownComponent` for an unplayable config."""
        configs.check(self, config)

    def seat_assignment(self, config: GameConfig) -> dict[int, SeatKind]:
        """The automated seats of a game created with ``config`` (:func:`configs.seat_assignment`)."""
        return configs.seat_assignment(self, config)

    def choose_buildings(self, ctx: Ctx) -> list[str]:
        """The buildings of a new game (:func:`configs.buildings`)."""
        return configs.buildings(self, ctx)

    def companion_deck(self, config: GameConfig) -> list[str]:
        """The companion card ids of a new game: the base game's plus the chosen ones."""
        return configs.companion_deck(self, config)

    # -- playing (core/kernel.py) ----------------------------------------------------------
    def create(self, config: GameConfig) -> tuple[Game, list[Event]]:
        """A new game at its first decision, plus the setup events."""
        return self.kernel.create(config)

    def awaiting(self, game: Game) -> list[int]:
        """The seats the game is waiting for (several for simultaneous steps)."""
        return self.kernel.awaiting(game)

    def decision(self, game: Game, ctx: Ctx | None = None) -> dict[str, Any] | None:
        """The pending decision: its type, awaited seats and a human prompt; ``ctx``: a
        context of ``game`` the caller has already (a view asks several things of one game)."""
        return self.kernel.decision(game, ctx)

    def legal_actions(self, game: Game, seat: int, *, words: bool = True) -> list[Action]:
        """Every legal answer of ``seat`` now (empty when it is not ``seat``'s decision).

        ``words=False`` lists the same answers in the same order with empty labels, and words
        none of them: for a caller that reads only what the answers are (an agent's
        environment), since wording the labels is a fifth to a quarter of the listing."""
        return self.kernel.legal_actions(game, seat, words=words)

    def legal_options(self, game: Game, seat: int) -> list[tuple[str, list[str]]]:
        """Every legal answer of ``seat`` now, as ``(type, [option ids])`` groups: the pending
        decision's type with its options, then ``"companion"`` with the seat's companion
        abilities when it has any usable (no group without options; empty when it is not
        ``seat``'s decision). The answers of ``legal_actions(game, seat, words=False)``, in the
        same order, without an :class:`Action` or a label made for each: for a caller that
        reads only which answers are legal (an agent's environment: its action mask)."""
        return self.kernel.legal_options(game, seat)

    def details(self, game: Game, seat: int) -> dict[str, str]:
        """What ``seat``'s answers to the pending decision give, in words: option -> details
        (:meth:`Step.details`; the engine's words, :mod:`~darkroad.core.explain`), for those of
        its legal options that have any. Empty when it is not ``seat``'s decision."""
        return self.kernel.details(game, seat)

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
        return self.kernel.apply(game, action, track_undo=track_undo)

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
        return self.kernel.withdraw(game, action, reason, plugin)

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
        return self.kernel.replay(config, actions, other)

    def automated(self, game: Game) -> dict[int, SeatKind]:
        """The automated seats of ``game`` (seat -> its seat kind); empty: players only."""
        return self.kernel.automated(game)

    def is_automated(self, game: Game, seat: int) -> bool:
        """Whether ``seat`` is played by a seat kind (so it never has legal actions)."""
        return self.kernel.is_automated(game, seat)

    def companion_options(self, ctx: Ctx, seat: int) -> list[Option]:
        """``seat``'s companion abilities usable now (:meth:`Kernel.companion_options`)."""
        return self.kernel.companion_options(ctx, seat)

    def _settle(self, ctx: Ctx) -> None:
        """:meth:`Kernel.settle` (the testing kit's ``Table.push`` and ``run``)."""
        self.kernel.settle(ctx)

    def edited(self, game: Game) -> None:
        """Deprecated, and does nothing: the engine works every game out as it is when asked,
        so a game changed by hand needs no announcement."""
        warnings.warn("Engine.edited is deprecated and does nothing: a game changed by hand needs no "
                      "announcement", DeprecationWarning, stacklevel=2)

    def broken_invariants(self, game: Game) -> str | None:
        """The first broken invariant of ``game`` (:mod:`~darkroad.core.invariants`), or None."""
        return invariants.broken(game, self.steps)

    # -- storage ---------------------------------------------------------------------------
    def storage_spec(self, ctx: Ctx, seat: int) -> StorageSpec:
        """``seat``'s storage: the 6x5 grid, an any-slot per storage hero it holds, and what
        ``darkroad_storage_extensions`` adds (slots, extra grids, fixed tiles)."""
        storage_heroes = self._storage_heroes
        any_slots = 0
        for h in ctx.game.players[seat].heroes:
            if h in storage_heroes:
                any_slots += 1
        found = call_with(ctx, "darkroad_storage_extensions", is_dict_list, False, SEAT_ARGS, (ctx, seat),
                          self.hook_impls["darkroad_storage_extensions"])
        # (Most wagons: nothing but the grid and the heroes' slots.)
        key = self._extended(any_slots, found) if found else (any_slots, (), ())
        spec = self._specs.get(key)
        if spec is None:
            spec = self._specs[key] = StorageSpec(any_slots=key[0], extra_grids=key[1], fixed_tiles=key[2])
        return spec

    @staticmethod
    def _extended(any_slots: int, found: list[Any]) -> tuple[int, tuple[tuple[int, int], ...],
                                                             tuple[tuple[tuple[int, int], ...], ...]]:
        """A storage spec's key (:attr:`_specs`): ``any_slots`` and the extensions ``found``
        added (:meth:`storage_spec`)."""
        grids: list[tuple[int, int]] = []
        fixed: list[tuple[tuple[int, int], ...]] = []
        for exts in found:
            for ext in exts:
                any_slots += int(ext.get("any_slots", 0))
                if "extra_grid" in ext:
                    cols, rows = ext["extra_grid"]
                    grids.append((int(cols), int(rows)))
                if "fixed_tile" in ext:
                    fixed.append(tuple((int(r), int(c)) for r, c in ext["fixed_tile"]))
        return any_slots, tuple(grids), tuple(fixed)

    def storage_specs(self, ctx: Ctx) -> Callable[[int], StorageSpec]:
        """:meth:`storage_spec` of ``ctx.game``, seat by seat."""
        return lambda seat: self.storage_spec(ctx, seat)

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
        """A copy of ``game``, sharing nothing with it."""
        return self.serde.copy(game)

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
        """``event_to_json`` / ``action_to_json`` as JSON bytes (:meth:`Serde.encode`)."""
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
