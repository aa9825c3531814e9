"""Calling rule-point hooks one implementation at a time, so a failing plugin is named.

pluggy's own call runs every implementation and raises whatever the first failure was;
it cannot say which plugin returned a wrong type in a merged result. The engine calls
each implementation itself (in pluggy's order: last registered first, ``tryfirst`` /
``trylast`` respected), checks each result, and turns an exception or a wrong type into a
:class:`PluginError` naming the plugin. The plugins that answered are remembered on the
``Ctx`` so that an invariant broken after an action can be blamed on them.

Plugin steps (``darkroad_steps``) are wrapped in :class:`PluginStep` for the same reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pluggy

from .actions import MAX_DETAILS_LENGTH, MAX_LABEL_LENGTH, MAX_OPTION_LENGTH
from .errors import DarkroadError, PluginError
from .steps import Option, Step

if TYPE_CHECKING:
    from .context import Ctx
    from .state import Task

Impl = tuple[str, Callable[..., Any], tuple[str, ...]]
Check = Callable[[Any], bool]
_SEQUENCES = (list, tuple)
"""(A tuple, not ``list | tuple``: the checks run on every hook's answer, and the union is built
again at each evaluation.)"""


def impls_of(pm: pluggy.PluginManager, name: str) -> list[Impl]:
    """The implementations of hook ``name`` in calling order (wrappers were refused at
    load: :func:`~darkroad.core.plugins.invalid_plugins`)."""
    caller = getattr(pm.hook, name)
    return [(impl.plugin_name, impl.function, tuple(impl.argnames)) for impl in reversed(caller.get_hookimpls())]


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def is_int_list(v: Any) -> bool:
    return isinstance(v, _SEQUENCES) and all(is_int(x) for x in v)


def is_str_list(v: Any) -> bool:
    return isinstance(v, _SEQUENCES) and all(isinstance(x, str) for x in v)


def is_dict_list(v: Any) -> bool:
    return isinstance(v, _SEQUENCES) and all(isinstance(x, dict) for x in v)


def is_options(v: Any) -> bool:
    """``(option, label)`` string pairs within the lengths a client may send back."""
    if not isinstance(v, _SEQUENCES):
        return False
    for x in v:
        if not (isinstance(x, _SEQUENCES) and len(x) == 2):
            return False
        option, label = x
        if not (isinstance(option, str) and isinstance(label, str)
                and len(option) <= MAX_OPTION_LENGTH and len(label) <= MAX_LABEL_LENGTH):
            return False
    return True


def is_non_negative_int(v: Any) -> bool:
    return is_int(v) and v >= 0


def is_distances(v: Any) -> bool:
    return is_int_list(v) and all(0 <= x <= 5 for x in v)


def is_extra_options(v: Any) -> bool:
    return is_options(v) and all(o.startswith("x:") for o, _ in v)


def is_score(v: Any) -> bool:
    if not isinstance(v, dict):
        return False
    for k, n in v.items():  # (a loop, no generator: every deed's score in every view is checked)
        if k not in _SCORE_KEYS or (type(n) is not int and (not isinstance(n, int) or isinstance(n, bool))):
            return False
    return True


_SCORE_KEYS = frozenset(("coins", "prestige", "vp"))


def call(ctx: Ctx, name: str, check: Check | None, first: bool, kwargs: dict[str, Any],
         impls: list[Impl] | None = None) -> list[Any]:
    """Call every implementation (or until the first non-None result when ``first``);
    ``impls`` restricts the call to some implementations."""
    if impls is None:
        impls = ctx.engine.hook_impls[name]
    if not impls and not ctx.engine.monitors:
        return []
    kwargs["ctx"] = ctx
    out = []
    for plugin, fn, argnames in impls:
        try:
            # Most hooks take (ctx, seat): called with the two arguments themselves.
            result = fn(kwargs[argnames[0]], kwargs[argnames[1]]) if len(argnames) == 2 \
                else fn(*map(kwargs.__getitem__, argnames))
        except DarkroadError:
            raise
        except Exception as exc:
            raise _failed(plugin, name, exc) from exc
        if result is None:
            continue
        if check is not None and not check(result):
            raise _refused(plugin, name, result, check)
        ctx.answered.add(plugin)
        out.append(result)
        if first:
            break
    for monitor in ctx.engine.monitors:
        monitor(name, kwargs, (out[0] if out else None) if first else out)
    return out


SEAT_ARGS = ("ctx", "seat")
"""The arguments of a hook asked of one seat, ``(ctx, seat)``, for :func:`call_with`."""


def call_with(ctx: Ctx, name: str, check: Check, first: bool, names: tuple[str, ...], args: tuple[Any, ...],
              impls: list[Impl]) -> list[Any]:
    """:func:`call` of ``impls``, the hook's arguments given as ``args`` in the order of its
    specification's ``names`` (``ctx`` first): an implementation taking them all is called with
    them as they are, one taking some with those. The same results and failures, without the
    keyword arguments' plumbing when no monitor watches (the hooks asked on every decision and
    every view: the companions' options, storage extensions, a deed's score); with one, through
    :func:`call`, which tells the monitors."""
    if ctx.engine.monitors:
        return call(ctx, name, check, first, dict(zip(names[1:], args[1:], strict=True)), impls)
    out = []
    for plugin, fn, argnames in impls:
        try:
            result = fn(*args) if argnames == names else fn(*map(dict(zip(names, args, strict=True)).__getitem__, argnames))
        except DarkroadError:
            raise
        except Exception as exc:
            raise _failed(plugin, name, exc) from exc
        if result is not None:
            if not check(result):
                raise _refused(plugin, name, result, check)
            ctx.answered.add(plugin)
            out.append(result)
            if first:
                break
    return out


def _failed(plugin: str, name: str, exc: Exception) -> PluginError:
    return PluginError(f"plugin {plugin!r} failed in {name}: {type(exc).__name__}: {exc}", plugin=plugin)


def _refused(plugin: str, name: str, result: Any, check: Check) -> PluginError:
    return PluginError(f"plugin {plugin!r} returned {result!r} from {name}, which is not what the hook "
                       f"expects ({check.__name__.removeprefix('is_').replace('_', ' ')})", plugin=plugin)


class PluginStep(Step):
    """A plugin's step, with its failures attributed to the plugin."""

    def __init__(self, step: Step, plugin: str) -> None:
        self.step = step
        self.plugin = plugin
        self.kind = step.kind  # type: ignore[misc]
        self.decision = step.decision  # type: ignore[misc]
        self.prompt = step.prompt  # type: ignore[misc]
        self.settles_overflow = step.settles_overflow  # type: ignore[misc]
        self.logs_answer = step.logs_answer  # type: ignore[misc]
        self.inside_gain = step.inside_gain  # type: ignore[misc]
        self.begins_phase = step.begins_phase  # type: ignore[misc]
        self.engages = step.engages  # type: ignore[misc]
        self.checkpoint = step.checkpoint  # type: ignore[misc]

    def _guard(self, what: str, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except DarkroadError:
            raise
        except Exception as exc:
            raise PluginError(f"plugin {self.plugin!r} failed in step {self.kind!r} ({what}): "
                              f"{type(exc).__name__}: {exc}", plugin=self.plugin) from exc

    def run(self, ctx: Ctx, task: Task) -> None:
        ctx.answered.add(self.plugin)
        if self.checkpoint:
            ctx.checkpoint(f"step {self.kind!r} ran")
        self._guard("run", lambda: self.step.run(ctx, task))

    def seats(self, ctx: Ctx, task: Task) -> Sequence[int]:
        return self._guard("seats", lambda: self.step.seats(ctx, task))  # type: ignore[no-any-return]

    def options(self, ctx: Ctx, task: Task, seat: int) -> Sequence[Option]:
        opts = self._guard("options", lambda: list(self.step.options(ctx, task, seat)))
        if not is_options(opts):
            raise PluginError(f"plugin {self.plugin!r}: step {self.kind!r} returned options that are not "
                              f"(option, label) string pairs: {opts!r}", plugin=self.plugin)
        return opts  # type: ignore[no-any-return]

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        if type(self.step).has_options is Step.has_options:
            return bool(self.options(ctx, task, seat))  # its options, checked
        return bool(self._guard("has_options", lambda: self.step.has_options(ctx, task, seat)))

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        if type(self.step).allows is Step.allows:
            return Step.allows(self, ctx, task, seat, option)  # its options, checked
        return bool(self._guard("allows", lambda: self.step.allows(ctx, task, seat, option)))

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        ctx.answered.add(self.plugin)
        if self.checkpoint:
            ctx.checkpoint(f"step {self.kind!r} answered")
        self._guard("choose", lambda: self.step.choose(ctx, task, seat, option))

    def details(self, ctx: Ctx, task: Task, seat: int) -> Mapping[str, str]:
        found = self._guard("details", lambda: self.step.details(ctx, task, seat))
        if not (isinstance(found, Mapping) and all(isinstance(k, str) and isinstance(v, str)
                                                   and len(v) <= MAX_DETAILS_LENGTH for k, v in found.items())):
            raise PluginError(f"plugin {self.plugin!r}: step {self.kind!r} returned details that are not option -> "
                              f"text strings: {found!r}", plugin=self.plugin)
        return found

    def describe(self, ctx: Ctx, task: Task) -> str:
        return self._guard("describe", lambda: self.step.describe(ctx, task))  # type: ignore[no-any-return]

    def automated(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return bool(self._guard("automated", lambda: self.step.automated(ctx, task, seat)))
