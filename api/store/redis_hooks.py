"""The webhooks of :class:`~darkroad.api.store.redis_store.RedisStore` (see
``darkroad.api.store.webhook_queue`` for the contract).

``game:{<id>}:hooks``, a hash in the game's slot, expiring with the game (``commit.lua``
refreshes it): per subscribed seat ``<seat>`` (the subscription's JSON), ``<seat>:id`` and
``<seat>:state`` (the delivery state's JSON); ``awaited``, the seats the last commit left
awaited (``commit.lua`` compares the next commit's with it). Per shard ``<tag>`` of the bot
jobs (the same slot: a commit's script writes both): ``darkroad:hooks:{<tag>}``, the stream
of messages read by the consumer group ``deliverers``, and ``darkroad:hooks:retry:{<tag>}``,
a sorted set of messages to try again (each member the message's fields as JSON, with its
attempt), scored by when.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, NamedTuple

from darkroad.api.store.redis_groups import Groups
from darkroad.api.store.redis_jobs import JobQueue
from darkroad.api.store.webhook_queue import HOOK_GROUP, Delivery, HookNotice, HookStore, message_id


def hooks_key(shard: str) -> str:
    """The stream of webhook messages of ``shard``."""
    return f"darkroad:hooks:{{{shard}}}"


def retries_key(shard: str) -> str:
    """The messages of ``shard`` to try again, by due time."""
    return f"darkroad:hooks:retry:{{{shard}}}"


def subscriptions_key(game_id: str) -> str:
    """The seats' subscriptions of a game (in its slot)."""
    return f"game:{{{game_id}}}:hooks"


class HookArgs(NamedTuple):
    """``commit.lua``'s values for a commit's webhook messages (:func:`hook_args`)."""

    awaited: str
    """The seats awaited that players decide for (``0,2``): a short text."""
    decision: bytes
    """The pending decision's JSON (the ``turn`` messages' data): an argument of its own."""
    time: str
    """The commit's time: ``''`` = nothing for the webhooks, ``'?'`` = not made (the script
    answers ``notice`` when seats are subscribed): a short text."""
    low: str
    """The seats told their time bank runs low, with the seconds left (``1:12.5,3:4.0``): a
    short text."""


_NOTHING = HookArgs("", b"", "", "")
"""A commit without webhook messages (no notice, and none to make)."""
_LATER = HookArgs("", b"", "?", "")
"""A commit whose notice is made only if the script finds seats subscribed (:func:`hook_args`)."""


def hook_args(notice: HookNotice | None, later: bool = False) -> HookArgs:
    """``commit.lua``'s values for a commit's :class:`HookNotice`; without one, ``later``: the
    commit can make it (the script then asks for it when seats are subscribed)."""
    if notice is None:
        return _LATER if later else _NOTHING
    clock = ",".join(f"{seat}:{remaining!r}" for seat, remaining in notice.clock)
    return HookArgs(",".join(map(str, notice.awaited)), notice.decision, repr(notice.created), clock)


_PUT = """
-- KEYS[1] the game's hash, KEYS[2] its subscriptions; ARGV: seat, record, id, awaited
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return -1 end
local created = redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 and 1 or 0
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2], ARGV[1] .. ':id', ARGV[3], 'awaited', ARGV[4])
redis.call('HDEL', KEYS[2], ARGV[1] .. ':state')
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return created
"""
_DELETE = """
-- KEYS[1] the subscriptions; ARGV: seat, id ('' = any)
local id = redis.call('HGET', KEYS[1], ARGV[1] .. ':id')
if not id or (ARGV[2] ~= '' and id ~= ARGV[2]) then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1], ARGV[1] .. ':id', ARGV[1] .. ':state')
if redis.call('HLEN', KEYS[1]) <= 1 then redis.call('DEL', KEYS[1]) end
return 1
"""
_NOTE = """
-- KEYS[1] the subscriptions; ARGV: seat, id, state
if redis.call('HGET', KEYS[1], ARGV[1] .. ':id') == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1] .. ':state', ARGV[3])
end
return 0
"""
_RETRY = """
-- KEYS[1] the stream, KEYS[2] the retries; ARGV: group, ref, due, the next attempt's fields (JSON)
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
return 0
"""
_RELEASE = """
-- KEYS[1] the stream, KEYS[2] the retries; ARGV: now, limit
local due = redis.call('ZRANGE', KEYS[2], '-inf', ARGV[1], 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[2]))
for _, member in ipairs(due) do
  local fields = cjson.decode(member)
  redis.call('XADD', KEYS[1], '*', 'i', fields.i, 'g', fields.g, 's', fields.s, 'v', fields.v, 'k', fields.k,
    't', fields.t, 'd', fields.d, 'a', fields.a)
  redis.call('ZREM', KEYS[2], member)
end
return #due
"""

_ACK = "redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) return redis.call('XDEL', KEYS[1], ARGV[2])"
HOOK_SCRIPTS = {hashlib.sha1(script.encode(), usedforsecurity=False).hexdigest(): script
                for script in (_PUT, _DELETE, _NOTE, _RETRY, _RELEASE, _ACK)}
"""The scripts of the webhooks by their digest: the store loads them with its own."""
_SHAS = {script: sha for sha, script in HOOK_SCRIPTS.items()}


class RedisHooks(HookStore):
    """Subscriptions and messages in Redis, over the store's batched commands."""

    def __init__(self, command: Callable[..., Awaitable[Any]], jobs: JobQueue, groups: Groups) -> None:
        self._hook_command = command
        self._hook_jobs = jobs
        self._hook_group = groups(HOOK_GROUP, hooks_key)

    async def _eval(self, script: str, keys: Sequence[str], *args: Any) -> Any:
        # By digest, as the store's own scripts (the service's Redis user may not EVAL): loaded
        # with them when the store opens (HOOK_SCRIPTS), and again by the Batcher after NOSCRIPT.
        return await self._hook_command(keys[0], "EVALSHA", _SHAS[script], len(keys), *keys, *args, write=True)

    async def put_webhook(self, game_id: str, seat: int, record: bytes, sub_id: str, awaited: str) -> bool | None:
        created = await self._eval(_PUT, [f"game:{{{game_id}}}", subscriptions_key(game_id)], seat, record, sub_id,
                                   awaited)
        return None if int(created) < 0 else bool(created)

    async def webhook(self, game_id: str, seat: int) -> tuple[bytes, str, bytes | None] | None:
        key = subscriptions_key(game_id)
        record, sub_id, state = await self._hook_command(key, "HMGET", key, str(seat), f"{seat}:id", f"{seat}:state")
        if record is None or sub_id is None:
            return None
        return record, sub_id.decode(), state

    async def delete_webhook(self, game_id: str, seat: int, sub_id: str | None = None) -> bool:
        return bool(await self._eval(_DELETE, [subscriptions_key(game_id)], seat, sub_id or ""))

    async def note_delivery(self, game_id: str, seat: int, sub_id: str, state: bytes) -> None:
        await self._eval(_NOTE, [subscriptions_key(game_id)], seat, sub_id, state)

    async def take_deliveries(
        self, shard: str, consumer: str, count: int, block: float, claim_after: float
    ) -> list[Delivery]:
        entries, _ = await self._hook_group.take(shard, consumer, count, block, claim_after)
        return [Delivery.from_fields(fields, shard, entry_id.decode()) for entry_id, fields in entries]

    async def keep_deliveries(self, shard: str, consumer: str, refs: Sequence[str]) -> None:
        if not refs:
            return
        key = hooks_key(shard)
        # XCLAIM with no minimum idle time restarts the entries' idle time (JUSTID: without
        # counting a delivery); an entry acknowledged meanwhile is no longer pending, so untouched.
        await self._hook_command(key, "XCLAIM", key, HOOK_GROUP, consumer, 0, *refs, "JUSTID", write=True)

    async def enqueue_after(self, game_id: str, version: int, created: str, messages: Sequence[bytes]) -> None:
        """Enqueue the webhook messages ``commit.lua`` answered (``seat, kind, data`` triples) for a
        Cluster game whose slot has no shard of jobs (created before game ids were drawn for one):
        its script cannot write a shard's stream, so they are written just after its commit, to
        the shard its jobs go to. A crash between the two loses them (not so for any other game)."""
        shard = self._hook_jobs.any_shard(game_id)
        key = hooks_key(shard)
        for n in range(0, len(messages) - 2, 3):
            seat, kind, data = (item.decode() if isinstance(item, bytes) else str(item) for item in messages[n:n + 3])
            await self._hook_command(
                key, "XADD", key, "*", "i", message_id(game_id, version, int(seat), kind), "g", game_id, "s", seat,
                "v", version, "k", kind, "t", created, "d", data, "a", "0", write=True,
            )  # fmt: skip

    async def ack_delivery(self, delivery: Delivery) -> None:
        key = hooks_key(delivery.shard)
        await self._eval(_ACK, [key], HOOK_GROUP, delivery.ref)

    async def retry_delivery(self, delivery: Delivery, due: float) -> None:
        fields = delivery.fields()
        fields["a"] = str(delivery.attempt + 1)
        member = json.dumps({name: value.decode() if isinstance(value, bytes) else value
                             for name, value in fields.items()}, sort_keys=True)
        await self._eval(_RETRY, [hooks_key(delivery.shard), retries_key(delivery.shard)], HOOK_GROUP, delivery.ref,
                         repr(due), member)

    async def release_deliveries(self, shard: str, now: float, limit: int) -> int:
        return int(await self._eval(_RELEASE, [hooks_key(shard), retries_key(shard)], repr(now), limit))
