"""A Redis Cluster as the store's topology: the primary of each hash slot, learnt from
``CLUSTER SLOTS``, corrected by ``MOVED`` and ``ASK``, learnt again after a failover."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from dataclasses import replace

from redis import exceptions as redis_errors
from redis.crc import key_slot

from darkroad.api.store.base import StoreConfigError, StoreUnavailable
from darkroad.api.store.topology import (
    CONNECT_TIMEOUT,
    LOGIN_REFUSED,
    PROBE_TIMEOUT,
    UNAVAILABLE,
    Node,
    PoolOptions,
    Topology,
    address,
    reason,
    redact,
    refused_login,
    split_url,
)

logger = logging.getLogger("darkroad.api.redis")

SLOTS = 16384
_SlotMap = tuple[tuple[int, int, str, int], ...]


class ClusterNodes(Topology):
    """A Redis Cluster: the primary of each of its 16384 hash slots, learnt from ``CLUSTER SLOTS``.

    redis-py's ``RedisCluster`` routes one command at a time and its cluster pipeline does
    a lot of Python work per command; here the :class:`Batcher` groups a loop turn's commands
    by node and sends one pipeline per node, so the map is kept here. It is
    learnt at start-up from the seed nodes, corrected by each ``MOVED`` redirection, and
    learnt again (the map most nodes give) when a node fails or the cluster reports itself
    down: a failover shows as the replica taking over its primary's slots.
    """

    def __init__(self, url: str, options: PoolOptions) -> None:
        self._seeds, connection = split_url(url)
        if connection.get("db", 0) not in (0, None):
            raise StoreConfigError(
                f"{redact(url)}: a Redis Cluster has only database 0; drop /{connection['db']} from the URL"
            )
        connection.pop("db", None)
        self._options = replace(options, connection={**connection, **options.connection})
        self.description = "Redis Cluster at " + ", ".join(address(*seed) for seed in self._seeds)
        self._nodes: dict[tuple[str, int], Node] = {}
        self._slots: list[Node | None] = [None] * SLOTS
        self._primaries: list[Node] = []
        self._refreshing: asyncio.Task[None] | None = None
        self._last_refresh = 0.0

    def _node(self, host: str, port: int) -> Node:
        node = self._nodes.get((host, port))
        if node is None:
            node = self._nodes[(host, port)] = self._options.node(address(host, port), host=host, port=port)
        return node

    async def start(self) -> None:
        errors = []
        for host, port in self._seeds:
            node = self._node(host, port)
            try:
                await self._learn_from(node, host)
            except LOGIN_REFUSED as exc:
                raise refused_login(f"the cluster node {address(host, port)}", exc) from None
            except redis_errors.ResponseError as exc:
                if "cluster support disabled" in str(exc):
                    raise StoreConfigError(
                        f"{address(host, port)} is not a Redis Cluster node (cluster support is disabled): "
                        "use --redis-mode standalone"
                    ) from None
                raise StoreConfigError(
                    f"{address(host, port)} is not a Redis Cluster node ({reason(exc)}): use the right --redis-mode"
                ) from None
            except (*UNAVAILABLE, TimeoutError) as exc:
                errors.append(f"{address(host, port)}: {reason(exc)}")
                continue
            break
        else:
            raise StoreUnavailable(f"cannot reach any node of the {self.description}: {'; '.join(errors)}")
        uncovered = self._slots.count(None)
        if uncovered:
            raise StoreUnavailable(f"the {self.description} is down: {uncovered} of {SLOTS} slots have no primary")
        for node in self._primaries:
            try:
                await asyncio.wait_for(node.client.ping(), CONNECT_TIMEOUT + PROBE_TIMEOUT)
            except LOGIN_REFUSED as exc:
                raise refused_login(f"the cluster primary {node.name}", exc) from None
            except (*UNAVAILABLE, TimeoutError) as exc:
                raise StoreUnavailable(f"cannot reach the cluster primary {node.name}: {reason(exc)}") from exc

    async def _learn_from(self, node: Node, host: str) -> None:
        """Read the slot map from ``node`` (which ``host`` reaches) and make it current."""
        self._apply(await self._read_map(node, host))

    async def _read_map(self, node: Node, host: str) -> _SlotMap:
        """``node``'s view of the slot map: ``(first slot, last slot, host, port)`` of each
        range with a known primary (``host`` stands for the node asked where it says "")."""
        command = node.client.execute_command("CLUSTER", "SLOTS")  # type: ignore[no-untyped-call]
        try:
            reply = await asyncio.wait_for(command, PROBE_TIMEOUT)
        except TimeoutError:
            raise redis_errors.TimeoutError(f"{node.name} did not answer CLUSTER SLOTS") from None
        ranges = []
        for start, end, primary, *_replicas in reply:
            # redis-py parses CLUSTER SLOTS into {(start, end): {"primary": (host, port), ...}}
            # only on its cluster client; the plain client returns Redis's own nested lists.
            where = primary[0].decode() if isinstance(primary[0], bytes) else str(primary[0])
            if where == "?":
                continue  # a primary whose address is unknown: its slots stay unmapped
            ranges.append((int(start), int(end), where or host, int(primary[1])))
        return tuple(sorted(ranges))

    def _apply(self, ranges: _SlotMap) -> None:
        slots: list[Node | None] = [None] * SLOTS
        primaries: dict[str, Node] = {}
        for start, end, host, port in ranges:
            owner = self._node(host, port)
            primaries[owner.name] = owner
            slots[start : end + 1] = [owner] * (end - start + 1)
        self._slots = slots
        self._primaries = list(primaries.values())

    async def refresh(self) -> None:
        # One refresh at a time, and none right after another: every command failing at
        # once must not make every one of them ask the cluster.
        loop = asyncio.get_running_loop()
        if self._refreshing is None:
            if loop.time() - self._last_refresh < 0.05:
                return
            self._refreshing = loop.create_task(self._refresh())
        task = self._refreshing
        try:
            await asyncio.shield(task)
        finally:
            if task.done() and self._refreshing is task:
                self._refreshing = None
                self._last_refresh = loop.time()

    async def _refresh(self) -> None:
        """Ask every known node for the map and take the one most of them give.

        Not just the first answer: a primary that failed and was started again believes,
        for a moment, that it still owns its slots; one node's word would send writes to it.
        The map is taken as soon as more than half of the known nodes agree on it (dead
        nodes need not time out), else the most common answer within the probe timeout.
        """
        asked = {
            asyncio.ensure_future(self._read_map(node, host)): node for (host, _), node in self._nodes.items()
        }
        votes: collections.Counter[_SlotMap] = collections.Counter()
        try:
            for answer in asyncio.as_completed(asked, timeout=PROBE_TIMEOUT):
                try:
                    ranges = await answer
                except TimeoutError:
                    break  # as_completed's own: settle with the answers there are
                except Exception as exc:  # whatever went wrong, that node gave no answer
                    logger.debug("no cluster map from a node: %s", exc)
                    continue
                votes[ranges] += 1
                if votes[ranges] * 2 > len(asked):
                    break
        finally:
            for task in asked:
                task.cancel()
            await asyncio.gather(*asked, return_exceptions=True)
        if not votes:
            logger.warning("no node of the %s answered CLUSTER SLOTS", self.description)
            return
        self._apply(votes.most_common(1)[0][0])

    def node_for(self, key: str) -> Node:
        node = self._slots[key_slot(key.encode())]
        if node is None:
            raise redis_errors.ClusterDownError(f"slot {key_slot(key.encode())} has no known primary")
        return node

    def primaries(self) -> list[Node]:
        return list(self._primaries)

    def moved(self, error: redis_errors.AskError, sender: Node) -> Node:
        host = str(error.host)
        if host == "?":  # a node whose preferred endpoint is unknown: learn the map again
            raise redis_errors.ClusterDownError(f"redirected to a node of unknown address: {error}")
        node = self._node(host or sender.host or "127.0.0.1", int(error.port))  # "": the sender's host
        if isinstance(error, redis_errors.MovedError):
            self._slots[error.slot_id] = node
            if node not in self._primaries:
                self._primaries.append(node)
        return node

    async def close(self) -> None:
        if self._refreshing is not None:
            self._refreshing.cancel()
            with contextlib.suppress(BaseException):
                await self._refreshing
        for node in self._nodes.values():
            await node.close()


