"""The one thing a process keeps between requests: decoded games at the last version it saw.

A version's state never changes, so a cached game is either right or behind the store, and a
commit tells which: acting on a cached game costs one round trip to the store, and a read
skips decoding the state.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from darkroad.api.app.auth import seat_or_none
from darkroad.api.app.lobby import Lobby
from darkroad.api.metrics import Metrics
from darkroad.core import Game


@dataclass(slots=True)
class CachedGame:
    """A decoded game, the tag of its version, its seat token hashes and its lobby record at
    that version."""

    game: Game
    token_hashes: tuple[str, ...]
    tag: str
    lobby: Lobby | None = None
    hooked: bool = False
    """The commit that wrote this version found seats subscribed to webhooks: the next commit
    brings its messages' notice at once (else the store asks for it when it finds some:
    :attr:`Commit.notice <darkroad.api.store.base.Commit.notice>`)."""

    def seat_of_token(self, token: str) -> int | None:
        """The seat whose token ``token`` is, or ``None`` when it matches no seat (at this version)."""
        return seat_or_none(token, self.token_hashes)


class GameCache:
    """Least-recently-used decoded games of this process, each at the last version it saw.

    A version's state never changes, so a cached game is right for its version (and tag:
    after a failover that lost writes, one version number may name two states); it may be
    behind the store when another process acted since, which commits detect.

    Keyed by what a version is (the game's id, version and tag), never by an object's
    identity. Its gain: an action through the app costs 1.185 M instructions with it and
    1.800 M with a cache that keeps nothing (34% of the action saved: the stored state's
    decode and one store read), ``benchmarks/instructions.py --workloads action --baseline
    DIR`` with ``DIR`` that tree installed (docs/performance.md).
    """

    def __init__(self, size: int, metrics: Metrics) -> None:
        self._size = size
        self._metrics = metrics
        self._games: OrderedDict[str, CachedGame] = OrderedDict()

    def get(self, game_id: str, version: int, tag: str) -> Game | None:
        """The cached game if it is at ``version`` with ``tag`` (shared: callers must not mutate it)."""
        cached = self._games.get(game_id)
        if cached is None or cached.game.version != version or cached.tag != tag:
            self._metrics.cache.inc("miss")
            return None
        self._games.move_to_end(game_id)
        self._metrics.cache.inc("hit")
        return cached.game

    def peek(self, game_id: str) -> CachedGame | None:
        """The cached game, whatever its version, left in the cache (read it, never mutate it)."""
        return self._games.get(game_id)

    def take(self, game_id: str, version: int | None = None, tag: str = "") -> CachedGame | None:
        """Remove and return the cached game (at ``version`` with ``tag``, if given) for the caller
        to mutate."""
        cached = self._games.pop(game_id, None)
        if cached is not None and version is not None and (cached.game.version, cached.tag) != (version, tag):
            cached = None  # behind the store: useless
        self._metrics.cache.inc("miss" if cached is None else "hit")
        return cached

    def put(self, game_id: str, entry: CachedGame) -> None:
        """Cache ``entry`` (its game at its current version, named by its tag), evicting the
        least recently used."""
        self._games[game_id] = entry
        self._games.move_to_end(game_id)
        while len(self._games) > self._size:
            self._games.popitem(last=False)
