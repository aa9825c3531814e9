"""Webhook deliveries: the workers send the queued messages to the seats' receivers.

Every bot worker (``darkroad bots``, and the one ``darkroad serve`` runs in-process) runs a
:class:`Deliverer` beside its jobs. It takes messages from the store's queue
(``darkroad.api.store.webhook_queue``) and sends each, signed (``webhook_messages``), to the seat's
receiver, at the address checked at that moment (``webhook_urls.resolve_target``):

* a ``2xx`` answer acknowledges the message;
* ``410 Gone`` ends the subscription (and the message);
* anything else (another status, a redirect, no answer within ``webhook_timeout``, a refused
  address) is a failure: the message is tried again after ``webhook_first_retry`` seconds,
  each wait twice the last, at most ``webhook_max_interval``, until ``webhook_retry_for``
  seconds after it was made; then it is given up (counted ``failed``).

At least once: a message is acknowledged only after its answer, so one whose worker is killed
mid-delivery is claimed by another after ``webhook_claim_timeout`` and sent again, with the
same ``webhook-id``. A live worker keeps the messages it is delivering (a few times per claim
timeout, ``HookStore.keep_deliveries``) and never starts one it is already delivering, so a
receiver slower than the claim timeout is not sent the same message twice at once. Receivers tell a repeat by that id. Nothing here runs inside a request:
acting only enqueues (in its commit), and never waits for a receiver.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import time
from collections.abc import Callable
from typing import Protocol

import msgspec

from darkroad.api.app import lobby as lobbies
from darkroad.api.app import webhook_messages as messages
from darkroad.api.app.service_errors import ServiceError
from darkroad.api.app.stopping import cancel_and_wait
from darkroad.api.app.webhook_urls import Target, resolve_target
from darkroad.api.app.webhooks import DeliveryState, Subscription, decode_state
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.base import GameStore, ReplicationTimeout, StoreUnavailable
from darkroad.api.store.webhook_queue import Delivery

logger = logging.getLogger("darkroad.api.webhooks")


class Sender(Protocol):
    """Sends one delivery over HTTP (``darkroad.api.http.webhook_client.WebhookClient``: the
    application layer speaks no HTTP itself)."""

    async def post(self, target: Target, headers: dict[str, str], payload: bytes) -> tuple[int | None, str | None]:
        """POST ``payload`` to ``target``: the receiver's status, or ``None`` and why there is none."""

    async def aclose(self) -> None:
        """Release the connections."""


class Deliverer:
    """Delivers the messages of ``store``'s queue, ``settings.webhook_concurrency`` at once."""

    BLOCK = 2.0
    """Seconds a read of the queue waits for a message (then looks again: a stop, claimable ones)."""
    RELEASE_INTERVAL = 1.0
    """Seconds between moves of the messages due again back to the queue, and between keepings
    of the messages being delivered (more often with a claim timeout under four of them)."""

    def __init__(
        self,
        store: GameStore,
        settings: Settings,
        metrics: Metrics,
        sender: Sender,
        *,
        name: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.clock = clock
        self.name = name or f"{os.uname().nodename}-{os.getpid()}-{secrets.token_hex(3)}"
        self.sender = sender
        self._slots = asyncio.Semaphore(settings.webhook_concurrency)
        self._running: set[asyncio.Task[None]] = set()
        self._delivering: dict[str, set[str]] = {}
        """Per shard, the refs of the messages this worker is delivering (kept, not started twice)."""

    async def run(self, stop: asyncio.Event) -> None:
        """Deliver until ``stop`` is set (or cancelled)."""
        loops = [asyncio.create_task(self._take(shard, stop)) for shard in self.store.job_shards()]
        loops.append(asyncio.create_task(self._tend(stop)))
        try:
            await stop.wait()
        finally:
            await cancel_and_wait(loops)
            if self._running:
                await asyncio.gather(*self._running, return_exceptions=True)
            await self.sender.aclose()

    async def _take(self, shard: str, stop: asyncio.Event) -> None:
        settings = self.settings
        while not stop.is_set():
            free = settings.webhook_concurrency - len(self._running)
            if free <= 0:
                await asyncio.sleep(0.05)
                continue
            try:
                found = await self.store.take_deliveries(shard, self.name, free, self.BLOCK,
                                                         settings.webhook_claim_timeout)
            except (StoreUnavailable, ReplicationTimeout, OSError) as exc:
                logger.warning("webhooks %s: cannot take messages (%s); trying again", self.name, exc)
                found = []
                await asyncio.sleep(0.5)
            except Exception:
                logger.exception("webhooks %s: reading messages failed", self.name)
                found = []
                await asyncio.sleep(0.5)
            delivering = self._delivering.setdefault(shard, set())
            for delivery in found:
                if delivery.ref in delivering:  # claimed back from this very worker: on its way already
                    continue
                delivering.add(delivery.ref)
                task = asyncio.create_task(self._deliver_safely(delivery))
                self._running.add(task)
                task.add_done_callback(self._running.discard)

    async def _tend(self, stop: asyncio.Event) -> None:
        interval = min(self.RELEASE_INTERVAL, self.settings.webhook_claim_timeout / 4)
        while not stop.is_set():
            try:
                for shard, refs in list(self._delivering.items()):
                    if refs:
                        await self.store.keep_deliveries(shard, self.name, sorted(refs))
                for shard in self.store.job_shards():
                    await self.store.release_deliveries(shard, self.clock(), 100)
            except (StoreUnavailable, ReplicationTimeout, OSError) as exc:  # an outage: no traceback
                logger.warning("webhooks %s: cannot keep or move messages (%s)", self.name, exc)
            except Exception:
                logger.exception("webhooks %s: keeping or moving messages failed", self.name)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)

    async def _deliver_safely(self, delivery: Delivery) -> None:
        try:
            async with self._slots:
                await self.deliver(delivery)
        except Exception:  # left unacknowledged: claimed again after the claim timeout
            logger.exception("webhooks %s: message %s failed", self.name, delivery.id)
        finally:
            self._delivering.get(delivery.shard, set()).discard(delivery.ref)

    async def deliver(self, delivery: Delivery) -> str:
        """Send ``delivery`` once and settle it (acknowledged, tried again later, given up); the
        outcome (``delivered``, ``retried``, ``failed``, ``gone``, ``dropped``)."""
        found = await self.store.webhook(delivery.game_id, delivery.seat)
        if found is None:  # the subscription (or the game) ended
            await self.store.ack_delivery(delivery)
            self.metrics.webhooks.inc("dropped")
            return "dropped"
        record, sub_id, raw_state = found
        subscription = msgspec.json.decode(record, type=Subscription)
        payload = messages.body(delivery, await self._name(delivery), self.settings.public_url, subscription.chat,
                                subscription.locale)
        begun = time.perf_counter()
        status, error = await self._send(subscription, delivery.id, payload)
        state = decode_state(raw_state)
        now = self.clock()
        if status is not None and 200 <= status < 300:
            outcome = "delivered"
            state = DeliveryState(now, status, None, 0, state.delivered + 1)
            await self.store.note_delivery(delivery.game_id, delivery.seat, sub_id, msgspec.json.encode(state))
            await self.store.ack_delivery(delivery)
        elif status == 410:
            outcome = "gone"
            logger.info("webhooks: the receiver of seat %d of game %s answered 410 Gone: subscription ended",
                        delivery.seat, delivery.game_id)
            await self.store.delete_webhook(delivery.game_id, delivery.seat, sub_id)
            await self.store.ack_delivery(delivery)
        else:
            state = DeliveryState(now, status, error, state.failures + 1, state.delivered)
            await self.store.note_delivery(delivery.game_id, delivery.seat, sub_id, msgspec.json.encode(state))
            due = now + self.backoff(delivery.attempt)
            if due - delivery.created > self.settings.webhook_retry_for:
                outcome = "failed"
                logger.warning("webhooks: message %s given up after %d attempts (%s)", delivery.id,
                               delivery.attempt + 1, error or status)
                await self.store.ack_delivery(delivery)
            else:
                outcome = "retried"
                await self.store.retry_delivery(delivery, due)
        self.metrics.webhook_latency.observe(time.perf_counter() - begun, outcome)
        self.metrics.webhooks.inc(outcome)
        return outcome

    def backoff(self, attempt: int) -> float:
        """Seconds before the next try after the failure of attempt ``attempt`` (0: the first)."""
        settings = self.settings
        return float(min(settings.webhook_max_interval, settings.webhook_first_retry * 2 ** min(attempt, 40)))

    async def _name(self, delivery: Delivery) -> str | None:
        """The seat's name (its player's, or its bot's), if the game still has one."""
        try:
            lobby = lobbies.decode((await self.store.lobbies([delivery.game_id]))[0])
        except (msgspec.DecodeError, IndexError):
            return None
        if lobby is None or not 0 <= delivery.seat < len(lobby.seats):
            return None
        return lobby.seats[delivery.seat].name

    async def _send(self, subscription: Subscription, message_id: str, payload: bytes) -> tuple[int | None, str | None]:
        """POST ``payload`` to the subscription's receiver: its status, or ``None`` and why not."""
        try:
            target = await resolve_target(subscription.url, self.settings.webhook_allow_private)
        except ServiceError as exc:  # the name resolves elsewhere now (or nowhere)
            return None, exc.detail
        headers = messages.headers(subscription.secret, message_id, payload, self.clock())
        return await self.sender.post(target, headers, payload)
