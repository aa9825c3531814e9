"""The registry: what the loaded plugins register, merged and validated.

:func:`~darkroad.core.plugins.make_plugin_manager` loads the plugins (the ``darkroad`` entry
points) and refuses those that cannot be called at all. The registry then asks every plugin's
registration hooks (content packs, components, steps, bots, seat kinds, event types) and
merges the answers, in the order the rulebook reads: the built-in plugins first, then the
others in registration order, so that on a clash the later fan plugin is the one rejected.

A plugin whose registration raises, returns the wrong thing or reuses a key another plugin
already owns (a component id, a step kind, a bot or seat kind id, a game option, an event
type) is rejected naming both (or the load fails, when strict), and the merge starts over
without it: what is merged never depends on a plugin that was refused.

The :class:`Registry` is what one engine knows of its installation: the merged
:class:`~darkroad.core.content.Content`, the steps by kind, the bots and seat kinds by id,
the documented event types and every rule-point hook's implementations in calling order.
It holds no game.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable, Mapping
from typing import Any

import attrs
import pluggy

from .actionlog import UNDO, WITHDRAWN
from .bots import Bot
from .content import Component, Content, ContentError
from .errors import PluginError
from .hooks import Impl, PluginStep, impls_of
from .hookspecs import spec_names
from .plugins import PluginSet
from .seats import HUMAN, SeatKind
from .state import CONFIG_FIELDS
from .steps import Step

RESERVED_STEP_KINDS = {"companion": "the engine (companion abilities)", WITHDRAWN: "the engine (withdrawals)",
                       UNDO: "the engine (undo)"}
"""Action types that are no step, and who owns them: no plugin may register a step of that kind."""


@attrs.frozen
class Registrations:
    """What the registration hooks of the loaded plugins contribute, merged: ``(plugin,
    object)`` pairs, and the event types as ``type -> (plugin, EventType)``."""

    content: Content
    steps: list[tuple[str, Step]]
    bots: list[tuple[str, Bot]]
    seat_kinds: list[tuple[str, SeatKind]]
    event_types: dict[str, tuple[str, Any]]


class Registry:
    """Rules, content and plugins of one installation, merged (the module says how)."""

    def __init__(self, plugins: PluginSet) -> None:
        self.plugins = plugins
        self.pm: pluggy.PluginManager = plugins.pm
        loaded = merge(plugins)
        self.content = loaded.content
        self.bots: dict[str, Bot] = {bot.id: bot for _, bot in loaded.bots}
        """The installed bots by id (``darkroad_bots``)."""
        self.bot_plugins: dict[str, str] = {bot.id: name for name, bot in loaded.bots}
        """Bot id -> the plugin providing it."""
        self.seat_kinds: dict[str, SeatKind] = {kind.id: kind for _, kind in loaded.seat_kinds}
        """The installed seat kinds by id (``darkroad_seat_kinds``): the automated seats."""
        self.seat_kind_plugins: dict[str, str] = {kind.id: name for name, kind in loaded.seat_kinds}
        """Seat kind id -> the plugin providing it."""
        self.event_types = loaded.event_types
        """Event type -> :class:`~darkroad.core.view.EventType` of the plugins' events
        (``darkroad_event_types``), with the plugin documenting it."""
        self.essential = frozenset(name for name, p in plugins.plugins.items() if p.essential)
        """The essential plugins' names: the rulebook's parts."""
        self.steps: dict[str, Step] = {}
        """Every step kind, as its provider wrote it."""
        self.run_steps: dict[str, Step] = {}
        """The same, plugin steps wrapped so that their failures name the plugin (the rulebook's
        are not: they are the rules every plugin builds on, and their failures are blamed on
        the innermost plugin's code that led to them, :meth:`blame`)."""
        for name, step in loaded.steps:
            self.steps[step.kind] = step
            self.run_steps[step.kind] = step if name in self.essential else PluginStep(step, name)
        self.hook_impls: dict[str, list[Impl]] = {name: impls_of(self.pm, name) for name in spec_names()}
        """Every rule-point hook's implementations, in calling order."""
        self.companion_impls: dict[str, list[Impl]] = {}
        """Plugin -> its ``darkroad_companion_options`` implementations: companion abilities
        are asked only of the plugins providing a card the seat holds."""
        for impl in self.hook_impls["darkroad_companion_options"]:
            self.companion_impls.setdefault(impl[0], []).append(impl)
        comps = self.content.components
        overriding = {impl.plugin_name for impl in self.pm.hook.darkroad_deed_score.get_hookimpls() if impl.tryfirst}
        self.deed_impls: dict[str, list[Impl]] = _deed_impls(self.hook_impls["darkroad_deed_score"], comps,
                                                             overriding)
        """Deed id -> the ``darkroad_deed_score`` implementations, the plugin providing the deed
        first (after any marked ``tryfirst``: a plugin overriding another's deed): its own answer
        ends the call, so every view's projected score asks one plugin a deed instead of each in
        turn (a deed no plugin provides: :attr:`hook_impls`' order)."""
        self.card_plugins: dict[str, str] = {card: comps[cid].plugin for card, cid in
                                             self.content.companion_cards.items() if cid in comps}
        """Companion card id -> the plugin providing its companion."""

    def step_is_builtin(self, kind: str) -> bool:
        """Whether step ``kind`` is the rulebook's or a built-in plugin's."""
        step = self.run_steps.get(kind)
        if not isinstance(step, PluginStep):
            return kind in self.steps
        loaded = self.plugins.plugins.get(step.plugin)
        return bool(loaded and loaded.builtin)

    def step_plugin(self, kind: str) -> str | None:
        """The plugin providing step ``kind`` (``None`` for the rulebook's steps: the question
        is whether a decision is a component's)."""
        step = self.run_steps.get(kind)
        return step.plugin if isinstance(step, PluginStep) else None

    def base_game(self, kind: str) -> list[Component]:
        """Components of ``kind`` a game uses unless told otherwise: those of the built-in
        plugins (fan buildings and companions are chosen per game). Falls back to every
        component of the kind when no built-in plugin provides any."""
        comps = self.content.of_kind(kind)
        builtin = [c for c in comps if (p := self.plugins.plugins.get(c.plugin)) is not None and p.builtin]
        return builtin or comps

    def failed_hint(self, component: str) -> str:
        """Why ``component`` may be unknown: the plugins that failed to load (the one named
        like it, when there is one), as the end of an error message."""
        failed = self.plugins.failed
        if not failed:
            return ""
        named = [n for n in failed if n.replace("-", "_") == component or component in n.replace("-", "_")]
        shown = named or sorted(failed)
        return "; " + "; ".join(f"plugin {n!r} failed to load: {failed[n]}" for n in shown)

    def blame(self, exc: BaseException) -> str | None:
        """The plugin whose code raised ``exc``: the innermost frame in a plugin's module, a
        plugin's before the rulebook's (a fan plugin's call the rulebook could not resolve is
        the fan plugin's failure)."""
        files = {}
        for name, plugin in self.pm.list_name_plugin():
            mod = getattr(plugin, "__name__", None) or type(plugin).__module__
            file = getattr(sys.modules.get(mod), "__file__", None)
            if file:
                files[file] = name
        found = [files[f.filename] for f in reversed(traceback.extract_tb(exc.__traceback__)) if f.filename in files]
        return next((name for name in found if name not in self.essential), found[0] if found else None)


def _deed_impls(impls: list[Impl], components: Mapping[str, Component],
                overriding: set[str]) -> dict[str, list[Impl]]:
    """Each deed's ``darkroad_deed_score`` implementations: those marked ``tryfirst`` (the
    plugins in ``overriding``: pluggy's way to answer before the others, e.g. a variant scoring
    a base deed its own way), then those of the plugin providing it, then the others, each
    group in calling order (the hook says only the provider answers: a plugin that does not
    still gets asked, after it)."""
    out: dict[str, list[Impl]] = {}
    for deed, comp in components.items():
        if comp.kind == "deed":
            first = [impl for impl in impls if impl[0] in overriding]
            own = [impl for impl in impls if impl[0] == comp.plugin and impl[0] not in overriding]
            out[deed] = first + own + [impl for impl in impls if impl[0] != comp.plugin and impl[0] not in overriding]
    return out


def merge(plugins: PluginSet) -> Registrations:
    """Merge content packs, components, steps, bots, seat kinds and event types, rejecting
    (:meth:`PluginSet.reject`) a plugin whose registration is malformed or clashes with an
    earlier one, naming both, and merging again without it until nothing clashes."""
    while True:
        clashes: list[tuple[str, str]] = []
        merged = _merge_once(plugins, clashes)
        if not clashes:
            try:
                content = Content.build(merged["packs"], merged["components"])
                for name, kind in merged["seat_kinds"]:
                    _check_content(name, kind, content)
                return Registrations(content, merged["steps"], merged["bots"], merged["seat_kinds"],
                                     merged["event_types"])
            except ContentError as exc:
                if not exc.plugin:
                    raise PluginError(str(exc)) from exc
                clashes.append((exc.plugin, str(exc)))
        plugins.reject(*clashes[0])


Reject = Callable[[str, str], None]


def _merge_once(plugins: PluginSet, clashes: list[tuple[str, str]]) -> dict[str, Any]:
    """One pass of :func:`merge`: every registration hook's answers; each clash ``(plugin,
    reason)`` appended to ``clashes``."""

    def reject(plugin: str, reason: str) -> None:
        clashes.append((plugin, reason))

    # In this order: the first clash found is the plugin rejected.
    merged: dict[str, Any] = {
        "packs": [(name, pack) for name, pack in registrations(plugins, "darkroad_content") if pack],
        "components": _components(plugins, reject),
    }
    merged["steps"] = _unique(plugins, "darkroad_steps", Step, "step kind", reject, RESERVED_STEP_KINDS, key="kind")
    merged["bots"] = _unique(plugins, "darkroad_bots", Bot, "bot", reject)
    merged["seat_kinds"] = _unique(plugins, "darkroad_seat_kinds", SeatKind, "seat kind", reject,
                                   taken={HUMAN: "the core"})
    _check_options(merged["seat_kinds"], reject)
    merged["event_types"] = _event_types(plugins, reject)
    return merged


def registrations(plugins: PluginSet, hook: str) -> list[tuple[str, Any]]:
    """``(plugin, result)`` of a registration hook; built-in plugins first, then in
    registration order, so that on a clash the later fan plugin is the one rejected."""
    out = []
    for impl in getattr(plugins.pm.hook, hook).get_hookimpls():
        try:
            result = impl.function()
        except Exception as exc:
            plugins.reject(impl.plugin_name, f"{hook} raised {type(exc).__name__}: {exc}")
            continue
        out.append((impl.plugin_name, result))
    builtin = {n for n, p in plugins.plugins.items() if p.builtin}
    order = {name: i for i, (name, _) in enumerate(plugins.pm.list_name_plugin())}
    return sorted(out, key=lambda pr: (pr[0] not in builtin, order.get(pr[0], 0)))


def _components(plugins: PluginSet, reject: Reject) -> list[Component]:
    """The components of ``darkroad_components``, each marked with its plugin; ids unique."""
    comps: list[Component] = []
    owner: dict[str, str] = {}
    for name, result in registrations(plugins, "darkroad_components"):
        for comp in result or ():
            if not isinstance(comp, Component):
                reject(name, f"darkroad_components returned {comp!r}, not a Component")
            elif comp.id in owner and owner[comp.id] != name:
                reject(name, f"duplicate component id {comp.id!r}: provided by both {owner[comp.id]!r} and {name!r}")
            else:
                owner[comp.id] = name
                comps.append(Component(comp.kind, comp.id, comp.name, comp.text, comp.data, name))
    return comps


def _unique(plugins: PluginSet, hook: str, cls: type[Any], what: str, reject: Reject,
            taken: dict[str, str] | None = None, key: str = "id") -> list[tuple[str, Any]]:
    """``(plugin, object)`` of a registration hook returning objects of ``cls``, each with a
    unique ``key`` (steps by kind, bots and seat kinds by id); ``taken``: keys already
    owned (-> by whom)."""
    out = []
    owners = dict(taken or {})
    for name, result in registrations(plugins, hook):
        for obj in result or ():
            value = getattr(obj, key, None) if isinstance(obj, cls) else None
            if not value:
                reject(name, f"{hook} returned {obj!r}, not a {cls.__name__} with a {key}")
            elif value in owners:
                reject(name, f"{what} {value!r} is already defined by {owners[value]!r}")
            else:
                owners[value] = name
                out.append((name, obj))
    return out


def _check_options(seat_kinds: list[tuple[str, SeatKind]], reject: Reject) -> None:
    """Each game option is read by one seat kind, and none is a ``GameConfig`` field."""
    option_owner = {f: "the core (a GameConfig field)" for f in CONFIG_FIELDS}
    for name, kind in seat_kinds:
        for option in kind.options:
            if option in option_owner:
                reject(name, f"seat kind {kind.id!r} reads game option {option!r}, which belongs to "
                             f"{option_owner[option]}")
            option_owner[option] = repr(name)


def _event_types(plugins: PluginSet, reject: Reject) -> dict[str, tuple[str, Any]]:
    """The plugins' documented event types (``darkroad_event_types``): none the core's, each once."""
    from .view import EVENTS, EventType

    event_types: dict[str, tuple[str, Any]] = {}
    for name, result in registrations(plugins, "darkroad_event_types"):
        if not isinstance(result, Mapping | None):
            reject(name, f"darkroad_event_types returned {result!r}, not a mapping")
            continue
        for event, spec in (result or {}).items():
            if not isinstance(event, str) or not isinstance(spec, EventType):
                reject(name, f"darkroad_event_types: {event!r} -> {spec!r} is not an event type -> EventType")
            elif event in EVENTS or event in event_types:
                other = event_types[event][0] if event in event_types else "the engine's event log"
                reject(name, f"event type {event!r} is already documented by {other!r}")
            else:
                event_types[event] = (name, spec)
    return event_types


def _check_content(plugin: str, kind: SeatKind, content: Content) -> None:
    """A seat kind's check of the content: a :class:`ContentError` naming no plugin, or any
    other failure, is the seat kind's plugin's."""
    try:
        kind.check_content(content)
    except ContentError as exc:
        if not exc.plugin:
            exc.plugin = plugin
        raise
    except Exception as exc:
        raise ContentError(f"seat kind {kind.id!r} failed to check the content: {type(exc).__name__}: {exc}",
                           plugin=plugin) from exc
