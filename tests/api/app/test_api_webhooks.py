"""Play by notification: seats' webhook subscriptions over HTTP, and their messages delivered
by the workers to a real receiver on loopback, verified with the ``standardwebhooks``
library (the Standard Webhooks specification's own), over the memory store and a real Redis."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from apiutil import BotProcess, NewGame, assert_problem, create_game, serve
from litestar import Litestar
from receiver import Receiver, receiver

from darkroad.api.settings import Settings

pytestmark = pytest.mark.xdist_group("store-cluster")
"""Under ``--dist loadgroup`` (CI) the module runs on the worker holding the Redis Cluster, the run's lane
of tests that mostly wait (tests/api/conftest.py's :data:`STORES`): its tests mostly wait too
(deliveries, retries, claim timeouts), and spread over every worker they made all four wait at once."""

FAST = {"webhook_allow_private": True, "webhook_first_retry": 0.2, "webhook_timeout": 2.0}
"""Loopback receivers allowed (the tests' own), retries soon."""


def hook_url(game: NewGame, seat: int) -> str:
    return f"{game.url}/seats/{seat}/webhook"


async def subscribe(client: httpx.AsyncClient, game: NewGame, seat: int, url: str, **options: Any) -> str:
    """Subscribe ``seat`` to ``url``: the secret."""
    answer = await client.put(hook_url(game, seat), json={"url": url, **options}, headers=game.auth(seat))
    assert answer.status_code == 201, answer.text
    secret: str = answer.json()["secret"]
    assert secret.startswith("whsec_")
    return secret


async def act(client: httpx.AsyncClient, game: NewGame, rnd: random.Random) -> dict[str, Any]:
    """One legal action of the first seat awaited: the view after it."""
    view = (await client.get(game.url)).json()
    seat = view["awaiting"][0]
    actions = (await client.get(f"{game.url}/actions", headers=game.auth(seat))).json()["actions"]
    answer = await client.post(f"{game.url}/actions", json=rnd.choice(actions),
                               headers={**game.auth(seat), "If-Match": f'"{view["version"]}"'})
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


async def until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not within the time allowed"
        await asyncio.sleep(0.02)


async def test_turn_messages_are_signed_and_one_per_turn(
    shared_app: Callable[[Settings], Litestar], settings: Settings
) -> None:
    """Every seat newly awaited gets one ``turn`` message (a multi-step turn is one), signed as
    Standard Webhooks says, with the game, seat, version, decision, name and table's link."""
    settings = dataclasses.replace(settings, **FAST)
    rnd = random.Random(7)
    names = ["Ann", "Bo"]
    with receiver() as hook:
        async with serve(shared_app(settings)) as client:
            game = await create_game(client, seed=5, seats=[{"kind": "human", "name": name} for name in names])
            secrets = {seat: await subscribe(client, game, seat, hook.url) for seat in (0, 1)}
            before = set((await client.get(game.url)).json()["awaiting"])
            expected = []
            steps = 0
            for _ in range(40):
                view = await act(client, game, rnd)
                awaiting = set(view["awaiting"])
                expected += [(seat, view["version"], view["decision"]) for seat in sorted(awaiting - before)]
                steps += len(awaiting & before)
                before = awaiting
            assert steps, "some turn took several steps"
            received = await asyncio.to_thread(hook.wait_for, len(expected))
            await asyncio.sleep(0.3)  # no more than expected
            assert len(hook.received) == len(expected)
    messages = []
    for item in received:
        seat = int(item.headers["webhook-id"].split(".")[-2])
        from standardwebhooks import Webhook

        messages.append(Webhook(secrets[seat]).verify(item.body, item.headers))
    got = sorted((m["data"]["seat"], m["data"]["version"]) for m in messages)
    assert got == sorted((seat, version) for seat, version, _ in expected)
    for message, item in zip(messages, received, strict=True):
        assert message["type"] == "turn"
        assert message["timestamp"].endswith("Z")
        data = message["data"]
        decision = next(d for s, v, d in expected if (s, v) == (data["seat"], data["version"]))
        assert data["decision"] == {"type": decision["type"], "prompt": decision["prompt"]}
        assert data["game_id"] == game.id and data["url"] == f"/play/{game.id}"
        assert data["name"] == names[data["seat"]]
        assert "token" not in item.body.decode().lower()
        assert decision["prompt"] in data["text"] and data["url"] in data["text"]
        assert "text" not in message  # only with "chat": true
    assert len({item.headers["webhook-id"] for item in received}) == len(received)


async def test_a_failing_receiver_gets_the_message_again_with_its_id(
    shared_app: Callable[[Settings], Litestar], settings: Settings
) -> None:
    """A receiver that fails (500), then answers: the message is tried again, with the same
    ``webhook-id`` (and a fresh timestamp and signature); ``GET`` shows how deliveries went."""
    settings = dataclasses.replace(settings, **FAST)
    rnd = random.Random(3)
    with receiver(statuses=[500, 503]) as hook:
        async with serve(shared_app(settings)) as client:
            game = await create_game(client, seed=5)
            secret = await subscribe(client, game, 1, hook.url, chat=True)
            while 1 not in (await act(client, game, rnd))["awaiting"]:
                pass
            received = await asyncio.to_thread(hook.wait_for, 3)
            assert len({item.headers["webhook-id"] for item in received}) == 1
            shown = (await client.get(hook_url(game, 1), headers=game.auth(1))).json()
            await until(lambda: True)
            for _ in range(50):
                shown = (await client.get(hook_url(game, 1), headers=game.auth(1))).json()
                if shown["delivery"]["delivered"]:
                    break
                await asyncio.sleep(0.05)
    assert "secret" not in shown
    assert shown["delivery"]["delivered"] == 1 and shown["delivery"]["failures"] == 0
    assert shown["delivery"]["last_status"] == 204
    bodies = hook.verified(secret)
    assert bodies[0] == bodies[1] == bodies[2]
    assert bodies[0]["text"] == bodies[0]["content"] == bodies[0]["data"]["text"]  # "chat": true


@pytest.mark.stores("memory", "redis")
async def test_a_receiver_slower_than_the_claim_timeout_gets_the_message_once(
    shared_app: Callable[[Settings], Litestar], settings: Settings
) -> None:
    """A live worker keeps the message it is delivering: a receiver that takes five claim
    timeouts to answer is not sent the same message again meanwhile (the worker claimed its
    own message back and sent it twice at once before it kept them)."""
    settings = dataclasses.replace(settings, **{**FAST, "webhook_timeout": 10.0, "webhook_claim_timeout": 0.4})
    rnd = random.Random(3)
    with receiver(delays=[2.0]) as hook:
        async with serve(shared_app(settings)) as client:
            game = await create_game(client, seed=5)
            await subscribe(client, game, 1, hook.url)
            while 1 not in (await act(client, game, rnd))["awaiting"]:
                pass
            await asyncio.to_thread(hook.wait_for, 1)
            for _ in range(200):  # answered after 2 s
                shown = (await client.get(hook_url(game, 1), headers=game.auth(1))).json()
                if shown["delivery"]["delivered"]:
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)
    assert shown["delivery"]["delivered"] == 1 and shown["delivery"]["failures"] == 0
    assert len(hook.ids()) == 1


@pytest.mark.stores("cluster")
async def test_a_cluster_game_whose_slot_has_no_shard_gets_its_messages(
    shared_app: Callable[[Settings], Litestar], settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Redis Cluster game made before game ids were drawn for a shard's slot: its commit's
    script cannot write a shard's stream, so the store enqueues the messages the script
    answers just after the commit (they were never sent before)."""
    import secrets as random_ids

    from darkroad.api.store.redis_store import RedisStore

    app = shared_app(dataclasses.replace(settings, **FAST))
    rnd = random.Random(7)
    with receiver() as hook:
        async with serve(app) as client:
            store = app.state.service.store
            assert isinstance(store, RedisStore)

            def old_game_id() -> str:  # as ids were drawn then: anywhere in the key space
                while store.jobs.own_shard(game_id := random_ids.token_urlsafe(16)) is not None:
                    pass
                return game_id

            monkeypatch.setattr(store, "new_game_id", old_game_id)
            game = await create_game(client, seed=5)
            assert store.jobs.own_shard(game.id) is None
            await subscribe(client, game, 0, hook.url)
            await subscribe(client, game, 1, hook.url)
            expected = set()
            before = set((await client.get(game.url)).json()["awaiting"])
            for _ in range(20):
                view = await act(client, game, rnd)
                expected |= {(seat, view["version"]) for seat in set(view["awaiting"]) - before}
                before = set(view["awaiting"])
            assert expected
            await asyncio.to_thread(hook.wait_for, len(expected))
    got = {(int(i.split(".")[-2]), int(i.split(".")[-3])) for i in hook.ids()}
    assert got == expected


async def test_410_gone_ends_the_subscription(shared_app: Callable[[Settings], Litestar], settings: Settings) -> None:
    settings = dataclasses.replace(settings, **FAST)
    rnd = random.Random(3)
    with receiver(status=410) as hook:
        async with serve(shared_app(settings)) as client:
            game = await create_game(client, seed=5)
            await subscribe(client, game, 1, hook.url)
            while 1 not in (await act(client, game, rnd))["awaiting"]:
                pass
            await asyncio.to_thread(hook.wait_for, 1)
            for _ in range(100):
                answer = await client.get(hook_url(game, 1), headers=game.auth(1))
                if answer.status_code == 404:
                    break
                await asyncio.sleep(0.05)
            assert_problem(answer, 404, "no-webhook")
            await asyncio.sleep(0.5)
            assert len(hook.received) == 1


async def test_a_message_is_given_up_after_its_time(make_app: Callable[[Settings], Litestar]) -> None:
    """Past ``webhook_retry_for`` a failing message is given up; the failures are counted."""
    settings = Settings(**{**FAST, "webhook_retry_for": 1.0})
    rnd = random.Random(3)
    with receiver(status=500) as hook:
        async with serve(make_app(settings)) as client:
            game = await create_game(client, seed=5)
            await subscribe(client, game, 1, hook.url)
            while 1 not in (await act(client, game, rnd))["awaiting"]:
                pass
            await asyncio.to_thread(hook.wait_for, 2)
            await asyncio.sleep(2.0)
            count = len(hook.received)
            shown = (await client.get(hook_url(game, 1), headers=game.auth(1))).json()
            metrics = (await client.get("/metrics")).text
    assert 2 <= count <= 4  # at 0, 0.2, 0.6 s (then 1.4 s is past the second allowed)
    assert shown["delivery"]["failures"] == count and shown["delivery"]["last_status"] == 500
    assert 'darkroad_webhook_deliveries_total{outcome="failed"} 1.0' in metrics
    assert f'darkroad_webhook_deliveries_total{{outcome="retried"}} {count - 1}.0' in metrics


async def test_finished_goes_to_every_subscribed_seat(shared_app: Callable[[Settings], Litestar]) -> None:
    settings = Settings(**FAST)
    rnd = random.Random(11)
    with receiver() as hook:
        async with serve(shared_app(settings)) as client:
            game = await create_game(client, seed=2)
            secrets = [await subscribe(client, game, 0, hook.url)]
            # Seat 1's player reads Hungarian: its messages' text is in the language it subscribed in.
            made = await client.put(hook_url(game, 1), json={"url": hook.url},
                                    headers={**game.auth(1), "Accept-Language": "hu"})
            secrets.append(made.json()["secret"])
            while (await act(client, game, rnd))["status"] != "finished":
                pass
            await until(lambda: sum(b"finished" in item.body for item in hook.received) == 2, 60)
    finished = [item for item in hook.received if b'"type":"finished"' in item.body]
    assert sorted(item.headers["webhook-id"].split(".")[-2] for item in finished) == ["0", "1"]
    for item in finished:
        seat = int(item.headers["webhook-id"].split(".")[-2])
        from standardwebhooks import Webhook

        data = Webhook(secrets[seat]).verify(item.body, item.headers)["data"]
        assert data["seat"] == seat
        assert data["text"] == (f"A(z) {game.id} játék véget ért. /play/{game.id}" if seat else
                                f"Game {game.id} is over. /play/{game.id}")


@pytest.mark.stores("memory")
async def test_seat_routes_ask_the_seat_s_token(client: httpx.AsyncClient) -> None:
    game = await create_game(client, seed=5)
    url = hook_url(game, 1)
    body = {"url": "http://93.184.215.14/hook"}
    assert_problem(await client.put(url, json=body), 401, "missing-token")
    assert_problem(await client.put(url, json=body, headers={"Authorization": "Bearer nope"}), 401, "invalid-token")
    assert_problem(await client.put(url, json=body, headers=game.auth(0)), 403, "wrong-seat")
    assert_problem(await client.get(url, headers=game.auth(0)), 403, "wrong-seat")
    assert_problem(await client.delete(url, headers=game.auth(0)), 403, "wrong-seat")
    assert_problem(await client.get(url, headers=game.auth(1)), 404, "no-webhook")
    assert_problem(await client.put(f"{game.url}/seats/3/webhook", json=body, headers=game.auth(1)), 404,
                   "unknown-seat")
    assert_problem(await client.put(url, json={"url": 5}, headers=game.auth(1)), 400, "bad-request")
    assert_problem(await client.put(url, json={"url": "http://93.184.215.14/", "x": 1}, headers=game.auth(1)), 400,
                   "bad-request")
    made = await client.put(url, json=body, headers=game.auth(1))
    assert made.status_code == 201
    again = await client.put(url, json=body, headers=game.auth(1))
    assert again.status_code == 200 and again.json()["secret"] != made.json()["secret"]
    shown = await client.get(url, headers=game.auth(1))
    assert shown.status_code == 200 and "secret" not in shown.json() and shown.json()["url"] == body["url"]
    assert (await client.delete(url, headers=game.auth(1))).status_code == 204
    assert_problem(await client.get(url, headers=game.auth(1)), 404, "no-webhook")


REFUSED = {
    "not http(s)": "ftp://93.184.215.14/hook",
    "no scheme": "93.184.215.14/hook",
    "javascript": "javascript:alert(1)",
    "credentials": "https://user:secret@93.184.215.14/hook",
    "user only": "https://user@93.184.215.14/hook",
    "malformed": "http://[::1/hook",
    "no host": "http:///hook",
    "bad port": "http://93.184.215.14:99999/hook",
    "whitespace": "http://93.184.215.14/ho ok",
    "loopback v4": "http://127.0.0.1:8080/hook",
    "loopback v4 elsewhere": "http://127.8.9.10/hook",
    "localhost": "http://localhost:8000/hook",
    "private 10/8": "http://10.1.2.3/hook",
    "private 172.16/12": "http://172.16.0.1/hook",
    "private 192.168/16": "http://192.168.1.1/hook",
    "cloud metadata": "http://169.254.169.254/latest/meta-data/",
    "link-local v4": "http://169.254.1.1/hook",
    "multicast v4": "http://224.0.0.1/hook",
    "unspecified v4": "http://0.0.0.0/hook",
    "reserved v4": "http://240.0.0.1/hook",
    "broadcast": "http://255.255.255.255/hook",
    "shared 100.64/10": "http://100.64.0.1/hook",
    "loopback v6": "http://[::1]:8080/hook",
    "unspecified v6": "http://[::]/hook",
    "link-local v6": "http://[fe80::1]/hook",
    "unique local v6": "http://[fd00::1]/hook",
    "multicast v6": "http://[ff02::1]/hook",
    "mapped v4 loopback": "http://[::ffff:127.0.0.1]/hook",
    "mapped v4 metadata": "http://[::ffff:169.254.169.254]/hook",
    "6to4 of private": "http://[2002:a00:1::]/hook",
    "documentation v6": "http://[2001:db8::1]/hook",
    "decimal loopback": "http://2130706433/hook",
}


@pytest.mark.stores("memory")
@pytest.mark.parametrize("case", REFUSED)
async def test_refused_urls(client: httpx.AsyncClient, case: str) -> None:
    """Each class of URL the service does not send to is a typed 422 problem, and subscribes nothing."""
    game = await create_game(client, seed=5)
    refused = await client.put(hook_url(game, 1), json={"url": REFUSED[case]}, headers=game.auth(1))
    assert_problem(refused, 422, "bad-webhook-url")
    assert_problem(await client.get(hook_url(game, 1), headers=game.auth(1)), 404, "no-webhook")


async def test_allow_private_lets_loopback_through_never_metadata(shared_app: Callable[[Settings], Litestar]) -> None:
    async with serve(shared_app(Settings(webhook_allow_private=True))) as client:
        game = await create_game(client, seed=5)
        for url in ("http://127.0.0.1:9/hook", "http://[::1]:9/hook", "http://10.0.0.1/hook"):
            assert (await client.put(hook_url(game, 1), json={"url": url}, headers=game.auth(1))).status_code in (200, 201)
        for url in ("http://169.254.169.254/", "http://224.0.0.1/", "http://0.0.0.0/", "ftp://127.0.0.1/"):
            refused = await client.put(hook_url(game, 1), json={"url": url}, headers=game.auth(1))
            assert_problem(refused, 422, "bad-webhook-url")


def test_public_addresses_pass() -> None:
    import ipaddress

    from darkroad.api.app.webhook_urls import address_class

    for address in ("93.184.215.14", "8.8.8.8", "2606:4700:4700::1111", "1.1.1.1"):
        assert address_class(ipaddress.ip_address(address)) is None, address


def test_a_receiver_fixture_is_real_http() -> None:
    with receiver(status=202) as hook:
        answer = httpx.post(hook.url, content=b"{}")
        assert answer.status_code == 202 and isinstance(hook, Receiver) and len(hook.received) == 1


@pytest.mark.slow
async def test_a_worker_killed_mid_delivery_loses_nothing(
    redis_url: str, make_app: Callable[[Settings], Litestar]
) -> None:
    """``darkroad bots`` killed with SIGKILL while a receiver holds its delivery: another worker
    claims the message and sends it again with the same ``webhook-id``; every message of the
    game arrives, at least once. The API that takes the game's actions is served in-process
    (``bots`` 0, as ``serve --bots 0``): the workers are the processes under test."""
    env = {"DARKROAD_WEBHOOK_ALLOW_PRIVATE": "1", "DARKROAD_WEBHOOK_CLAIM_TIMEOUT": "2",
           "DARKROAD_WEBHOOK_TIMEOUT": "60", "DARKROAD_WEBHOOK_FIRST_RETRY": "0.2"}
    app = make_app(Settings(redis_url=redis_url, bots=0, webhook_allow_private=True))
    first = BotProcess(redis_url, env=env).start()
    second = None
    rnd = random.Random(7)
    try:
        with receiver(delays=[120.0]) as hook:
            async with serve(app) as client:
                game = NewGame((await client.post("/v1/games", json={"players": 2, "seed": 5})).json())
                for seat in (0, 1):
                    made = await client.put(hook_url(game, seat), json={"url": hook.url}, headers=game.auth(seat))
                    assert made.status_code == 201, made.text
                expected: set[tuple[int, int]] = set()
                before = set((await client.get(game.url)).json()["awaiting"])
                for n in range(30):
                    view = (await client.get(game.url)).json()
                    seat = view["awaiting"][0]
                    actions = (await client.get(f"{game.url}/actions", headers=game.auth(seat))).json()["actions"]
                    after = (await client.post(f"{game.url}/actions", json=rnd.choice(actions),
                                               headers={**game.auth(seat), "If-Match": f'"{view["version"]}"'})).json()
                    awaiting = set(after["awaiting"])
                    expected |= {(s, after["version"]) for s in awaiting - before}
                    before = awaiting
                    if n == 10:
                        held = (await asyncio.to_thread(hook.wait_for, 1))[0]  # the first message, held by the receiver
                        first.kill()
                        killed = time.monotonic()
                        second = BotProcess(redis_url, env=env).start()
            assert second is not None
            # Wait for every message *and* the held one's second sending: the second worker sends
            # the messages it claims beside the new ones it reads, in any order, so every id may
            # have arrived once before the held one arrives again (the CI saw 4 distinct ids).
            deadline = time.monotonic() + 60
            while True:
                ids = hook.ids()
                got = {(int(i.split(".")[-2]), int(i.split(".")[-3])) for i in ids}
                if (got >= expected and ids.count(held.headers["webhook-id"]) >= 2) or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.1)
            assert got == expected
            assert ids.count(held.headers["webhook-id"]) >= 2  # sent again, with its id
            # ... by the second worker: the first kept the message it was delivering, however
            # long the receiver held it (DARKROAD_WEBHOOK_TIMEOUT is 30 claim timeouts).
            again = [item.at for item in hook.received if item.headers["webhook-id"] == held.headers["webhook-id"]]
            assert min(again[1:]) > killed
    finally:
        for process in (first, second):
            if process is not None:
                process.stop()


async def test_a_redirect_is_not_followed(shared_app: Callable[[Settings], Litestar]) -> None:
    """A receiver answering 3xx has failed: the message is tried again, never sent elsewhere."""
    settings = Settings(**FAST)
    rnd = random.Random(3)
    with receiver(statuses=[302]) as hook:
        async with serve(shared_app(settings)) as client:
            game = await create_game(client, seed=5)
            await subscribe(client, game, 1, hook.url)
            while 1 not in (await act(client, game, rnd))["awaiting"]:
                pass
            received = await asyncio.to_thread(hook.wait_for, 2)
            shown = (await client.get(hook_url(game, 1), headers=game.auth(1))).json()
    assert received[0].headers["webhook-id"] == received[1].headers["webhook-id"]
    assert {item.path for item in received} == {"/hook"}
    assert shown["delivery"]["delivered"] == 1 or shown["delivery"]["last_status"] == 302


async def test_the_address_is_checked_again_at_delivery(shared_app: Callable[[Settings], Litestar]) -> None:
    """A subscription whose receiver is (now) at a refused address gets nothing: the delivery
    checks the address it would connect to, and fails (tried again later)."""
    rnd = random.Random(3)
    with receiver() as hook:
        app = shared_app(Settings(webhook_first_retry=0.2))
        async with serve(app) as client:
            game = await create_game(client, seed=5)
            # Made where loopback was allowed (as a name resolving elsewhere later would be).
            await app.state.service.store.put_webhook(game.id, 1, b'{"url":"%s","secret":"whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0",'
                                            b'"created":1.0}' % hook.url.encode(), "sub", "")
            while 1 not in (await act(client, game, rnd))["awaiting"]:
                pass
            for _ in range(100):
                shown = (await client.get(hook_url(game, 1), headers=game.auth(1))).json()
                if shown["delivery"]["failures"] >= 2:
                    break
                await asyncio.sleep(0.05)
    assert shown["delivery"]["failures"] >= 2 and shown["delivery"]["last_status"] is None
    assert "loopback" in shown["delivery"]["last_error"]
    assert hook.received == []


def docs_receiver() -> str:
    """The receiver of docs/clients.md's "Playing by notification"."""
    text = (Path(__file__).resolve().parents[3] / "docs" / "clients.md").read_text(encoding="utf-8")
    section = text[text.index("## Playing by notification"):]
    blocks = re.findall(r"^```python\n(.*?)^```", section, re.M | re.S)
    return next(block for block in blocks if "WebhookVerificationError" in block)


async def test_the_documented_receiver_verifies_real_messages(
    shared_app: Callable[[Settings], Litestar], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Python receiver of docs/clients.md, run as written (on a free port): it accepts the
    server's messages and refuses a forged one."""
    code = docs_receiver()
    serving = 'HTTPServer(("0.0.0.0", 8080), Receiver).serve_forever()'
    assert serving in code
    rnd = random.Random(3)
    monkeypatch.setenv("DARKROAD_WEBHOOK_SECRET", "whsec_" + "A" * 32)  # until the subscription's is known
    namespace: dict[str, Any] = {}
    exec(code.replace(serving, 'server = HTTPServer(("127.0.0.1", 0), Receiver)'), namespace)  # noqa: S102
    server = namespace["server"]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        async with serve(shared_app(Settings(**FAST))) as client:
            game = await create_game(client, seed=5)
            secret = await subscribe(client, game, 1, url)
            namespace["WEBHOOK"] = namespace["Webhook"](secret)  # as if started with it in the environment
            while 1 not in (await act(client, game, rnd))["awaiting"]:
                pass
            await until(lambda: bool(namespace["seen"]))
            shown = (await client.get(hook_url(game, 1), headers=game.auth(1))).json()
        forged = await asyncio.to_thread(httpx.post, url, content=b"{}", headers={
            "webhook-id": "msg_x", "webhook-timestamp": str(int(time.time())), "webhook-signature": "v1,AAAA"})
    finally:
        server.shutdown()
    assert forged.status_code == 401  # refused, and not taken for a message
    (seen,) = namespace["seen"]
    assert seen.startswith(f"msg_{game.id}.") and seen.endswith(".1.turn")
    assert shown["delivery"]["failures"] == 0
