"""The plugin manager factory (no global manager: every engine builds its own).

Plugins arrive through the ``darkroad`` entry-point group, the base game's components
exactly like a fan's. Loading validates: unknown hook implementations fail
(``check_pending``), duplicate component ids fail naming both plugins (in
:meth:`Content.build`), and a plugin that fails to import is reported and skipped
(or fails the load when ``strict``).
"""

from __future__ import annotations

import importlib.metadata as md
from collections.abc import Iterable
from typing import Any

import attrs
import pluggy

from . import hookspecs
from .errors import PluginError

GROUP = "darkroad"
hookimpl = pluggy.HookimplMarker(GROUP)


@attrs.define
class LoadedPlugin:
    name: str
    version: str
    module: str
    dist: str
    builtin: bool


@attrs.define
class PluginSet:
    pm: pluggy.PluginManager
    plugins: dict[str, LoadedPlugin] = attrs.Factory(dict)
    failed: dict[str, str] = attrs.Factory(dict)
    """Entry-point name -> error message of plugins that failed to load (and were skipped)."""
    strict: bool = False

    def reject(self, name: str, reason: str) -> None:
        """A plugin failed validation: raise when strict, else unregister and record it."""
        if self.strict:
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
    if entry_points:
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
            out.plugins[ep.name] = LoadedPlugin(
                name=ep.name,
                version=dist.version if dist else "0",
                module=ep.value,
                dist=dist.name if dist else "",
                builtin=ep.value.startswith("darkroad.plugins."),
            )
    for name, obj in extra:
        if name in skip:
            continue
        pm.register(obj, name=name)
        out.plugins[name] = LoadedPlugin(name=name, version=str(getattr(obj, "__version__", "0")),
                                         module=getattr(obj, "__name__", name), dist="", builtin=False)
    # An implementation of a hook that does not exist is an error, not a silent no-op;
    # the plugin is named and skipped (or the load fails, when strict).
    unknown: dict[str, list[str]] = {}
    for hook_name, caller in sorted(vars(pm.hook).items()):
        if isinstance(caller, pluggy.HookCaller) and not caller.has_spec():
            for impl in caller.get_hookimpls():
                unknown.setdefault(impl.plugin_name, []).append(hook_name)
    for name, hooks in sorted(unknown.items()):
        out.reject(name, f"implements unknown hook(s) {hooks}")
    pm.check_pending()
    return out
