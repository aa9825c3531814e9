"""A bounded table of values worked out before, that starts again when full.

What the core remembers is keyed by values that are the whole input of what it keeps (never by
an object's identity), and stays only with a measured gain (docs/performance.md, "What the core
remembers"); a table whose keys come from the games played is bounded with this one. Starting
again costs one clear per ``size``
new keys, where an eviction order (``functools.lru_cache``'s) costs bookkeeping on every hit;
the keys these tables see come back soon or not at all."""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Memo(dict[K, V]):
    """A dict of at most ``size`` entries: :meth:`keep` empties it first when it is full.
    Looked up as any dict (``memo.get(key)``)."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def keep(self, key: K, value: V) -> V:
        """Keep ``value`` under ``key`` (the table emptied first when full); ``value``."""
        if len(self) >= self.size:
            self.clear()
        self[key] = value
        return value
