"""Lists and dicts that note their changes while an action resolves, for undo (core/undo.py).

Undo must know whether an action changed what is hidden from the acting seat: the face-down
decks, the route events' and commission stacks' lists, the other seats' deeds. Copying all of
them before every action and comparing afterwards costs a list allocation each, on most
actions, for nothing changed. Instead the undo probe puts them in a :class:`TrackedList` (and
the maps of them in a :class:`TrackedDict`): the same values, a ``list``/``dict`` subclass whose
mutating methods write what the object held, before its first change, into every
:class:`Journal` being kept (:func:`watch`). Before an action the probe notes the objects
themselves (references); afterwards each is the same object, absent from the journal (it did
not change), or its contents before are in the journal to compare by value, exactly as a copy
would have been. Nothing is remembered between two calls: a journal lives for one
:meth:`~darkroad.core.kernel.Kernel.apply`, and a game changed by hand between two actions is
simply the game the next probe reads.

A tracked object behaves as a list or dict in every other way: equality, ``repr``, JSON and
MessagePack (msgspec, cattrs), copying and pickling. A plugin may still change a deck in place
(``board.hero_deck.pop(0)``) or replace it (``board.hero_deck = [...]``, then compared by value).
What a tracked object does not see is a change that bypasses its methods (a C function writing a
list's internals directly, as ``heapq``'s do): keep a face-down deck out of ``heapq``.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextvars import ContextVar, Token
from typing import Any, SupportsIndex, TypeVar

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")

Journal = list[tuple[Any, Any]]
"""``(object, a plain copy of what it held before its first change)``, one entry per object."""

_JOURNALS: ContextVar[tuple[Journal, ...]] = ContextVar("darkroad_tracked_journals", default=())
"""The journals being kept in this context (several when an action resolves inside another's)."""


def watch(journal: Journal) -> Token[tuple[Journal, ...]]:
    """Start noting every tracked object's first change into ``journal`` (until :func:`unwatch`)."""
    kept = _JOURNALS.get()
    return _JOURNALS.set(kept + (journal,) if kept else (journal,))


def unwatch(token: Token[tuple[Journal, ...]]) -> None:
    """Stop the journal :func:`watch` started."""
    _JOURNALS.reset(token)


def before(obj: Any, journal: Journal) -> Any:
    """What ``obj`` held when ``journal`` started: its copy in the journal, or itself (unchanged)."""
    for seen, held in journal:
        if seen is obj:
            return held
    return obj


def changed(obj: Any, journal: Journal) -> bool:
    """Whether ``obj`` changed since ``journal`` started."""
    return any(seen is obj for seen, _ in journal)


def _note(obj: Any, copy: Any) -> None:
    for journal in _JOURNALS.get():
        for seen, _ in journal:
            if seen is obj:
                break
        else:
            journal.append((obj, copy(obj)))


class TrackedList(list[T]):
    """A list noting its first change into the journals being kept (the module says why)."""

    __slots__ = ()

    def append(self, item: T, /) -> None:
        _note(self, list)
        super().append(item)

    def extend(self, items: Iterable[T], /) -> None:
        _note(self, list)
        super().extend(items)

    def insert(self, index: SupportsIndex, item: T, /) -> None:
        _note(self, list)
        super().insert(index, item)

    def pop(self, index: SupportsIndex = -1, /) -> T:
        _note(self, list)
        return super().pop(index)

    def remove(self, item: T, /) -> None:
        _note(self, list)
        super().remove(item)

    def clear(self) -> None:
        _note(self, list)
        super().clear()

    def sort(self, *, key: Any = None, reverse: bool = False) -> None:
        _note(self, list)
        super().sort(key=key, reverse=reverse)

    def reverse(self) -> None:
        _note(self, list)
        super().reverse()

    def __setitem__(self, index: Any, value: Any) -> None:
        _note(self, list)
        super().__setitem__(index, value)

    def __delitem__(self, index: Any) -> None:
        _note(self, list)
        super().__delitem__(index)

    def __iadd__(self, items: Iterable[T]) -> TrackedList[T]:  # type: ignore[override,misc]
        _note(self, list)
        return super().__iadd__(items)

    def __imul__(self, n: SupportsIndex) -> TrackedList[T]:
        _note(self, list)
        return super().__imul__(n)


class TrackedDict(dict[K, V]):
    """A dict noting its first change into the journals being kept (the module says why).
    ``tracked`` says whether every value in it is a :class:`TrackedList` (then nothing in it
    changes unseen), kept by its mutating methods so that the undo probe need not look."""

    tracked = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not all(type(v) is TrackedList for v in self.values()):
            self.tracked = False

    def _set(self, value: Any) -> None:
        if type(value) is not TrackedList:
            self.tracked = False

    def __setitem__(self, key: K, value: V) -> None:
        _note(self, dict)
        self._set(value)
        super().__setitem__(key, value)

    def __delitem__(self, key: K) -> None:
        _note(self, dict)
        super().__delitem__(key)

    def pop(self, key: K, *default: Any) -> Any:
        _note(self, dict)
        return super().pop(key, *default)

    def popitem(self) -> tuple[K, V]:
        _note(self, dict)
        return super().popitem()

    def clear(self) -> None:
        _note(self, dict)
        super().clear()

    def update(self, *args: Any, **kwargs: Any) -> None:
        _note(self, dict)
        super().update(*args, **kwargs)
        if not all(type(v) is TrackedList for v in self.values()):
            self.tracked = False

    def setdefault(self, key: K, default: Any = None) -> Any:
        _note(self, dict)
        if key not in self:
            self._set(default)
        return super().setdefault(key, default)

    def __ior__(self, other: Any) -> TrackedDict[K, V]:  # type: ignore[override,misc]
        _note(self, dict)
        super().__ior__(other)
        if not all(type(v) is TrackedList for v in self.values()):
            self.tracked = False
        return self
