"""The API speaks the caller's language (issue #43): ``Accept-Language`` negotiated per request,
``Content-Language`` and ``Vary: Accept-Language`` on every answer, texts in that language and
every machine-readable field the same in every language."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from apiutil import NewGame, RedisServer, awaited_seat, create_game, legal, serve
from litestar import Litestar

from darkroad.api.http import policy
from darkroad.api.settings import Settings
from darkroad.core import i18n

# What this module tests is the HTTP layer's (the store holds what every other game's does): in
# memory and on one Redis, not on the Cluster and the Sentinels too (tests/api/conftest.py's STORES).
pytestmark = pytest.mark.stores("memory", "redis")

HU = {"Accept-Language": "hu-HU,hu;q=0.9,en;q=0.8"}
EN = {"Accept-Language": "en-US,en;q=0.9"}


def assert_language(response: httpx.Response, language: str) -> None:
    assert response.headers["content-language"] == language, response.headers
    vary = [part.strip().lower() for part in response.headers.get("vary", "").split(",")]
    assert "accept-language" in vary, response.headers
    assert len(response.headers.get_list("vary")) == 1  # one Vary header, the route's extended


def test_the_policy_layer_adds_the_language_to_what_a_route_sent() -> None:
    """``Content-Language`` unless the route said its own, ``Accept-Language`` added to the route's
    ``Vary`` (its last, when it sent two) unless it is there already, ``Cache-Control`` for a
    private answer unless the route set one; the route's headers kept in their order."""
    hu = (b"content-language", b"hu")
    answer = policy._answer_headers
    assert answer([(b"etag", b'"1"')], hu, False) == [(b"etag", b'"1"'), (b"vary", b"Accept-Language"), hu]
    assert answer([[b"vary", b"Accept-Encoding"], (b"x", b"y")], hu, True) == [
        (b"vary", b"Accept-Encoding, Accept-Language"), (b"x", b"y"), hu, (b"cache-control", b"private, no-store")]
    assert answer([(b"vary", b"A"), (b"vary", b"B")], hu, False) == [
        (b"vary", b"A"), (b"vary", b"B, Accept-Language"), hu]
    kept = [(b"vary", b"Authorization, accept-language"), (b"content-language", b"en"), (b"cache-control", b"no-cache")]
    assert answer(kept, hu, True) == kept
    route = (x for x in [(b"vary", b"Authorization, Accept-Language")])  # any iterable of pairs
    assert answer(route, hu, False) == [(b"vary", b"Authorization, Accept-Language"), hu]


async def test_every_answer_says_its_language(client: httpx.AsyncClient) -> None:
    """Answers of every kind (a Litestar route, the fast action endpoint, a problem, OPTIONS, an
    unrouted path, a 304) carry Content-Language and Vary; English without Accept-Language."""
    game = await create_game(client)
    seat = int((await client.get(game.url)).json()["awaiting"][0])
    for headers, language in (({}, "en"), (HU, "hu"), (EN, "en"), ({"Accept-Language": "de, *;q=0.1"}, "en")):
        for response in (
            await client.get("/v1/catalog", headers=headers),
            await client.get(game.url, headers=headers),
            await client.get(f"{game.url}/actions", headers={**headers, **game.auth(seat)}),
            await client.get("/v1/games/no-such-game", headers=headers),
            await client.options(game.url, headers=headers),
            await client.get("/no/such/path", headers=headers),
        ):
            assert_language(response, language)
        view = await client.get(game.url, headers=headers)
        assert "authorization" in view.headers["vary"].lower()  # the route's Vary kept
        not_modified = await client.get(game.url, headers={**headers, "If-None-Match": view.headers["etag"]})
        assert not_modified.status_code == 304
        assert_language(not_modified, language)
    action = (await client.get(f"{game.url}/actions", headers=game.auth(seat))).json()["actions"][0]
    acted = await client.post(f"{game.url}/actions", json=action, headers={**HU, **game.auth(seat)})
    assert acted.status_code == 200, acted.text
    assert_language(acted, "hu")


async def test_a_bad_accept_language_changes_nothing_but_the_language(client: httpx.AsyncClient) -> None:
    """Whatever the header holds, the answer is the same, in English: never a 4xx or 5xx for it."""
    for value in ("", ";;;", "q=1", "hu;q=", "x" * 4000, "hu;q=1.5", "*;q=0", "\t,hu-"):
        response = await client.get("/v1/catalog", headers={"Accept-Language": value})
        assert response.status_code == 200, value
        assert response.headers["content-language"] in ("en", "hu")


async def play(client: httpx.AsyncClient, game: NewGame, headers: dict[str, str], seed: int) -> list[Any]:
    """Every seat plays at random until the game ends, in the language of ``headers``; the views and
    action lists seen, in order."""
    rnd = random.Random(seed)
    seen: list[Any] = []
    while True:
        view = (await client.get(game.url, headers=headers)).json()
        seen.append(view)
        if view["status"] == "finished":
            return seen
        seat = int(view["awaiting"][0])
        listed = (await client.get(f"{game.url}/actions", headers={**headers, **game.auth(seat)})).json()
        seen.append(listed)
        action = rnd.choice(listed["actions"])
        response = await client.post(f"{game.url}/actions", json=action, headers={**headers, **game.auth(seat)})
        assert response.status_code == 200, response.text


HUMAN = frozenset({"label", "prompt", "details", "name"})
"""The human-readable fields of views and action lists (a seat nobody named is named in the
language of the call: the Private Concern's, a bot's): everything else is machine-readable."""


def machine(value: Any) -> Any:
    """``value`` without its human-readable fields."""
    if isinstance(value, dict):
        return {key: machine(item) for key, item in value.items() if key not in HUMAN}
    if isinstance(value, list):
        return [machine(item) for item in value]
    return value


def texts(value: Any) -> list[str]:
    """The human-readable texts of ``value``."""
    if isinstance(value, dict):
        return [t for key, item in value.items() for t in ([item] if key in HUMAN and isinstance(item, str) else texts(item))]
    if isinstance(value, list):
        return [t for item in value for t in texts(item)]
    return []


# Whole games in memory: the language changes nothing a store is asked (whole games on one
# Redis: test_api_games.py; on the Cluster and Sentinels: the HA tests).
@pytest.mark.stores("memory")
@pytest.mark.parametrize("players", [2, 1])
async def test_both_languages_play_the_same_game(client: httpx.AsyncClient, players: int) -> None:
    """Two games of one seed played with the same choices, one in English and one in Hungarian:
    every view and action list is the same but for its texts, at every step of the whole game."""
    english = await play(client, await create_game(client, players=players, seed=7), EN, seed=3)
    hungarian = await play(client, await create_game(client, players=players, seed=7), HU, seed=3)
    assert len(english) == len(hungarian)
    for en, hu in zip(english, hungarian, strict=True):
        en.pop("id", None), hu.pop("id", None)
        assert machine(en) == machine(hu)
        assert len(texts(en)) == len(texts(hu))


@pytest.mark.stores("memory")
async def test_the_private_concerns_seat_is_named_in_the_language_of_the_call(client: httpx.AsyncClient) -> None:
    """The solo opponent's seat is named as its edition names it ("Private Concern" in English;
    "a Magányos vállalkozó" in the Hungarian rulebook, p. 15), in the view's players and seats."""
    game = await create_game(client, players=1, seed=7)
    for headers, name in ((EN, "Private Concern"), (HU, "Magányos vállalkozó")):
        view = (await client.get(game.url, headers={**headers, **game.auth(0)})).json()
        assert [p["name"] for p in view["players"]] == [None, name]
        assert [s["name"] for s in view["seats"]] == [None, name]


CATALOG_TEXTS = frozenset({"name", "text", "flavor", "criterion", "effect_words", "extra_names"})


def catalog_machine(value: Any) -> Any:
    """The catalogue without its texts (abilities keep their ids and gifts)."""
    if isinstance(value, dict):
        return {key: catalog_machine(item) for key, item in value.items() if key not in CATALOG_TEXTS}
    if isinstance(value, list):
        return [catalog_machine(item) for item in value]
    return value


async def test_the_catalogue_in_hungarian(client: httpx.AsyncClient) -> None:
    """The catalogue's names and texts come from each plugin's catalog, in the words of the edition
    (a steed's text as printed on p. 17, a good, an event card, a bot, a fan pack's building);
    everything else is the English catalogue's."""
    en = (await client.get("/v1/catalog", headers=EN)).json()
    hu = (await client.get("/v1/catalog", headers=HU)).json()
    assert catalog_machine(en) == catalog_machine(hu)
    steeds = {c["id"]: c for c in hu["components"]["steed"]}
    assert steeds["brembizant"]["text"] == "Ha a nagy bazárban vásárolsz, $2 kedvezményt kapsz. A fizetendő összeg nem mehet $0 alá."
    assert steeds["whisper"]["name"] == "Whisper"  # the edition keeps the steeds' names
    assert {g["id"]: g["name"] for g in hu["content"]["goods"]}["armor"] == "Páncél"
    assert {e["id"]: e["name"] for e in hu["content"]["events"]}["dark-road-the-wolf-pack"] == "A farkasfalka"
    cards = hu["content"]["extra_names"]["private_concern_cards"]  # the Private Concern's action cards
    assert cards.keys() == en["content"]["extra_names"]["private_concern_cards"].keys() and cards["pc-06"] == "A hosszú út"
    assert {b["id"]: b["name"] for b in hu["bots"]}["greedy"] == "Mohó"
    buildings = {c["id"]: c for c in hu["components"]["building"]}
    if "lamplighters_guild" in buildings:  # the example fan pack, installed: its own catalog
        assert buildings["lamplighters_guild"]["name"] == "Lámpagyújtók céhe"
    for kind, components in en["components"].items():
        for english, hungarian in zip(components, hu["components"][kind], strict=True):
            if english["text"]:
                assert english["text"] != hungarian["text"], english["id"]


async def test_problems_in_hungarian(client: httpx.AsyncClient) -> None:
    """A problem's title (and a fixed detail) in the caller's language; its type, status and
    members the same in both."""
    game = await create_game(client)
    missing = "/v1/games/" + "A" * 22
    en = (await client.get(missing, headers=EN)).json()
    hu = (await client.get(missing, headers=HU)).json()
    assert (en["type"], en["status"], en["instance"]) == (hu["type"], hu["status"], hu["instance"]) == \
        ("unknown-game", 404, missing)
    assert (en["title"], hu["title"]) == ("Unknown game", "Ismeretlen játék")
    refused = (await client.get(f"{game.url}/actions", headers={**HU, "Authorization": "Basic x"})).json()
    assert (refused["type"], refused["title"]) == ("invalid-token", "Érvénytelen helytoken")
    assert refused["detail"] == "Használd az `Authorization: Bearer <helytoken>` fejlécet."


async def test_one_request_after_another_each_in_its_own_language(client: httpx.AsyncClient) -> None:
    """The policy layer sets the context's language only when it is not the current one: requests
    one after another in one context (httpx's ASGI transport calls the app in this test's own task),
    in Hungarian, then English, then without ``Accept-Language``, each get their own language (its
    headers, its entity tag, its texts: an action, its view and a problem), and this context's
    language is English again after each."""
    game = await create_game(client, players=1, seed=7)  # the solo opponent: a seat named in the call's language
    words = {"en": ("Invalid seat token", "Use `Authorization: Bearer <seat token>`.", "Private Concern"),
             "hu": ("Érvénytelen helytoken", "Használd az `Authorization: Bearer <helytoken>` fejlécet.",
                    "Magányos vállalkozó")}
    for headers, language in ((HU, "hu"), (EN, "en"), ({}, "en"), (HU, "hu"), ({}, "en"), (HU, "hu")):
        seat = await awaited_seat(client, game)
        action = (await legal(client, game, seat))[0]
        acted = await client.post(f"{game.url}/actions", json=action, headers={**headers, **game.auth(seat)})
        assert acted.status_code == 200, acted.text
        assert_language(acted, language)
        version = acted.json()["version"]
        assert acted.headers["etag"] == (f'"{version}-hu"' if language == "hu" else f'"{version}"')
        assert [player["name"] for player in acted.json()["players"]] == [None, words[language][2]]
        assert i18n.current_locale() == "en"
        refused = await client.post(f"{game.url}/actions", json=action, headers={**headers, "Authorization": "Basic x"})
        assert_language(refused, language)
        assert (refused.json()["title"], refused.json()["detail"]) == words[language][:2]
        assert i18n.current_locale() == "en"


# -- caching, preconditions and retries per language ---------------------------------------------


async def test_each_language_has_its_own_entity_tag(client: httpx.AsyncClient) -> None:
    """A strong ETag names one representation (RFC 9110, 8.8.3): the English view is ``"v"`` as
    before languages, the Hungarian ``"v-hu"``; a conditional GET is answered 304 only for the tag
    of the language asked for (a view cached in English is never confirmed to a Hungarian reader),
    weak or strong, in a list or alone."""
    game = await create_game(client)
    v = game.version
    en = await client.get(game.url, headers=EN)
    hu = await client.get(game.url, headers=HU)
    assert (en.headers["etag"], hu.headers["etag"]) == (f'"{v}"', f'"{v}-hu"')
    assert (await client.get(game.url)).headers["etag"] == f'"{v}"'  # no Accept-Language: English
    for headers, tag, other in ((EN, en.headers["etag"], hu.headers["etag"]), (HU, hu.headers["etag"], en.headers["etag"])):
        for matching in (tag, f"W/{tag}", f'"{v + 7}", {tag}', "*"):
            response = await client.get(game.url, headers={**headers, "If-None-Match": matching})
            assert response.status_code == 304, (headers, matching)
            assert response.headers["etag"] == tag and response.content == b""
        for not_matching in (other, f"W/{other}", f'"{v}-de"', f'"{v + 1}-hu"'):
            response = await client.get(game.url, headers={**headers, "If-None-Match": not_matching})
            assert response.status_code == 200, (headers, not_matching)
            assert response.headers["etag"] == tag
    seat = int(en.json()["awaiting"][0])
    listed_en = await client.get(f"{game.url}/actions", headers={**EN, **game.auth(seat)})
    listed_hu = await client.get(f"{game.url}/actions", headers={**HU, **game.auth(seat)})
    assert (listed_en.headers["etag"], listed_hu.headers["etag"]) == (f'"{v}"', f'"{v}-hu"')


async def test_if_match_names_the_version_in_any_language(client: httpx.AsyncClient) -> None:
    """``If-Match`` is a precondition on the game's version, not on a view: a Hungarian caller
    acting with an English tag (an older client sends ``"v"`` whatever it reads) and an English
    one with a Hungarian tag both act; a tag of an older version is ``409 stale-version`` in
    either form, whose ``ETag`` is the current version's tag in the caller's language."""
    game = await create_game(client)
    for headers, tag in ((HU, '"{v}"'), (EN, '"{v}-hu"'), (HU, '"{v}-hu"'), (EN, 'W/"0", "{v}-hu"')):
        view = (await client.get(game.url)).json()
        seat, v = int(view["awaiting"][0]), view["version"]
        action = (await legal(client, game, seat))[0]
        acted = await client.post(f"{game.url}/actions", json=action,
                                  headers={**headers, **game.auth(seat), "If-Match": tag.format(v=v)})
        assert acted.status_code == 200, (tag, acted.text)
        assert acted.headers["etag"] == (f'"{v + 1}-hu"' if headers is HU else f'"{v + 1}"')
        assert_language(acted, "hu" if headers is HU else "en")
    view = (await client.get(game.url)).json()
    seat, v = int(view["awaiting"][0]), view["version"]
    action = (await legal(client, game, seat))[0]
    for headers, tag, current in ((HU, f'"{v - 1}"', f'"{v}-hu"'), (EN, f'"{v - 1}-hu"', f'"{v}"')):
        stale = await client.post(f"{game.url}/actions", json=action,
                                  headers={**headers, **game.auth(seat), "If-Match": tag})
        assert stale.status_code == 409 and stale.json()["type"] == "stale-version", stale.text
        assert stale.json()["version"] == v and stale.headers["etag"] == current
    undone = await client.post(f"{game.url}/undo", headers={**HU, **game.auth(seat), "If-Match": f'"{v}-hu"'})
    assert undone.status_code in (200, 409), undone.text
    if undone.status_code == 409:  # nothing of this seat's to undo: refused for that, not for its tag
        assert undone.json()["type"] == "cannot-undo", undone.text


async def test_a_retry_in_another_language_is_the_same_result_in_that_language(client: httpx.AsyncClient) -> None:
    """An ``Idempotency-Key`` replays the result of the first request, not its words: retried in
    Hungarian, an action first sent in English answers the seat's view at the version it made in
    Hungarian (what the game's history shows in Hungarian at that version), with the Hungarian tag;
    retried in English, byte for byte the first answer, whatever was asked in between."""
    game = await create_game(client, players=2, seed=4)
    seat = await awaited_seat(client, game)
    action = (await legal(client, game, seat))[0]
    key = {**game.auth(seat), "Idempotency-Key": "one-action"}
    first = await client.post(f"{game.url}/actions", json=action, headers={**EN, **key})
    assert first.status_code == 200, first.text
    made = first.json()["version"]
    for _ in range(3):  # the game goes on
        other = await awaited_seat(client, game)
        move = (await legal(client, game, other))[0]
        assert (await client.post(f"{game.url}/actions", json=move, headers=game.auth(other))).status_code == 200
    history = {}
    for headers in (EN, HU):  # the English past first: a view kept for one language is not the other's
        past = await client.get(f"{game.url}/history/{made}", headers={**headers, **game.auth(seat)})
        assert past.status_code == 200, past.text
        history[headers["Accept-Language"]] = past.json()["view"]
    for attempt in range(2):  # from the history, then from the views it keeps
        again = await client.post(f"{game.url}/actions", json=action, headers={**HU, **key})
        assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true", attempt
        assert again.headers["etag"] == f'"{made}-hu"'
        assert_language(again, "hu")
        assert again.json() == history[HU["Accept-Language"]]
        assert machine(again.json()) == machine(first.json())
    back = await client.post(f"{game.url}/actions", json=action, headers={**EN, **key})
    assert back.content == first.content and back.headers["etag"] == first.headers["etag"] == f'"{made}"'


async def test_an_old_record_replays_in_the_language_of_the_retry(
    redis_server: RedisServer, redis_url: str, make_app: Callable[[Settings], Litestar]
) -> None:
    """A record of the old format kept the whole first answer, written when darkroad spoke only
    English: retried in English it is that answer; in Hungarian, the seat's view at the version
    the action made in Hungarian, with the kept answer's seats (their turn clocks)."""
    async with serve(make_app(Settings(redis_url=redis_url))) as client:
        game = await create_game(client, seed=6)
        seat = await awaited_seat(client, game)
        action = (await legal(client, game, seat))[0]
        key = {**game.auth(seat), "Idempotency-Key": "old"}
        first = await client.post(f"{game.url}/actions", json=action, headers={**EN, **key})
        assert first.status_code == 200, first.text
        made = first.json()["version"]
        (record,) = redis_server.client.keys(f"game:{{{game.id}}}:idem:{seat}:*")
        fingerprint = hashlib.sha256(json.dumps([action["type"], action["seat"], action["option"]],
                                                separators=(",", ":")).encode()).hexdigest()
        kept = {**first.json(), "seats": [{**s, "timeout_at": "2026-01-01T00:00:00Z"} for s in first.json()["seats"]]}
        redis_server.client.set(record, json.dumps({"fingerprint": fingerprint, "version": made, "view": kept}),
                                keepttl=True)
        other = await awaited_seat(client, game)
        move = (await legal(client, game, other))[0]
        assert (await client.post(f"{game.url}/actions", json=move, headers=game.auth(other))).status_code == 200
        english = await client.post(f"{game.url}/actions", json=action, headers={**EN, **key})
        assert english.json() == kept and english.headers["etag"] == f'"{made}"'
        hungarian = await client.post(f"{game.url}/actions", json=action, headers={**HU, **key})
        assert hungarian.status_code == 200 and hungarian.headers["idempotent-replayed"] == "true"
        assert hungarian.headers["etag"] == f'"{made}-hu"'
        past = (await client.get(f"{game.url}/history/{made}", headers={**HU, **game.auth(seat)})).json()["view"]
        assert hungarian.json() == {**past, "seats": kept["seats"]}
        assert machine(hungarian.json()) == machine(kept)


async def _both(client: httpx.AsyncClient, method: str, url: str, headers: dict[str, str] | None = None,
                **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The problem ``method url`` answers in English and in Hungarian, which must be the same
    problem (status, type, every member but ``title``, ``detail`` and the ``errors``' messages)."""
    answers = []
    for language in (EN, HU):
        response = await client.request(method, url, headers={**(headers or {}), **language}, **kwargs)
        assert response.status_code >= 400 and response.headers["content-type"].startswith("application/problem+json")
        answers.append(response.json())
    en, hu = answers

    def members(problem: dict[str, Any]) -> dict[str, Any]:
        errors = [{k: v for k, v in e.items() if k != "message"} for e in problem.get("errors", [])]
        return {k: v for k, v in problem.items() if k not in ("title", "detail", "errors")} | {"errors": errors}

    assert members(en) == members(hu)
    assert en["detail"] != hu["detail"], en["detail"]
    for english, hungarian in zip(en.get("errors", []), hu.get("errors", []), strict=True):
        assert english["message"] != hungarian["message"], english
    return en, hu


async def test_problem_details_with_values_in_hungarian(client: httpx.AsyncClient) -> None:
    """Details worded with values (the service's, the HTTP layer's and the rules'), and the
    messages of a ``bad-request``'s ``errors``, are whole sentences translated with their values
    in place; ``type``, ``status`` and every machine-readable member are those of English."""
    game = await create_game(client)
    seat = await awaited_seat(client, game)
    other = 1 - seat
    action = (await legal(client, game, seat))[0]
    en, hu = await _both(client, "GET", "/v1/games/" + "B" * 22)
    assert (en["detail"], hu["detail"]) == ("There is no game '" + "B" * 22 + "'.", "Nincs '" + "B" * 22 + "' azonosítójú játék.")
    en, hu = await _both(client, "POST", f"{game.url}/actions", json=action,
                         headers={**game.auth(seat), "Idempotency-Key": "k" * 300})
    assert hu["errors"][0] == {"message": "1–255 karakter hosszú legyen", "key": "Idempotency-Key", "source": "header"}
    assert hu["detail"] == "Érvénytelen fejléc, 'Idempotency-Key': 1–255 karakter hosszú legyen."
    en, hu = await _both(client, "POST", f"{game.url}/actions", json=action,
                         headers={**game.auth(seat), "If-Match": f'"{game.version + 5}"'})
    assert hu["detail"] == f"Az If-Match nem a játék jelenlegi változatát ({game.version}) nevezi meg."
    en, hu = await _both(client, "POST", f"{game.url}/actions", json={**action, "option": "nowhere"},
                         headers=game.auth(seat))
    assert en["type"] == "illegal-action" and "nem szabályos válasz" in hu["detail"]
    await _both(client, "POST", f"{game.url}/actions", json={**action, "seat": other}, headers=game.auth(other))
    en, hu = await _both(client, "POST", f"{game.url}/undo", headers=game.auth(seat))
    assert hu["detail"] == "Nincs mit visszavonni: a játék utolsó lépése nem a te lépésed ebben a körben."
    await _both(client, "POST", f"{game.url}/actions", content=b"{", headers={**game.auth(seat), "Content-Type": "application/json"})
    await _both(client, "POST", f"{game.url}/actions", json=action, headers={**game.auth(seat), "Content-Type": "text/plain"})
    await _both(client, "GET", f"{game.url}/history/9999")
    await _both(client, "DELETE", "/v1/catalog")
    await _both(client, "GET", "/no/such/path")
    en, hu = await _both(client, "POST", "/v1/games", json={"players": 2, "buildings": ["yedls_workshop"]})
    assert hu["errors"][0]["message"] == "a `buildings` pontosan 4 épületet nevez meg vagy egyet sem, nem 1-t"
    en, hu = await _both(client, "POST", "/v1/games", json={"players": 2, "companions": ["no_such_companion"]})
    assert en["type"] == "unknown-component" and hu["detail"].startswith("ismeretlen útitárs: 'no_such_companion'")
