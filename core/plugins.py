"""The plugin manager factory (no global manager: every engine builds its own).

The rulebook's modules (:mod:`darkroad.core.rulebook`) are registered first, as *essential*
plugins (pytest's ``essential_plugins``): they cannot be blocked. Plugins then arrive through
the ``darkroad`` entry-point group, the base game's components exactly like a fan's; pluggy
calls the later registered first, so a plugin's answer to a ``firstresult`` hook comes
before the rulebook's. Loading validates each plugin; one that fails is skipped and
recorded in :attr:`PluginSet.failed` with the reason (or, when ``strict``, the load
raises :class:`PluginError`). Here: a plugin that fails to import, implements a hook that
does not exist (with a did-you-mean), implements one as a wrapper (darkroad calls hooks
one implementation at a time, :mod:`hooks`), or defines a ``darkroad_*`` function without
``@hookimpl`` (pluggy would silently ignore it). The :class:`~darkroad.core.engine.Engine`
then rejects, the same way, a plugin whose registration raises, returns the wrong thing
or reuses an id, step kind or bot id another plugin already has.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata as md
import inspect
from collections.abc import Iterable
from typing import Any

import attrs
import pluggy

from . import hookspecs
from .errors import PluginError
from .hookspecs import hookimpl
from .rulebook import PARTS

GROUP = "darkroad"
ESSENTIAL_PLUGINS = tuple(f"rulebook.{part}" for part in PARTS)
"""The essential plugins' names, in the order they are registered (before any other): the
rulebook's parts, each the module ``darkroad.core.rulebook.<part>``."""
__all__ = ["ESSENTIAL_PLUGINS", "GROUP", "LoadedPlugin", "PluginSet", "hookimpl", "make_plugin_manager"]


@attrs.define
class LoadedPlugin:
    name: str
    version: str
    module: str
    dist: str
    builtin: bool
    """The base game's: an essential plugin, or an entry point of darkroad's own modules."""
    essential: bool = False
    """One of the rulebook's parts (:data:`ESSENTIAL_PLUGINS`): it cannot be blocked."""

    @property
    def kind(self) -> str:
        """``"essential"`` (the rulebook), ``"builtin"`` (the base game's components, bots and
        seat kinds) or ``"fan"`` (every other)."""
        return "essential" if self.essential else "builtin" if self.builtin else "fan"


@attrs.define
class PluginSet:
    pm: pluggy.PluginManager
    plugins: dict[str, LoadedPlugin] = attrs.Factory(dict)
    failed: dict[str, str] = attrs.Factory(dict)
    """Entry-point name -> error message of plugins that failed to load (and were skipped)."""
    strict: bool = False

    def reject(self, name: str, reason: str) -> None:
        """A plugin failed validation: raise when strict (or when it is essential: the rules
        cannot be played without it), else unregister and record it."""
        loaded = self.plugins.get(name)
        if self.strict or (loaded is not None and loaded.essential):
            raise PluginError(f"plugin {name!r} failed to load: {reason}", plugin=name)
        plugin = self.pm.get_plugin(name)
        if plugin is not None:
            self.pm.unregister(plugin, name=name)
        self.plugins.pop(name, None)
        self.failed[name] = reason


def make_plugin_manager(
    exclude: Iterable[str] = (),
    extra: Iterable[tuple[str, Any]] = (),
    entry_points: bool = True,
    strict: bool = False,
) -> PluginSet:
    """Build a plugin manager with every ``darkroad`` entry point except ``exclude``.

    ``extra`` registers more plugins by ``(name, module or object)`` (tests, the
    testing kit). With ``strict`` a plugin that fails to load raises
    :class:`PluginError`; otherwise it is skipped and recorded in ``failed``.
    """
    pm = pluggy.PluginManager(GROUP)
    pm.add_hookspecs(hookspecs)
    out = PluginSet(pm=pm, strict=strict)
    skip = set(exclude)
    blocked = sorted(skip.intersection(ESSENTIAL_PLUGINS))
    if blocked:
        raise PluginError(f"plugin {blocked[0]!r} is essential (a part of the rulebook): it cannot be blocked",
                          plugin=blocked[0])
    _register_essential(out)
    if entry_points:
        about: dict[md.Distribution, tuple[str, str]] = {}
        for ep in sorted(md.entry_points(group=GROUP), key=lambda e: e.name):
            if ep.name in skip or pm.has_plugin(ep.name):
                continue
            dist = ep.dist
            try:
                obj = ep.load()
                pm.register(obj, name=ep.name)
            except Exception as exc:  # a broken fan plugin must not take the service down
                msg = f"{type(exc).__name__}: {exc}"
                if strict:
                    raise PluginError(f"plugin {ep.name!r} failed to load: {msg}", plugin=ep.name) from exc
                out.failed[ep.name] = msg
                continue
            dist_name, version = _name_and_version(dist, about)
            out.plugins[ep.name] = LoadedPlugin(
                name=ep.name,
                version=version,
                module=ep.value,
                dist=dist_name,
                builtin=ep.value.startswith("darkroad.plugins."),
            )
    for name, obj in extra:
        if name in skip:
            continue
        pm.register(obj, name=name)
        out.plugins[name] = LoadedPlugin(name=name, version=str(getattr(obj, "__version__", "0")),
                                         module=getattr(obj, "__name__", name), dist="", builtin=False)
    for name, reason in sorted(invalid_plugins(pm).items()):
        out.reject(name, reason)
    pm.check_pending()
    return out


def _name_and_version(dist: md.Distribution | None, about: dict[md.Distribution, tuple[str, str]]) -> tuple[str, str]:
    """``dist``'s name and version (``("", "0")`` without one), its METADATA read once into
    ``about``: ``Distribution.name`` and ``.version`` parse that file again at every access
    (importlib.metadata keeps nothing), and each of the base game's entry points asks both, at
    every Engine.load (every server process loads one, and many tests; docs/performance.md,
    "Where the CPU goes at f8a7766, and what session 6 took off")."""
    if dist is None:
        return "", "0"
    if dist not in about:
        meta = dist.metadata
        about[dist] = (meta["Name"], meta["Version"])
    return about[dist]


def _register_essential(out: PluginSet) -> None:
    """Register the rulebook's parts, before any other plugin (:data:`ESSENTIAL_PLUGINS`)."""
    try:
        version = md.version("darkroad")
    except md.PackageNotFoundError:  # run from a source tree without an install
        version = "0"
    for name in ESSENTIAL_PLUGINS:
        module = importlib.import_module(f"darkroad.core.{name}")
        out.pm.register(module, name=name)
        out.plugins[name] = LoadedPlugin(name=name, version=version, module=module.__name__, dist="darkroad",
                                         builtin=True, essential=True)


def invalid_plugins(pm: pluggy.PluginManager) -> dict[str, str]:
    """Plugin name -> why it cannot be used as it is: hooks that do not exist, wrappers,
    ``darkroad_*`` functions without ``@hookimpl``. Each would otherwise fail later, at
    every call (or never run at all)."""
    specs = hookspecs.spec_names()
    problems: dict[str, list[str]] = {}
    for hook_name, caller in sorted(vars(pm.hook).items()):
        if not isinstance(caller, pluggy.HookCaller):
            continue
        for impl in caller.get_hookimpls():
            if not caller.has_spec():
                problems.setdefault(impl.plugin_name, []).append(f"implements unknown hook {hook_name}"
                                                                 + did_you_mean(hook_name, specs))
            elif impl.hookwrapper or impl.wrapper:
                problems.setdefault(impl.plugin_name, []).append(
                    f"implements {hook_name} as a wrapper (darkroad hooks do not support wrapper=True or "
                    "hookwrapper=True: implement it as a plain function)")
    for name, plugin in pm.list_name_plugin():
        for attr in sorted(dir(plugin)):
            if not attr.startswith("darkroad_"):
                continue
            if callable(inspect.getattr_static(plugin, attr, None)) and pm.parse_hookimpl_opts(plugin, attr) is None:
                problems.setdefault(name, []).append(
                    f"defines {attr} without @hookimpl, so darkroad would never call it "
                    "(decorate it with darkroad.core.hookimpl)" + ("" if attr in specs else did_you_mean(attr, specs)))
    return {name: "; ".join(found) for name, found in problems.items()}


def did_you_mean(name: str, known: list[str]) -> str:
    """`` (did you mean darkroad_x?)`` for the closest known hook name, or nothing (the
    names are compared without their common ``darkroad_`` prefix)."""
    prefix = "darkroad_"
    close = difflib.get_close_matches(name.removeprefix(prefix), [k.removeprefix(prefix) for k in known], n=1,
                                      cutoff=0.6)
    return f" (did you mean {prefix}{close[0]}?)" if close else ""
