"""The store's part of webhooks: seats' subscriptions, and the queue of messages to deliver.

A seat's subscription (its receiver's URL, signing secret and delivery state) lives beside
its game (Redis: the hash ``game:{<id>}:hooks``, in the game's slot, expiring with it), so a
commit can look at it in its atomic step: a commit that leaves a subscribed seat newly
awaited, or finishes the game, enqueues its messages there and then (:class:`HookNotice`,
carried by :attr:`Commit.hooks <darkroad.api.store.base.Commit.hooks>`). A message is never
lost by a crash between the commit and its enqueuing, and never sent for a commit that failed.

The queue is a stream per shard of the bot jobs (Redis: ``darkroad:hooks:{<shard>}``, the
shard's slot, so a Cluster game's commit writes it), read by the workers' consumer group
``deliverers``: a message taken and not acknowledged (its worker was killed) is claimed by
another after the claim timeout. A worker keeps the messages it is delivering
(:meth:`HookStore.keep_deliveries`), so a slow receiver's message is not claimed from a live
worker and sent twice at once: the claim timeout need not exceed the receivers' timeout. A failed delivery is acknowledged and scheduled again in
the same atomic step (``darkroad:hooks:retry:{<shard>}``, a sorted set by due time), whence
the workers move due messages back to the stream. A message keeps its id (the
``webhook-id`` header) through all of it.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass

HOOK_GROUP = "deliverers"


@dataclass(frozen=True, slots=True)
class HookNotice:
    """What a commit tells the queue of messages (enqueued only for subscribed seats)."""

    awaited: tuple[int, ...]
    """The seats the new version waits for that a player decides for (not a bot): each one
    subscribed and not awaited at the version before gets a ``turn`` message."""
    decision: bytes
    """The pending decision (JSON: ``{"type", "prompt"}``), ``b"null"`` when there is none."""
    created: float
    """The commit's time (Unix seconds): the messages' ``timestamp``."""
    clock: tuple[tuple[int, float], ...] = ()
    """Seats told their time bank runs low by this commit, and the seconds left: a ``clock``
    message each (subscribed seats)."""


@dataclass(frozen=True, slots=True)
class Delivery:
    """One message to deliver to one seat's receiver, as the queue hands it out."""

    id: str
    """The message's id: the ``webhook-id`` of every attempt to deliver it."""
    game_id: str
    seat: int
    version: int
    kind: str
    """``turn``, ``finished`` or ``clock``."""
    created: float
    """Unix seconds: when the message was made (the body's ``timestamp``)."""
    data: bytes
    """The kind's facts (JSON): the decision of a ``turn``, the remaining time of a ``clock``."""
    attempt: int = 0
    """Attempts made before this one."""
    shard: str = ""
    ref: str = ""
    """Its entry in the shard's stream (acknowledging it names it)."""

    def fields(self) -> dict[str, str | bytes]:
        """The stream entry's fields (the retry set keeps them too)."""
        return {"i": self.id, "g": self.game_id, "s": str(self.seat), "v": str(self.version), "k": self.kind,
                "t": repr(self.created), "d": self.data, "a": str(self.attempt)}

    @classmethod
    def from_fields(cls, fields: dict[bytes, bytes], shard: str, ref: str) -> Delivery:
        """A delivery from its entry's fields (:meth:`fields`)."""
        return cls(fields[b"i"].decode(), fields[b"g"].decode(), int(fields[b"s"]), int(fields[b"v"]),
                   fields[b"k"].decode(), float(fields[b"t"]), fields[b"d"], int(fields.get(b"a", b"0")), shard, ref)


def message_id(game_id: str, version: int, seat: int, kind: str) -> str:
    """The id of the ``kind`` message of ``seat`` at ``version`` of the game: one per message,
    the same wherever and however often it is made (a commit's script, a retry)."""
    return f"msg_{game_id}.{version}.{seat}.{kind}"


class HookStore(abc.ABC):
    """The webhook operations of a :class:`~darkroad.api.store.base.GameStore`."""

    @abc.abstractmethod
    async def put_webhook(self, game_id: str, seat: int, record: bytes, sub_id: str, awaited: str) -> bool | None:
        """Subscribe ``seat`` (``record``: the subscription as JSON, ``sub_id`` its id), its
        delivery state afresh, and note ``awaited`` (the seats awaited now, ``0,2``) as what the
        next commit compares with. ``True``: a new subscription, ``False``: one replaced,
        ``None``: no such game."""

    @abc.abstractmethod
    async def webhook(self, game_id: str, seat: int) -> tuple[bytes, str, bytes | None] | None:
        """``seat``'s subscription: its record, id and delivery state (``None``: none yet);
        ``None`` when the seat has none."""

    @abc.abstractmethod
    async def delete_webhook(self, game_id: str, seat: int, sub_id: str | None = None) -> bool:
        """End ``seat``'s subscription (with ``sub_id``: only if it is still that one); whether
        one was ended."""

    @abc.abstractmethod
    async def note_delivery(self, game_id: str, seat: int, sub_id: str, state: bytes) -> None:
        """Record the delivery state of ``seat``'s subscription, if it is still ``sub_id``."""

    @abc.abstractmethod
    async def take_deliveries(
        self, shard: str, consumer: str, count: int, block: float, claim_after: float
    ) -> list[Delivery]:
        """Up to ``count`` messages of ``shard`` for worker ``consumer``: those taken more than
        ``claim_after`` seconds ago and never acknowledged first, then new ones, waiting up to
        ``block`` seconds for one."""

    @abc.abstractmethod
    async def keep_deliveries(self, shard: str, consumer: str, refs: Sequence[str]) -> None:
        """``consumer`` is still delivering the messages ``refs`` of ``shard`` (taken and not
        acknowledged): none of them is claimed by another worker for ``claim_after`` seconds
        from now. A message acknowledged meanwhile is left alone."""

    @abc.abstractmethod
    async def ack_delivery(self, delivery: Delivery) -> None:
        """The message is done with (delivered, or given up): never handed out again."""

    @abc.abstractmethod
    async def retry_delivery(self, delivery: Delivery, due: float) -> None:
        """Atomically: acknowledge this attempt and schedule the next (``attempt + 1``, the
        same id) at ``due`` (Unix seconds)."""

    @abc.abstractmethod
    async def release_deliveries(self, shard: str, now: float, limit: int) -> int:
        """Move up to ``limit`` messages of ``shard`` due at ``now`` back to its stream; how many."""
