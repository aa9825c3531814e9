"""Rate limits per client address, counted in the store so that every replica shares them.

Three budgets per client address and window (``Settings.rate_limit_window``, a minute by
default): ``create`` counts the routes that make a game or hand out a seat (``POST
/v1/games``, joins: their handlers' ``opt={"budget": "create"}``), ``auth`` counts failed
authentications (a ``401`` to a request that carried a token), ``requests`` counts every
other request (the probes ``/healthz``, ``/readyz`` and ``/metrics`` excepted:
``opt={"budget": "unlimited"}``). A request over its budget, or carrying a token while its
address has used up the ``auth`` budget, is answered ``429 rate-limited`` with
``Retry-After``, without touching the games. The policy layer (``darkroad.api.http.policy``)
applies them to every request.

Windows slide: the count a request is checked against is the current window's plus the
previous window's, weighted by the part of it still inside the sliding window (Redis's
and Cloudflare's sliding-window approximation), so a client cannot spend two budgets
across a window's edge.

The counting must not cost a round trip per request: each process
decides from its own counts plus the shared totals it last learnt, and adds its counts to
the shared counters (:meth:`GameStore.count <darkroad.api.store.base.GameStore.count>`: Redis
``INCRBY``, batched with the requests' own commands) every :data:`SYNC_INTERVAL`. So the
limits hold across replicas to within what the other replicas admitted in the last
fraction of a second. The in-memory store counts in its own process.

Why not Litestar's ``RateLimitConfig``: it reads and rewrites a JSON history per client
through a Litestar ``Store`` on every request (two round trips, and a read-modify-write
that loses counts when replicas race), has one budget per middleware, keys on the path,
and cannot count only the requests that failed authentication.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import math
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from litestar.types import Scope

from darkroad.api.http.problems import Problem
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.base import GameStore
from darkroad.core.i18n import N_

logger = logging.getLogger("darkroad.api")

SYNC_INTERVAL = 0.2
"""Seconds between two exchanges of a process's counts with the store."""


def client_key(scope: Scope) -> str:
    """The client a request is counted for: its address (behind trusted proxies, the one
    they forwarded: ``Settings.trusted_proxies``); an IPv6 client by its /64, which one
    subscriber usually has whole."""
    client = scope.get("client")
    host = client[0] if client else "unknown"
    if ":" in host:
        with contextlib.suppress(ValueError):
            return str(ipaddress.IPv6Network((host, 64), strict=False).network_address) + "/64"
    return host


@dataclass(slots=True)
class _Count:
    """One budget of one client: what this process knows of the current and previous window."""

    window: int
    shared: int = 0
    """The store's total for the current window at the last exchange (this process's included)."""
    sending: int = 0
    """This process's counts on their way to the store."""
    local: int = 0
    """This process's counts not sent yet."""
    previous: int = 0
    """The previous window's total."""
    previous_known: bool = False
    """Whether ``previous`` came from the store (else it is this process's own count)."""

    @property
    def used(self) -> int:
        return self.shared + self.sending + self.local


class RateLimiter:
    """The budgets of ``settings``, counted in ``store``; see the module docstring.

    ``clock`` gives the wall-clock time: every replica must agree on the windows.
    """

    def __init__(
        self, settings: Settings, store: GameStore, metrics: Metrics, clock: Callable[[], float] = time.time
    ) -> None:
        self.window = settings.rate_limit_window
        self.limits = {
            "requests": settings.rate_limit_requests,
            "create": settings.rate_limit_creates,
            "auth": settings.rate_limit_auth_failures,
        }
        self.enabled = any(self.limits.values())
        self._store = store
        self._metrics = metrics
        self.clock = clock
        """The wall-clock time (Unix seconds) the windows are counted in: every replica must
        agree on it (a test holds it still, so that no window ends during it)."""
        self._counts: dict[tuple[str, str], _Count] = {}
        self._carried: list[tuple[str, int]] = []
        """Counts of a window that ended before they were sent: (key, count)."""
        self._sync: asyncio.Task[None] | None = None

    # -- deciding --------------------------------------------------------------------
    def admit(self, budget: str, client: str, authenticates: bool) -> None:
        """Refuse a request of ``client`` over ``budget`` (or, carrying a token, over the
        ``auth`` budget of failed authentications): ``rate-limited`` (429, with
        ``Retry-After``); else count it against ``budget``. One reading of the clock."""
        now = self.clock()
        count = self._checked(budget, client, now)
        if authenticates:
            self._checked("auth", client, now)
        if count is not None:  # add(budget, client, now), on the count checked already
            self._one_more(count)

    def check(self, budget: str, client: str, now: float | None = None) -> None:
        """Raise ``rate-limited`` (429) when ``client`` has used up ``budget`` (at ``now``,
        else the clock's time)."""
        self._checked(budget, client, self.clock() if now is None else now)

    def _checked(self, budget: str, client: str, now: float) -> _Count | None:
        """:meth:`check`, returning the count checked (``None``: an unlimited budget)."""
        limit = self.limits[budget]
        if not limit:
            return None
        count = self._count(budget, client, now)
        elapsed = now / self.window - count.window  # the part of the current window gone by
        used = count.used
        if count.previous * (1.0 - elapsed) + used < limit:
            return count
        self._metrics.rate_limited.inc(budget)
        retry = self._retry_after(limit, used, count.previous, elapsed)
        raise Problem("rate-limited", _TOO_MANY[budget], headers={"Retry-After": str(retry)}, limit=limit,
                      window=self.window, retry=retry)

    def add(self, budget: str, client: str, now: float | None = None) -> None:
        """Count one event of ``budget`` for ``client`` (at ``now``, else the clock's time)."""
        if not self.limits[budget]:
            return
        self._one_more(self._count(budget, client, self.clock() if now is None else now))

    def _one_more(self, count: _Count) -> None:
        """Count one event on ``count``, to be sent to the store soon."""
        count.local += 1
        if self._sync is None:
            self._sync = asyncio.get_running_loop().create_task(self._exchange_soon())

    def _count(self, budget: str, client: str, now: float) -> _Count:
        window = int(now // self.window)
        count = self._counts.get((budget, client))
        if count is not None and count.window == window:
            return count
        fresh = _Count(window)
        if count is not None:
            if count.window == window - 1:  # the current window of a moment ago is the previous one
                fresh.previous = count.used
            if count.local:  # not sent yet: other replicas read it as their previous window
                self._carried.append((self._key(budget, client, count.window), count.local))
        self._counts[(budget, client)] = fresh
        return fresh

    def _retry_after(self, limit: int, used: int, previous: int, elapsed: float) -> int:
        """Seconds until the sliding count falls below ``limit`` if nothing more is counted."""
        rest = (1.0 - elapsed) * self.window  # of the current window
        if used >= limit:  # the next window, once this one weighs less there
            wait = rest + self.window * (1.0 - limit / used)
        else:  # the previous window must weigh less
            wait = rest - self.window * (limit - used) / previous
        return max(1, math.ceil(wait))

    # -- sharing -------------------------------------------------------------------
    @staticmethod
    def _key(budget: str, client: str, window: int) -> str:
        # The hash tag keeps a client's windows of one budget on one Redis Cluster node.
        return f"ratelimit:{{{budget}:{client}}}:{window}"

    async def _exchange_soon(self) -> None:
        """Exchange counts every :data:`SYNC_INTERVAL` while there are counts to send or
        clients near a limit (whose totals other replicas may be raising)."""
        try:
            while True:
                await asyncio.sleep(SYNC_INTERVAL)
                if not await self.exchange():
                    return
        finally:
            self._sync = None

    def _hot(self, budget: str, count: _Count) -> bool:
        return 2 * count.used >= self.limits[budget]

    async def exchange(self) -> bool:
        """Add this process's counts to the store's and learn the totals (every replica's);
        whether to exchange again (counts near a limit are followed)."""
        window = int(self.clock() // self.window)
        ttl = 2 * self.window
        jobs: list[Coroutine[Any, Any, object]] = []
        for (budget, client), count in list(self._counts.items()):
            if count.window < window - 1 or (count.window == window - 1 and not count.local):
                del self._counts[(budget, client)]  # nothing left to tell or learn
                continue
            key = self._key(budget, client, count.window)
            if count.local:
                jobs.append(self._send(key, count, ttl))
            elif count.window == window and self._hot(budget, count):
                jobs.append(self._learn(key, count, ttl))
            if not count.previous_known:
                jobs.append(self._learn_previous(self._key(budget, client, count.window - 1), count, ttl))
        carried, self._carried = self._carried, []
        jobs += [self._store.count(key, amount, ttl) for key, amount in carried]
        for result in await asyncio.gather(*jobs, return_exceptions=True):
            if isinstance(result, Exception):  # meanwhile, the limits keep counting in this process
                logger.warning("rate limit counts not shared: %s", result)
                break
        return any(
            count.local or (count.window == window and self._hot(budget, count))
            for (budget, _), count in self._counts.items()
        )

    async def _send(self, key: str, count: _Count, ttl: float) -> None:
        amount, count.local = count.local, 0
        count.sending += amount
        try:
            total = await self._store.count(key, amount, ttl)
        except BaseException:
            count.local += amount  # sent again next time
            raise
        finally:
            count.sending -= amount
        count.shared = max(count.shared, total)

    async def _learn(self, key: str, count: _Count, ttl: float) -> None:
        count.shared = max(count.shared, await self._store.count(key, 0, ttl))

    async def _learn_previous(self, key: str, count: _Count, ttl: float) -> None:
        count.previous = max(count.previous, await self._store.count(key, 0, ttl))
        count.previous_known = True

    async def close(self) -> None:
        """Share the last counts and stop."""
        if self._sync is not None:
            self._sync.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sync
        with contextlib.suppress(Exception):
            await self.exchange()


_TOO_MANY = {
    "requests": N_("Too many requests from your address: at most %(limit)d in %(window)g s; retry after %(retry)d s."),
    "create": N_("Too many games created and seats joined from your address: at most %(limit)d in %(window)g s; "
                 "retry after %(retry)d s."),
    "auth": N_("Too many failed authentications from your address: at most %(limit)d in %(window)g s; "
               "retry after %(retry)d s."),
}
"""The detail of a refusal of each budget (one whole sentence each, for translations)."""
