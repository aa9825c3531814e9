"""The OpenAPI document's links: where a response leads (create -> the game's operations,
legal actions -> act, act -> what comes next)."""

from __future__ import annotations

from typing import Any

_GAME = "/v1/games/{game_id}"
_CREATED = {"game_id": "$response.body#/id"}
_SAME = {"game_id": "$request.path.game_id"}
_SEAT = {"game_id": "$request.path.game_id", "seat": "$request.path.seat"}

Links = dict[tuple[str, str, str], dict[str, Any]]
"""Links by the response they start from: ``(path, method, status)``."""


def _link(operation_id: str, parameters: dict[str, str], description: str, **extra: Any) -> dict[str, Any]:
    return {"operationId": operation_id, "parameters": parameters, "description": description, **extra}


def response_links() -> Links:
    """Every response's links."""
    return {**_lobby_links(), **_game_links()}


def _lobby_links() -> Links:
    """From the listing, a joined seat and a created game."""
    return {
        ("/v1/games", "get", "200"): {
            "joinSeat": _link(
                "joinSeat",
                {"game_id": "$response.body#/games/0/id", "seat": "$response.body#/games/0/open_seats/0"},
                "Join the first open seat of the newest waiting game.",
            ),
        },
        (f"{_GAME}/seats/{{seat}}/join", "post", "201"): {
            "listActions": _link("listActions", _SAME, "The joined seat's legal actions (with its new token)."),
            "getGame": _link("getGame", _SAME, "View the game (with the joined seat's token)."),
            "leaveSeat": _link("leaveSeat", _SEAT, "Leave the seat again (with its token), while the game waits."),
        },
        ("/v1/games", "post", "201"): {
            "joinSeat": _link(
                "joinSeat",
                {"game_id": "$response.body#/id", "seat": "$response.body#/open_seats/0"},
                "Join the new game's first open seat.",
            ),
            "getGame": _link("getGame", _CREATED, "View the new game."),
            "listActions": _link("listActions", _CREATED, "The legal actions of a seat of the new game."),
            "submitAction": _link("submitAction", _CREATED, "Act in the new game (with a seat token)."),
            "getLog": _link("getLog", _CREATED, "The new game's event log."),
            "getScore": _link("getScore", _CREATED, "The new game's final score (once finished)."),
            "getRecord": _link("getRecord", _CREATED, "The new game's record (once finished)."),
            "getHistory": _link("getHistory", {**_CREATED, "version": "$response.body#/version"},
                                "The new game at the version it was created at."),
        },
    }


def _game_links() -> Links:
    """From an imported game, a record, a past version, the legal actions and an action."""
    return {
        ("/v1/games/import", "post", "201"): {
            "getGame": _link("getGame", _CREATED, "View the imported game."),
            "getRecord": _link("getRecord", _CREATED, "The imported game's record (once finished)."),
            "getHistory": _link("getHistory", {**_CREATED, "version": "$response.body#/version"},
                                "The imported game at its last version."),
        },
        (f"{_GAME}/record", "get", "200"): {
            "importGame": _link("importGame", {"query.at": "$response.body#/version"},
                                "Import the record again: a new game replayed from it, to its end.",
                                requestBody="$response.body"),
        },
        (f"{_GAME}/history/{{version}}", "get", "200"): {
            "getHistory": _link("getHistory", {**_SAME, "version": "$response.body#/latest"},
                                "The game at its latest version."),
        },
        (f"{_GAME}/actions", "get", "200"): {
            "submitFirstAction": _link(
                "submitAction",
                {**_SAME, "header.If-Match": "$response.header.ETag"},
                "Submit the first legal action (with the same seat token), for the version it was listed at.",
                requestBody="$response.body#/actions/0",
            ),
        },
        (f"{_GAME}/actions", "post", "200"): {
            "listActions": _link("listActions", _SAME, "The next legal actions."),
            "getGame": _link("getGame", _SAME, "View the game."),
            "getLog": _link("getLog", _SAME, "The events so far."),
        },
    }
