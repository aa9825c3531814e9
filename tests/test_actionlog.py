"""The action log (``core/actionlog.py``): its records, read and written as the API has always
stored them, the versions only the core numbers, and the one replay loop."""

from __future__ import annotations

import random
import warnings
from typing import Any

import msgspec
import pytest

from darkroad.core import Action, BadAction, Engine, Game, GameConfig, IllegalAction
from darkroad.core.actionlog import ActionLog, Answer, Record, ServiceRecord, Undo, Withdrawn, stamp

SEATS = "seat_change"


def log_of(engine: Engine) -> ActionLog:
    engine.log.register(SEATS)
    return engine.log


def test_records_are_written_as_the_api_stored_them_and_read_back(engine: Engine) -> None:
    """The stored form of each record is the one of version 1 of the API's store (an action
    encoded without its label; a change of seats as ``{"seat_change": ..., "seat": n,
    "events": k}``; the commit's time appended as ``"time"`` with 3 decimals)."""
    log = log_of(engine)
    records: list[Record] = [
        Answer(Action("plan", 1, "slot2:die1", "a label")),
        Withdrawn(0, "boom_ask", "explode"),
        Undo(2, 17),
        ServiceRecord(SEATS, "joined", 1, 2),
    ]
    expected = [
        engine.encode(Action("plan", 1, "slot2:die1")),
        engine.encode(Action("withdrawn", 0, "boom_ask:explode")),
        engine.encode(Action("undo", 2, "17")),
        msgspec.json.encode({"seat_change": "joined", "seat": 1, "events": 2}),
    ]
    assert [r.encode() for r in records] == expected
    for record, raw in zip(records, expected, strict=True):
        # Read back, the same record (an answer without the label, which is not stored).
        assert log.read(raw) == (Answer(Action("plan", 1, "slot2:die1")) if isinstance(record, Answer) else record)
        timed = stamp(raw, 1700000000.25)
        assert timed == raw[:-1] + b',"time":1700000000.250}'
        assert stamp(timed, 5.0) == timed  # stamped once
        read = log.read(timed)
        assert read.time == 1700000000.25 and read.encode() == timed
        assert log.read(raw).encode() == raw and log.read(msgspec.json.decode(raw)).encode() == raw
    assert log.read(Action("undo", 2, "17")) == Undo(2, 17)
    assert log.read(Action("withdrawn", 0, "boom_ask:explode")) == Withdrawn(0, "boom_ask", "explode")


@pytest.mark.parametrize("bad", [
    b"[1]", b"{", {"type": "plan", "seat": 0}, {"seat_change": "joined", "seat": "1", "events": 0},
    {"type": "plan", "seat": 0, "option": "x", "time": "noon"}, {"type": "undo", "seat": 0, "option": "back"},
    {"other_service": "x", "seat": 0, "events": 0},
])
def test_what_is_no_record_is_refused(engine: Engine, bad: Any) -> None:
    with pytest.raises(BadAction):
        log_of(engine).read(bad)


def test_a_kind_of_record_may_not_be_a_field_of_one(engine: Engine) -> None:
    with pytest.raises(ValueError, match="field"):
        engine.log.register("option")
    with pytest.raises(ValueError, match="registered"):
        engine.log.record(engine.create(GameConfig(players=2, seed=1))[0], "nobody_registered", "x", 0)


def played_with_everything(engine: Engine, seed: int) -> tuple[Game, GameConfig, list[Record]]:
    """A random 3-player game with changes of seats (made by the log), undos and answers, and
    its log, as a service keeps it."""
    log = log_of(engine)
    config = GameConfig(players=3, seed=seed, random_buildings=True)
    game, _ = engine.create(config)
    r = random.Random(seed)
    records: list[Record] = []
    undos = changes = 0
    while not game.finished and game.version < 300:
        seat = r.choice(engine.awaiting(game))
        if r.random() < 0.05:
            made, events = log.record(game, SEATS, "joined", seat, [("seat_joined", seat, {"name": "Ann"})] * 2)
            assert [e.n for e in events] == [game.events - 2, game.events - 1]
            records.append(made)
            changes += 1
        elif engine.undo_refusal(game, seat) is None and r.random() < 0.3:
            game, undo, _ = engine.undo(game, seat, [r.encode() for r in records])
            records.append(log.read(undo))
            undos += 1
        else:
            action = r.choice(engine.legal_actions(game, seat))
            engine.apply(game, action)
            records.append(Answer(action))
    assert undos and changes
    return game, config, records


@pytest.fixture(scope="module")
def played(engine: Engine) -> tuple[Game, GameConfig, list[Record]]:
    """:func:`played_with_everything` of seed 3, once for the module's three tests that replay a
    log (each played a game of its own before, seeds 3, 5 and 7). They only read
    it: replays make games of their own, and a changed list is a new list."""
    return played_with_everything(engine, 3)


PLAYED = pytest.mark.xdist_group("actionlog-played")
"""The tests of :func:`played` on one worker under ``--dist loadgroup`` (a module fixture is made
once per worker that runs one of its tests)."""


@PLAYED
def test_a_log_replays_to_its_game_with_the_versions_counted_by_the_core(
        engine: Engine, played: tuple[Game, GameConfig, list[Record]]) -> None:
    game, config, records = played
    assert game.version == len(records)  # one version per record: the log numbered them all
    raw = [stamp(r.encode(), 1.5 * n) for n, r in enumerate(records)]
    assert engine.dumps(engine.replay(config, raw)) == engine.dumps(game)
    assert engine.dumps(engine.replay(config, records)) == engine.dumps(game)
    # From an earlier version of the same log, with the versions told and the earlier
    # positions given (as a history that keeps every version does).
    states = [engine.pack(engine.replay(config, []))]
    seen: list[int] = []

    def each(at: Game, record: Record, events: list[Any]) -> None:
        seen.append(at.version)
        states.append(engine.pack(at))
        assert events == [] or not isinstance(record, ServiceRecord)

    start = engine.log.replay(engine.loads(states[0]), records[:40], each=each)
    again = engine.log.replay(start, records[40:], each=each, earlier=lambda k: engine.loads(states[k]))
    assert seen == list(range(1, len(records) + 1))
    assert engine.dumps(again) == engine.dumps(game)


@PLAYED
def test_a_record_that_does_not_apply_is_refused(engine: Engine, played: tuple[Game, GameConfig, list[Record]]) -> None:
    game, config, records = played
    undo = next(i for i, r in enumerate(records) if isinstance(r, Undo))
    wrong = records[:undo] + [Undo(records[undo].seat, records[undo].restores + 1)]  # type: ignore[union-attr]
    with pytest.raises(IllegalAction):
        engine.replay(config, wrong)
    before = engine.replay(config, records[:undo])
    with pytest.raises(IllegalAction, match="earlier versions"):  # an undo needs the positions it returns to
        engine.log.apply(before, records[undo])
    answer = next(r for r in records if isinstance(r, Answer))
    with pytest.raises(IllegalAction):
        engine.replay(config, [answer, answer])


@PLAYED
def test_the_other_callback_still_replays_but_is_deprecated(
        engine: Engine, played: tuple[Game, GameConfig, list[Record]]) -> None:
    game, config, records = played
    raw = [msgspec.json.decode(r.encode()) for r in records]
    fresh = Engine.load()  # no kind registered: the callback applies the changes of seats

    def other(at: Game, record: dict[str, Any]) -> bool:
        if SEATS not in record:
            return False
        at.version += 1
        at.events += record["events"]
        return True

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = fresh.replay(config, raw, other=other)
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    assert fresh.dumps(again) == engine.dumps(game)
    with pytest.raises(BadAction):
        fresh.replay(config, raw)
