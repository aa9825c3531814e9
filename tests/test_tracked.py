"""Tracked lists and dicts (core/tracked.py): what undo notes of the face-down decks and the other
seats' deeds instead of copying them before every action.

They must change nothing a user sees: the same JSON, MessagePack and copies as plain lists and
dicts, and an undo available exactly when what is hidden from the acting seat holds the same
values after the action as before, however a plugin changed it (in place, replaced, or changed and
put back).
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from darkroad.core import Choice, Ctx, Task, hookimpl
from darkroad.core.serde import Serde
from darkroad.core.testing import Table
from darkroad.core.tracked import Journal, TrackedDict, TrackedList, before, changed, unwatch, watch

LIST_CHANGES: dict[str, Callable[[list[Any]], Any]] = {
    "append": lambda x: x.append("z"),
    "extend": lambda x: x.extend(["y", "z"]),
    "insert": lambda x: x.insert(0, "z"),
    "pop": lambda x: x.pop(0),
    "remove": lambda x: x.remove("b"),
    "clear": lambda x: x.clear(),
    "sort": lambda x: x.sort(reverse=True),
    "reverse": lambda x: x.reverse(),
    "setitem": lambda x: x.__setitem__(0, "z"),
    "setslice": lambda x: x.__setitem__(slice(None), ["z"]),
    "delitem": lambda x: x.__delitem__(0),
    "iadd": lambda x: x.__iadd__(["z"]),
    "imul": lambda x: x.__imul__(2),
}
DICT_CHANGES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "setitem": lambda d: d.__setitem__("c", TrackedList()),
    "delitem": lambda d: d.__delitem__("a"),
    "pop": lambda d: d.pop("a"),
    "popitem": lambda d: d.popitem(),
    "clear": lambda d: d.clear(),
    "update": lambda d: d.update(c=TrackedList()),
    "setdefault": lambda d: d.setdefault("c", TrackedList()),
    "ior": lambda d: d.__ior__({"c": TrackedList()}),
}


@pytest.mark.parametrize("name", sorted(LIST_CHANGES))
def test_every_change_of_a_tracked_list_is_noted_once_with_what_it_held(name: str) -> None:
    items = TrackedList(["a", "b", "c"])
    LIST_CHANGES[name](items)  # no journal kept: nothing noted, the change made
    items[:] = ["a", "b", "c"]
    outer: Journal = []
    inner: Journal = []
    token = watch(outer)
    try:
        inner_token = watch(inner)  # an action resolving inside another: both journals note
        LIST_CHANGES[name](items)
        items.append("again")  # a second change: the first one's contents stay noted
        unwatch(inner_token)
    finally:
        unwatch(token)
    for journal in (outer, inner):
        assert changed(items, journal) and before(items, journal) == ["a", "b", "c"]
        assert len(journal) == 1 and type(before(items, journal)) is list
    assert not changed(TrackedList(["a"]), outer)


@pytest.mark.parametrize("name", sorted(DICT_CHANGES))
def test_every_change_of_a_tracked_dict_is_noted_and_says_whether_all_its_lists_are_tracked(name: str) -> None:
    a, b = TrackedList(["x"]), TrackedList(["y"])
    routes = TrackedDict(a=a, b=b)
    assert routes.tracked
    journal: Journal = []
    token = watch(journal)
    try:
        DICT_CHANGES[name](routes)
    finally:
        unwatch(token)
    assert before(routes, journal) == {"a": ["x"], "b": ["y"]} and before(routes, journal)["a"] is a
    assert routes.tracked
    routes["d"] = ["a plain list"]  # changes to it would go unseen: the dict says so
    assert not routes.tracked
    assert not TrackedDict(a=["plain"]).tracked


def test_tracked_values_are_written_copied_and_compared_as_plain_ones() -> None:
    """The same JSON, MessagePack and converter output as plain lists and dicts; copies and
    pickles keep the values; equality and ``repr`` are a list's and a dict's."""
    table = Table.new(players=3, seed=5)
    engine, game = table.engine, table.game
    plain = engine.copy(game)
    for _ in range(6):
        table.apply(engine.legal_actions(game, engine.awaiting(game)[0])[0])
        plain_action = engine.legal_actions(plain, engine.awaiting(plain)[0])[0]
        engine.apply(plain, plain_action, track_undo=False)  # (a copy's lists stay plain)
    assert type(game.board.hero_deck) is TrackedList and type(game.board.events) is TrackedDict
    assert type(plain.board.hero_deck) is list
    assert engine.dumps(game) == engine.dumps(engine.copy(game))
    serde = Serde()
    assert serde.pack(game) == serde.pack(engine.copy(game))
    unstructured = serde.unstructure(game.board)
    assert type(unstructured["hero_deck"]) is list and type(unstructured["events"]) is dict
    assert msgspec.json.encode(TrackedDict(a=TrackedList(["x"]))) == b'{"a":["x"]}'
    for twin in (copy.deepcopy(game.board), pickle.loads(pickle.dumps(game.board))):
        assert twin == game.board and type(twin.hero_deck) is TrackedList
    assert TrackedList(["a"]) == ["a"] and repr(TrackedList(["a"])) == "['a']"


EDITS: dict[str, tuple[Callable[[Ctx, int], None], bool]] = {
    # name: (what the plugin's decision does, whether something hidden changed)
    "nothing": (lambda ctx, seat: None, False),
    "deck popped and put back": (lambda ctx, seat: ctx.game.board.hero_deck.insert(0, ctx.game.board.hero_deck.pop(0)),
                                 False),
    "deck reversed twice": (lambda ctx, seat: [ctx.game.board.deed_deck.reverse() for _ in range(2)], False),
    "deck reversed": (lambda ctx, seat: ctx.game.board.hero_deck.reverse(), True),
    "deck replaced by an equal list": (lambda ctx, seat: setattr(ctx.game.board, "hero_deck",
                                                                 list(ctx.game.board.hero_deck)), False),
    "deck replaced by a reversed list": (lambda ctx, seat: setattr(ctx.game.board, "hero_deck",
                                                                   ctx.game.board.hero_deck[::-1]), True),
    "deck replaced, then the old one changed": (lambda ctx, seat: _replace_then_change(ctx), False),
    "event card swapped in place": (lambda ctx, seat: _swap(ctx.game.board.events["dark_road"]), True),
    "route removed and put back": (lambda ctx, seat: _reinsert(ctx.game.board.events, "dark_road"), True),
    "stack drawn and put back": (lambda ctx, seat: _put_back(ctx.game.board.commission_stacks), False),
    "another seat's deeds grown": (lambda ctx, seat: ctx.game.players[(seat + 1) % 3].deeds.append("d"), True),
    "the seat's own deeds grown": (lambda ctx, seat: ctx.game.players[seat].deeds.append("d"), False),
}


def _replace_then_change(ctx: Ctx) -> None:
    old = ctx.game.board.hero_deck
    ctx.game.board.hero_deck = list(old)
    old.clear()  # no longer the game's deck


def _swap(deck: list[str]) -> None:
    deck[0], deck[1] = deck[1], deck[0]


def _reinsert(routes: dict[str, list[str]], route: str) -> None:
    routes[route] = routes.pop(route)  # the same cards, the routes in another order


def _put_back(stacks: dict[str, list[str]]) -> None:
    town = next(iter(stacks))
    stacks[town].insert(0, stacks[town].pop(0))


class Edit(Choice):
    """A fan decision that edits hidden state in place as ``board.extra["tracked_test_edit"]`` says."""

    kind = "tracked_test_edit"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[tuple[str, str]]:
        return [("edit", "edit")]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        EDITS[ctx.game.board.extra["tracked_test_edit"]][0](ctx, seat)


class EditPlugin:
    @hookimpl
    def darkroad_steps(self) -> list[Any]:
        return [Edit()]


@pytest.mark.parametrize("name", sorted(EDITS))
def test_an_undo_stays_available_exactly_when_the_hidden_values_are_the_same(name: str) -> None:
    """Undo compares values, whatever the objects: an edit of a face-down deck, a route's
    events, a commission stack or another seat's deeds, in place or by replacing it, makes the
    action a checkpoint when the cards differ afterwards, and leaves it undoable when they are
    the same (put back, reversed twice, replaced by an equal list)."""
    table = Table.new(players=3, seed=1, plugins=[("tracked-test", EditPlugin())])
    engine, game = table.engine, table.game
    table.play(until=lambda t: t.decision == "great_bazaar")
    seat = game.active
    table.apply(engine.legal_actions(game, seat)[0])  # (the probe's lists are tracked from here on)
    game.board.extra["tracked_test_edit"] = name
    table.push("tracked_test_edit", seat)
    table.apply(engine.legal_actions(game, seat)[0])
    reason = engine.undo_refusal(game, seat)
    revealed = EDITS[name][1]
    assert (reason is not None) == revealed and (not revealed or "revealed hidden information" in reason)


def test_a_plain_list_set_by_hand_between_actions_is_tracked_from_the_next_action() -> None:
    """A deck replaced by hand (a test, a plugin between two actions) with a plain list: the next
    action's probe tracks an equal list in its place, and its changes are seen."""
    table = Table.new(players=3, seed=1, plugins=[("tracked-test", EditPlugin())])
    engine, game = table.engine, table.game
    table.play(until=lambda t: t.decision == "great_bazaar")
    seat = game.active
    game.board.hero_deck = list(game.board.hero_deck)
    game.board.events = {route: list(deck) for route, deck in game.board.events.items()}
    game.board.extra["tracked_test_edit"] = "event card swapped in place"
    table.push("tracked_test_edit", seat)
    table.apply(engine.legal_actions(game, seat)[0])
    assert "revealed hidden information" in (engine.undo_refusal(game, seat) or "")
    assert type(game.board.hero_deck) is TrackedList and type(game.board.events["shortcut"]) is TrackedList
